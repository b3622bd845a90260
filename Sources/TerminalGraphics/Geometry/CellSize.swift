/// The size of one terminal cell in pixels, as reported by the terminal
/// (TIOCGWINSZ `ws_xpixel/ws_ypixel` divided by the cell counts, or `CSI 16 t`).
public struct CellSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// A common default when the terminal does not say (xterm's default font).
    public static let fallback = CellSize(width: 10, height: 20)

    /// Whether both dimensions are plausible pixel sizes (a terminal may report zeros, or
    /// nonsense): inside ``ReplyLimits/cellWidth`` × ``ReplyLimits/cellHeight``.
    public var isValid: Bool { ReplyLimits.accepts(self) }

    public var description: String { "\(width)x\(height) px" }
}

// One pixel-size and one pixel-rectangle type for the whole program, shared with the engine
// through AetherBase (which depends on no media or terminal code): a module importing both sees the same types.
@_exported import struct AetherBase.PixelSize
@_exported import struct AetherBase.PixelRect
