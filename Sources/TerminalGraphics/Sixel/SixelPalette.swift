/// A sixel palette: at most 256 colours, each already snapped to the percent grid sixel
/// colour definitions use (`#i;2;r;g;b` with r, g, b in 0…100), so the encoder's colour
/// decisions are made against the colours the terminal will really show.
public struct SixelPalette: Sendable, Equatable {
    /// Packed `0xRRGGBB`, as displayed.
    public private(set) var colors: [UInt32]
    /// Packed percent triples (`r << 16 | g << 8 | b`, each 0…100), as written.
    private(set) var percents: [UInt32]

    public init(colors rgb: [(r: UInt8, g: UInt8, b: UInt8)]) {
        var colors: [UInt32] = []
        var percents: [UInt32] = []
        for c in rgb.prefix(256) {
            let pr = Self.percent(c.r), pg = Self.percent(c.g), pb = Self.percent(c.b)
            percents.append(UInt32(pr) << 16 | UInt32(pg) << 8 | UInt32(pb))
            colors.append(UInt32(Self.shown(pr)) << 16 | UInt32(Self.shown(pg)) << 8 | UInt32(Self.shown(pb)))
        }
        if colors.isEmpty {
            colors = [0]
            percents = [0]
        }
        self.colors = colors
        self.percents = percents
    }

    public var count: Int { colors.count }

    public func rgb(_ index: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let c = colors[index]
        return (UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF))
    }

    /// 0…255 → the nearest sixel percent.
    static func percent(_ v: UInt8) -> Int { (Int(v) * 100 + 127) / 255 }
    /// A sixel percent → the 0…255 value a terminal shows for it.
    static func shown(_ p: Int) -> UInt8 { UInt8(clamping: (p * 255 + 50) / 100) }
}
