import AetherMedia
import AetherStreaming
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
    /// Reads `url` and plans it (an HLS playlist only).
    public static func plan(url: String, request: DownloadRequest,
                            fetch: (String) throws(DownloadError) -> String) throws(DownloadError) -> DownloadPlan {
        let text = try fetch(url)
        guard text.drop(while: { $0 == "\u{FEFF}" || $0.isWhitespace }).hasPrefix("#EXTM3U") else {
            throw DownloadError("not an HLS playlist (only HLS and DASH sources can be downloaded)")
        }
        return try plan(url: url, text: text, request: request, fetch: fetch)
    }

    /// Plans the playlist `text` read from `url`: a master (``DownloadPlanner`` chooses from its
    /// variants and renditions) or one media playlist (its segments carry the sound).
    static func plan(url: String, text: String, request: DownloadRequest,
                     fetch: (String) throws(DownloadError) -> String) throws(DownloadError) -> DownloadPlan {
        guard let master = HLSMasterPlaylist.parse(text, base: url) else {
            return DownloadPlan(source: url, tracks: tracks(.video, try mediaPlaylist(text, url: url), bitrate: 0))
        }
        for variant in master.variants { try DownloadPlanner.allowed(variant.uri ?? "") }
        for rendition in master.renditions { if let uri = rendition.uri { try DownloadPlanner.allowed(uri) } }
        return try DownloadPlanner.plan(source: url, variants: master.variants, renditions: master.renditions, request: request) {
            (kind: DownloadTrack.Kind, uri: String, bitrate: Int) throws(DownloadError) -> [DownloadTrack] in
            tracks(kind, try mediaPlaylist(fetch(uri), url: uri), bitrate: bitrate)
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
        if let map = playlist.initSection { try DownloadPlanner.allowed(map) }
        for segment in playlist.segments {
            try DownloadPlanner.allowed(segment.uri)
            guard let key = segment.key else { continue }
            guard key.method == "AES-128" else {
                throw DownloadError("\(name): encryption method '\(TextSanitizer.clean(key.method))' is not supported (AES-128 is)")
            }
            guard let keyURI = key.uri else { throw DownloadError("\(name): an EXT-X-KEY without a URI") }
            try DownloadPlanner.allowed(keyURI)
            guard !key.badIV else { throw DownloadError("\(name): an EXT-X-KEY IV that is not 0x and 32 hex digits") }
        }
        return playlist
    }

    /// A media playlist's segments as a track (its sound kept: a rendition's track is told
    /// otherwise); spliced with discontinuities (an inserted ad), a track for each part, each
    /// later one going on in the stream of the first (``DownloadTrack/continues``) and placed on
    /// the playlist's timeline (``DownloadTrack/timelineStart``).
    static func tracks(_ kind: DownloadTrack.Kind, _ playlist: HLSMediaPlaylist, bitrate: Int) -> [DownloadTrack] {
        var parts: [[HLSMediaPlaylist.Segment]] = []
        for segment in playlist.segments {
            // (Subtitles are cues: joined by their own times, in one part.)
            if let last = parts.last?.last, last.discontinuity == segment.discontinuity || kind == .subtitle { parts[parts.count - 1].append(segment) } else { parts.append([segment]) }
        }
        return parts.enumerated().map { k, segments in
            var t = DownloadTrack(kind: kind, bitrate: bitrate, segments: segments.map {
                DownloadSegment(uri: $0.uri, duration: $0.duration, sequence: $0.sequence, key: $0.key, byteRange: $0.byteRange)
            })
            t.keepsMuxedAudio = kind == .video
            t.initSection = playlist.initSection
            t.initRange = playlist.initRange
            t.continues = k > 0
            if parts.count > 1 { t.timelineStart = segments.first?.start }
            return t
        }
    }
}
