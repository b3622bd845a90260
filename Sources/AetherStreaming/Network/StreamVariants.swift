import AetherMedia
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One variant of an adaptive stream (an HLS `EXT-X-STREAM-INF`, or a DASH video
/// representation as libavformat exposes it).
public struct StreamVariant: Sendable, Equatable {
    /// The media playlist (absolute), nil for a DASH representation.
    public var uri: String?
    /// Peak bits per second (HLS `BANDWIDTH`, DASH `bandwidth`).
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var width: Int?
    public var height: Int?
    public var codecs: String?
    /// `SDR`, `PQ` or `HLG` (HLS `VIDEO-RANGE`; missing means SDR).
    public var videoRange: String?
    public var frameRate: Double?
    /// The `AUDIO` rendition group it plays with, if any.
    public var audioGroup: String?
    /// The `SUBTITLES` rendition group it plays with, if any.
    public var subtitleGroup: String?

    public init(uri: String? = nil, bandwidth: Int) {
        self.uri = uri
        self.bandwidth = bandwidth
    }

    public var isHDR: Bool { videoRange == "PQ" || videoRange == "HLG" }

    /// The video codec `codecs` names, as a family a decoder goes on with across a switch
    /// (`avc`, `hevc`, `vp8`, `vp9`, `av1`, `mp4v`), or nil when it names none of them.
    public var videoCodecFamily: String? {
        let families = [("avc1", "avc"), ("avc3", "avc"), ("hvc1", "hevc"), ("hev1", "hevc"), ("dvh1", "hevc"), ("dvhe", "hevc"),
                        ("vp09", "vp9"), ("vp9", "vp9"), ("vp08", "vp8"), ("vp8", "vp8"), ("av01", "av1"), ("mp4v", "mp4v")]
        for codec in (codecs ?? "").lowercased().split(separator: ",") {
            let c = codec.trimmingWhitespace()
            if let f = families.first(where: { c.hasPrefix($0.0) }) { return f.1 }
        }
        return nil
    }

    /// `640×360  700 kb/s  avc1.42c01e,mp4a.40.2  SDR`
    public var summary: String {
        var parts: [String] = []
        if let width, let height { parts.append("\(width)×\(height)") }
        parts.append("\((bandwidth + 500) / 1000) kb/s")
        if let codecs, !codecs.isEmpty { parts.append(TextSanitizer.clean(codecs)) }
        parts.append(videoRange.map { TextSanitizer.clean($0) } ?? "SDR")
        return parts.joined(separator: "  ")
    }
}

/// An `EXT-X-MEDIA` alternative rendition.
public struct MediaRendition: Sendable, Equatable {
    public var type: String
    public var groupID: String
    public var name: String?
    public var language: String?
    public var channels: String?
    public var uri: String?
    public var isDefault = false

    package init(type: String, groupID: String, name: String? = nil, language: String? = nil, channels: String? = nil,
                 uri: String? = nil, isDefault: Bool = false) {
        self.type = type
        self.groupID = groupID
        self.name = name
        self.language = language
        self.channels = channels
        self.uri = uri
        self.isDefault = isDefault
    }
}

/// Which variant to play (mpv's `--hls-bitrate`, for HLS and DASH).
public enum VariantPreference: Sendable, Equatable {
    /// Switch with the link while playing (the default): start where the assumed throughput
    /// allows, then follow the measured one (``AdaptiveSwitcher``). Where switching is not
    /// possible (live, byte ranges, keys, HLS init sections) it is the start choice, fixed.
    case auto
    /// The lowest bit rate.
    case min
    /// The highest.
    case max
    /// The highest whose peak bit rate is at most this many bits per second (a cap); the lowest
    /// when none is.
    case atMost(Int)

    /// `auto`, `min`, `max`, or bits per second (`1500000`, `1.5M`, `700k`).
    public init?(option: String) {
        let text = option.trimmingWhitespace().lowercased()
        switch text {
        case "auto", "": self = .auto
        case "min": self = .min
        case "max": self = .max
        default:
            var number = text
            var scale = 1.0
            if number.hasSuffix("k") { scale = 1e3; number.removeLast() }
            else if number.hasSuffix("m") { scale = 1e6; number.removeLast() }
            guard let value = Double(number), value.isFinite, value > 0, value * scale < 1e12 else { return nil }
            self = .atMost(Int(value * scale))
        }
    }
}

/// SDR or HDR variants first (`--video-range`); `auto` prefers SDR, which is what a terminal
/// shows (an HDR picture is tone-mapped down at a cost).
public enum VideoRangePreference: String, Sendable, CaseIterable {
    case auto, sdr, hdr
}

/// An HLS master playlist, as far as the player needs it: variants and renditions.
public struct HLSMasterPlaylist: Sendable, Equatable {
    public var variants: [StreamVariant] = []
    public var renditions: [MediaRendition] = []

    /// Highest `BANDWIDTH` taken (1 Tb/s); a larger one drops its variant.
    public static let maxBandwidth = 1_000_000_000_000
    /// Variants kept at most (the rest of a master listing more are ignored).
    public static let maxVariants = 4096

    /// Parses `text`; nil when it is not a master playlist (a media playlist, or not HLS).
    /// Relative URIs are resolved against `base` (the playlist's URL or path).
    public static func parse(_ text: String, base: String) -> HLSMasterPlaylist? {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)
            .map { $0.trimmingWhitespace() }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var master = HLSMasterPlaylist()
        var pending: [String: String]?
        for line in lines {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                let a = attributes(String(line.dropFirst("#EXT-X-MEDIA:".count)))
                guard let type = a["TYPE"], let group = a["GROUP-ID"] else { continue }
                master.renditions.append(MediaRendition(
                    type: type, groupID: group, name: a["NAME"], language: a["LANGUAGE"], channels: a["CHANNELS"],
                    uri: a["URI"].map { URLReference.resolve($0, against: base) }, isDefault: a["DEFAULT"] == "YES"))
            } else if !line.hasPrefix("#"), let a = pending {
                pending = nil
                // Outside numbers: a BANDWIDTH that is not a whole number in 1 b/s…1 Tb/s drops
                // the variant; the other attributes are left out when unusable.
                guard let text = a["BANDWIDTH"],
                      let bandwidth = try? OutsideValue.integer(text, in: 1...maxBandwidth, name: "BANDWIDTH") else { continue }
                guard master.variants.count < maxVariants else { continue }
                var v = StreamVariant(uri: URLReference.resolve(line, against: base), bandwidth: bandwidth)
                v.averageBandwidth = a["AVERAGE-BANDWIDTH"].flatMap { try? OutsideValue.integer($0, in: 1...maxBandwidth, name: "AVERAGE-BANDWIDTH") }
                if let resolution = a["RESOLUTION"]?.lowercased().split(separator: "x"), resolution.count == 2 {
                    v.width = try? OutsideValue.integer(String(resolution[0]), in: 1...65_535, name: "RESOLUTION")
                    v.height = try? OutsideValue.integer(String(resolution[1]), in: 1...65_535, name: "RESOLUTION")
                }
                v.codecs = a["CODECS"]
                v.videoRange = a["VIDEO-RANGE"]?.uppercased()
                v.frameRate = a["FRAME-RATE"].flatMap { try? OutsideValue.clamped(OutsideValue.number($0, name: "FRAME-RATE"), to: 0...1000, name: "FRAME-RATE") }
                v.audioGroup = a["AUDIO"]
                v.subtitleGroup = a["SUBTITLES"]
                master.variants.append(v)
            }
        }
        return master.variants.isEmpty ? nil : master
    }

    /// Whether `variant`'s sound lives in separate rendition playlists (then the master must be
    /// played whole by libavformat; otherwise the variant's own playlist is enough).
    public func needsRenditions(_ variant: StreamVariant) -> Bool {
        guard let group = variant.audioGroup else { return false }
        return renditions.contains { $0.type == "AUDIO" && $0.groupID == group && $0.uri != nil }
    }

    /// `KEY=VALUE,KEY="quoted, with commas"` → dictionary.
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var key = "", value = "", inKey = true, quoted = false
        func flush() {
            let k = key.trimmingWhitespace()
            if !k.isEmpty { result[k.uppercased()] = value }
            key = ""
            value = ""
            inKey = true
        }
        for ch in text {
            if inKey {
                if ch == "=" { inKey = false } else if ch == "," { flush() } else { key.append(ch) }
            } else if ch == "\"" {
                quoted.toggle()
            } else if ch == ",", !quoted {
                flush()
            } else {
                value.append(ch)
            }
        }
        flush()
        return result
    }

}

