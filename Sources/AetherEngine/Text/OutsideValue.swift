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
        public init(_ message: String) { self.message = message }
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

    /// A number for a message: short, never the whole of a huge one.
    static func describe(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(saturating: value)) }
        return String(value)
    }
}
