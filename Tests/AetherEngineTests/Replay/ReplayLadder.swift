import AetherBase
import AetherTestSupport
@testable import AetherStreaming
import Foundation

/// A fixture ladder of `Tests/Fixtures/out/net` (make-network-fixtures.sh) opened as the player
/// opens it, for ``ABRReplay``: the start variant `auto` picks, the ladder around it, the
/// anchor's playlist (HLS byte ranges named in its URLs), the places on its timeline with the
/// audio rendition's segment beside each, and every URL's size from the files.
struct ReplayLadder {
    /// The URLs the fixtures are served under.
    static let base = "http://fixtures.example/"
    static var root: String { (TestEnvironment.fixture("net/progressive.mp4") as NSString).deletingLastPathComponent }

    var variants: [StreamVariant]
    var ladder: [Int]
    var anchor: Int
    var anchorPlaylist: HLSMediaPlaylist
    var places: [ABRReplay.Place]
    /// Every rung's media playlist (for checks; the switcher reads them through its loader).
    var playlists: [HLSMediaPlaylist]
    var dash: DASHPlaylists?
    /// A live stream played out on the replay's clock (its playlists read at the clock's time).
    var live: ReplayLiveStream?
    var policy = AdaptivePolicy()

    /// The fixture file behind `url` (a fragment dropped).
    static func path(_ url: String) -> String {
        root + "/" + String(url.dropFirst(base.count).split(separator: "#", maxSplits: 1).first ?? "")
    }

    static func text(_ url: String) -> String? { try? String(contentsOfFile: path(url), encoding: .utf8) }

    static func bytes(_ url: String, _ offset: Int64, _ length: Int64) -> [UInt8]? {
        guard let h = FileHandle(forReadingAtPath: path(url)) else { return nil }
        defer { try? h.close() }
        try? h.seek(toOffset: UInt64(offset))
        return (try? h.read(upToCount: Int(length))).map { Array($0) }
    }

    static func fileSize(_ url: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path(url)))?[.size] as? Int) ?? 0
    }

    /// Bytes of a download of `url` (`range`: its length). A translated DASH line is its
    /// fragment (the file's range), as `NetworkSession` fetches it.
    func size(_ url: String, _ range: HLSMediaPlaylist.ByteRange?) -> Int {
        if let range { return range.length }
        if let fetch = dash?.fetches[url] {
            return fetch.segment.range.map { Int($0.length) } ?? Self.fileSize(fetch.segment.url)
        }
        return Self.fileSize(url)
    }

    /// The switcher the player makes for this ladder, on `clock`.
    func switcher(_ clock: TimeSource) -> AdaptiveSwitcher {
        let rung = ladder.firstIndex(of: anchor)!
        if let dash {
            return AdaptiveSwitcher(variants: variants, ladder: ladder, anchor: rung, anchorPlaylist: anchorPlaylist, policy: policy,
                                    localLoader: true, clock: clock) { dash.documents[$0] }
        }
        if let live {
            return AdaptiveSwitcher(variants: variants, ladder: ladder, anchor: rung, anchorPlaylist: anchorPlaylist, policy: policy,
                                    servesRanges: true, clock: clock) { live.read($0, at: clock.seconds) }
        }
        return AdaptiveSwitcher(variants: variants, ladder: ladder, anchor: rung, anchorPlaylist: anchorPlaylist, policy: policy,
                                servesRanges: true, clock: clock) { Self.text($0) }
    }

    /// A replay of this ladder on `link`.
    func replay(_ link: ABRReplay.Link) -> ABRReplay {
        ABRReplay(link: link, size: size, makeSwitcher: switcher)
    }

    struct Missing: Error { var what: String }

    /// An HLS master (`dir/master.m3u8`), its rendition of `language` played beside the video.
    static func hls(_ dir: String, language: String? = nil) throws -> ReplayLadder {
        let url = base + dir + "/master.m3u8"
        guard let master = text(url).flatMap({ HLSMasterPlaylist.parse($0, base: url) }),
              let anchor = VariantChooser.choose(master.variants, preference: .auto, range: .auto) else { throw Missing(what: url) }
        let ladder = VariantChooser.ladder(master.variants, anchor: anchor, limit: AdaptivePolicy().maxRungs)
        let playlists = try ladder.map { i -> HLSMediaPlaylist in
            guard let uri = master.variants[i].uri, let t = text(uri) else { throw Missing(what: "variant \(i)") }
            return try HLSMediaPlaylist.parse(t, base: uri)
        }
        let uri = master.variants[anchor].uri!
        let anchorText = text(uri)!
        let anchorPlaylist = try HLSMediaPlaylist.parse(HLSMediaPlaylist.rangesAsURLs(anchorText, base: uri) ?? anchorText, base: uri)
        var audio: [String] = []
        if let language {
            guard let r = master.renditions.first(where: { $0.type == "AUDIO" && $0.language == language }), let a = r.uri, let t = text(a) else {
                throw Missing(what: "rendition \(language)")
            }
            audio = try HLSMediaPlaylist.parse(t, base: a).segments.map(\.uri)
        }
        let places = anchorPlaylist.segments.enumerated().map { k, s in
            ABRReplay.Place(anchor: s.uri, duration: s.duration, beside: audio.indices.contains(k) ? [audio[k]] : [])
        }
        return ReplayLadder(variants: master.variants, ladder: ladder, anchor: anchor, anchorPlaylist: anchorPlaylist, places: places,
                            playlists: playlists)
    }

    /// A static DASH manifest translated as the player translates it, its audio set beside the video.
    static func dash(_ file: String) throws -> ReplayLadder {
        let url = base + file
        guard let t = text(url) else { throw Missing(what: url) }
        var m = try DASHManifest.parse(t, base: url)
        try m.resolveIndexes { r in
            r.range.map { bytes(r.url, $0.offset, $0.length) } ?? (try? Data(contentsOf: URL(fileURLWithPath: path(r.url)))).map { Array($0) }
        }
        let p = try DASHPlaylists.make(m, url: url, preference: .auto, range: .auto, audioLanguages: [])
        guard let anchor = p.chosen, let uri = p.variants[anchor].uri, let anchorPlaylist = p.mediaPlaylists[uri] else { throw Missing(what: "video") }
        let ladder = VariantChooser.ladder(p.variants, anchor: anchor, limit: AdaptivePolicy().maxRungs)
        let audio = p.renditions.first?.uri.flatMap { p.mediaPlaylists[$0] }?.segments.map(\.uri) ?? []
        let places = anchorPlaylist.segments.enumerated().map { k, s in
            ABRReplay.Place(anchor: s.uri, duration: s.duration, beside: audio.indices.contains(k) ? [audio[k]] : [])
        }
        return ReplayLadder(variants: p.variants, ladder: ladder, anchor: anchor, anchorPlaylist: anchorPlaylist, places: places,
                            playlists: ladder.compactMap { p.variants[$0].uri.flatMap { p.mediaPlaylists[$0] } }, dash: p)
    }
}
