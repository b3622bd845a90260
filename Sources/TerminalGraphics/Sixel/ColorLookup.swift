/// Nearest-palette-colour lookup: a lazily filled table over 5 bits per channel (32,768
/// one-byte entries), so each distinct coarse colour costs one palette search per scene, and
/// every later pixel costs one load. Filled on demand because most frames use a small part of
/// the colour cube; emptied when the palette changes.
///
/// 5 bits, not 6: the 32 KiB table stays in L1 and grain reaches 8× fewer new slots, for
/// 0.1 dB (`aether-bench graphics`, grainy 1280×768: map 3.5 ms instead of 4.2, p95 frame
/// 20 ms instead of 26, PSNR 35.37 dB instead of 35.47).
///
/// Palettes have at most ``maxColors`` entries: index ``none`` (255) is never a colour, so it
/// marks empty table slots here and "nothing known / leave transparent" in the encoder.
final class ColorLookup {
    /// An index that is never a palette colour.
    static let none: UInt8 = 255
    /// The largest palette this lookup serves.
    static let maxColors = 255
    private static let slots = 1 << 15
    private let table: UnsafeMutablePointer<UInt8>
    private(set) var palette = SixelPalette(colors: [])
    /// The palette as separate channels, padded to 256 with colours no pixel is near.
    private let channels: UnsafeMutablePointer<Int32>
    /// `r`, `g`, `b` of each index (255: far away), for the encoder's noise test.
    let red: UnsafeMutablePointer<Int32>
    let green: UnsafeMutablePointer<Int32>
    let blue: UnsafeMutablePointer<Int32>
    /// The palette sorted by green (then index), for the search.
    private let sorted: UnsafeMutablePointer<Int32>
    private var sortedRed: UnsafeMutablePointer<Int32> { sorted }
    private var sortedGreen: UnsafeMutablePointer<Int32> { sorted + 256 }
    private var sortedBlue: UnsafeMutablePointer<Int32> { sorted + 512 }
    private var sortedIndex: UnsafeMutablePointer<Int32> { sorted + 768 }
    private var sortedCount = 0

    init() {
        table = .allocate(capacity: Self.slots)
        table.initialize(repeating: Self.none, count: Self.slots)
        channels = .allocate(capacity: 3 * 256)
        channels.initialize(repeating: Self.far, count: 3 * 256)
        red = channels
        sorted = .allocate(capacity: 4 * 256)
        sorted.initialize(repeating: 0, count: 4 * 256)
        green = channels + 256
        blue = channels + 512
    }

    deinit {
        table.deallocate()
        channels.deallocate()
        sorted.deallocate()
    }

    /// A channel value no pixel (0…255) is within 2^15 of, yet whose squared distances sum
    /// without overflowing `Int32`.
    private static let far: Int32 = 20_000

    func reset(_ palette: SixelPalette) {
        self.palette = palette
        channels.update(repeating: Self.far, count: 3 * 256)
        for (i, c) in palette.colors.prefix(Self.maxColors).enumerated() {
            red[i] = Int32(c >> 16 & 0xFF)
            green[i] = Int32(c >> 8 & 0xFF)
            blue[i] = Int32(c & 0xFF)
        }
        let order = (0..<min(palette.count, Self.maxColors)).sorted { (green[$0], $0) < (green[$1], $1) }
        for (k, i) in order.enumerated() {
            sortedRed[k] = red[i]
            sortedGreen[k] = green[i]
            sortedBlue[k] = blue[i]
            sortedIndex[k] = Int32(i)
        }
        sortedCount = order.count
        table.update(repeating: Self.none, count: Self.slots)
    }

    /// The palette index for a colour.
    @inline(__always) func index(_ r: Int, _ g: Int, _ b: Int) -> UInt8 {
        let slot = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
        let cached = table[slot]
        if _fastPath(cached != Self.none) { return cached }
        return fill(slot: slot)
    }

    @inline(never) private func fill(slot: Int) -> UInt8 {
        let found = search(slot: slot)
        table[slot] = found
        return found
    }

    /// The palette entry nearest the centre of the slot's 8×8×8 colour cell; ties go to the
    /// lower index. The palette is kept sorted by green: the search starts at the slot's green
    /// and walks outwards, and stops on each side once green alone is farther than the best
    /// match (a few dozen candidates instead of all of them).
    @inline(never) private func search(slot: Int) -> UInt8 {
        let r = Int32((slot >> 10) & 31) << 3 + 4
        let g = Int32((slot >> 5) & 31) << 3 + 4
        let b = Int32(slot & 31) << 3 + 4
        let n = sortedCount
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) >> 1
            if sortedGreen[mid] < g { lo = mid + 1 } else { hi = mid }
        }
        var best = Int32.max, bestD = Int32.max
        var up = lo, down = lo - 1
        while up < n || down >= 0 {
            if up < n {
                let dg = sortedGreen[up] - g
                if dg * dg > bestD {
                    up = n
                } else {
                    let dr = sortedRed[up] - r, db = sortedBlue[up] - b
                    let d = dr * dr + dg * dg + db * db
                    let i = sortedIndex[up]
                    if d < bestD || (d == bestD && i < best) { bestD = d; best = i }
                    up += 1
                }
            }
            if down >= 0 {
                let dg = sortedGreen[down] - g
                if dg * dg > bestD {
                    down = -1
                } else {
                    let dr = sortedRed[down] - r, db = sortedBlue[down] - b
                    let d = dr * dr + dg * dg + db * db
                    let i = sortedIndex[down]
                    if d < bestD || (d == bestD && i < best) { bestD = d; best = i }
                    down -= 1
                }
            }
        }
        return UInt8(truncatingIfNeeded: min(max(0, best), Int32(Self.maxColors - 1)))
    }
}
