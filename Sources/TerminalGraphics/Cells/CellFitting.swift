/// One cell as drawn: the sub-cells in the first colour (`pattern`'s set bits) and the others
/// in the second. Canonical: sub-cell 0 is always in `first` (bit 0 set); a one-colour cell is
/// the full pattern with both colours equal.
public struct FittedCell: Sendable, Equatable {
    public var pattern: Int
    /// Colour keys: packed `0xRRGGBB` in 24-bit colour, the palette index in 256 colours.
    public var first: UInt32
    public var second: UInt32

    public init(pattern: Int, first: UInt32, second: UInt32) {
        self.pattern = pattern
        self.first = first
        self.second = second
    }

    /// Makes bit 0 set (swapping the colours and inverting the pattern when it was clear) and
    /// one-colour cells full.
    @inline(__always)
    static func canonical(pattern: Int, first: UInt32, second: UInt32, full: Int) -> FittedCell {
        if first == second || pattern == 0 || pattern == full {
            let c = pattern == 0 ? second : first
            return FittedCell(pattern: full, first: c, second: c)
        }
        if pattern & 1 == 0 { return FittedCell(pattern: ~pattern & full, first: second, second: first) }
        return FittedCell(pattern: pattern, first: first, second: second)
    }

    var packed: UInt64 { UInt64(pattern) << 48 | UInt64(first & 0xFF_FFFF) << 24 | UInt64(second & 0xFF_FFFF) }
    init(packed: UInt64) {
        pattern = Int(packed >> 48 & 0xFF)
        first = UInt32(packed >> 24 & 0xFF_FFFF)
        second = UInt32(packed & 0xFF_FFFF)
    }
}

/// Chooses each cell's two colours and sub-cell pattern from its pixels.
///
/// The fast fit (the renderer's) is chafa's approach for stills, made cheap enough for video:
/// split the cell's pixels at the middle of the channel with the widest range, give each side
/// its mean, then move each pixel to the nearer mean and re-average (at most twice), the 2-means
/// that least-squares error asks for. ``exhaustive(_:count:)`` tries every split instead: the
/// ideal the tests and the benchmark measure the fast fit against.
public enum CellFitting {
    /// Pixels of one cell, in sub-cell order: `r[i]`, `g[i]`, `b[i]`, at most 8.
    public struct Pixels {
        public var r: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        public var g: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        public var b: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        public init() {}

        @inline(__always) public subscript(channel: Int, index: Int) -> Int {
            get {
                switch channel {
                case 0: Self.get(r, index)
                case 1: Self.get(g, index)
                default: Self.get(b, index)
                }
            }
            set {
                switch channel {
                case 0: Self.set(&r, index, newValue)
                case 1: Self.set(&g, index, newValue)
                default: Self.set(&b, index, newValue)
                }
            }
        }

        @inline(__always) static func get(_ t: (Int, Int, Int, Int, Int, Int, Int, Int), _ i: Int) -> Int {
            withUnsafeBytes(of: t) { $0.load(fromByteOffset: i &* MemoryLayout<Int>.stride, as: Int.self) }
        }
        @inline(__always) static func set(_ t: inout (Int, Int, Int, Int, Int, Int, Int, Int), _ i: Int, _ v: Int) {
            withUnsafeMutableBytes(of: &t) { $0.storeBytes(of: v, toByteOffset: i &* MemoryLayout<Int>.stride, as: Int.self) }
        }
    }

