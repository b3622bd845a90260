/// The terminal as a video output sees it: its size in cells, one cell in pixels, and the
/// largest pixel picture it accepts.
public struct TerminalGeometry: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    /// One cell in pixels; ``CellSize/fallback`` when the terminal did not say or said nonsense.
    public var cellSize: CellSize
    /// The largest pixel picture (sixel's XTSMGRAPHICS answer, else ``ReplyLimits/sixelGeometry``).
    public var maxPicture: PixelSize

    public init(columns: Int, rows: Int, cellSize: CellSize?, maxPicture: PixelSize? = nil) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        self.cellSize = cellSize.flatMap { $0.isValid ? $0 : nil } ?? .fallback
        let ceiling = ReplyLimits.sixelGeometry.upperBound
        self.maxPicture = PixelSize(width: min(ceiling, max(1, maxPicture?.width ?? ceiling)),
                                    height: min(ceiling, max(1, maxPicture?.height ?? ceiling)))
    }
}

/// Where a driver draws a picture: the cells it covers and the picture size it wants for them
/// (what the host asks the decoder for).
public struct Placement: Sendable, Hashable, CustomStringConvertible {
    public var rect: CellRect
    public var pictureSize: PixelSize
    /// One cell in pixels, as the placement was computed with.
    public var cellSize: CellSize

    public init(rect: CellRect, pictureSize: PixelSize, cellSize: CellSize = .fallback) {
        self.rect = rect
        self.pictureSize = pictureSize
        self.cellSize = cellSize
    }

    /// Nothing to draw.
    public static let none = Placement(rect: CellRect(column: 0, row: 0, width: 0, height: 0),
                                       pictureSize: PixelSize(width: 0, height: 0))
    public var isEmpty: Bool { rect.isEmpty || pictureSize.width <= 0 || pictureSize.height <= 0 }
    public var description: String { "\(rect) picture \(pictureSize)" }
}

/// What one ``VideoDriver/render(_:placement:mask:into:)`` call did.
public struct RenderReport: Sendable, Equatable {
    /// Bytes appended to the output.
    public var bytes = 0
    /// The terminal already shows this picture: nothing was appended.
    public var unchanged = false
    /// One line for the log: the driver changed how it draws (kitty gave up shared memory).
    public var note: String?

    public init(bytes: Int = 0, unchanged: Bool = false, note: String? = nil) {
        self.bytes = bytes
        self.unchanged = unchanged
        self.note = note
    }
}

/// A way of drawing video in a terminal, after mpv's `vo_driver`: the registry
/// (``VideoDrivers``) picks one by name or by what the terminal can do, and nothing else in the
/// program knows which kind it is.
///
/// A driver is used by one render thread; it is not thread-safe. It appends bytes to a buffer
/// and never writes to the terminal itself.
public protocol VideoDriver: AnyObject {
    /// The `--vo` name.
    var name: String { get }
    /// Pictures are drawn above the text layer (sixel, kitty): text under the picture is hidden,
    /// so overlays must be left out of it and subtitles kept off it.
    var drawsAboveText: Bool { get }
    /// Text rows kept free under the picture for subtitles (drivers that draw above text).
    var rowsBelowPicture: Int { get }
    /// The picture's pixels reach the screen one to one (sixel, kitty): text subtitles can be
    /// drawn into them (libass); cell drivers keep text cells, crisper there.
    var showsPixels: Bool { get }
    /// The quality ladder the ``OutputGovernor`` may step down, best rung first (empty: the
    /// driver is not governed). A rung's colours are for ``paletteColors``.
    var qualityRungs: [OutputGovernor.Settings] { get }
    /// Palette size for drivers that have one (sixel), else nil; a governor may lower it (set on
    /// the render thread; a change makes the next frame a full repaint).
    var paletteColors: Int? { get set }
    /// Cell drivers' temporal tolerance as the governor sets it (nil: the driver's own); other
    /// drivers ignore it. Set on the render thread.
    var tolerance: Double? { get set }
    /// The driver's settings worth a word in the log beside its name (sixel: its repaint mode),
    /// nil when there are none.
    var logDetail: String? { get }
    /// Where the picture goes inside `area` for a source of `displayAspect`, and the picture
    /// size to decode for it; `scale` (≤ 1) asks pixel drivers for a smaller picture. Pure: it
    /// may be called from any thread.
    func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement
    /// Appends the bytes that bring the terminal's `placement` to `image` (exactly
    /// `placement.pictureSize`), leaving the cells `mask` covers as they are (or, for drivers
    /// that draw above text, transparent).
    func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                into output: ByteBuffer) throws(RenderError) -> RenderReport
    /// Forgets what the terminal shows: the next frame is drawn whole.
    func invalidate()
    /// Something else was drawn on the cells `mask` covers since the last frame (an overlay
    /// that opened and closed, or moved, between two frames): the next frame draws them again.
    /// Drivers that keep what the terminal shows per cell (the cell outputs) need it; pixel
    /// drivers draw around overlays on their own (the default does nothing).
    func invalidate(cells mask: CellMask)
    /// Appends what takes the driver's pictures off the screen for good (kitty deletes its
    /// image; text-layer and sixel pictures go with an erase of their cells).
    func teardown(into output: ByteBuffer)
    /// A frame is one command the terminal applies whole (a kitty image placed by its id): a
    /// synchronized-update bracket adds nothing to it, and a terminal that holds a bracket's
    /// bytes gives up on a frame larger than it holds (kitty 0.26 logged a `Pending mode stop`
    /// for each of a 1080p film's multi-megabyte direct transmissions). False (the default):
    /// the frame is bracketed where the terminal synchronizes (cells, sixel, kitty's
    /// placeholder cells).
    var framesApplyWhole: Bool { get }
}

