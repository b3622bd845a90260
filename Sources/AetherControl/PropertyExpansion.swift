/// mpv's property expansion, for `--title` (and any text a user writes with properties in it):
///
/// - `${NAME}`: the property's value as text (`(unavailable)` when it has none);
/// - `${NAME:TEXT}`: the value, else `TEXT` (expanded);
/// - `${?NAME:TEXT}`: `TEXT` when the property has a value; `${!NAME:TEXT}`: when it has none;
/// - `${?NAME==VALUE:TEXT}`, `${!NAME==VALUE:TEXT}`: when it has (has not) that value;
/// - `${=NAME}`: the value (mpv's raw form; the same here);
/// - `$$` is `$`, `$}` is `}`, and `$>` leaves the rest of the text as it is.
///
/// The text comes from the user: malformed parts are kept as written (an unclosed `${` is
/// text), nesting is at most ``maxDepth`` deep and the result at most ``maxLength`` characters.
/// Values are not cleaned here: the caller sanitises what reaches a terminal.
public enum PropertyExpansion {
    public static let maxDepth = 16
    public static let maxLength = 4096

    /// `template` with its properties filled in by `value` (nil: the property has no value).
    public static func expand(_ template: String, value: (String) -> String?) -> String {
        withoutActuallyEscaping(value) { value in
            var parser = Parser(text: Array(template), value: value)
            return String(parser.run(depth: 0, untilBrace: false).prefix(maxLength))
        }
    }

    private struct Parser {
        let text: [Character]
        let value: (String) -> String?
        var i = 0
        var produced = 0
        /// The last ``run(depth:untilBrace:)`` ended at its closing brace.
        var closed = false

        init(text: [Character], value: @escaping (String) -> String?) {
            self.text = text
            self.value = value
        }

        /// Text up to the end, or up to the `}` that closes the current `${…}` (consumed).
        mutating func run(depth: Int, untilBrace: Bool) -> String {
            var out = ""
            closed = false
            func emit(_ s: String) {
                guard produced < PropertyExpansion.maxLength else { return }
                out += s
                produced += s.count
            }
            while i < text.count {
                let c = text[i]
                if untilBrace, c == "}" {
                    i += 1
                    closed = true
                    return out
                }
                guard c == "$", i + 1 < text.count else {
                    emit(String(c))
                    i += 1
                    continue
                }
                let next = text[i + 1]
                switch next {
                case "$", "}":
                    emit(String(next))
                    i += 2
                case ">":
                    // The rest as written (inside `${…}` up to its closing brace).
                    i += 2
                    while i < text.count, !(untilBrace && text[i] == "}") { emit(String(text[i])); i += 1 }
                    closed = i < text.count
                    if closed { i += 1 }
                    return out
                case "{":
                    let start = i
                    i += 2
                    if let part = reference(depth: depth) {
                        emit(part)
                    } else {
                        // Unclosed or too deep: the text as written.
                        i = text.count
                        emit(String(text[start...]))
                    }
                default:
                    emit("$")
                    i += 1
                }
            }
            closed = false
            return out
        }

        /// After `${`: the reference up to its `}`; nil when it never closes or nests too deep.
        mutating func reference(depth: Int) -> String? {
            guard depth < PropertyExpansion.maxDepth else { return nil }
            var mode: Character?
            if i < text.count, text[i] == "?" || text[i] == "!" || text[i] == "=" { mode = text[i]; i += 1 }
            // The name (and `==VALUE`) runs to `:` or `}`.
            var name = ""
            while i < text.count, text[i] != ":", text[i] != "}" { name.append(text[i]); i += 1 }
            guard i < text.count else { return nil }
            var compare: String?
            let letters = Array(name)
            if let k = letters.indices.dropLast().first(where: { letters[$0] == "=" && letters[$0 + 1] == "=" }) {
                compare = String(letters[(k + 2)...])
                name = String(letters[..<k])
            }
            let found = value(name)
            if text[i] == "}" {
                i += 1
                switch mode {
                case "?", "!": return ""
                default: return found ?? "(unavailable)"
                }
            }
            i += 1   // ':'
            let before = produced
            let inner = run(depth: depth + 1, untilBrace: true)
            guard closed else { return nil }
            produced = before
            switch mode {
            case "?": return (compare.map { found == $0 } ?? (found != nil)) ? inner : ""
            case "!": return (compare.map { found != $0 } ?? (found == nil)) ? inner : ""
            default: return found ?? inner
            }
        }
    }
}
