import AetherBase

/// How a sixel picture leaves the cells an overlay covers alone (the stats and help boxes, a
/// menu, the scrub preview): decided per terminal by ``TerminalCapabilities/sixelComposes``.
public enum SixelOverlays: String, Sendable, CaseIterable {
    /// One image with those cells' pixels unset (`P2=1`): the terminal keeps the text there
    /// (xterm, foot).
    case transparent
    /// The picture around those cells, one image per rectangle of uncovered cells, so no image
    /// touches an overlay: mlterm draws an image's unset pixels as background, which blanked
    /// the boxes' text under a picture with holes.
    case clipped
}

/// `--vo=sixel`: DEC sixel images with a per-scene palette (``SixelEncoder``). Terminals draw
/// sixel above text, so cells an overlay covers are left out of the picture (``SixelOverlays``)
/// and two text rows stay free under the picture for subtitles.
///
/// Inside tmux without sixel of its own but with passthrough to a sixel terminal, each image goes
/// to the outer terminal wrapped (``TmuxPassthrough``), placed from inside the wrap. tmux takes a
/// string only up to its input buffer limit (1 MiB, `INPUT_BUF_LIMIT`): a first frame larger than
/// that is dropped by tmux, and later (partial) frames paint only what changed.
public final class SixelDriver: VideoDriver {
    public let name = "sixel"
    public let drawsAboveText = true
    public let showsPixels = true
    public var repaint: SixelRepaint { encoder.options.repaint }
    public var logDetail: String? { "repaint \(repaint.rawValue), overlays \(overlays.rawValue)" }
    public let overlays: SixelOverlays
    /// From the driver's palette (the terminal's registers or the option).
    public var qualityRungs: [OutputGovernor.Settings] { Self.qualityRungs(maxColors: maxColors) }

    /// Sixel's quality ladder from a palette of `maxColors`: 256 → 128 → 64 colours (those not
    /// above it), then the picture ×0.75, every 2nd frame, the picture at the floor (×0.5,
    /// ``OutputGovernor/minimumScale``) every 2nd and every 3rd frame, then half-block.
    public static func qualityRungs(maxColors: Int) -> [OutputGovernor.Settings] {
        let top = min(256, max(2, maxColors))
        var rungs: [OutputGovernor.Settings] = []
        for colors in [top, 128, 64] where colors <= top && !rungs.contains(where: { $0.colors == colors }) {
            rungs.append(.init(colors: colors))
        }
        let low = rungs.last?.colors ?? top
        return rungs + [.init(colors: low, scale: 0.75), .init(colors: low, scale: 0.75, frameDivisor: 2),
                        .init(colors: low, scale: 0.5, frameDivisor: 2), .init(colors: low, scale: 0.5, frameDivisor: 3),
                        .init(colors: low, scale: 0.5, frameDivisor: 3, fallback: true)]
    }
    public var paletteColors: Int? {
        get { encoder.options.colors }
        set {
            var o = encoder.options
            o.colors = min(maxColors, max(2, newValue ?? maxColors))
            encoder.options = o   // a change invalidates the encoder
        }
    }
    private let encoder: SixelEncoder
    private let maxColors: Int
    private var lastMask: CellMask?
    private let passthrough: TmuxPassthrough?
    /// The images before they are placed (wrapped for tmux, or in pieces); made on first use.
    private var staging: ByteBuffer?

    /// - Parameters:
    ///   - colors: palette size; also the most the governor may use (the terminal's registers).
    ///   - passthrough: inside tmux, when the sixel terminal is the one outside it.
    ///   - repaint: what each frame paints (``SixelRepaint``).
    ///   - overlays: how the picture leaves overlay cells alone (``SixelOverlays``).
    public init(colors: Int, dither: SixelDither, repaint: SixelRepaint = .changed, overlays: SixelOverlays = .transparent,
                passthrough: TmuxPassthrough? = nil) {
        maxColors = min(256, max(2, colors))
        encoder = SixelEncoder(options: SixelEncoder.Options(colors: maxColors, dither: dither, repaint: repaint))
        self.overlays = overlays
        self.passthrough = passthrough
    }

    public func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement {
        PictureGeometry.pixelPlacement(area: area, displayAspect: displayAspect, geometry: geometry,
                                       reservedRows: rowsBelowPicture, scale: scale, heightMultiple: 6)
    }

