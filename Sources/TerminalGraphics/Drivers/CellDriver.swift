import AetherBase

/// `--vo=cells` (and `--vo=halfblock`, its `▀` mode): the picture as text cells in 24-bit or 256
/// colours, drawn in the text layer (overlays drawn later simply cover it). Damage-only through
/// ``CellRenderer``; ``CellSymbols`` says how many pixels a cell shows.
public final class CellDriver: VideoDriver {
    public let name: String
    public let drawsAboveText = false
    public var qualityRungs: [OutputGovernor.Settings] { Self.qualityRungs(for: renderer.symbols) }
    public var logDetail: String? { "\(renderer.symbols) \(renderer.colorMode.rawValue)" }

    /// The cell outputs' quality ladder: the picture as chosen, then a tolerance of
    /// ``governedTolerance`` (24 where the default is 8: only
    /// larger changes are sent), then every 2nd frame (half blocks) or, for the finer modes,
    /// half blocks (the cheapest fit and a quarter of the sub-cells) before the frame rate is
    /// halved there.
    public static func qualityRungs(for symbols: CellSymbols) -> [OutputGovernor.Settings] {
        let tolerant = OutputGovernor.Settings(tolerance: governedTolerance)
        if symbols == .half { return [.init(), tolerant, .init(frameDivisor: 2, tolerance: governedTolerance)] }
        return [.init(), tolerant, .init(fallback: true)]
    }

    /// `--vo-cells-tolerance`'s default (see ``CellRenderer/tolerance``).
    /// 8 levels of RMS error per pixel (about 4.6 per channel, under 2 %: what the eye does not
    /// tell apart on moving video). On the grainy 1080p clip at 160×48 it cuts the bytes by 42 %
    /// (196.7 → 113.6 KiB a frame in half blocks) for 0.1 dB of PSNR; on smooth footage, where
    /// every change shows, it costs more (see the man page).
    public static let defaultTolerance: Double = 8
    /// What the governor raises it to when the terminal falls behind.
    public static let governedTolerance: Double = 24

    private let renderer: CellRenderer
    /// The tolerance chosen at start (`--vo-cells-tolerance`); the governor may raise it.
    private let baseTolerance: Double

    public var colorMode: CellColorMode { renderer.colorMode }
    public var symbols: CellSymbols { renderer.symbols }

    public init(symbols: CellSymbols = .half, colorMode: CellColorMode, tolerance: Double = CellDriver.defaultTolerance, name: String? = nil) {
        renderer = CellRenderer(symbols: symbols, colorMode: colorMode)
        renderer.tolerance = tolerance
        baseTolerance = renderer.tolerance
        self.name = name ?? (symbols == .half ? "halfblock" : "cells")
    }

    /// The governor's rung: a tolerance above the chosen one (never below it).
    public var tolerance: Double? {
        get { renderer.tolerance }
        set { renderer.tolerance = max(baseTolerance, newValue ?? baseTolerance) }
    }

    public func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement {
        PictureGeometry.cellPlacement(area: area, displayAspect: displayAspect, geometry: geometry,
                                      pixelsPerCell: (renderer.symbols.columns, renderer.symbols.rows))
    }

    public func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                       into output: ByteBuffer) throws(RenderError) -> RenderReport {
        // Masked cells are forgotten by the renderer, so they are repainted once uncovered.
        let stats = try renderer.render(image, into: placement.rect, mask: mask, output: output)
        return RenderReport(bytes: stats.bytes, unchanged: stats.bytes == 0)
    }

    public func invalidate() { renderer.invalidate() }
    public func invalidate(cells mask: CellMask) { renderer.invalidate(mask) }
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