public enum StreamVariants {
    /// A DASH manifest by its name (`.mpd`, before any query).
    public static func isDASH(_ url: String) -> Bool { pathExtension(url) == "mpd" }
    /// An HLS playlist by its name (`.m3u8`).
    public static func isHLS(_ url: String) -> Bool { pathExtension(url) == "m3u8" }

    static func pathExtension(_ url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        return Paths.pathExtension(path).lowercased()
    }

}

/// Picks variants.
public enum VariantChooser {
    /// The index in `variants` to play, or nil when there are none.
    public static func choose(_ variants: [StreamVariant], preference: VariantPreference, range: VideoRangePreference) -> Int? {
        guard !variants.isEmpty else { return nil }
        var pool = Array(variants.indices)
        let wantHDR = range == .hdr
        let matching = pool.filter { variants[$0].isHDR == wantHDR }
        if !matching.isEmpty { pool = matching }
        // A variant of unknown rate (a DASH representation without @bandwidth) only when no
        // rate is known.
        let known = pool.filter { variants[$0].bandwidth > 0 }
        if !known.isEmpty { pool = known }
        let byRate = pool.sorted { variants[$0].bandwidth < variants[$1].bandwidth }
        switch preference {
        case .min: return byRate.first
        case .max: return byRate.last
        case .atMost(let cap): return byRate.last { variants[$0].bandwidth <= cap } ?? byRate.first
        case .auto:
            // The start: what the assumed throughput carries with the up-switch margin.
            let policy = AdaptivePolicy()
            return byRate.last { Double(variants[$0].bandwidth) <= policy.defaultEstimate * policy.up.factor } ?? byRate.first
        }
    }

