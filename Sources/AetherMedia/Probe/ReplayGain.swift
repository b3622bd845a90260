import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A file's loudness tags, as ReplayGain gains (dB to the ReplayGain 2.0 reference, -18 LUFS) and
/// peaks (linear, 1 is full scale): `REPLAYGAIN_TRACK_GAIN`/`_PEAK` and `REPLAYGAIN_ALBUM_GAIN`/
/// `_PEAK` (ID3 `TXXX`, Vorbis comments, APE, MP4 freeform atoms: libavformat names them all
/// so), else Opus's `R128_TRACK_GAIN`/`R128_ALBUM_GAIN` (Q7.8 dB relative to -23 LUFS, 5 dB
/// quieter than the ReplayGain reference, as mpv reads them). A value that is not a number in
/// range is no value (a tag is outside input). Opus's header output gain is the decoder's.
public struct ReplayGainTags: Codable, Sendable, Equatable {
    public var trackGain: Double?
    public var trackPeak: Double?
    public var albumGain: Double?
    public var albumPeak: Double?

    public init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    /// Gains accepted, dB (tags beyond are damaged or hostile).
    static let gains: ClosedRange<Double> = -64...64
    /// Peaks accepted (above 1: a lossy file's overshoot).
    static let peaks: ClosedRange<Double> = 1e-6...64

    /// Reads the tags from `primary` (the container's metadata), then `fallback` (the audio
    /// stream's: Ogg keeps its comments there) for what is missing.
    static func read(_ primary: OpaquePointer?, fallback: OpaquePointer?) -> ReplayGainTags {
        func value(_ key: String) -> String? { MediaProbe.rawTag([primary, fallback], key) }
        var tags = ReplayGainTags(trackGain: value("REPLAYGAIN_TRACK_GAIN").flatMap(gain), trackPeak: value("REPLAYGAIN_TRACK_PEAK").flatMap(peak),
                                  albumGain: value("REPLAYGAIN_ALBUM_GAIN").flatMap(gain), albumPeak: value("REPLAYGAIN_ALBUM_PEAK").flatMap(peak))
        if tags.trackGain == nil { tags.trackGain = value("R128_TRACK_GAIN").flatMap(r128) }
        if tags.albumGain == nil { tags.albumGain = value("R128_ALBUM_GAIN").flatMap(r128) }
        return tags
    }

    /// `-6.00 dB`, `+2.5dB`, `-6`: a decimal with an optional sign and unit; nil otherwise or
    /// out of range.
    package static func gain(_ text: String) -> Double? {
        var t = Substring(text.prefix(64)).trimmingWhitespace()[...]
        if t.lowercased().hasSuffix("db") { t = t.dropLast(2) }
        t = Substring(t.trimmingWhitespace())
        guard let v = decimal(t), gains.contains(v) else { return nil }
        return v
    }

    /// `0.988525`: a positive decimal; nil otherwise or out of range.
    package static func peak(_ text: String) -> Double? {
        guard let v = decimal(Substring(text.prefix(64)).trimmingWhitespace()[...]), peaks.contains(v) else { return nil }
        return v
    }

    /// `R128_*_GAIN`: a signed integer of Q7.8 dB (-32768…32767) relative to -23 LUFS, as a
    /// ReplayGain gain (+5 dB).
    package static func r128(_ text: String) -> Double? {
        let t = text.prefix(16).trimmingWhitespace()
        guard let q = Int(t), (-32768...32767).contains(q) else { return nil }
        return Double(q) / 256 + 5
    }

    /// Digits with an optional sign and one decimal point (no exponent, no `nan`/`inf`).
    private static func decimal(_ t: Substring) -> Double? {
        var body = t
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), body.filter({ $0 == "." }).count <= 1,
              body.contains(where: \.isNumber) else { return nil }
        return Double(t.hasPrefix("+") ? String(t.dropFirst()) : String(t))
    }
}

/// mpv's `--replaygain`: which gain applies.
public enum ReplayGainMode: String, Codable, Sendable, CaseIterable {
    case no, track, album
}

/// mpv's `--replaygain`, `--replaygain-preamp`, `--replaygain-clip`, `--replaygain-fallback`.
public struct ReplayGainSettings: Codable, Sendable, Equatable {
    public var mode: ReplayGainMode = .no
    /// dB added to the tag's gain.
    public var preamp: Double = 0
    /// Whether the gain may make the peak clip (mpv's default `no`: the peak tag lowers it).
    public var clip = false
    /// dB applied, alone, to a file without the tags the mode needs.
    public var fallback: Double = 0

    public init(mode: ReplayGainMode = .no, preamp: Double = 0, clip: Bool = false, fallback: Double = 0) {
        self.mode = mode
        self.preamp = preamp
        self.clip = clip
        self.fallback = fallback
    }

    /// What `tags` give under these settings: dB and the factor applied, and from which tag
    /// (`album`; `track`, also `album` mode's when there is no album gain; `fallback`; nil when
    /// off). Without clipping, the factor is held at 1/peak where the peak is known.
    public func applied(to tags: ReplayGainTags) -> (db: Double, factor: Double, source: String?) {
        guard mode != .no else { return (0, 1, nil) }
        let pair: (gain: Double, peak: Double?, source: String)? =
            mode == .album && tags.albumGain != nil ? (tags.albumGain!, tags.albumPeak ?? tags.trackPeak, "album")
            : tags.trackGain.map { ($0, tags.trackPeak, "track") }
        guard let pair else {
            let db = fallback.isFinite ? min(64, max(-64, fallback)) : 0
            return (db, pow(10, db / 20), "fallback")
        }
        var db = pair.gain + (preamp.isFinite ? min(64, max(-64, preamp)) : 0)
        if !clip, let peak = pair.peak, peak > 0 {
            db = min(db, -20 * log10(peak))
        }
        return (db, pow(10, db / 20), pair.source)
    }
}
