import AetherBase
import AetherThemes
import CNcurses

/// The one owner of the text on screen (notcurses' render/rasterize split): each draw composes
/// a whole frame of views into a ``CellGrid``; the compositor diffs it against the frame the
/// screen holds and hands ncurses only the runs of cells that changed (ncurses, reading a
/// terminfo entry without erase and scroll capabilities, then writes just those). Nothing else
/// writes text cells. UI thread; ``present(_:palette:)`` and ``clear()`` inside
/// `terminal.withScreen`.
package struct Compositor {
    /// What ncurses' screen holds (nil: blank, as `erase()` left it).
    private var held: CellGrid?

    package init() {}

    /// A run of changed cells on one row, all in one style, to write as one string.
    package struct Run: Equatable {
        var row: Int
        var column: Int
        var text: String
        /// The role it is drawn in (nil: a blank cell in the terminal's own colours).
        var role: ThemeRole?
        var subtitle: SubtitleCellStyle?
    }

    /// Writes the cells of `frame` that differ from what the screen holds. A frame of another
    /// size than the held one (a resize) starts from a blank screen.
    /// Returns the rows it changed: ncurses may write anywhere on them (it moves the cursor by
    /// writing again what it believes is there: blanks, under a picture).
    @discardableResult
    package mutating func present(_ frame: CellGrid, palette: Palette) -> Set<Int> {
        if let held, held.columns != frame.columns || held.rows != frame.rows {
            erase()
            self.held = nil
        }
        var rows = Set<Int>()
        for run in Self.runs(from: held, to: frame) {
            let style = run.subtitle.map { palette.subtitle($0) } ?? run.role.map { palette[$0] } ?? .plain
            Curses.put(run.text, row: run.row, column: run.column, style: style, width: DisplayWidth.of(run.text))
            rows.insert(run.row)
        }
        held = frame
        return rows
    }

    /// Blanks the screen and has the next refresh clear the terminal (a relayout): the next frame
    /// is written whole.
    package mutating func clear() {
        erase()
        clearok(aether_stdscr(), true)
        held = nil
    }

    /// The runs that turn `held` (nil: a blank screen) into `frame`: each maximal stretch of
    /// changed cells in one style; a wide character's right half travels with its left half.
    package static func runs(from held: CellGrid?, to frame: CellGrid) -> [Run] {
        let blank = CellGrid.Cell()
        var runs: [Run] = []
        for row in 0..<frame.rows {
            let new = frame.cells[row]
            let old = held.map { $0.rows > row ? $0.cells[row] : [] } ?? []
            var current: Run?
            var x = 0
            while x < frame.columns {
                let cell = new[x]
                let wide = x + 1 < frame.columns && new[x + 1].continuation
                let before = x < old.count ? old[x] : blank
                // A wide character changed when either half did.
                let changed = cell != before || (wide && (x + 1 >= old.count || new[x + 1] != old[x + 1]))
                if cell.continuation {
                    // Written with its left half.
                    x += 1
                    continue
                }
                if changed {
                    if var run = current, run.role == cell.role, run.subtitle == cell.subtitle {
                        run.text.unicodeScalars.append(cell.scalar)
                        run.text.unicodeScalars.append(contentsOf: cell.marks)
                        current = run
                    } else {
                        if let current { runs.append(current) }
                        current = Run(row: row, column: x, text: cell.text, role: cell.role, subtitle: cell.subtitle)
                    }
                } else if let run = current {
                    runs.append(run)
                    current = nil
                }
                x += wide ? 2 : 1
            }
            if let current { runs.append(current) }
        }
        return runs
    }
}
