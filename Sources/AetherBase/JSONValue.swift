/// A JSON value read from outside: the program's reader of JSON another process sends (the IPC socket's lines,
/// yt-dlp's `-J` answer). It has its own small parser rather than Foundation's: every byte comes
/// from another process, so the parser bounds its nesting (mpv's limit, 50), and when asked its
/// size and the number of values, refuses bad UTF-8 and non-finite numbers, and keeps integers,
/// doubles and booleans apart — with no recursion a hostile input can drive deeper than that.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the order written (a repeated key: the first one counts, as in mpv).
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member `key` of an object (nil: absent, or not an object).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The text of a string (nil: another kind of value).
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The items of an array (nil: another kind of value).
    public var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// A number, integer or not, as a double (nil: another kind of value; a boolean is not a number).
    public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    // MARK: writing

    /// The value as one line of compact JSON (no newline: control characters in strings are
    /// escaped). A non-finite double, which JSON cannot carry, is written as `null`.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            // Swift's shortest round-trip spelling ("5.0", "0.1", "1e+300") is valid JSON.
            out += d.isFinite ? d.description : "null"
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: reading

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The budgets a reading can run past.
        public enum Budget: Sendable, Equatable { case depth, bytes, values }
        public let message: String
        public let offset: Int
        /// The budget the input ran past (nil: it is not JSON).
        public var budget: Budget?
        public var description: String { "\(message) at byte \(offset)" }
        init(message: String, offset: Int, budget: Budget? = nil) {
            self.message = message
            self.offset = offset
            self.budget = budget
        }
    }

    /// mpv's nesting limit for IPC messages, and the default for every reading.
    public static let maximumDepth = 50

    /// Parses `bytes` as exactly one JSON value (whitespace around it allowed, nothing else),
    /// at most `maximumDepth` levels deep, `maximumBytes` long and `maximumValues` values in all.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes, maximumDepth: Int = maximumDepth, maximumBytes: Int = .max,
                                                       maximumValues: Int = .max) throws(ParseError) -> JSONValue {
        guard bytes.count <= maximumBytes else {
            throw ParseError(message: "longer than \(maximumBytes) bytes", offset: 0, budget: .bytes)
        }
        var parser = Parser(bytes: Array(bytes), maximumDepth: maximumDepth, maximumValues: maximumValues)
        parser.skipWhitespace()
        let value = try parser.value(depth: 1)
        parser.skipWhitespace()
        guard parser.atEnd else { throw parser.error("unexpected data after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        let maximumDepth: Int
        let maximumValues: Int
        var i = 0
        var values = 0

        var atEnd: Bool { i >= bytes.count }

        func error(_ message: String) -> ParseError { ParseError(message: message, offset: i) }

        mutating func skipWhitespace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard i < bytes.count else { throw error("unexpected end") }
            values += 1
            guard values <= maximumValues else { throw ParseError(message: "more than \(maximumValues) values", offset: i, budget: .values) }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let n = word.utf8CodeUnitCount
            guard i + n <= bytes.count else { throw error("unexpected end") }
            let matches = word.withUTF8Buffer { w in (0..<n).allSatisfy { bytes[i + $0] == w[$0] } }
            guard matches else { throw error("unknown literal") }
            i += n
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= maximumDepth else { throw ParseError(message: "nested too deeply", offset: i, budget: .depth) }
            i += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                i += 1
                skipWhitespace()
                let v = try value(depth: depth + 1)
                members.append((key, v))
                skipWhitespace()
                guard i < bytes.count else { throw error("unexpected end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                throw error("expected ',' or '}'")
            }
            // mpv's node_map_get returns the first member with the key.
            var seen = Set<String>()
            return .object(members.filter { seen.insert($0.key).inserted })
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= maximumDepth else { throw ParseError(message: "nested too deeply", offset: i, budget: .depth) }
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard i < bytes.count else { throw error("unexpected end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; break }
                throw error("expected ',' or ']'")
            }
            return .array(items)
        }

        mutating func number() throws(ParseError) -> JSONValue {
            let start = i
            func digits() -> Int {
                let from = i
                while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
                return i - from
            }
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count else { throw error("unexpected end") }
            if bytes[i] == UInt8(ascii: "0") {
                i += 1
            } else {
                guard digits() > 0 else { throw error("expected a digit") }
            }
            var integral = true
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                integral = false
                i += 1
                guard digits() > 0 else { throw error("expected a digit") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                integral = false
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw error("expected a digit") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if integral, let n = Int64(text) { return .int(n) }
            // Too long for 64 bits, or a fraction: a double, which must be finite.
            guard let d = Double(text), d.isFinite else { throw ParseError(message: "number out of range", offset: start) }
            return .double(d)
        }

        mutating func string() throws(ParseError) -> String {
            i += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            while true {
                guard i < bytes.count else { throw error("unterminated string") }
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""):
                    i += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    i += 1
                    guard i < bytes.count else { throw error("unterminated string") }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"): scalars.append(try escapedScalar())
                    default: throw error("unknown escape")
                    }
                case 0..<0x20:
                    throw error("control character in a string")
                case 0..<0x80:
                    scalars.append(Unicode.Scalar(b))
                    i += 1
                default:
                    scalars.append(try utf8Scalar())
                }
            }
        }

        /// `\uXXXX`, with a surrogate pair as one scalar; a lone surrogate is an error.
        mutating func escapedScalar() throws(ParseError) -> Unicode.Scalar {
            let high = try hex4()
            if (0xDC00...0xDFFF).contains(high) { throw error("lone low surrogate") }
            guard (0xD800...0xDBFF).contains(high) else {
                guard let scalar = Unicode.Scalar(high) else { throw error("bad escape") }
                return scalar
            }
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                throw error("lone high surrogate")
            }
            i += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("lone high surrogate") }
            guard let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                throw error("bad escape")
            }
            return scalar
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw error("unterminated escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let d: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
                default: throw error("bad hex digit")
                }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        /// One multi-byte UTF-8 sequence, strictly: no overlong forms, no surrogates, nothing
        /// past U+10FFFF.
        mutating func utf8Scalar() throws(ParseError) -> Unicode.Scalar {
            let b0 = bytes[i]
            let count: Int
            let minimum: UInt32
            var v: UInt32
            switch b0 {
            case 0xC2...0xDF:
                count = 2
                minimum = 0x80
                v = UInt32(b0 & 0x1F)
            case 0xE0...0xEF:
                count = 3
                minimum = 0x800
                v = UInt32(b0 & 0x0F)
            case 0xF0...0xF4:
                count = 4
                minimum = 0x10000
                v = UInt32(b0 & 0x07)
            default: throw error("invalid UTF-8")
            }
            guard i + count <= bytes.count else { throw error("invalid UTF-8") }
            for k in 1..<count {
                let b = bytes[i + k]
                guard b & 0xC0 == 0x80 else { throw error("invalid UTF-8") }
                v = v << 6 | UInt32(b & 0x3F)
            }
            guard v >= minimum, v <= 0x10FFFF, let scalar = Unicode.Scalar(v) else { throw error("invalid UTF-8") }
            i += count
            return scalar
        }
    }
}
