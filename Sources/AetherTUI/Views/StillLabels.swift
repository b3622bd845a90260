import AetherBase
import AetherScreen
import AetherThemes
import TerminalGraphics

/// Scrub mode's label: the marker's time and chapter, on the row above the preview picture, or,
/// with no picture (yet), alone above the marker.
struct ScrubLabel: Equatable {
    var target: Double
    /// The name of the chapter at the target (nil: the file has none there).
    var chapter: String?
    /// The marker's column on the progress bar.
    var marker: Int
    /// The label row above the preview picture (nil: no picture).
    var pictureLabel: CellRect?

    var text: String {
        " " + TimeFormat.clock(target) + (chapter.map { "  " + TextSanitizer.clean($0) } ?? "") + " "
    }

    /// Draws the label; returns the cells the preview takes (label and picture) above the bar.
    @discardableResult
    func render(into surface: inout some TextSurface) -> CellRect {
        let label = text
        let bar = surface.rows - 2
        guard let spot = pictureLabel else {
            let w = min(surface.columns, DisplayWidth.of(label))
            let column = min(surface.columns - w, max(0, marker - w / 2))
            surface.put(label, row: bar - 1, column: column, role: .status, width: w)
            return CellRect(column: column, row: bar - 1, width: w, height: 1)
        }
        surface.fill(row: spot.row, column: spot.column, width: spot.width, role: .status)
        surface.put(label, row: spot.row, column: spot.column, role: .status, width: spot.width)
        return CellRect(column: spot.column, row: spot.row, width: spot.width, height: bar - spot.row)
    }
}

/// The filmstrip's labels: each thumbnail's time (of the picture it shows) above it, the chosen
/// one highlighted and marked `▶`.
struct FilmstripLabels {
    var strip: Filmstrip
    /// The labels' row (nil: no thumbnail placed yet, the row above the bar).
    var row: Int?

    /// Draws the labels; returns the cells the strip takes above the bar.
    @discardableResult
    func render(into surface: inout some TextSurface) -> CellRect {
        let columns = surface.columns
        let bar = surface.rows - 2
        let top = row ?? (bar - 1)
        let left = strip.column(of: 0, screenColumns: columns)
        for (slot, time) in strip.times.enumerated() {
            let column = strip.column(of: slot, screenColumns: columns)
            guard column + strip.width <= columns else { break }
            let role: ThemeRole = slot == strip.selection ? .menuSelected : .status
            let text = (slot == strip.selection ? "▶ " : "  ") + TimeFormat.clock(strip.shown[slot] ?? time)
            surface.fill(row: top, column: column, width: strip.width, role: role)
            surface.put(text, row: top, column: column, role: role, width: strip.width)
        }
        return CellRect(column: left, row: top, width: min(strip.totalWidth, columns - left), height: bar - top)
    }
}
