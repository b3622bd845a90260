import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// WebVTT carried in fragmented MP4 (ISO/IEC 14496-30, sample entry `wvtt`), as a DASH text
/// adaptation set segments it: an init section (its `mdhd` gives the timescale) and media
/// segments whose samples each hold the cues active over the sample's time (`vttc` boxes with
/// `payl` text, `sttg` settings, `iden` identifier) or none (`vtte`). A cue longer than a sample
/// is repeated in each sample it spans; ``cues(initialization:segments:limits:)`` joins those
/// repeats back into one cue.
///
/// Every box size is checked against what encloses it, every count against the bytes it needs
/// before anything is read, every time through ``OutsideValue``-style checks (finite, within
/// 0…``WebVTTJoin/maxSeconds``); a reader has ``Limits`` (samples per segment, cues in all, text
/// per cue, boxes per level, nesting). A refusal is one line.
public enum WVTTReader {
    public struct Limits: Sendable {
        /// Samples one `trun` may declare.
        public var samplesPerRun = 100_000
        /// Cues in all (after joining repeats).
        public var cues = WebVTTJoin.maxCues
        /// Bytes of one cue's text (`payl`) and settings (`sttg`, `iden`).
        public var textBytes = 64 << 10
        /// Boxes read at one level (a segment of many empty boxes is refused).
        public var boxesPerLevel = 100_000
        public init() {}
    }

    /// Timescales accepted (ticks per second).
    public static let maxTimescale = 1_000_000_000

    /// A refusal of a box or value, one line.
    public typealias Refusal = OutsideValue.Refusal

    /// A box: its type and where its payload lies in the bytes (the engine's one box reader's).
    typealias Box = ISOBMFFBoxes.Box

    /// The boxes directly inside `range` of `bytes`, in order (a size that runs past the range
    /// refuses; a size of 0 runs to its end), read by ``ISOBMFFBoxes`` within
    /// ``Limits/boxesPerLevel``.
    static func boxes(_ bytes: [UInt8], in range: Range<Int>, limits: Limits) throws(Refusal) -> [Box] {
        do {
            return try ISOBMFFBoxes.boxes(bytes, in: range, maxBoxes: limits.boxesPerLevel)
        } catch {
            switch error {
            case .tooManyBoxes: throw Refusal("more than \(limits.boxesPerLevel) boxes in one place")
            case .headerCutShort: throw Refusal("a box header is cut short")
            case .runsPast(let type): throw Refusal("box '\(type)' runs past its container")
            case .doesNotFit(let type, let size): throw Refusal("box '\(type)' has a size of \(size) bytes that does not fit")
            }
        }
    }

    /// The first box of `type` inside `range`.
    static func first(_ type: String, _ bytes: [UInt8], in range: Range<Int>, limits: Limits) throws(Refusal) -> Box? {
        try boxes(bytes, in: range, limits: limits).first { $0.type == type }
    }

    /// The first box found by following `path` (box types, outermost first) from `range`.
    static func find(_ path: [String], _ bytes: [UInt8], in range: Range<Int>, limits: Limits) throws(Refusal) -> Box? {
        var range = range
        var found: Box?
        for type in path {
            guard let box = try first(type, bytes, in: range, limits: limits) else { return nil }
            found = box
            range = box.payload
        }
        return found
    }

    /// The track's timescale (`moov/trak/mdia/mdhd`) and its defaults (`moov/mvex/trex`) from an
    /// init section.
    public struct Track: Sendable, Equatable {
        public var timescale: Int
        public var defaultDuration: Int = 0
        public var defaultSize: Int = 0

        package init(timescale: Int, defaultDuration: Int = 0, defaultSize: Int = 0) {
            self.timescale = timescale
            self.defaultDuration = defaultDuration
            self.defaultSize = defaultSize
        }
    }

