import AetherSubtitles
import AetherScreen
import TerminalGraphics

/// Text cues in cells: where they go on a layout with its driver, wrapped once per cue and
/// width (UI thread only).
struct TextCueCells {
    private var wraps = SubtitleWrapCache()
    private var cells = SubtitleCellCache()

    /// Where text cues go: the bottom of the video rectangle, or under a sixel picture.
    private static func area(_ layout: Layout, _ driver: any VideoDriver) -> CellRect {
        var area = layout.video.isEmpty ? layout.videoArea : layout.video
        // A sixel image hides text drawn over it in some terminals (xterm): use the letterbox
        // rows under the picture when there are any.
        if driver.drawsAboveText, !layout.video.isEmpty, layout.video.endRow < layout.videoArea.endRow {
            area = CellRect(column: layout.video.column, row: layout.videoArea.row, width: layout.video.width,
                            height: layout.videoArea.endRow - layout.videoArea.row)
        }
        return area
    }

    /// The text cues in `cues` placed in cells: as their script places them (SubtitleCellLayout)
    /// over the picture, or, where a sixel picture would hide text drawn over it (xterm), as
    /// lines at the bottom of the subtitle area. Wrapped once per cue and width (the caches).
    mutating func lines(for cues: [SubtitleCue], layout: Layout, driver: any VideoDriver) -> [SubtitleCellLayout.Line] {
        let area = Self.area(layout, driver)
        guard area.height > 0, cues.contains(where: { $0.text != nil }) else { return [] }
        if !driver.drawsAboveText, !layout.video.isEmpty {
            return cells.lines(for: cues.filter { $0.text != nil }, in: layout.video)
        }
        let width = max(10, area.width - 4)
        var lines: [String] = []
        for cue in cues {
            guard let text = cue.text else { continue }
            lines += wraps.lines(start: cue.start, end: cue.end, text: text, width: width).suffix(area.height)
        }
        let bottom = area.endRow - 1
        return lines.suffix(area.height).reversed().enumerated().map { i, line in
            let w = min(DisplayWidth.of(line) + 2, area.width)
            return SubtitleCellLayout.Line(row: bottom - i, column: area.column + max(0, (area.width - w) / 2), width: w,
                                           segments: [SubtitleCellLayout.Segment(text: line, style: SubtitleCellStyle())])
        }
    }
}
