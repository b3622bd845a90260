import AetherMedia
import AetherStreaming
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Makes a ``DownloadPlan`` from what a source offers, whatever its format: video variants
/// (``StreamVariant``: an HLS master's `EXT-X-STREAM-INF`s, a DASH manifest's video
/// representations) and audio and subtitle renditions (``MediaRendition``: `EXT-X-MEDIA`, DASH
/// audio and text adaptation sets). The choice is the same for both: the variant
/// `--hls-bitrate`/`--video-range` choose (``VariantChooser``), then from that variant's groups
/// the audio and subtitle renditions `--alang`/`--slang` choose (``pick(_:languages:fallbackToFirst:)``).
/// Each format only says how a chosen variant or rendition becomes a track's segments
/// (``HLSDownloadPlanner`` reads its media playlist, ``DASHDownloadPlanner`` lists its
/// representation's segments).
///
/// ``plan(url:request:fetch:)`` reads the source and hands it to the planner of its format.
public enum DownloadPlanner {
    /// Renditions of one kind kept at most.
    public static let maxRenditions = 16

    /// Reads `url` (through `fetch`: the downloader's network reader, or memory in tests and the
    /// fuzzer) and plans it: an HLS playlist (`#EXTM3U`) or a DASH manifest (XML), by its first
    /// bytes. `fetch` returns a resource's bytes, only the given range of them when there is one
    /// (a DASH `SegmentBase` index).
    public static func plan(url: String, request: DownloadRequest,
                            fetch: (String, HLSMediaPlaylist.ByteRange?) throws(DownloadError) -> [UInt8]) throws(DownloadError) -> DownloadPlan {
        let text = String(decoding: try fetch(url, nil), as: UTF8.self)
        let start = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        if start.hasPrefix("#EXTM3U") {
            return try HLSDownloadPlanner.plan(url: url, text: text, request: request) { (u: String) throws(DownloadError) -> String in
                String(decoding: try fetch(u, nil), as: UTF8.self)
            }
        }
        if start.hasPrefix("<") {
            return try DASHDownloadPlanner.plan(url: url, text: text, request: request, fetch: fetch)
        }
        throw DownloadError("neither an HLS playlist nor a DASH manifest (only HLS and DASH sources can be downloaded)")
    }

    /// The plan of `source`: the variant `request` chooses from `variants` and, from the
    /// renditions of its `audioGroup` and `subtitleGroup`, the ones its language lists choose
    /// (renditions without a `uri` are carried in the variant's own segments: none chosen, the
    /// video track keeps its muxed sound). With no variant at all (a DASH manifest of sound
    /// only), the renditions of every group, and no video track. `track` makes a chosen
    /// variant's or rendition's track from its `uri` (kind, uri, the bits per second to expect):
    /// one, or more when its media needs several init sections (the later ones
    /// ``DownloadTrack/continues``); the name, language and default flag are set here.
    static func plan(source: String, variants: [StreamVariant], renditions: [MediaRendition], request: DownloadRequest,
                     track: (DownloadTrack.Kind, String, Int) throws(DownloadError) -> [DownloadTrack]) throws(DownloadError) -> DownloadPlan {
        let chosen = VariantChooser.choose(variants, preference: request.preference, range: request.range)
        let variant = chosen.map { variants[$0] }
        let audioGroup = renditions.filter { $0.type == "AUDIO" && (variant == nil || $0.groupID == variant?.audioGroup) }
        let audio = pick(audioGroup, languages: request.audioLanguages, fallbackToFirst: true).filter { $0.uri != nil }
        var tracks: [DownloadTrack] = []
        if let variant {
            guard let videoURI = variant.uri else { throw DownloadError("the source's variant has no URI") }
            for var video in try track(.video, videoURI, variant.bandwidth) {
                video.keepsMuxedAudio = audio.isEmpty
                tracks.append(video)
            }
        } else if audio.isEmpty {
            throw DownloadError("the source has no video variant and no audio")
        }
        func add(_ kind: DownloadTrack.Kind, _ r: MediaRendition, bitrate: Int) throws(DownloadError) {
            guard let uri = r.uri else { return }
            for var t in try track(kind, uri, bitrate) {
                t.name = r.name
                t.language = r.language
                t.isDefault = r.isDefault
                tracks.append(t)
            }
        }
        for r in audio.prefix(maxRenditions) { try add(.audio, r, bitrate: 128_000) }
        let subtitleGroup = renditions.filter { $0.type == "SUBTITLES" && (variant == nil || $0.groupID == variant?.subtitleGroup) && $0.uri != nil }
        var notes: [String] = []
        for r in pick(subtitleGroup, languages: request.subtitleLanguages, fallbackToFirst: false).prefix(maxRenditions) {
            // Text the download cannot join (TTML or WebVTT in MP4 segments, by their names): left
            // out with a line, before a byte of it is fetched; the rest is written.
            let before = tracks.count
            try add(.subtitle, r, bitrate: 1000)
            if let name = tracks.count > before ? tracks[before].segments.first?.uri : nil, !Self.mayBeWebVTT(name) {
                tracks.removeSubrange(before...)
                notes.append("subtitles\(r.language.map { " in '\(TextSanitizer.clean($0))'" } ?? "") left out: its segments are not WebVTT "
                             + "('\(TextSanitizer.clean(String((URLComponents(string: name)?.path ?? name).split(separator: "/").last ?? "")))'; only WebVTT text can be downloaded)")
            }
        }
        var plan = DownloadPlan(source: source, tracks: tracks)
        plan.notes = notes
        return plan
    }