    public static func track(initialization bytes: [UInt8], limits: Limits = Limits()) throws(Refusal) -> Track {
        let all = 0..<bytes.count
        guard let mdhd = try find(["moov", "trak", "mdia", "mdhd"], bytes, in: all, limits: limits) else {
            throw Refusal("the init section has no media header (moov/trak/mdia/mdhd)")
        }
        var c = Reader(bytes: bytes, range: mdhd.payload)
        let version = try c.u8()
        try c.skip(3 + (version == 1 ? 16 : 8))
        let timescale = Int(try c.u32())
        guard (1...maxTimescale).contains(timescale) else { throw Refusal("the timescale \(timescale) is not one in 1…\(maxTimescale)") }
        guard try find(["moov", "trak", "mdia", "minf", "stbl", "stsd"], bytes, in: all, limits: limits).map({ box throws(Refusal) in
            try boxes(bytes, in: min(box.payload.lowerBound + 8, box.payload.upperBound)..<box.payload.upperBound, limits: limits).contains { $0.type == "wvtt" }
        }) ?? false else {
            throw Refusal("the init section's sample entry is not WebVTT (wvtt)")
        }
        var track = Track(timescale: timescale)
        if let trex = try find(["moov", "mvex", "trex"], bytes, in: all, limits: limits) {
            var t = Reader(bytes: bytes, range: trex.payload)
            try t.skip(12)
            track.defaultDuration = Int(try t.u32())
            track.defaultSize = Int(try t.u32())
        }
        return track
    }

    /// The cues of one media segment (`moof` + `mdat` pairs) that starts at `start` seconds on
    /// the presentation timeline: each sample's time from the segment's first (`tfdt`) plus its
    /// composition offset, in `track`'s timescale. Repeats across samples are not joined here.
    public static func cues(segment bytes: [UInt8], track: Track, start: Double, limits: Limits = Limits()) throws(Refusal) -> [WebVTTJoin.Cue] {
        var out: [WebVTTJoin.Cue] = []
        let top = try boxes(bytes, in: 0..<bytes.count, limits: limits)
        let scale = Double(track.timescale)
        var origin: UInt64?
        for moof in top where moof.type == "moof" {
            for traf in try boxes(bytes, in: moof.payload, limits: limits) where traf.type == "traf" {
                let inside = try boxes(bytes, in: traf.payload, limits: limits)
                guard let tfhd = inside.first(where: { $0.type == "tfhd" }) else { throw Refusal("a track fragment has no header (tfhd)") }
                var h = Reader(bytes: bytes, range: tfhd.payload)
                let flags = try h.u32() & 0xFF_FFFF
                try h.skip(4)
                var base = moof.start
                if flags & 0x1 != 0 {
                    let given = try h.u64()
                    guard given <= UInt64(bytes.count) else { throw Refusal("a base data offset past the segment") }
                    base = Int(given)
                }
                if flags & 0x2 != 0 { try h.skip(4) }
                let defaultDuration = flags & 0x8 != 0 ? Int(try h.u32()) : track.defaultDuration
                let defaultSize = flags & 0x10 != 0 ? Int(try h.u32()) : track.defaultSize
                var decode: UInt64 = 0
                if let tfdt = inside.first(where: { $0.type == "tfdt" }) {
                    var d = Reader(bytes: bytes, range: tfdt.payload)
                    let version = try d.u8()
                    try d.skip(3)
                    decode = version == 1 ? try d.u64() : UInt64(try d.u32())
                }
                if origin == nil { origin = decode }
                var next = base
                for trun in inside where trun.type == "trun" {
                    var r = Reader(bytes: bytes, range: trun.payload)
                    let head = try r.u32()
                    let version = head >> 24, flags = head & 0xFF_FFFF
                    let count = Int(try r.u32())
                    if flags & 0x1 != 0 {
                        let offset = Int(Int32(bitPattern: try r.u32()))
                        next = base + offset
                    }
                    if flags & 0x4 != 0 { try r.skip(4) }
                    let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
                    guard count <= limits.samplesPerRun, count * fields * 4 <= r.remaining else {
                        throw Refusal("a track run declares \(count) samples its box cannot hold")
                    }
                    for _ in 0..<count {
                        let duration = flags & 0x100 != 0 ? Int(try r.u32()) : defaultDuration
                        let size = flags & 0x200 != 0 ? Int(try r.u32()) : defaultSize
                        if flags & 0x400 != 0 { try r.skip(4) }
                        var offset: Int64 = 0
                        if flags & 0x800 != 0 {
                            let raw = try r.u32()
                            offset = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
                        }
                        guard next >= 0, size >= 0, size <= bytes.count - next else { throw Refusal("a sample runs past the segment") }
                        let (sinceOrigin, late) = decode.subtractingReportingOverflow(origin ?? decode)
                        let ticks = Double(late ? 0 : sinceOrigin) + Double(offset)
                        let begin = start + ticks / scale, end = begin + Double(duration) / scale
                        guard begin.isFinite, end.isFinite, begin >= 0, end <= WebVTTJoin.maxSeconds else {
                            throw Refusal("a cue time is not one in 0…\(Int(WebVTTJoin.maxSeconds)) s")
                        }
                        if size > 0 {
                            for box in try boxes(bytes, in: next..<(next + size), limits: limits) where box.type == "vttc" {
                                guard out.count < limits.cues else { throw Refusal("more than \(limits.cues) subtitle cues") }
                                var cue = WebVTTJoin.Cue(start: begin, end: end, settings: "", text: "")
                                var identifier = ""
                                for part in try boxes(bytes, in: box.payload, limits: limits) {
                                    guard part.payload.count <= limits.textBytes else {
                                        throw Refusal("a cue's '\(part.type)' has \(part.payload.count) bytes (more than \(limits.textBytes))")
                                    }
                                    let text = String(decoding: bytes[part.payload], as: UTF8.self)
                                    switch part.type {
                                    case "payl": cue.text = cueText(text)
                                    case "sttg": cue.settings = oneLine(text)
                                    case "iden": identifier = oneLine(text)
                                    default: break
                                    }
                                }
                                // Repeats of one cue are told apart from a new one by all three.
                                cue.settings = identifier.isEmpty ? cue.settings : cue.settings + "\u{0}" + identifier
                                if !cue.text.isEmpty { out.append(cue) }
                            }
                        }
                        next += size
                        let (sum, over) = decode.addingReportingOverflow(UInt64(duration))
                        guard !over else { throw Refusal("sample times overflow") }
                        decode = sum
                    }
                }
            }
        }
        return out
    }

