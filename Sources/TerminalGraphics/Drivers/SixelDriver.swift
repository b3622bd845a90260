/// `--vo=sixel`: DEC sixel images with a per-scene palette (``SixelEncoder``). Terminals draw
/// sixel above text, so cells an overlay covers are left transparent (`P2=1`) and two text rows
/// stay free under the picture for subtitles.
///
/// Inside tmux without sixel of its own but with passthrough to a sixel terminal, each image goes
/// to the outer terminal wrapped (``TmuxPassthrough``), placed from inside the wrap. tmux takes a
/// string only up to its input buffer limit (1 MiB, `INPUT_BUF_LIMIT`): a first frame larger than
/// that is dropped by tmux, and later (partial) frames paint only what changed.
public final class SixelDriver: VideoDriver {
    public let name = "sixel"
    public let drawsAboveText = true
    public var repaint: SixelRepaint { encoder.options.repaint }
    public var logDetail: String? { "repaint \(repaint.rawValue)" }
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
    /// The image before it is wrapped for tmux (reused).
    private let unwrapped: ByteBuffer?

    /// - Parameters:
    ///   - colors: palette size; also the most the governor may use (the terminal's registers).
    ///   - passthrough: inside tmux, when the sixel terminal is the one outside it.
    ///   - repaint: what each frame paints (``SixelRepaint``).
    public init(colors: Int, dither: SixelDither, repaint: SixelRepaint = .changed, passthrough: TmuxPassthrough? = nil) {
        maxColors = min(256, max(2, colors))
        encoder = SixelEncoder(options: SixelEncoder.Options(colors: maxColors, dither: dither, repaint: repaint))
        self.passthrough = passthrough
        unwrapped = passthrough == nil ? nil : ByteBuffer(capacity: 256 * 1024)
    }

    public func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement {
        PictureGeometry.pixelPlacement(area: area, displayAspect: displayAspect, geometry: geometry,
                                       reservedRows: rowsBelowPicture, scale: scale, heightMultiple: 6)
    }

    public func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                       into output: ByteBuffer) throws(RenderError) -> RenderReport {
        let start = OutputWriter.monotonicNanoseconds()
        if lastMask != mask {
            // The same pixels with other holes are a different image.
            encoder.invalidate()
            lastMask = mask
        }
        let mark = output.count
        let holes = Self.transparentRects(mask: mask, placement: placement)
        if let passthrough, let unwrapped {
            unwrapped.removeAll()
            let report = try encoder.encode(image, into: unwrapped, transparent: holes)
            if report.outcome == .identical {
                return RenderReport(unchanged: true, encodeNanoseconds: OutputWriter.monotonicNanoseconds() - start)
            }
            unwrapped.withUnsafeBytes {
                passthrough.wrapPlaced($0, column: placement.rect.column, row: placement.rect.row, into: output)
            }
            return RenderReport(bytes: output.count - mark, encodeNanoseconds: OutputWriter.monotonicNanoseconds() - start)
        }
        output.append(Escape.cursorPosition(column: placement.rect.column, row: placement.rect.row))
        let report = try encoder.encode(image, into: output, transparent: holes)
        if report.outcome == .identical {
            output.truncate(to: mark)
            return RenderReport(unchanged: true, encodeNanoseconds: OutputWriter.monotonicNanoseconds() - start)
        }
        return RenderReport(bytes: output.count - mark, encodeNanoseconds: OutputWriter.monotonicNanoseconds() - start)
    }

    public func invalidate() { encoder.invalidate() }

    /// The picture's pixels under covered cells, one rectangle per run of covered cells in a row.
    static func transparentRects(mask: CellMask, placement: Placement) -> [PixelRect] {
        let r = placement.rect, cell = placement.cellSize
        let picture = PixelRect(x: 0, y: 0, width: placement.pictureSize.width, height: placement.pictureSize.height)
        var rects: [PixelRect] = []
        for row in r.row..<r.endRow where mask.anyCovered(row: row, column: r.column, count: r.width) {
            var column = r.column
            while column < r.endColumn {
                guard mask.isCovered(column: column, row: row) else { column += 1; continue }
                let first = column
                while column < r.endColumn, mask.isCovered(column: column, row: row) { column += 1 }
                let hole = PixelRect(x: (first - r.column) * cell.width, y: (row - r.row) * cell.height,
                                     width: (column - first) * cell.width, height: cell.height).intersection(picture)
                if !hole.isEmpty { rects.append(hole) }
            }
        }
        return rects
    }
}
