import TerminalGraphics

/// How the video is drawn.
public enum Renderer: String, Sendable {
    case sixel, halfBlock = "half-block", none
}

/// Where everything goes on a screen of `columns` × `rows` cells. Pure, so it is unit-tested.
///
/// Row 0 is the title line and the last two rows the transport bar; they are never covered by
/// video. The telemetry pane, when shown, takes `telemetryWidth` columns on the right. The video
/// fills the largest rectangle of the source's display aspect in what is left, centred
/// (letterboxed), with the cell's pixel aspect taken into account.
public struct Layout: Equatable, Sendable {
    public static let telemetryWidth = 36
    public static let chromeTop = 1
    public static let chromeBottom = 2
    /// Rows kept under a sixel picture for subtitles.
    public static let sixelSubtitleRows = 2
    /// The largest picture asked of the decoder, on each side, whatever the terminal reports
    /// (a tty can claim 65535 columns): ``ReplyLimits/sixelGeometry``'s ceiling.
    public static let maxRenderSide = ReplyLimits.sixelGeometry.upperBound

    public var columns: Int
    public var rows: Int
    /// Where the video may go (screen minus chrome minus pane).
    public var videoArea: CellRect
    /// The letterboxed video itself.
    public var video: CellRect
    /// Pixel size to ask the decoder for: `video.width × 2·video.height` in half-block mode,
    /// the sixel image size in sixel mode.
    public var renderSize: TerminalGraphics.PixelSize
    public var telemetryPane: CellRect?
    public var titleRow: Int { 0 }
    public var transportRows: ClosedRange<Int> { (rows - 2)...(rows - 1) }

    public init(columns: Int, rows: Int, cellSize: CellSize, displayAspect: Double, renderer: Renderer,
                showTelemetry: Bool, maxSixel: TerminalGraphics.PixelSize? = nil) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        let pane = showTelemetry && columns >= Layout.telemetryWidth + 20 ? Layout.telemetryWidth : 0
        let areaRows = max(0, rows - Layout.chromeTop - Layout.chromeBottom)
        let area = CellRect(column: 0, row: Layout.chromeTop, width: max(0, columns - pane), height: areaRows)
        videoArea = area
        telemetryPane = pane > 0 ? CellRect(column: columns - pane, row: Layout.chromeTop, width: pane, height: areaRows) : nil
        // A damaged header can claim any aspect: keep it within what a screen could show.
        let aspect = displayAspect.isFinite && displayAspect > 0 ? min(20, max(0.05, displayAspect)) : 16.0 / 9
        let cell = cellSize.isValid ? cellSize : CellSize.fallback

        switch renderer {
        case .sixel:
            // Fit in pixels, keep the height a multiple of 6 (sixel bands), stay inside the area,
            // and leave `sixelSubtitleRows` free under the picture: terminals draw sixel graphics
            // above text, so subtitles must not overlap the image.
            let pictureRows = max(1, area.height - Layout.sixelSubtitleRows)
            var box = TerminalGraphics.PixelSize(width: min(Layout.maxRenderSide, area.width * cell.width),
                                                 height: min(Layout.maxRenderSide, pictureRows * cell.height))
            if let maxSixel, maxSixel.width > 0, maxSixel.height > 0 {
                box = TerminalGraphics.PixelSize(width: min(box.width, maxSixel.width), height: min(box.height, maxSixel.height))
            }
            var w = Double(box.width), h = w / aspect
            if h > Double(box.height) { h = Double(box.height); w = h * aspect }
            let height = max(0, Int(h) / 6 * 6)
            let width = max(0, min(box.width, Int((Double(height) * aspect).rounded())))
            renderSize = TerminalGraphics.PixelSize(width: width, height: height)
            let cols = min(area.width, (width + cell.width - 1) / cell.width)
            let rowsUsed = min(pictureRows, (height + cell.height - 1) / cell.height)
            video = CellRect(column: area.column + (area.width - cols) / 2, row: area.row + (pictureRows - rowsUsed) / 2,
                             width: cols, height: rowsUsed)
        case .halfBlock, .none:
            // One cell is cell.width × cell.height physical pixels and shows 1 × 2 picture pixels.
            let physicalW = Double(area.width * cell.width), physicalH = Double(area.height * cell.height)
            var w = physicalW, h = w / aspect
            if h > physicalH { h = physicalH; w = h * aspect }
            let cols = min(area.width, Layout.maxRenderSide, max(area.width > 0 ? 1 : 0, Int((w / Double(cell.width)).rounded())))
            let rowsUsed = min(area.height, Layout.maxRenderSide / 2, max(area.height > 0 ? 1 : 0, Int((h / Double(cell.height)).rounded())))
            video = CellRect(column: area.column + (area.width - cols) / 2, row: area.row + (area.height - rowsUsed) / 2,
                             width: cols, height: rowsUsed)
            renderSize = TerminalGraphics.PixelSize(width: cols, height: rowsUsed * 2)
        }
    }
}