    /// Whether a subtitle segment named `uri` may be WebVTT: not one named as an MP4 fragment
    /// or a TTML document (`.mp4`, `.m4s`, `.cmft`, `.m4f`, `.ttml`, `.dfxp`, `.xml`).
    static func mayBeWebVTT(_ uri: String) -> Bool {
        let path = (URLComponents(string: uri)?.path ?? uri).lowercased()
        return ![".mp4", ".m4s", ".cmft", ".m4f", ".ttml", ".dfxp", ".xml"].contains { path.hasSuffix($0) }
    }

    /// The renditions `languages` chooses: those in any listed language, in the list's order;
    /// `all` keeps every one, `no` none. With no list: the default ones, else (audio) the
    /// first. A list that matches nothing falls back the same way.
    static func pick(_ renditions: [MediaRendition], languages: [String], fallbackToFirst: Bool) -> [MediaRendition] {
        let wanted = languages.map { $0.lowercased() }
        if wanted.contains("no") { return [] }
        if wanted.contains("all") { return renditions }
        var chosen: [MediaRendition] = []
        for language in wanted.map(LanguagePreference.canonical) where !language.isEmpty {
            for r in renditions where r.language.map(LanguagePreference.canonical) == language && !chosen.contains(r) {
                chosen.append(r)
            }
        }
        if !chosen.isEmpty { return chosen }
        let defaults = renditions.filter(\.isDefault)
        if !defaults.isEmpty { return fallbackToFirst ? [defaults[0]] : defaults }
        return fallbackToFirst ? Array(renditions.prefix(1)) : []
    }

    /// Only http and https: a remote playlist or manifest naming `file:`, a local path, or any
    /// other protocol is refused (as the player's network rules refuse it).
    /// The URI must also be a whole URL with a host (`http:/h/x`, what a name no URL parser
    /// takes becomes when joined to its playlist's as a path, is refused).
    static func allowed(_ uri: String) throws(DownloadError) {
        let scheme = NetworkSettings.scheme(of: uri)
        guard scheme == "http" || scheme == "https" else {
            throw DownloadError("refused '\(TextSanitizer.clean(uri))' named by a remote playlist (only http and https are allowed)")
        }
        guard uri.lowercased().hasPrefix("\(scheme ?? "")://"), let host = URLComponents(string: uri)?.host, !host.isEmpty else {
            throw DownloadError("'\(TextSanitizer.clean(uri))' named by a playlist is not a URL")
        }
    }
}