extension VideoDriver {
    public func invalidate(cells mask: CellMask) {}
    public var rowsBelowPicture: Int { drawsAboveText ? 2 : 0 }
    public var showsPixels: Bool { false }
    public var qualityRungs: [OutputGovernor.Settings] { [] }
    public var logDetail: String? { nil }
    /// Drivers without a palette: nil, and setting it does nothing.
    public var paletteColors: Int? {
        get { nil }
        set {}
    }
    public func teardown(into output: ByteBuffer) {}
    public var framesApplyWhole: Bool { false }
    /// Drivers without a tolerance: nil, and setting it does nothing.
    public var tolerance: Double? {
        get { nil }
        set {}
    }

    /// Every pixel reaches the screen in its own colour (kitty: no palette, no cells), so a
    /// picture whose chroma is interpolated to every pixel is worth its cost. `aether-bench
    /// scaling`, 1080p → 1280×720: +10.3 dB on grain and +10.9 dB on the film clip against the
    /// accurate conversion, for 1.4 ms more a frame. Not so for sixel: its 256 colours cannot
    /// hold the extra chroma detail (the film clip's sixel picture lost 1.8 dB, grain's gained
    /// 5.4, with 17–21 % more bytes), nor for cells (small pictures are area-averaged in 4:4:4
    /// already).
    public var showsEveryPixelsColour: Bool { showsPixels && paletteColors == nil }
}

extension ByteBuffer {
    /// Appends an erase (ECH) of the cells of `rect` that `spared` does not cover, one run of
    /// cells at a time: the cells become blank for text and, in terminals that keep graphics per
    /// cell (xterm), lose the picture there too. The caller sets default attributes and saves
    /// and restores the cursor around it.
    public func appendErase(_ rect: CellRect, sparing spared: CellMask) {
        guard !rect.isEmpty else { return }
        for row in rect.row..<rect.endRow {
            for run in spared.runs(row: row, in: rect.column..<rect.endColumn, covered: false) {
                append(Escape.cursorPosition(column: run.lowerBound, row: row))
                append(Escape.eraseCharacters(run.count))
            }
        }
    }
}