    /// Every segment's cues (`segments`: each one's bytes and start, seconds), a cue repeated in
    /// consecutive samples joined into one, sorted by start.
    public static func cues(initialization: [UInt8], segments: [(bytes: [UInt8], start: Double)],
                            limits: Limits = Limits()) throws(Refusal) -> [WebVTTJoin.Cue] {
        let track = try track(initialization: initialization, limits: limits)
        var joined: [WebVTTJoin.Cue] = []
        // The last cue of each identity (text, settings, identifier) and where it is.
        var open: [String: Int] = [:]
        for segment in segments {
            for cue in try cues(segment: segment.bytes, track: track, start: segment.start, limits: limits) {
                let key = cue.settings + "\u{1}" + cue.text
                if let k = open[key], joined[k].end >= cue.start - 0.002 {
                    joined[k].end = max(joined[k].end, cue.end)
                    continue
                }
                guard joined.count < limits.cues else { throw Refusal("more than \(limits.cues) subtitle cues") }
                open[key] = joined.count
                joined.append(cue)
            }
        }
        return joined.map { cue in
            var cue = cue
            if let cut = cue.settings.firstIndex(of: "\u{0}") { cue.settings = String(cue.settings[..<cut]) }
            return cue
        }.sorted { $0.start < $1.start }
    }

    /// A cue's text as a WebVTT document can carry it: no blank line (it would end the cue), no
    /// `-->` (it would start one).
    static func cueText(_ text: String) -> String {
        text.replacingAll("\r\n", with: "\n").replacingAll("\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n")
            .replacingAll("-->", with: "--&gt;")
    }

    /// Settings or an identifier on one line.
    static func oneLine(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for s in text.unicodeScalars { scalars.append(s.value < 0x20 || s.value == 0x7F ? " " : s) }
        return String(scalars).replacingAll("-->", with: " ").trimmingWhitespace()
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }

    /// Reads big-endian fields inside one box's payload; reading past it refuses.
    struct Reader {
        let bytes: [UInt8]
        var pos: Int
        let end: Int
        init(bytes: [UInt8], range: Range<Int>) {
            self.bytes = bytes
            pos = range.lowerBound
            end = range.upperBound
        }
        var remaining: Int { end - pos }
        mutating func need(_ n: Int) throws(Refusal) {
            guard n >= 0, n <= end - pos else { throw Refusal("a box is too short for its fields") }
        }
        mutating func skip(_ n: Int) throws(Refusal) {
            try need(n)
            pos += n
        }
        mutating func u8() throws(Refusal) -> UInt8 {
            try need(1)
            defer { pos += 1 }
            return bytes[pos]
        }
        mutating func u32() throws(Refusal) -> UInt32 {
            try need(4)
            defer { pos += 4 }
            return WVTTReader.be32(bytes, pos)
        }
        mutating func u64() throws(Refusal) -> UInt64 {
            try need(8)
            defer { pos += 8 }
            return WVTTReader.be64(bytes, pos)
        }
    }
}
