/// How the demuxer's open reads a live stream of sound (an internet radio station: an answer with
/// `icy-*` headers, or an `audio/*` body of no stated length). libavformat's format probe reads
/// until a format scores above 25 or 1 MiB has come; an MP3 station's bytes begin mid-frame, so
/// its probe stays at 25 and waits for the station's real-time bytes beyond Icecast's burst: 4.5 s
/// at 128 kb/s, where mpv starts in 0.6 s. Here the probe stops at 16 KiB (about a second of
/// 128 kb/s; then the best score wins, as at libavformat's own limit) and the stream info at half a second of sound, as mpv
/// does for web radio (its `format_hacks`: `audio/mpeg`, `audio/aac`, `audio/aacp`).
package enum LiveAudioProbe {
    /// The most the format probe reads of a live stream of sound.
    package static let probeBytes = 16 << 10
    /// The most of its sound the stream info reads (microseconds).
    package static let analyzeMicroseconds = 500_000

    /// The demuxer's open options for an answer: none unless it is live sound.
    /// - Parameters:
    ///   - contentType: the answer's `Content-Type`, lower-cased ("" when it had none).
    ///   - station: the answer had `icy-*` headers.
    ///   - length: the body's length (nil: not stated).
    package static func options(contentType: String, station: Bool, length: Int64?) -> [String: String] {
        let sound = contentType.hasPrefix("audio/") || contentType == "application/ogg"
        guard station || (sound && length == nil) else { return [:] }
        return ["formatprobesize": String(probeBytes), "analyzeduration": String(analyzeMicroseconds)]
    }
}
