import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Joins the WebVTT segments of an HLS subtitle rendition into one WebVTT document on the
/// MPEG-TS timeline of the media segments: each segment's `X-TIMESTAMP-MAP=MPEGTS:n,LOCAL:t`
/// maps its cue times (`t` ↔ n / 90 000 s; no map means `MPEGTS:0,LOCAL:0`, RFC 8216 §3.5),
/// cues repeated across segments (a cue spanning a boundary is in both) are kept once, and
/// everything else of a segment's header (STYLE, REGION, NOTE blocks) is dropped. Segments come
/// from the network: at most ``maxCues`` cues, times must be finite and within 0…100 h, cue
/// text is kept as it is (the subtitle decoder sanitises it when played).
public enum WebVTTJoin {
    public static let maxCues = 200_000
    /// Latest cue time accepted, seconds.
    public static let maxSeconds = 360_000.0

    public struct Cue: Equatable, Sendable {
        public var start: Double
        public var end: Double
        /// The settings after the end time (`line:0 align:start`), as given.
        public var settings: String
        public var text: String
    }

    /// The cues of `segments`, in order, on the MPEG-TS timeline (seconds). `offsets[k]` (when
    /// given and finite) is added to the cue times of segment `k` when it has no
    /// `X-TIMESTAMP-MAP` (a DASH period's start).
    public static func cues(_ segments: [[UInt8]], offsets: [Double] = []) throws(OutsideValue.Refusal) -> [Cue] {
        var cues: [Cue] = []
        var seen = Set<String>()
        for (k, bytes) in segments.enumerated() {
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            guard let first = lines.first, first.hasPrefix("WEBVTT") else { throw OutsideValue.Refusal("a subtitle segment is not WebVTT") }
            var offset = offsets.indices.contains(k) && offsets[k].isFinite ? min(max(0, offsets[k]), maxSeconds) : 0.0
            var i = 1
            // Header: up to the first blank line.
            while i < lines.count, !lines[i].trimmingWhitespace().isEmpty {
                let line = String(lines[i])
                if line.hasPrefix("X-TIMESTAMP-MAP=") { offset = try timestampOffset(String(line.dropFirst("X-TIMESTAMP-MAP=".count))) }
                i += 1
            }
            // Blocks separated by blank lines; a cue block has a `-->` line first or second.
            var block: [Substring] = []
            func flush() throws(OutsideValue.Refusal) {
                defer { block = [] }
                guard let timing = block.firstIndex(where: { $0.contains("-->") }), timing <= 1 else { return }
                var cue = try parseTiming(String(block[timing]))
                cue.start += offset
                cue.end += offset
                guard cue.start >= 0, cue.end <= maxSeconds else { throw OutsideValue.Refusal("a subtitle cue time is out of range") }
                cue.text = block[(timing + 1)...].joined(separator: "\n")
                let identity = "\(Int((cue.start * 1000).rounded())) \(Int((cue.end * 1000).rounded())) \(cue.text)"
                guard !seen.contains(identity) else { return }
                guard cues.count < maxCues else { throw OutsideValue.Refusal("more than \(maxCues) subtitle cues") }
                seen.insert(identity)
                cues.append(cue)
            }
            while i < lines.count {
                if lines[i].trimmingWhitespace().isEmpty { try flush() } else { block.append(lines[i]) }
                i += 1
            }
            try flush()
        }
        return cues.sorted { $0.start < $1.start }
    }

    /// One WebVTT document of `cues`, times shifted by `-shift` seconds (cues ending before 0
    /// are dropped, starts clamped to 0).
    public static func document(_ cues: [Cue], shift: Double) -> String {
        var out = "WEBVTT\n\n"
        for cue in cues where cue.end - shift > 0 {
            let start = max(0, cue.start - shift), end = cue.end - shift
            out += "\(format(start)) --> \(format(end))\(cue.settings.isEmpty ? "" : " " + cue.settings)\n"
            // A blank line inside the text would end the cue: dropped.
            out += cue.text.split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n") + "\n\n"
        }
        return out
    }

    /// `MPEGTS:900000,LOCAL:00:00:00.000` → seconds to add to a local time.
    static func timestampOffset(_ text: String) throws(OutsideValue.Refusal) -> Double {
        var mpegts: Double?, local: Double?
        for part in text.split(separator: ",") {
            let kv = part.split(separator: ":", maxSplits: 1)
            guard kv.count == 2 else { throw OutsideValue.Refusal("a malformed X-TIMESTAMP-MAP") }
            switch kv[0].trimmingWhitespace() {
            case "MPEGTS":
                guard let n = UInt64(kv[1].trimmingWhitespace()), n < 1 << 33 else { throw OutsideValue.Refusal("a malformed X-TIMESTAMP-MAP") }
                mpegts = Double(n) / 90_000
            case "LOCAL": local = try time(String(kv[1]))
            default: throw OutsideValue.Refusal("a malformed X-TIMESTAMP-MAP")
            }
        }
        guard let mpegts, let local else { throw OutsideValue.Refusal("a malformed X-TIMESTAMP-MAP") }
        return mpegts - local
    }

    static func parseTiming(_ line: String) throws(OutsideValue.Refusal) -> Cue {
        guard let arrow = line.firstRange(of: "-->") else { throw OutsideValue.Refusal("a malformed subtitle cue time") }
        let start = try time(String(line[..<arrow.lowerBound]))
        let rest = line[arrow.upperBound...].trimmingWhitespace()
        let endText = rest.prefix { !$0.isWhitespace }
        let end = try time(String(endText))
        guard end >= start else { throw OutsideValue.Refusal("a subtitle cue ends before it starts") }
        let settings = rest.dropFirst(endText.count).trimmingWhitespace()
        return Cue(start: start, end: end, settings: settings, text: "")
    }

    /// `[hh:]mm:ss.ttt` → seconds.
    static func time(_ text: String) throws(OutsideValue.Refusal) -> Double {
        let parts = text.trimmingWhitespace().split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { throw OutsideValue.Refusal("a malformed subtitle time") }
        let secondsParts = parts.last!.split(separator: ".", omittingEmptySubsequences: false)
        guard secondsParts.count == 2, secondsParts[0].count == 2, secondsParts[1].count == 3 else { throw OutsideValue.Refusal("a malformed subtitle time") }
        var numbers: [Int] = []
        for p in parts.dropLast() + [secondsParts[0], secondsParts[1]] {
            guard (1...6).contains(p.count), p.allSatisfy(\.isASCII), let n = Int(p), n >= 0 else { throw OutsideValue.Refusal("a malformed subtitle time") }
            numbers.append(n)
        }
        let ms = numbers.removeLast(), s = numbers.removeLast()
        guard s < 60 else { throw OutsideValue.Refusal("a malformed subtitle time") }
        let m = numbers.removeLast()
        let h = numbers.last ?? 0
        guard parts.count == 2 || m < 60 else { throw OutsideValue.Refusal("a malformed subtitle time") }
        return Double(h) * 3600 + Double(m) * 60 + Double(s) + Double(ms) / 1000
    }

    static func format(_ seconds: Double) -> String {
        let total = Int((seconds * 1000).rounded())
        return String(cFormat: "%02d:%02d:%02d.%03d", total / 3_600_000, total / 60_000 % 60, total / 1000 % 60, total % 1000)
    }
}
