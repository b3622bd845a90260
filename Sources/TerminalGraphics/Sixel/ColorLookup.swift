/// Nearest-palette-colour lookup: a lazily filled table over 6 bits per channel (262,144
/// entries), so each distinct coarse colour costs one palette search per scene, and every
/// later pixel costs one load. Filled on demand because most frames use a small part of
/// the colour cube; emptied when the palette changes.
final class ColorLookup {
    private static let empty: UInt16 = 0xFFFF
    private static let slots = 1 << 18
    private let table: UnsafeMutablePointer<UInt16>
    private(set) var palette = SixelPalette(colors: [])
    /// The palette as separate channels for the search loop.
    private var pr: [Int32] = [], pg: [Int32] = [], pb: [Int32] = []

    init() {
        table = .allocate(capacity: Self.slots)
        table.initialize(repeating: Self.empty, count: Self.slots)
    }

    deinit { table.deallocate() }

    func reset(_ palette: SixelPalette) {
        self.palette = palette
        pr = palette.colors.map { Int32($0 >> 16 & 0xFF) }
        pg = palette.colors.map { Int32($0 >> 8 & 0xFF) }
        pb = palette.colors.map { Int32($0 & 0xFF) }
        table.update(repeating: Self.empty, count: Self.slots)
    }

    /// The palette index for a colour.
    @inline(__always) func index(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let slot = (r >> 2) << 12 | (g >> 2) << 6 | (b >> 2)
        let cached = table[slot]
        if cached != Self.empty { return Int(cached) }
        let found = search(slot: slot)
        table[slot] = UInt16(found)
        return found
    }

    /// The palette entry nearest the centre of the slot's 4×4×4 colour cell.
    @inline(never) private func search(slot: Int) -> Int {
        let r = Int32((slot >> 12) & 63) << 2 + 2
        let g = Int32((slot >> 6) & 63) << 2 + 2
        let b = Int32(slot & 63) << 2 + 2
        var best = 0
        var bestD = Int32.max
        pr.withUnsafeBufferPointer { pr in
            pg.withUnsafeBufferPointer { pg in
                pb.withUnsafeBufferPointer { pb in
                    for i in 0..<pr.count {
                        let dr = pr[i] - r, dg = pg[i] - g, db = pb[i] - b
                        let d = dr * dr + dg * dg + db * db
                        if d < bestD {
                            bestD = d
                            best = i
                        }
                    }
                }
            }
        }
        return best
    }
}
