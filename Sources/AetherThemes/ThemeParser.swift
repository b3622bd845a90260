/// The `.theme` text format (documented in `themes/default.theme`).
enum ThemeParser {
    static let colorNames: [String: Int] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "bright-black": 8, "bright-red": 9, "bright-green": 10, "bright-yellow": 11,
        "bright-blue": 12, "bright-magenta": 13, "bright-cyan": 14, "bright-white": 15,
    ]
    static let attributeNames = ["bold", "dim", "reverse", "underline"]

    /// The styles `text` sets, by role, and the line each was set on. Only the keys present.
    static func entries(_ text: String, file: String) throws(ThemeError) -> [ThemeRole: (style: ThemeStyle, line: Int)] {
        var result: [ThemeRole: (style: ThemeStyle, line: Int)] = [:]
        // Split on \n only and drop a trailing \r ourselves: Swift treats "\r\n" as one Character.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        for (offset, rawLine) in lines.enumerated() {
            let number = offset + 1
            func fail(_ kind: ThemeError.Kind, _ message: String) -> ThemeError {
                ThemeError(kind, file: file, line: number, message: message)
            }
            let line = stripComment(rawLine).trimmingThemeWhitespace
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw fail(.syntax, "expected 'key = value', found \(line.themeQuoted)")
            }
            let key = String(line[..<equals]).trimmingThemeWhitespace
            let value = String(line[line.index(after: equals)...]).trimmingThemeWhitespace
            if key.isEmpty { throw fail(.syntax, "missing key before '='") }
            guard let role = ThemeRole(rawValue: key) else {
                throw fail(.unknownKey, "unknown key \(key.themeQuoted)" + suggestion(for: key, among: ThemeRole.allCases.map(\.rawValue)))
            }
            if let earlier = result[role] {
                throw fail(.duplicateKey, "\(key.themeQuoted) is already set on line \(earlier.line)")
            }
            if value.isEmpty { throw fail(.syntax, "missing value for \(key.themeQuoted)") }
            do throws(ValueProblem) {
                result[role] = (try style(value), number)
            } catch {
                throw fail(error.kind, error.message)
            }
        }
        return result
    }

    struct ValueProblem: Error {
        let kind: ThemeError.Kind
        let message: String
    }

    /// `FG [on BG] [bold] [dim] [reverse] [underline]`; FG may be omitted.
    static func style(_ value: String) throws(ValueProblem) -> ThemeStyle {
        var words = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { String($0) }[...]
        var style = ThemeStyle()
        if let first = words.first, !attributeNames.contains(first.lowercased()) {
            if first.lowercased() == "on" {
                throw ValueProblem(kind: .syntax, message: "missing foreground colour before 'on'")
            }
            style.foreground = try color(first)
            words = words.dropFirst()
        }
        if words.first?.lowercased() == "on" {
            words = words.dropFirst()
            guard let bg = words.first else {
                throw ValueProblem(kind: .syntax, message: "missing background colour after 'on'")
            }
            style.background = try color(bg)
            words = words.dropFirst()
        }
        for word in words {
            switch word.lowercased() {
            case "bold": style.bold = true
            case "dim": style.dim = true
            case "reverse": style.reverse = true
            case "underline": style.underline = true
            case "on":
                throw ValueProblem(kind: .syntax, message: "'on BG' must follow the foreground colour, before any attribute")
            default:
                if (try? color(word)) != nil {
                    throw ValueProblem(kind: .syntax, message: "unexpected colour \(word.themeQuoted) (write 'FG on BG')")
                }
                throw ValueProblem(kind: .syntax, message: "unknown attribute \(word.themeQuoted) (expected bold, dim, reverse or underline)"
                                   + suggestion(for: word.lowercased(), among: attributeNames))
            }
        }
        return style
    }

    /// `default`, a palette name, `0`–`255`, or `#rrggbb`.
    static func color(_ word: String) throws(ValueProblem) -> ThemeColor {
        let lower = word.lowercased()
        if lower == "default" { return .terminalDefault }
        if let index = colorNames[lower] { return .index(index) }
        if lower.hasPrefix("#") {
            let hex = lower.dropFirst()
            guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else {
                throw ValueProblem(kind: .badColor, message: "bad colour \(word.themeQuoted) (expected #rrggbb)")
            }
            return .rgb(UInt8(v >> 16), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF))
        }
        if !lower.isEmpty, lower.allSatisfy(\.isASCIIDigit) {
            guard let n = Int(lower), (0...255).contains(n) else {
                throw ValueProblem(kind: .badColor, message: "colour index \(word.themeQuoted) is out of range (0-255)")
            }
            return .index(n)
        }
        throw ValueProblem(kind: .badColor, message: "unknown colour \(word.themeQuoted)"
                           + suggestion(for: lower, among: ["default"] + colorNames.keys.sorted()))
    }

    /// The line up to a `#` that is followed by whitespace or the end of the line. A `#` followed by
    /// anything else (`#ff8700`) is part of the value.
    static func stripComment(_ line: String) -> String {
        let scalars = Array(line.unicodeScalars)
        for (i, s) in scalars.enumerated() where s == "#" {
            let atLineStart = scalars[..<i].allSatisfy { $0 == " " || $0 == "\t" }
            let next = i + 1 < scalars.count ? scalars[i + 1] : nil
            if atLineStart || next == nil || next == " " || next == "\t" || next == "\r" {
                var kept = String.UnicodeScalarView()
                kept.append(contentsOf: scalars[..<i])
                return String(kept)
            }
        }
        return line
    }

    /// " (did you mean 'x'?)" when exactly one candidate is within two edits of `word`.
    static func suggestion(for word: String, among candidates: [String]) -> String {
        let close = candidates.filter { editDistance(word, $0) <= 2 }
        guard close.count == 1, let match = close.first else { return "" }
        return " (did you mean \(match.themeQuoted)?)"
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    var trimmingThemeWhitespace: String {
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        let scalars = Array(unicodeScalars)
        guard let start = scalars.firstIndex(where: { !blank($0) }),
              let end = scalars.lastIndex(where: { !blank($0) }) else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[start...end])
        return String(kept)
    }
}
