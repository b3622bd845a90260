import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A property's value as mpv's JSON IPC carries it: a flag, a number, a string, or nothing
/// (`null`: no duration yet, no audio track).
public enum PropertyValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case number(Double)
    case string(String)
    /// mpv's node types: `track-list`, `chapter-list` (lists of maps), `metadata` (a map).
    case list([PropertyValue])
    case map([String: PropertyValue])
    case none

    /// The value as JSON (``JSONValue``): whole numbers as integers, a map's keys sorted.
    public var json: JSONValue {
        switch self {
        case .bool(let b): return .bool(b)
        case .number(let n):
            if n.isFinite, n == n.rounded(), abs(n) < 1e15 { return .int(Int64(n)) }
            return n.isFinite ? .double(n) : .int(0)
        case .string(let s): return .string(s)
        case .list(let items): return .array(items.map(\.json))
        case .map(let fields): return .object(fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.json) })
        case .none: return .null
        }
    }

    /// A JSON scalar (booleans kept apart from numbers); nil for an array or an object.
    public init?(json: JSONValue) {
        switch json {
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .null: self = .none
        case .array, .object: return nil
        }
    }

    /// How mpv prints it in `show-text`/`input.conf` arguments: `yes`/`no`, numbers as written.
    public var description: String {
        switch self {
        case .bool(let b): return b ? "yes" : "no"
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        case .string(let s): return s
        case .list, .map: return json.serialized
        case .none: return "no"
        }
    }

    /// Parses a command argument (`yes`, `no`, `0.5`, text) the way `set` does.
    public init(text: String) {
        switch text {
        case "yes", "true": self = .bool(true)
        case "no", "false": self = .bool(false)
        default: self = Double(text).map(PropertyValue.number) ?? .string(text)
        }
    }

    public var bool: Bool? {
        switch self {
        case .bool(let b): return b
        case .string("yes"), .string("true"): return true
        case .string("no"), .string("false"): return false
        case .number(let n): return n != 0
        default: return nil
        }
    }

    /// The value as a finite number (NaN, infinities and text that is not a number: nil).
    public var number: Double? {
        switch self {
        case .number(let n): return n.isFinite ? n : nil
        case .string(let s): return try? OutsideValue.number(s, name: "value")
        default: return nil
        }
    }
}
