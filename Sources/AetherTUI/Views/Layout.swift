import TerminalGraphics

/// Where everything goes on a screen of `columns` × `rows` cells. Pure, so it is unit-tested.
///
/// Row 0 is the title line and the last two rows the transport bar; they are never covered by
/// video. The telemetry pane, when shown, takes `telemetryWidth` columns on the right. The video
/// goes where the active ``VideoDriver`` places it in what is left (the one geometry of the
/// program is ``PictureGeometry``).
public struct Layout: Equatable, Sendable {
    public static let telemetryWidth = 36
    public static let chromeTop = 1
    public static let chromeBottom = 2

    public var columns: Int
    public var rows: Int
    /// Where the video may go (screen minus chrome minus pane).
    public var videoArea: CellRect
    /// The picture: the cells it covers and the size to ask the decoder for.
    public var placement: Placement
    public var telemetryPane: CellRect?
    /// The picture's aspect (display width over height) the layout was made for.
    public var displayAspect: Double
    /// The terminal as the drivers see it (cell size, largest picture).
    public var geometry: TerminalGeometry
    /// The letterboxed video itself.
    public var video: CellRect { placement.rect }
    /// Pixel size to ask the decoder for.
    public var renderSize: PixelSize { placement.pictureSize }
    public var titleRow: Int { 0 }
    public var transportRows: ClosedRange<Int> { (rows - 2)...(rows - 1) }

    /// - Parameters:
    ///   - driver: the video output (nil: no video).
    ///   - scale: the governor's picture scale (≤ 1).
    public init(columns: Int, rows: Int, cellSize: CellSize?, displayAspect: Double, driver: (any VideoDriver)?,
                showTelemetry: Bool, maxPicture: PixelSize? = nil, scale: Double = 1) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.displayAspect = displayAspect
        let pane = showTelemetry && columns >= Layout.telemetryWidth + 20 ? Layout.telemetryWidth : 0
        let areaRows = max(0, rows - Layout.chromeTop - Layout.chromeBottom)
        let area = CellRect(column: 0, row: Layout.chromeTop, width: max(0, columns - pane), height: areaRows)
        videoArea = area
        telemetryPane = pane > 0 ? CellRect(column: columns - pane, row: Layout.chromeTop, width: pane, height: areaRows) : nil
        geometry = TerminalGeometry(columns: columns, rows: rows, cellSize: cellSize, maxPicture: maxPicture)
        placement = driver?.placement(for: area, displayAspect: displayAspect, geometry: geometry, scale: scale) ?? .none
    }

    /// Where a driver's picture goes on the probed screen (before ncurses has it): `--vo=auto`'s trial.
    public static func placement(on caps: TerminalCapabilities, displayAspect: Double, showTelemetry: Bool) -> (any VideoDriver) -> Placement {
        { Layout(columns: caps.window.columns ?? 80, rows: caps.window.rows ?? 24, cellSize: caps.window.cellSize, displayAspect: displayAspect,
                 driver: $0, showTelemetry: showTelemetry, maxPicture: caps.sixel.effectiveMaxGeometry).placement }
    }
}
