import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How numbers, IDs, bytes, dates and times read in the Matroska tree (``MatroskaParser`` and its
/// element families), and how much of a string is shown.
enum EBMLText {
    /// Characters of a string shown (the rest is cut and marked with `…`).
    static let maxTextCharacters = 256
    /// Bytes of a string element read.
    static let maxStringBytes: Int64 = 1024

    static func name(of id: UInt32) -> String { MatroskaElements.byID[id]?.name ?? hexID(id) }

    static func hexID(_ id: UInt32) -> String {
        let digits = String(id, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: digits.count % 2) + digits
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    static func hexBytes<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        bytes.map { b in
            let digits = String(b, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }.joined(separator: " ")
    }

    /// A string element's text: up to the first NUL (EBML pads with them), invalid UTF-8
    /// replaced, clipped; control characters are the node's sanitiser's.
    static func text(_ bytes: [UInt8]) -> String {
        let content = bytes.prefix { $0 != 0 }
        return clip(String(decoding: content, as: UTF8.self))
    }

    static func clip(_ text: String) -> String {
        text.count > maxTextCharacters ? String(text.prefix(maxTextCharacters)) + "…" : text
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(cFormat: "%.0f", value) }
        return String(cFormat: "%.9g", value)
    }

    /// Nanoseconds as `h:mm:ss.mmm`.
    static func clock(nanoseconds: UInt64) -> String {
        let ms = nanoseconds / 1_000_000
        let s = ms / 1000, m = s / 60, h = m / 60
        func two(_ v: UInt64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let frac = ms % 1000
        return "\(h):\(two(m % 60)):\(two(s % 60)).\(frac < 10 ? "00" : frac < 100 ? "0" : "")\(frac)"
    }

    /// A Matroska date (signed nanoseconds since 2001-01-01T00:00:00 UTC) in ISO 8601.
    static func isoDate(nanosecondsSince2001 ns: Int64) -> String {
        // Whole seconds, rounded down, then the civil date (days from 1970 by Hinnant's algorithm).
        let billion: Int64 = 1_000_000_000
        var seconds = ns / billion
        if ns % billion < 0 { seconds -= 1 }
        let unix = seconds + 978_307_200
        var days = unix / 86_400
        var rest = unix % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest % 3600 / 60, 2)):\(pad(rest % 60, 2))Z"
    }
}
