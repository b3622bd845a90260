import AetherBase

/// A Blu-ray disc (an image, a folder holding `BDMV`, or `BDMV` itself), decrypted: its titles
/// (``BlurayInfo``: the playlists worth playing) and each title's bytes, its play items' parts
/// of their clips' `.m2ts` files joined (``BlurayClip/byteRange(inTime:outTime:length:)``), as
/// one MPEG transport stream of 192-byte source packets.
public final class BlurayDisc: PlayableDisc {
    public let files: DiscFiles
    public let info: BlurayInfo
    private var clips: [String: BlurayClip?] = [:]

    /// The disc at `path`; nil when `path` is not one (no `BDMV/index.bdmv`) or no playlist could be read.
    public static func open(_ path: String) -> BlurayDisc? {
        if case .bluray(let disc) = Disc.open(path) { return disc }
        return nil
    }

    /// The Blu-ray of `files` (a Blu-ray's, ``DiscKind/bluray``); nil when it has no title.
    static func open(_ files: DiscFiles) -> BlurayDisc? {
        guard files.kind == .bluray else { return nil }
        let names = files.files.keys.filter { $0.hasPrefix("PLAYLIST/") && $0.hasSuffix(".MPLS") }.map { String($0.dropFirst(9)) }
        let info = BlurayInfo.parse(names: names) { files.read("PLAYLIST/" + $0, limit: BlurayInfo.maxPlaylistBytes) }
        if info.leftOut > 0 { AppLog.write("disc", "\(TextSanitizer.clean(files.label)): \(info.leftOut) playlists, items or marks left out") }
        guard !info.titles.isEmpty else { return nil }
        return BlurayDisc(files: files, info: info)
    }

    private init(files: DiscFiles, info: BlurayInfo) {
        self.files = files
        self.info = info
    }

    public var titles: [BlurayPlaylist] { info.titles }
    public var mainTitle: BlurayPlaylist? { info.mainTitle }

    public func discTitle(_ p: BlurayPlaylist) -> DiscTitle {
        DiscTitle(number: p.number, duration: p.duration, chapters: p.chapters, languages: p.languages, playlist: p.name)
    }

    /// The clip's information (its entry-point map), read once; nil when it cannot be read.
    public func clip(_ name: String) -> BlurayClip? {
        if let known = clips[name] { return known }
        let read = files.read("CLIPINF/" + name + ".CLPI", limit: BlurayInfo.maxClipBytes).flatMap(BlurayClip.parse)
        clips[name] = read
        return read
    }

    /// The playlist's bytes: each play item's part of its clip's `.m2ts` (the whole clip when
    /// its information cannot be read: one line), its timestamps moved so that the item starts
    /// where the items before it end (its in-time onto the first item's, plus their lengths).
    public func plan(of playlist: BlurayPlaylist) -> DiscBytesPlan {
        var pieces: [DiscBytesPlan.Piece] = []
        guard let origin = playlist.items.first?.inTime else { return DiscBytesPlan(pieces: [], packing: .transportStream) }
        var elapsed: Int64 = 0
        for item in playlist.items {
            defer { elapsed += item.outTime - item.inTime }
            guard let file = files.files["STREAM/" + item.clip + ".M2TS"] else {
                AppLog.write("disc", "playlist \(playlist.name): clip \(item.clip) has no stream file; left out")
                continue
            }
            let length = file.byteCount
            let range: Range<Int64>
            if let clip = clip(item.clip) {
                range = clip.byteRange(inTime: item.inTime, outTime: item.outTime, length: length)
            } else {
                AppLog.write("disc", "clip \(item.clip): its information cannot be read; the whole clip plays")
                range = 0..<length
            }
            pieces.append(DiscBytesPlan.Piece(extents: file.slice(range), shift: (origin + elapsed - item.inTime) * 2, name: "clip \(item.clip)"))
        }
        return DiscBytesPlan(pieces: pieces, packing: .transportStream)
    }
}
