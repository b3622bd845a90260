/// The one way in for numbers and text from outside the player: command arguments, property
/// writes, config and `input.conf` values, watch-later entries, playlist and manifest
/// attributes, MPRIS calls. Each converter clamps or refuses (finite, range, size) and says why
/// in one line; nothing from outside reaches `Int(someDouble)`, which traps on NaN, infinities
/// and anything past ±9.2e18.
public enum OutsideValue {
    /// Why a value was refused, as one line naming the value's role (`'chapter': 1e+300 is
    /// not a whole number in 0…11`).
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        /// A budget of the whole document was passed (its element, segment or representation
        /// count): no part of it is read on, where another refusal leaves out only its part.
        public let isBudget: Bool
        public init(_ message: String) { self.message = message; self.isBudget = false }
        private init(budget message: String) { self.message = message; self.isBudget = true }
        /// A refusal for the whole document (see ``isBudget``).
        public static func budget(_ message: String) -> Refusal { Refusal(budget: message) }
        public var description: String { message }
    }

    /// Seconds any time from outside is clamped to (about 31 years): far past any media, far
    /// inside every integer conversion of a time (×1e6 µs, ×90 kHz ticks).
    public static let maxSeconds = 1e9

    /// Text longer than this in a number's place is not looked at (a 1 MB "number").
    static let maxNumberLength = 64

    /// A finite number written as text (`1.5`, `-3`, `1e3`, mpv's fraction `1/1.1`).
    public static func number(_ text: String, name: String) throws(Refusal) -> Double {
        guard text.utf8.count <= maxNumberLength else { throw Refusal("'\(name)': the value is too long for a number") }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let a = Double(parts[0]),
              let b = parts.count == 2 ? Double(parts[1]) : 1, b != 0 else {
            throw Refusal("'\(name)': '\(TextSanitizer.clean(text))' is not a number")
        }
        return try finite(a / b, name: name)
    }

    /// `value` when it is finite, else a refusal.
    public static func finite(_ value: Double, name: String) throws(Refusal) -> Double {
        guard value.isFinite else { throw Refusal("'\(name)': \(value) is not a finite number") }
        return value
    }

    /// A finite value clamped into `range` (NaN and infinities refused: clamping them would
    /// pick an end nobody asked for).
    public static func clamped(_ value: Double, to range: ClosedRange<Double>, name: String) throws(Refusal) -> Double {
        min(range.upperBound, max(range.lowerBound, try finite(value, name: name)))
    }

    /// A time in seconds: finite, clamped to ±``maxSeconds``.
    public static func seconds(_ value: Double, name: String) throws(Refusal) -> Double {
        try clamped(value, to: -maxSeconds...maxSeconds, name: name)
    }

    /// A whole number in `range`, from a number (a fraction is cut toward zero, as mpv's
    /// integer options do); refused when not finite or outside the range.
    public static func integer(_ value: Double, in range: ClosedRange<Int>, name: String) throws(Refusal) -> Int {
        let cut = value.rounded(.towardZero)
        // -2^63 ≤ cut < 2^63 exactly (Double(Int.max) rounds up to 2^63, which Int cannot hold).
        guard value.isFinite, cut >= -0x1p63, cut < 0x1p63, range.contains(Int(cut)) else {
            throw Refusal("'\(name)': \(describe(value)) is not a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return Int(cut)
    }

    /// A whole number in `range`, from text (`12`, `1e2`, `3.0`).
    public static func integer(_ text: String, in range: ClosedRange<Int>, name: String) throws(Refusal) -> Int {
        if text.utf8.count <= maxNumberLength, let n = Int(text) {
            guard range.contains(n) else {
                throw Refusal("'\(name)': \(n) is not a whole number in \(range.lowerBound)…\(range.upperBound)")
            }
            return n
        }
        return try integer(try number(text, name: name), in: range, name: name)
    }

    /// A whole number clamped into `range` (nil for NaN): for values where any number means
    /// "as far as it goes" (a relative chapter step of 1e300 is the last chapter).
    public static func clampedInteger(_ value: Double, to range: ClosedRange<Int>) -> Int? {
        guard !value.isNaN else { return nil }
        if value >= Double(range.upperBound) { return range.upperBound }
        if value <= Double(range.lowerBound) { return range.lowerBound }
        return Int(saturating: value.rounded(.towardZero))
    }

    /// Text of at most `maxBytes` UTF-8 bytes, else a refusal (it is not cut: a cut path or
    /// URL names something else).
    public static func text(_ text: String, maxBytes: Int, name: String) throws(Refusal) -> String {
        guard text.utf8.count <= maxBytes else {
            throw Refusal("'\(name)': \(text.utf8.count) bytes is longer than \(maxBytes)")
        }
        return text
    }

    /// An ISO 8601 date and time with a zone (`2026-11-24T16:00:00.123Z`, `…+01:00`; without
    /// one: UTC), as seconds since 1970: years 1970…9999, each field in its range, at most 64
    /// bytes; else a refusal.
    public static func dateTime(_ text: String, name: String) throws(Refusal) -> Double {
        let t = Array(text.trimmingWhitespace().utf8)
        let refusal = Refusal("'\(name)': '\(TextSanitizer.clean(String(decoding: t.prefix(40), as: UTF8.self)))' is not a date")
        guard t.count >= 19, t.count <= 64 else { throw refusal }
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= t.count else { return nil }
            var v = 0
            for b in t[at..<at + count] {
                guard (48...57).contains(b) else { return nil }
                v = v * 10 + Int(b - 48)
            }
            return v
        }
        guard let year = digits(0, 4), t[4] == 45, let month = digits(5, 2), t[7] == 45, let day = digits(8, 2),
              t[10] == 84 || t[10] == 116 || t[10] == 32, let hour = digits(11, 2), t[13] == 58, let minute = digits(14, 2),
              t[16] == 58, let second = digits(17, 2),
              (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { throw refusal }
        var i = 19
        var fraction = 0.0
        if i < t.count, t[i] == 46 || t[i] == 44 {
            i += 1
            var scale = 0.1
            let begin = i
            while i < t.count, (48...57).contains(t[i]) {
                fraction += Double(t[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > begin else { throw refusal }
        }
        var zone = 0
        if i < t.count {
            if t[i] == 90 || t[i] == 122, i + 1 == t.count {
                i += 1
            } else if t[i] == 43 || t[i] == 45, let h = digits(i + 1, 2), h < 24 {
                var m = 0
                var end = i + 3
                if end < t.count, t[end] == 58 {
                    guard let mm = digits(end + 1, 2), mm < 60 else { throw refusal }
                    m = mm
                    end += 3
                } else if let mm = digits(end, 2), end + 2 == t.count {
                    guard mm < 60 else { throw refusal }
                    m = mm
                    end += 2
                }
                zone = (h * 3600 + m * 60) * (t[i] == 43 ? 1 : -1)
                i = end
            }
            guard i == t.count else { throw refusal }
        }
        // Days from 1970-01-01 (proleptic Gregorian, Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - zone) + fraction
    }

    /// A number for a message: short, never the whole of a huge one.
    package static func describe(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(saturating: value)) }
        return String(value)
    }
}
