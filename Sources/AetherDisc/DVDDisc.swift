import AetherBase

/// A DVD-Video disc (an ISO 9660 image, a folder holding `VIDEO_TS`, or `VIDEO_TS` itself): its
/// titles (``DVDInfo``) and each title's bytes, its cells' sectors of the title set's VOB files
/// joined, as one MPEG program stream.
public final class DVDDisc: PlayableDisc {
    public let files: DiscFiles
    public let info: DVDInfo

    /// The disc at `path`; nil when `path` is not one (no `VIDEO_TS.IFO`), or no title could be read.
    public static func open(_ path: String) -> DVDDisc? {
        if case .dvd(let disc) = Disc.open(path) { return disc }
        return nil
    }

    /// The DVD of `files` (a DVD's, ``DiscKind/dvd``); nil when no title could be read.
    static func open(_ files: DiscFiles) -> DVDDisc? {
        guard files.kind == .dvd,
              let vmg = files.read("VIDEO_TS.IFO", limit: DVDInfo.maxIFOBytes) ?? files.read("VIDEO_TS.BUP", limit: DVDInfo.maxIFOBytes)
        else { return nil }
        let info = DVDInfo.parse(vmg: vmg) { n in
            let name = "VTS_" + (n < 10 ? "0" : "") + String(n) + "_0"
            return files.read(name + ".IFO", limit: DVDInfo.maxIFOBytes) ?? files.read(name + ".BUP", limit: DVDInfo.maxIFOBytes)
        }
        if info.leftOut > 0 { AppLog.write("disc", "\(TextSanitizer.clean(files.label)): \(info.leftOut) titles, chains or cells left out") }
        guard !info.titles.isEmpty else { return nil }
        return DVDDisc(files: files, info: info)
    }

    private init(files: DiscFiles, info: DVDInfo) {
        self.files = files
        self.info = info
    }

    public var titles: [DVDTitle] { info.titles }
    public var mainTitle: DVDTitle? { info.mainTitle }

    /// The title's bytes cell by cell (in the title's order): each cell's sectors, sliced out of
    /// the title set's VOBs (`VTS_nn_1.VOB` … `VTS_nn_9.VOB`, one run of sectors). A cell past
    /// their end is cut there.
    public func cellExtents(of title: DVDTitle) -> [[DiscExtent]] {
        let prefix = "VTS_" + (title.titleSet < 10 ? "0" : "") + String(title.titleSet) + "_"
        let vobs = (1...9).flatMap { files.files[prefix + String($0) + ".VOB"] ?? [] }
        return title.cells.map { cell in
            let from = Int64(cell.first) * 2048
            return vobs.slice(from..<max(from, (Int64(cell.last) + 1) * 2048))
        }
    }

    /// The title as a player offers it: its streams' languages by program stream id (audio
    /// `0x80…` AC-3, `0x88…` DTS, `0xA0…` LPCM, `0xC0…` MPEG; subpictures `0x20…`).
    public func discTitle(_ t: DVDTitle) -> DiscTitle {
        var languages: [Int: String] = [:]
        for (n, language) in t.audioLanguages.enumerated() {
            guard let language else { continue }
            for base in [0x80, 0x88, 0xA0, 0xC0, 0x1C0] { languages[base + n] = language }
        }
        for (n, language) in t.subtitleLanguages.enumerated() { if let language { languages[0x20 + n] = language } }
        return DiscTitle(number: t.number, duration: t.duration, chapters: t.chapters, languages: languages, playlist: nil)
    }

    /// The title's bytes (``cellExtents(of:)``), a cell whose clock starts again moved: one whose
    /// first VOBU starts more than half a second away from where the IFO's cell times put it on
    /// the title's timeline; the first cell's clock is the timeline's.
    public func plan(of title: DVDTitle) -> DiscBytesPlan {
        let cells = cellExtents(of: title)
        var pieces: [DiscBytesPlan.Piece] = []
        var base: Int64?
        var start = 0.0
        for (k, extents) in cells.enumerated() {
            var shift: Int64 = 0
            if let first = extents.first, let vobu = ProgramStreamRetimer.vobuStart(files.read(first, at: 0, count: 2048)[...]) {
                let origin = base ?? vobu
                base = origin
                let wanted = origin + Int64((start * 90_000).rounded())
                if abs(wanted - vobu) > 45_000 { shift = wanted - vobu }
            }
            if shift != 0 { AppLog.write("disc", "title \(title.number), cell \(k + 1): its clock starts again; moved \(String(cFormat: "%+.3f", Double(shift) / 90_000)) s") }
            pieces.append(DiscBytesPlan.Piece(extents: extents, shift: shift, name: "cell \(k + 1)"))
            start += title.cells.indices.contains(k) ? title.cells[k].duration : 0
        }
        return DiscBytesPlan(pieces: pieces, packing: .programStream)
    }
}
