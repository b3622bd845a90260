import AetherBase
import AetherThemes
import TerminalGraphics

/// Where views draw their text cells: the frame a draw composes (``CellGrid``, which
/// ``Compositor`` writes to the terminal) or a test's grid. Views are values that render a state
/// into a surface; they never read the player.
package protocol TextSurface {
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
    package mutating func put(_ text: String, row: Int, column: Int, role: ThemeRole) {
        put(text, row: row, column: column, role: role, width: nil)
    }

    package mutating func fill(row: Int, column: Int, width: Int, role: ThemeRole) {
        guard width > 0 else { return }
        put(String(repeating: " ", count: width), row: row, column: column, role: role, width: width)
    }
}

/// A grid of cells: the frame a draw composes (every view renders into it, then ``Compositor``
/// writes what changed) and what view tests read. Each cell keeps its character and the role
/// it was drawn in.
package struct CellGrid: TextSurface, Equatable {
    /// One cell: its character, the role (nil: never drawn, blank) and, for subtitle text, the
    /// script's style. `continuation`: the right half of the wide character on its left.
    package struct Cell: Equatable {
        /// The cell's scalar (what `put` measures and places): compared as a number, cheaply,
        /// for every cell of every frame.
        package var scalar: Unicode.Scalar = " "
        /// The combining marks drawn onto it (the zero-width scalars that followed it: Thai's
        /// vowels and tones, Devanagari's virama and matras, Arabic's harakat), at most
        /// ``maxMarks``; empty for almost every cell.
        package var marks: [Unicode.Scalar] = []
        package var role: ThemeRole?
        package var subtitle: SubtitleCellStyle?
        package var continuation = false

        package var character: Character { Character(text) }
        /// The scalar and its marks, as the terminal gets them.
        package var text: String {
            guard !marks.isEmpty else { return String(scalar) }
            var view = String.UnicodeScalarView([scalar])
            view.append(contentsOf: marks)
            return String(view)
        }
    }

    /// Marks kept on one cell; more (a hostile stack of diacritics) are dropped.
    package static let maxMarks = 4

    package let columns: Int
    package let rows: Int
    package private(set) var cells: [[Cell]]

    package init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        cells = Array(repeating: Array(repeating: Cell(), count: self.columns), count: self.rows)
    }

    package var characters: [[Character]] { cells.map { $0.map(\.character) } }
    package var roles: [[ThemeRole?]] { cells.map { $0.map(\.role) } }
    /// The subtitle style each cell was drawn in by `putStyled` (nil: drawn with `put`).
    package var styles: [[SubtitleCellStyle?]] { cells.map { $0.map(\.subtitle) } }

    package mutating func put(_ text: String, row: Int, column: Int, role: ThemeRole, width: Int?) {
        draw(text, row: row, column: column, role: role, subtitle: nil, width: width)
    }

    package mutating func putStyled(_ text: String, row: Int, column: Int, style: SubtitleCellStyle, width: Int?) {
        draw(text, row: row, column: column, role: .subtitle, subtitle: style, width: width)
    }

    private mutating func draw(_ text: String, row: Int, column: Int, role: ThemeRole, subtitle: SubtitleCellStyle?, width: Int?) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        let room = min(width ?? Int.max, columns - column)
        guard room > 0 else { return }
        var x = column
        // The same cleaning and clipping as ncurses' side (Curses.put): what is measured here is
        // what the terminal gets.
        // The cell a zero-width scalar joins: the last one drawn by this call.
        var last: Int?
        for scalar in DisplayWidth.clip(TextSanitizer.clean(text), to: room).unicodeScalars {
            let w = DisplayWidth.width(scalar)
            guard w > 0 else {
                if let last, cells[row][last].marks.count < Self.maxMarks { cells[row][last].marks.append(scalar) }
                continue
            }
            guard x + w <= columns else { break }
            last = x
            set(Cell(scalar: scalar, role: role, subtitle: subtitle), row: row, column: x)
            if w == 2 { set(Cell(scalar: " ", role: role, subtitle: subtitle, continuation: true), row: row, column: x + 1) }
            x += w
        }
    }

    /// Puts `cell` at row/column; a wide character it cuts in half leaves a blank in its place
    /// (as a terminal does).
    private mutating func set(_ cell: Cell, row: Int, column: Int) {
        let old = cells[row][column]
        if old.continuation, !cell.continuation, column > 0 {
            cells[row][column - 1].scalar = " "
        }
        if !old.continuation, column + 1 < columns, cells[row][column + 1].continuation {
            cells[row][column + 1].continuation = false
        }
        cells[row][column] = cell
    }

    /// The rows as text, trailing spaces removed.
    package var lines: [String] {
        cells.map { row in
            row.filter { !$0.continuation }.map(\.text).joined().trimmingTrailingWhitespace()
        }
    }

    /// The whole grid as text, one line per row.
    package var text: String { lines.joined(separator: "\n") }
}
