/// Why a theme could not be loaded. `description` is the one line the CLI prints:
/// `themes/x.theme:7: unknown colour 'purpel'`.
public struct ThemeError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        /// No theme file of that name in any search directory.
        case notFound
        /// The file exists but cannot be read, is too large, or is not UTF-8.
        case unreadable
        /// A line that is not `key = value`, or a value with a word out of place.
        case syntax
        /// A key that is not a ``ThemeRole``.
        case unknownKey
        /// A colour name, index or `#rrggbb` that is not valid.
        case badColor
        /// The same key twice in one file.
        case duplicateKey
    }

    public let kind: Kind
    /// The file (as given or found), or the theme name for ``Kind/notFound``.
    public let file: String
    /// 1-based line number, for errors inside a file.
    public let line: Int?
    public let message: String

    public init(_ kind: Kind, file: String, line: Int? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        if kind == .notFound { return message }
        return "\(file): \(message)"
    }
}

extension String {
    /// The string in single quotes, with control characters escaped (file content and names are
    /// user input and end up on the terminal).
    var themeQuoted: String {
        var out = "'"
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }
}