    /// The variants bit-rate switching may move between around `variants[anchor]`: the same
    /// dynamic range (`--video-range` chose it), audio group (`--alang` chose in it) and video
    /// codec (the decoder goes on across a switch; a DASH manifest may offer VP9 and H.264), one per
    /// peak rate, rates ascending, at most `limit` (spread over the rates). Indices into
    /// `variants`; the anchor is always among them.
    public static func ladder(_ variants: [StreamVariant], anchor: Int, limit: Int) -> [Int] {
        guard variants.indices.contains(anchor) else { return [] }
        let a = variants[anchor]
        var byRate: [Int: Int] = [:]
        // Unknown rates (0) only among unknown rates: they have no place on a ladder of known ones.
        for (i, v) in variants.enumerated() where v.isHDR == a.isHDR && v.audioGroup == a.audioGroup && v.uri != nil
            && (v.bandwidth > 0) == (a.bandwidth > 0) && v.videoCodecFamily == a.videoCodecFamily {
            if i == anchor || byRate[v.bandwidth] == nil { byRate[v.bandwidth] = i }
        }
        byRate[a.bandwidth] = anchor
        let sorted = byRate.keys.sorted().compactMap { byRate[$0] }
        var kept = AdaptiveRule.thin(sorted.count, limit: max(2, limit)).map { sorted[$0] }
        if !kept.contains(anchor) {
            kept.append(anchor)
            kept.sort { variants[$0].bandwidth < variants[$1].bandwidth }
        }
        return kept
    }
}
