import AetherEngine
import Foundation

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

    /// The value as Foundation's JSON writer takes it (`NSNull` for `.none`).
    public var jsonObject: Any {
        switch self {
        case .bool(let b): return b
        case .number(let n):
            if n.isFinite, n == n.rounded(), abs(n) < 1e15 { return Int(n) }
            return n.isFinite ? n : 0
        case .string(let s): return s
        case .list(let items): return items.map(\.jsonObject)
        case .map(let fields): return fields.mapValues(\.jsonObject)
        case .none: return NSNull()
        }
    }

    /// A JSON value from Foundation's parser (`NSNumber` booleans kept apart from numbers).
    public init?(json: Any) {
        switch json {
        case let n as NSNumber:
            // JSONSerialization boxes true/false as char-typed numbers; JSON numbers never are.
            if String(cString: n.objCType) == "c" { self = .bool(n.boolValue) } else { self = .number(n.doubleValue) }
        case let s as String: self = .string(s)
        case is NSNull: self = .none
        default: return nil
        }
    }

    /// How mpv prints it in `show-text`/`input.conf` arguments: `yes`/`no`, numbers as written.
    public var description: String {
        switch self {
        case .bool(let b): return b ? "yes" : "no"
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        case .string(let s): return s
        case .list, .map: return Self.jsonText(jsonObject)
        case .none: return "no"
        }
    }

    /// A node as one line of JSON (mpv's `get_property_string` of a node), keys sorted.
    static func jsonText(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) else { return "" }
        return String(decoding: data, as: UTF8.self)
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