    /// The two colours (packed RGB) and pattern that the fast fit gives `count` pixels
    /// (2 for half blocks: the upper and the lower pixel, taken as they are).
    @inline(__always)
    public static func fit(_ p: Pixels, count n: Int) -> (pattern: Int, first: UInt32, second: UInt32) {
        if n <= 2 {
            return (1, pack(p[0, 0], p[1, 0], p[2, 0]), pack(p[0, 1], p[1, 1], p[2, 1]))
        }
        var lo = (255, 255, 255), hi = (0, 0, 0)
        for i in 0..<n {
            let r = p[0, i], g = p[1, i], b = p[2, i]
            lo = (min(lo.0, r), min(lo.1, g), min(lo.2, b))
            hi = (max(hi.0, r), max(hi.1, g), max(hi.2, b))
        }
        let ranges = (hi.0 - lo.0, hi.1 - lo.1, hi.2 - lo.2)
        let channel = ranges.0 >= ranges.1 ? (ranges.0 >= ranges.2 ? 0 : 2) : (ranges.1 >= ranges.2 ? 1 : 2)
        let range = channel == 0 ? ranges.0 : (channel == 1 ? ranges.1 : ranges.2)
        if range == 0 {
            let c = pack(p[0, 0], p[1, 0], p[2, 0])
            return (1 << n - 1, c, c)
        }
        let split = channel == 0 ? lo.0 + hi.0 : (channel == 1 ? lo.1 + hi.1 : lo.2 + hi.2)
        var pattern = 0
        for i in 0..<n where 2 * p[channel, i] > split { pattern |= 1 << i }
        var means = groupMeans(p, count: n, pattern: pattern)
        // Two rounds of moving each pixel to the nearer mean (2-means); almost always settled.
        for _ in 0..<2 {
            var next = 0
            for i in 0..<n {
                let r = p[0, i], g = p[1, i], b = p[2, i]
                let d1 = sq(r - means.0.0) + sq(g - means.0.1) + sq(b - means.0.2)
                let d0 = sq(r - means.1.0) + sq(g - means.1.1) + sq(b - means.1.2)
                if d1 < d0 { next |= 1 << i }
            }
            if next == pattern || next == 0 || next == 1 << n - 1 { break }
            pattern = next
            means = groupMeans(p, count: n, pattern: pattern)
        }
        return (pattern, pack(means.0.0, means.0.1, means.0.2), pack(means.1.0, means.1.1, means.1.2))
    }

    /// The least-error split of `count` pixels: every pattern, each side its mean. The ideal
    /// a two-colour cell can reach (before the colours are rounded to what SGR can say).
    public static func exhaustive(_ p: Pixels, count n: Int) -> (pattern: Int, first: UInt32, second: UInt32, error: Int) {
        var best = (pattern: 1 << n - 1, first: UInt32(0), second: UInt32(0), error: Int.max)
        // Patterns with sub-cell 0 set cover every split once (the rest are their inverses).
        var pattern = 1
        while pattern < 1 << n {
            let means = groupMeans(p, count: n, pattern: pattern)
            var error = 0
            for i in 0..<n {
                let m = pattern & (1 << i) != 0 ? means.0 : means.1
                error += sq(p[0, i] - m.0) + sq(p[1, i] - m.1) + sq(p[2, i] - m.2)
            }
            if error < best.error {
                best = (pattern, pack(means.0.0, means.0.1, means.0.2), pack(means.1.0, means.1.1, means.1.2), error)
            }
            pattern += 2
        }
        return best
    }

    /// Rounded means of the set and the clear pixels (a side with none takes the other's).
    @inline(__always)
    static func groupMeans(_ p: Pixels, count n: Int, pattern: Int) -> ((Int, Int, Int), (Int, Int, Int)) {
        var s1 = (0, 0, 0), s0 = (0, 0, 0), c1 = 0
        for i in 0..<n {
            let r = p[0, i], g = p[1, i], b = p[2, i]
            if pattern & (1 << i) != 0 {
                s1 = (s1.0 + r, s1.1 + g, s1.2 + b)
                c1 += 1
            } else {
                s0 = (s0.0 + r, s0.1 + g, s0.2 + b)
            }
        }
        let c0 = n - c1
        let m1 = c1 > 0 ? ((s1.0 + c1 / 2) / c1, (s1.1 + c1 / 2) / c1, (s1.2 + c1 / 2) / c1) : nil
        let m0 = c0 > 0 ? ((s0.0 + c0 / 2) / c0, (s0.1 + c0 / 2) / c0, (s0.2 + c0 / 2) / c0) : nil
        return (m1 ?? m0 ?? (0, 0, 0), m0 ?? m1 ?? (0, 0, 0))
    }

    @inline(__always) static func sq(_ v: Int) -> Int { v * v }
    @inline(__always) static func pack(_ r: Int, _ g: Int, _ b: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: r) << 16 | UInt32(truncatingIfNeeded: g) << 8 | UInt32(truncatingIfNeeded: b)
    }
}