    public func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                       into output: ByteBuffer) throws(RenderError) -> RenderReport {
        if mask.coversAll(placement.rect) {
            // Every pixel would be transparent (unpainted): nothing to send. The next image
            // with cells showing is encoded whole (its mask differs from this one).
            lastMask = mask
            encoder.invalidate()
            return RenderReport(unchanged: true)
        }
        if lastMask != mask {
            // The same pixels with other holes are a different image.
            encoder.invalidate()
            lastMask = mask
        }
        let mark = output.count
        let holes = Self.transparentRects(mask: mask, placement: placement)
        let pieces = overlays == .clipped && !holes.isEmpty ? Self.uncoveredRects(mask: mask, placement: placement) : []
        if passthrough == nil, pieces.isEmpty {
            // One image straight into the output.
            output.append(Escape.cursorPosition(column: placement.rect.column, row: placement.rect.row))
            let report = try encoder.encode(image, into: output, transparent: holes)
            if report.outcome == .identical {
                output.truncate(to: mark)
                return RenderReport(unchanged: true)
            }
            return RenderReport(bytes: output.count - mark)
        }
        // Staged, then each image placed at its cell (and wrapped for tmux).
        let staged = staging ?? ByteBuffer(capacity: 256 * 1024)
        staging = staged
        staged.removeAll()
        let report = try encoder.encode(image, into: staged, transparent: holes, pieces: pieces)
        if report.outcome == .identical {
            return RenderReport(unchanged: true)
        }
        let whole = PixelRect(x: 0, y: 0, width: placement.pictureSize.width, height: placement.pictureSize.height)
        let images = pieces.isEmpty ? [SixelEncoder.FrameReport.Piece(rect: whole, bytes: 0..<staged.count)] : report.pieces
        let cell = placement.cellSize
        staged.withUnsafeBytes { raw in
            for piece in images {
                let column = placement.rect.column + piece.rect.x / cell.width
                let row = placement.rect.row + piece.rect.y / cell.height
                let bytes = UnsafeRawBufferPointer(rebasing: raw[piece.bytes])
                if let passthrough {
                    passthrough.wrapPlaced(bytes, column: column, row: row, into: output)
                } else {
                    output.append(Escape.cursorPosition(column: column, row: row))
                    output.append(bytes)
                }
            }
        }
        return RenderReport(bytes: output.count - mark)
    }

    public func invalidate() { encoder.invalidate() }

    /// The picture's pixels outside covered cells, in cell-aligned rectangles: each run of rows
    /// whose uncovered columns are the same gives one rectangle per run of uncovered columns
    /// (above a box one, beside it two, below it one). Empty when no cell of the picture is
    /// uncovered.
    static func uncoveredRects(mask: CellMask, placement: Placement) -> [PixelRect] {
        let r = placement.rect, cell = placement.cellSize
        let picture = PixelRect(x: 0, y: 0, width: placement.pictureSize.width, height: placement.pictureSize.height)
        func runs(_ row: Int) -> [Range<Int>] { mask.runs(row: row, in: r.column..<r.endColumn, covered: false) }
        var rects: [PixelRect] = []
        var row = r.row
        while row < r.endRow {
            let same = runs(row)
            let first = row
            row += 1
            while row < r.endRow, runs(row) == same { row += 1 }
            for run in same {
                let piece = PixelRect(x: (run.lowerBound - r.column) * cell.width, y: (first - r.row) * cell.height,
                                      width: run.count * cell.width, height: (row - first) * cell.height).intersection(picture)
                if !piece.isEmpty { rects.append(piece) }
            }
        }
        return rects
    }

    /// The picture's pixels under covered cells, one rectangle per run of covered cells in a row.
    static func transparentRects(mask: CellMask, placement: Placement) -> [PixelRect] {
        let r = placement.rect, cell = placement.cellSize
        let picture = PixelRect(x: 0, y: 0, width: placement.pictureSize.width, height: placement.pictureSize.height)
        var rects: [PixelRect] = []
        for row in r.row..<r.endRow where mask.anyCovered(row: row, column: r.column, count: r.width) {
            for run in mask.runs(row: row, in: r.column..<r.endColumn, covered: true) {
                let hole = PixelRect(x: (run.lowerBound - r.column) * cell.width, y: (row - r.row) * cell.height,
                                     width: run.count * cell.width, height: cell.height).intersection(picture)
                if !hole.isEmpty { rects.append(hole) }
            }
        }
        return rects
    }
}
