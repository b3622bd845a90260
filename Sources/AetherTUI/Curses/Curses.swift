import AetherEngine
import CNcurses
import Foundation

/// Thin helpers over ncursesw's C API (stdscr only). Callers hold the TTY lock.
enum Curses {
    static var columns: Int { Int(aether_COLS()) }
    static var rows: Int { Int(aether_LINES()) }

    /// Draws `text` at row/column, clipped to `width` display columns.
    ///
    /// Every string the chrome draws passes here, so here it is sanitised once more, whatever
    /// the caller did: no control character, escape sequence, bidi or invisible character from
    /// a file name or a tag reaches the terminal. (Callers sanitise too, so widths are measured
    /// on the text that is drawn.)
    static func put(_ text: String, row: Int, column: Int, style: CursesStyle, width: Int? = nil) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        let room = min(width ?? Int.max, columns - column)
        guard room > 0 else { return }
        let clipped = DisplayWidth.clip(TextSanitizer.clean(text), to: room)
        _ = clipped.withCString { aether_put(Int32(row), Int32(column), $0, style.attributes, style.pair, -1) }
    }

    /// Fills `width` cells at row/column with `character` in `style`.
    static func fill(row: Int, column: Int, width: Int, style: CursesStyle, character: Character = " ") {
        guard width > 0 else { return }
        put(String(repeating: character, count: width), row: row, column: column, style: style, width: width)
    }
}

/// An ncurses attribute set and colour pair.
struct CursesStyle: Equatable {
    var attributes: attr_t
    var pair: Int32
    static let plain = CursesStyle(attributes: 0, pair: 0)
}

/// Terminal display width of text (East Asian wide characters take two cells).
enum DisplayWidth {
    static func of(_ s: String) -> Int { s.unicodeScalars.reduce(0) { $0 + width($1) } }

    static func width(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v == 0 || (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) { return 0 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v) { return 2 }
        return 1
    }

    static func clip(_ s: String, to columns: Int) -> String {
        var out = String.UnicodeScalarView()
        var used = 0
        for u in s.unicodeScalars {
            let w = width(u)
            if used + w > columns { break }
            out.append(u)
            used += w
        }
        return String(out)
    }

    /// Word-wraps `text` (which may contain newlines) to lines of at most `columns`.
    static func wrap(_ text: String, to columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                let w = String(word)
                if line.isEmpty { line = w } else if of(line) + 1 + of(w) <= columns { line += " " + w } else {
                    lines.append(line); line = w
                }
                while of(line) > columns {
                    let head = clip(line, to: columns)
                    lines.append(head)
                    line = String(line.unicodeScalars.dropFirst(head.unicodeScalars.count))
                }
            }
            if !line.isEmpty { lines.append(line) }
        }
        return lines
    }
}
