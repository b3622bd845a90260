import AetherScreen
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The open dropdown: a box at the bottom right of the video area, the items from the menu's
/// scroll on, the current one marked `●`, the selection highlighted.
struct TrackMenuView {
    var menu: TrackMenu

    /// How many items fit in `videoArea` (the box's border and a row of air take three).
    static func visibleRows(in videoArea: CellRect) -> Int { max(1, videoArea.height - 3) }

    /// Draws the menu; returns the cells it covers.
    @discardableResult
    func render(in videoArea: CellRect, into surface: inout some TextSurface) -> CellRect {
        let visible = Array(menu.items.enumerated()).dropFirst(menu.scroll).prefix(Self.visibleRows(in: videoArea))
        let lines = visible.map { ($0.element.current ? "● " : "  ") + $0.element.label }
        let columns = surface.columns
        let width = min(columns - 2, max(DisplayWidth.of(menu.title) + 4, (lines.map(DisplayWidth.of).max() ?? 10) + 4))
        let height = lines.count + 2
        let column = max(0, columns - width - 2)
        let row = max(videoArea.row, surface.rows - 2 - height)
        let rect = BoxView(title: menu.title, lines: lines, style: .menu, border: .menuBorder, width: width)
            .render(at: (column, row), into: &surface)
        if let selectedRow = visible.firstIndex(where: { $0.offset == menu.selection }).map({ $0 - visible.startIndex }) {
            surface.put(" " + DisplayWidth.clip(lines[selectedRow], to: width - 3).paddedOrCut(to: width - 3),
                        row: row + 1 + selectedRow, column: column + 1, role: .menuSelected, width: width - 2)
        }
        return rect
    }
}
