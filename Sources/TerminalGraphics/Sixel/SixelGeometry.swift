/// Sizes and places sixel images so they fit their cell rectangle and never scroll the screen.
public enum SixelGeometry {
    /// The largest sixel image for `rect`: `columns × cellWidth` wide, `rows × cellHeight` high
    /// rounded down to a multiple of 6, clamped to the terminal's maximum geometry and to
    /// ``ReplyLimits/sixelGeometry``.
    ///
    /// A sixel image leaves the cursor on the text row below it; when that row would be past the
    /// bottom of the screen the terminal scrolls. So when `rect` reaches the last screen row the
    /// image is kept one text row short of it.
    public static func imageSize(for rect: CellRect, cellSize: CellSize, screenRows: Int,
                                 maxGeometry: PixelSize? = nil) -> PixelSize {
        let cell = cellSize.isValid ? cellSize : .fallback
        var rows = rect.height
        if screenRows > 0, rect.endRow >= screenRows { rows = max(0, screenRows - 1 - rect.row) }
        var width = rect.width * cell.width
        var height = rows * cell.height
        if let maxGeometry, maxGeometry.width > 0, maxGeometry.height > 0 {
            width = min(width, maxGeometry.width)
            height = min(height, maxGeometry.height)
        }
        width = min(width, ReplyLimits.sixelGeometry.upperBound)
        height = min(height, ReplyLimits.sixelGeometry.upperBound)
        return PixelSize(width: max(0, width), height: max(0, height / 6 * 6))
    }

    /// The size of `source` scaled to fit `bounds` with its aspect ratio kept, height a multiple of 6.
    public static func aspectFit(_ source: PixelSize, in bounds: PixelSize) -> PixelSize {
        guard source.width > 0, source.height > 0, bounds.width > 0, bounds.height > 0 else {
            return PixelSize(width: 0, height: 0)
        }
        var w = bounds.width
        var h = source.height * bounds.width / source.width
        if h > bounds.height {
            h = bounds.height
            w = max(1, source.width * bounds.height / source.height)
        }
        return PixelSize(width: w, height: h / 6 * 6)
    }
}
