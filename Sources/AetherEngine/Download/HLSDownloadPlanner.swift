import Foundation

/// Turns an HLS source (a master playlist, or one media playlist) into a ``DownloadPlan``: the
/// variant `--hls-bitrate`/`--video-range` choose, the audio and subtitle renditions
/// `--alang`/`--slang` choose from that variant's groups, each media playlist's segments with
/// their keys. Reads playlists through `fetch` (the downloader's network reader), so it can be
/// driven from memory by tests and the fuzzer.
///
/// Refuses (one line): a URI in any playlist whose protocol is not http or https (a remote
/// playlist must not name local files), a live playlist, an unreadable byte range, a key method
/// other than AES-128, a key without a URI or with a malformed IV, an empty playlist.
public enum HLSDownloadPlanner {
    /// Renditions of one kind kept at most.
    public static let maxRenditions = 16

    public static func plan(url: String, request: DownloadRequest,
                            fetch: (String) throws(DownloadError) -> String) throws(DownloadError) -> DownloadPlan {
        let text = try fetch(url)
        guard text.drop(while: { $0 == "\u{FEFF}" || $0.isWhitespace }).hasPrefix("#EXTM3U") else {
            throw DownloadError("not an HLS playlist (only HLS sources can be downloaded)")
        }
        if let master = HLSMasterPlaylist.parse(text, base: url) {
            return try plan(master: master, url: url, request: request, fetch: fetch)
        }
        let media = try mediaPlaylist(text, url: url)
        return DownloadPlan(source: url, tracks: [track(.video, media, bitrate: 0, keepsMuxedAudio: true)])
    }

    static func plan(master: HLSMasterPlaylist, url: String, request: DownloadRequest,
                     fetch: (String) throws(DownloadError) -> String) throws(DownloadError) -> DownloadPlan {
        for variant in master.variants { try allowed(variant.uri ?? "") }
        for rendition in master.renditions { if let uri = rendition.uri { try allowed(uri) } }
        guard let chosen = VariantChooser.choose(master.variants, preference: request.preference, range: request.range),
              let videoURI = master.variants[chosen].uri else { throw DownloadError("the master playlist has no variant") }
        let variant = master.variants[chosen]

        let audioGroup = master.renditions.filter { $0.type == "AUDIO" && $0.groupID == variant.audioGroup }
        let audio = pick(audioGroup, languages: request.audioLanguages, fallbackToFirst: true)
        let separateAudio = audio.filter { $0.uri != nil }
        var video = track(.video, try mediaPlaylist(fetch(videoURI), url: videoURI), bitrate: variant.bandwidth,
                          keepsMuxedAudio: separateAudio.isEmpty)
        video.name = nil
        var tracks = [video]
        // A rendition's own playlist as a track, with its name, language and default flag.
        func rendition(_ kind: DownloadTrack.Kind, _ r: MediaRendition, bitrate: Int) throws(DownloadError) {
            guard let uri = r.uri else { return }
            var t = track(kind, try mediaPlaylist(fetch(uri), url: uri), bitrate: bitrate, keepsMuxedAudio: false)
            t.name = r.name
            t.language = r.language
            t.isDefault = r.isDefault
            tracks.append(t)
        }
        for r in separateAudio.prefix(maxRenditions) { try rendition(.audio, r, bitrate: 128_000) }
        let subtitleGroup = master.renditions.filter { $0.type == "SUBTITLES" && $0.groupID == variant.subtitleGroup && $0.uri != nil }
        for r in pick(subtitleGroup, languages: request.subtitleLanguages, fallbackToFirst: false).prefix(maxRenditions) {
            try rendition(.subtitle, r, bitrate: 1000)
        }
        return DownloadPlan(source: url, tracks: tracks)
    }

    /// The renditions `languages` chooses: those in any listed language, in the list's order;
    /// `all` keeps every one, `no` none. With no list: the `DEFAULT=YES` ones, else (audio) the
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

    /// Only http and https: a remote playlist naming `file:`, a local path, or any other
    /// protocol is refused (as the player's network rules refuse it).
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

    static func mediaPlaylist(_ text: String, url: String) throws(DownloadError) -> HLSMediaPlaylist {
        let playlist: HLSMediaPlaylist
        do { playlist = try HLSMediaPlaylist.parse(text, base: url) } catch {
            throw DownloadError("\(TextSanitizer.clean(url)): \(error.message)")
        }
        let name = TextSanitizer.clean(url)
        guard !playlist.segments.isEmpty else { throw DownloadError("\(name): the playlist lists no segment") }
        guard playlist.isEnded else { throw DownloadError("\(name): a live playlist (no EXT-X-ENDLIST) cannot be downloaded") }
        guard !playlist.hasBadByteRange else { throw DownloadError("\(name): an EXT-X-BYTERANGE that is not length[@offset] with a known offset") }
        if let map = playlist.initSection { try allowed(map) }
        for segment in playlist.segments {
            try allowed(segment.uri)
            guard let key = segment.key else { continue }
            guard key.method == "AES-128" else {
                throw DownloadError("\(name): encryption method '\(TextSanitizer.clean(key.method))' is not supported (AES-128 is)")
            }
            guard let keyURI = key.uri else { throw DownloadError("\(name): an EXT-X-KEY without a URI") }
            try allowed(keyURI)
            guard !key.badIV else { throw DownloadError("\(name): an EXT-X-KEY IV that is not 0x and 32 hex digits") }
        }
        return playlist
    }

    static func track(_ kind: DownloadTrack.Kind, _ playlist: HLSMediaPlaylist, bitrate: Int, keepsMuxedAudio: Bool) -> DownloadTrack {
        var t = DownloadTrack(kind: kind, bitrate: bitrate, segments: playlist.segments.map {
            DownloadSegment(uri: $0.uri, duration: $0.duration, sequence: $0.sequence, key: $0.key, byteRange: $0.byteRange)
        })
        t.keepsMuxedAudio = keepsMuxedAudio
        t.initSection = playlist.initSection
        t.initRange = playlist.initRange
        return t
    }
}
