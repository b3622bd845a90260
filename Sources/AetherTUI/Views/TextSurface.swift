import AetherEngine
import TerminalGraphics

/// Where views draw their text cells: ncurses' screen in the player (``CursesSurface``), a
/// plain grid in tests (``CellGrid``). Views are values that render a state into a surface;
/// they never read the player.
protocol TextSurface {
    var columns: Int { get }
    var rows: Int { get }
    /// Draws `text` at row/column in `role`'s style, clipped to `width` display columns and to
    /// the surface.
    mutating func put(_ text: String, row: Int, column: Int, role: ThemeRole, width: Int?)
    /// Draws subtitle text in the theme's subtitle style with the script's bold, italic and
    /// colour (the colour only where the theme has colours: never under NO_COLOR).
    mutating func putStyled(_ text: String, row: Int, column: Int, style: SubtitleCellStyle, width: Int?)
}

extension TextSurface {
    mutating func put(_ text: String, row: Int, column: Int, role: ThemeRole) {
        put(text, row: row, column: column, role: role, width: nil)
    }

    mutating func fill(row: Int, column: Int, width: Int, role: ThemeRole) {
        guard width > 0 else { return }
        put(String(repeating: " ", count: width), row: row, column: column, role: role, width: width)
    }
}

/// ncurses' standard screen with the theme's styles. Inside `terminal.withScreen`.
struct CursesSurface: TextSurface {
    let palette: Palette
    var columns: Int { Curses.columns }
    var rows: Int { Curses.rows }

    mutating func put(_ text: String, row: Int, column: Int, role: ThemeRole, width: Int?) {
        Curses.put(text, row: row, column: column, style: palette[role], width: width)
    }

    mutating func putStyled(_ text: String, row: Int, column: Int, style: SubtitleCellStyle, width: Int?) {
        Curses.put(text, row: row, column: column, style: palette.subtitle(style), width: width)
    }
}

/// A grid of cells for view tests: each cell's character and the role it was drawn in.
struct CellGrid: TextSurface {
    let columns: Int
    let rows: Int
    private(set) var characters: [[Character]]
    private(set) var roles: [[ThemeRole?]]
    /// The subtitle style each cell was drawn in by `putStyled` (nil: drawn with `put`).
    private(set) var styles: [[SubtitleCellStyle?]]

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        characters = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        roles = Array(repeating: Array(repeating: nil, count: columns), count: rows)
        styles = Array(repeating: Array(repeating: nil, count: columns), count: rows)
    }

    mutating func putStyled(_ text: String, row: Int, column: Int, style: SubtitleCellStyle, width: Int?) {
        put(text, row: row, column: column, role: .subtitle, width: width)
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        let room = min(width ?? Int.max, columns - column)
        let drawn = DisplayWidth.of(DisplayWidth.clip(TextSanitizer.clean(text), to: room))
        for x in column..<min(columns, column + drawn) { styles[row][x] = style }
    }

    mutating func put(_ text: String, row: Int, column: Int, role: ThemeRole, width: Int?) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        let room = min(width ?? Int.max, columns - column)
        guard room > 0 else { return }
        var x = column
        // The same cleaning and clipping as the terminal path (Curses.put).
        for scalar in DisplayWidth.clip(TextSanitizer.clean(text), to: room).unicodeScalars {
            let w = DisplayWidth.width(scalar)
            guard w > 0 else { continue }
            guard x < columns else { break }
            characters[row][x] = Character(scalar)
            roles[row][x] = role
            if w == 2, x + 1 < columns { characters[row][x + 1] = " "; roles[row][x + 1] = role }
            x += w
        }
    }

    /// The rows as text, trailing spaces removed.
    var lines: [String] {
        characters.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
    }

    /// The whole grid as text, one line per row.
    var text: String { lines.joined(separator: "\n") }
}
