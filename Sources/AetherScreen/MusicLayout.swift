import TerminalGraphics

/// Where the music view puts its parts inside the picture area. Pure, so it is unit-tested.
///
/// Wide enough: the cover on the left (square in pixels, at most two fifths of the width), the
/// tags to its right, the spectrum under them down to the area's foot. Narrow: the cover on top
/// when there is height to spare, then the tags, then the spectrum. When the spectrum would be
/// too small to read, a one-row level meter takes its place; when even that has no row, the
/// tags give up their last lines for it. With lyrics, they take the spectrum's rows but the
/// last, where the level meter goes.
public struct MusicLayout: Equatable {
    /// Where the cover (or its placeholder) goes; empty: no cover.
    public var cover: CellRect
    /// The tag lines.
    public var text: CellRect
    /// The spectrum's bars, or the level meter's row.
    public var bars: CellRect
    /// The bars area is a one-row level meter.
    public var meter: Bool
    /// Where the lyrics scroll (empty: none, or no room).
    public var lyrics: CellRect

    /// Smallest spectrum worth drawing; below it the level meter.
    public static let minimumBars = (columns: 16, rows: 3)

    /// - Parameter textLines: how many tag lines there are to show.
    /// - Parameter lyrics: whether synced lyrics are to scroll.
    public init(area: CellRect, cellSize: CellSize, textLines: Int, lyrics hasLyrics: Bool = false) {
        let empty = CellRect(column: area.column, row: area.row, width: 0, height: 0)
        cover = empty
        text = empty
        bars = empty
        lyrics = empty
        meter = false
        // One blank row above and below, two columns either side.
        let inner = CellRect(column: area.column + 2, row: area.row + 1, width: max(0, area.width - 4), height: max(0, area.height - 2))
        guard inner.width >= 8, inner.height >= 1 else { return }
        let cellAspect = Double(max(1, cellSize.height)) / Double(max(1, cellSize.width))
        var below = inner   // what the tags and the bars share
        if inner.width >= 50, inner.height >= 8 {
            var rows = inner.height
            var columns = Int((Double(rows) * cellAspect).rounded())
            if columns > inner.width * 2 / 5 {
                columns = inner.width * 2 / 5
                rows = min(inner.height, max(1, Int((Double(columns) / cellAspect).rounded())))
            }
            cover = CellRect(column: inner.column, row: inner.row, width: columns, height: rows)
            let left = cover.endColumn + 3
            below = CellRect(column: left, row: inner.row, width: inner.endColumn - left, height: inner.height)
        } else if inner.height >= 14, inner.width >= 12 {
            let rows = min(inner.height - 8, max(1, Int((Double(inner.width) / cellAspect).rounded())))
            cover = CellRect(column: inner.column, row: inner.row, width: inner.width, height: rows)
            below = CellRect(column: inner.column, row: cover.endRow + 1, width: inner.width, height: inner.endRow - cover.endRow - 1)
        }
        var textRows = min(max(0, textLines), below.height)
        if below.height - textRows < 2, below.height >= 3 { textRows = below.height - 2 }
        text = CellRect(column: below.column, row: below.row, width: below.width, height: textRows)
        let top = text.endRow + 1
        let barRows = below.endRow - top
        guard barRows >= 1 else { return }
        bars = CellRect(column: below.column, row: top, width: below.width, height: barRows)
        if hasLyrics, barRows >= 3 {
            lyrics = CellRect(column: below.column, row: top, width: below.width, height: barRows - 2)
            meter = true
            bars = CellRect(column: below.column, row: below.endRow - 1, width: below.width, height: 1)
            return
        }
        if barRows < Self.minimumBars.rows || below.width < Self.minimumBars.columns {
            meter = true
            bars = CellRect(column: below.column, row: below.endRow - 1, width: below.width, height: 1)
        }
    }

    /// Bands for a spectrum `width` columns wide: a bar of `barWidth` columns and a column of gap each.
    public static func bands(width: Int) -> (count: Int, barWidth: Int) {
        let count = min(48, max(1, width / 3))
        return (count, max(1, width / count - 1))
    }

    /// The glyphs of a bar `rows` tall at `level` (0…1), bottom row first: full blocks and one
    /// partial block (▁…▇) on top, in eighths of a cell.
    public static func barGlyphs(level: Float, rows: Int) -> [Character] {
        let eighths = Int((Double(min(1, max(0, level))) * Double(rows * 8)).rounded())
        return (0..<rows).map { row in blocks[min(8, max(0, eighths - row * 8))] }
    }

    public static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    /// Left-aligned partial blocks for the level meter, in eighths.
    public static let meterBlocks: [Character] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"]

    /// A one-row meter `width` columns wide at `level` (0…1).
    public static func meterGlyphs(level: Float, width: Int) -> String {
        let eighths = Int((Double(min(1, max(0, level))) * Double(width * 8)).rounded())
        return String((0..<width).map { meterBlocks[min(8, max(0, eighths - $0 * 8))] })
    }
}
