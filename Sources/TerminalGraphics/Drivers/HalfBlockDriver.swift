/// `--vo=halfblock`: `▀` cells in 24-bit or 256 colours, drawn in the text layer (overlays
/// drawn later simply cover it). Damage-only through ``HalfBlockRenderer``.
public final class HalfBlockDriver: VideoDriver {
    public let name = "halfblock"
    public let drawsAboveText = false
    public var qualityRungs: [OutputGovernor.Settings] { Self.qualityRungs }

    /// Half-block's quality ladder: every 2nd frame painted (it is the others' last resort).
    public static let qualityRungs: [OutputGovernor.Settings] = [.init(), .init(frameDivisor: 2)]
    private let renderer: HalfBlockRenderer

    public var colorMode: HalfBlockColorMode { renderer.colorMode }

    public init(colorMode: HalfBlockColorMode) {
        renderer = HalfBlockRenderer(colorMode: colorMode)
    }

    public func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement {
        PictureGeometry.cellPlacement(area: area, displayAspect: displayAspect, geometry: geometry)
    }

    public func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                       into output: ByteBuffer) throws(RenderError) -> RenderReport {
        // Masked cells are forgotten by the renderer, so they are repainted once uncovered.
        let start = OutputWriter.monotonicNanoseconds()
        let stats = try renderer.render(image, into: placement.rect, mask: mask, output: output)
        return RenderReport(bytes: stats.bytes, unchanged: stats.bytes == 0,
                            encodeNanoseconds: OutputWriter.monotonicNanoseconds() - start)
    }

    public func invalidate() { renderer.invalidate() }
}

/// `--vo=null`: no picture (the engine is asked for no pixels).
public final class NullDriver: VideoDriver {
    public let name = "null"
    public let drawsAboveText = false
    public init() {}
    public func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement { .none }
    public func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                       into output: ByteBuffer) throws(RenderError) -> RenderReport { RenderReport(unchanged: true) }
    public func invalidate() {}
}
