import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What the ISO BMFF and MPEG-TS structure parsers share: a windowed reader (so 10⁶ tiny boxes
/// or 64 MiB of packets cost a few large `pread`s, not one per header), a bounds-checked cursor
/// over bytes already read, and the number formatting every summary uses.
///
/// Named apart from the EBML parser's helpers so the two can live in one module.
enum ContainerScan {
    /// Reads through one cached window of the source. Every read is bounded by the caller and
    /// by the source's own length; a short answer means the end.
    final class Window {
        let source: any ByteSource
        private var base: Int64 = -1
        private var bytes: [UInt8] = []
        /// The window's size: large reads (field payloads) go straight to the source.
        let size: Int
        /// What a miss reads: enough for a run of small boxes' headers.
        static let refill = 4 << 10

        init(_ source: any ByteSource, size: Int = 256 << 10) {
            self.source = source
            self.size = size
        }

        var length: Int64 { source.length }

        /// Up to `count` bytes at `offset`.
        func read(at offset: Int64, count: Int) -> [UInt8] {
            guard offset >= 0, count > 0, offset < source.length else { return [] }
            if count > size / 4 { return source.read(at: offset, count: count) }
            if base < 0 || offset < base || offset - base + Int64(count) > Int64(bytes.count) {
                // A small refill: the next read is as likely a header megabytes away (a file of
                // large fragments) as one nearby, and each miss must not cost a whole window.
                base = offset
                bytes = source.read(at: offset, count: min(size, max(count, Self.refill)))
            }
            let start = Int(offset - base)
            let end = min(bytes.count, start + count)
            return start < end ? Array(bytes[start..<end]) : []
        }
    }

    /// A cursor over bytes already in memory: every read says whether it fitted (nil past the end).
    struct Cursor {
        let bytes: [UInt8]
        var at: Int = 0

        init(_ bytes: [UInt8], at: Int = 0) {
            self.bytes = bytes
            self.at = at
        }

        var remaining: Int { max(0, bytes.count - at) }

        mutating func u8() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func uint(_ n: Int) -> UInt64? {
            guard n >= 0, n <= 8, remaining >= n else { return nil }
            var v: UInt64 = 0
            for i in 0..<n { v = v << 8 | UInt64(bytes[at + i]) }
            at += n
            return v
        }

        mutating func u16() -> UInt16? { uint(2).map { UInt16(truncatingIfNeeded: $0) } }
        mutating func u24() -> UInt32? { uint(3).map { UInt32(truncatingIfNeeded: $0) } }
        mutating func u32() -> UInt32? { uint(4).map { UInt32(truncatingIfNeeded: $0) } }
        mutating func u64() -> UInt64? { uint(8) }

        mutating func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, remaining >= n else { return nil }
            defer { at += n }
            return Array(bytes[at..<at + n])
        }

        mutating func skip(_ n: Int) -> Bool {
            guard n >= 0, remaining >= n else { return false }
            at += n
            return true
        }

        /// A NUL-terminated string of at most `limit` bytes (the terminator is consumed; a
        /// string that runs to the end of the bytes ends there).
        mutating func cString(limit: Int = 1024) -> String {
            var out: [UInt8] = []
            while at < bytes.count {
                let b = bytes[at]
                at += 1
                if b == 0 { break }
                if out.count < limit { out.append(b) }
            }
            return TextSanitizer.clean(bytes: out)
        }
    }

    /// `1,234,567`: sizes and counts are read by people.
    static func grouped<T: BinaryInteger>(_ value: T) -> String {
        let negative = value < 0
        var digits = String(value.magnitude)
        var out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return (negative ? "-" : "") + digits + out
    }

    /// A 32-bit four-character code as text: printable ASCII as is, `©` for 0xA9 (QuickTime's
    /// metadata keys), anything else as `\xNN` (the bytes come from the file). `/` is escaped
    /// too: node paths (`moov/trak[1]`) split on it.
    static func fourCC(_ bytes: some Collection<UInt8>) -> String {
        var s = ""
        for b in bytes {
            switch b {
            case 0x20...0x7E where b != 0x5C && b != 0x2F: s.unicodeScalars.append(Unicode.Scalar(b))
            case 0xA9: s += "©"
            default: s += String(cFormat: "\\x%02X", b)
            }
        }
        return s
    }

    static func fourCC(_ value: UInt32) -> String {
        fourCC([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    static func uuid(_ b: [UInt8]) -> String {
        guard b.count == 16 else { return HexText.string(b) }
        let h = HexText.string(b)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    /// `ticks / timescale` as seconds with three decimals, or nil for a zero timescale. Computed
    /// in integers (whole seconds, then milliseconds) so no huge value goes through a Double
    /// that is then converted back to an integer.
    static func seconds(_ ticks: UInt64, _ timescale: UInt64) -> String? {
        guard timescale > 0 else { return nil }
        let whole = ticks / timescale
        let rest = ticks % timescale
        // rest < timescale ≤ 2^64: rest * 1000 may overflow, so scale through a Double only
        // for the fraction (a value below 1000, formatted, never converted to an integer).
        let frac = Double(rest) / Double(timescale) * 1000
        return grouped(whole) + "." + String(cFormat: "%03.0f", frac.rounded(.down))
    }
}