/// Picture sizes and placements shared by the drivers: one geometry for the whole program.
public enum PictureGeometry {
    /// A pixel picture (sixel, kitty): the largest picture of `displayAspect` in `area` minus
    /// `reservedRows` at the bottom, clamped to the terminal's maximum, scaled by `scale`,
    /// its height a multiple of `heightMultiple`, centred. With `cellsFollowPicture` the cells
    /// are the ones the picture covers (sixel draws pixels 1:1); otherwise the unscaled fit's
    /// cells (kitty stretches the picture over them).
    public static func pixelPlacement(area: CellRect, displayAspect: Double, geometry: TerminalGeometry,
                                      reservedRows: Int, scale: Double = 1, heightMultiple: Int = 1,
                                      cellsFollowPicture: Bool = true) -> Placement {
        let cell = geometry.cellSize
        var pictureRows = max(0, area.height - reservedRows)
        if pictureRows == 0 { pictureRows = min(1, area.height) }
        // A picture that reaches the last screen row makes the terminal scroll (sixel leaves the
        // cursor below the image): keep it one text row short of it.
        if geometry.rows > 0, area.row + pictureRows >= geometry.rows { pictureRows = max(0, geometry.rows - 1 - area.row) }
        guard area.width > 0, pictureRows > 0 else { return .none }
        let aspect = sane(displayAspect)
        let box = PixelSize(width: min(geometry.maxPicture.width, area.width * cell.width),
                            height: min(geometry.maxPicture.height, pictureRows * cell.height))
        let fit = fitted(aspect: aspect, in: box, heightMultiple: heightMultiple)
        guard fit.width > 0, fit.height > 0 else { return .none }
        // Never below the governor's floor: half the cell-pixel resolution on each side.
        let scale = OutputGovernor.floored(scale)
        var picture = fit
        if scale < 1 {
            let h = Int(Double(fit.height) * scale) / heightMultiple * heightMultiple
            picture = PixelSize(width: max(1, Int((Double(h) * aspect).rounded())), height: h)
            if picture.height <= 0 { picture = fit }
        }
        let shown = cellsFollowPicture ? picture : fit
        let cols = min(area.width, (shown.width + cell.width - 1) / cell.width)
        let rows = min(pictureRows, (shown.height + cell.height - 1) / cell.height)
        let rect = CellRect(column: area.column + (area.width - cols) / 2, row: area.row + (pictureRows - rows) / 2,
                            width: cols, height: rows)
        return Placement(rect: rect, pictureSize: picture, cellSize: cell)
    }

    /// A cell picture (half-block): the largest rectangle of `displayAspect` in `area`, with the
    /// cell's pixel aspect taken into account; each cell shows `pixelsPerCell` pictures pixels
    /// (1 × 2 for `▀`).
    public static func cellPlacement(area: CellRect, displayAspect: Double, geometry: TerminalGeometry,
                                     pixelsPerCell: (x: Int, y: Int) = (1, 2)) -> Placement {
        guard area.width > 0, area.height > 0 else { return .none }
        let cell = geometry.cellSize
        let aspect = sane(displayAspect)
        let physicalW = Double(area.width * cell.width), physicalH = Double(area.height * cell.height)
        var w = physicalW, h = w / aspect
        if h > physicalH { h = physicalH; w = h * aspect }
        let maxSide = ReplyLimits.sixelGeometry.upperBound
        let cols = min(area.width, maxSide / pixelsPerCell.x, max(1, Int((w / Double(cell.width)).rounded())))
        let rows = min(area.height, maxSide / pixelsPerCell.y, max(1, Int((h / Double(cell.height)).rounded())))
        let rect = CellRect(column: area.column + (area.width - cols) / 2, row: area.row + (area.height - rows) / 2,
                            width: cols, height: rows)
        return Placement(rect: rect, pictureSize: PixelSize(width: cols * pixelsPerCell.x, height: rows * pixelsPerCell.y),
                         cellSize: cell)
    }

    /// The largest size of `aspect` inside `box`, its height a multiple of `heightMultiple`.
    public static func fitted(aspect: Double, in box: PixelSize, heightMultiple: Int = 1) -> PixelSize {
        guard box.width > 0, box.height > 0 else { return PixelSize(width: 0, height: 0) }
        let m = max(1, heightMultiple)
        var w = Double(box.width), h = w / aspect
        if h > Double(box.height) { h = Double(box.height); w = h * aspect }
        let height = Int(h) / m * m
        let width = min(box.width, max(1, Int((Double(height) * aspect).rounded())))
        return PixelSize(width: height > 0 ? width : 0, height: height)
    }

    /// A damaged header can claim any aspect: keep it within what a screen could show.
    static func sane(_ aspect: Double) -> Double {
        aspect.isFinite && aspect > 0 ? min(20, max(0.05, aspect)) : 16.0 / 9
    }
}
