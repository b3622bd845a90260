import TerminalGraphics
import Foundation

/// Measures how close a picture a terminal shows is to its source: area averaging to a common
/// grid, PSNR, and the ideals a cell mode can reach, computed from the source alone.
public enum PictureQuality {
    /// `source` (RGB24, `width` × `height`) averaged over areas to `toWidth` × `toHeight`: each
    /// output pixel the mean of the source area it covers, partial pixels weighted by their
    /// share. The reference every output is judged against. Values are kept as Doubles.
    public static func areaAverage(_ source: [UInt8], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Double] {
        precondition(source.count >= width * height * 3 && toWidth > 0 && toHeight > 0)
        func weights(_ from: Int, _ to: Int) -> [[(Int, Double)]] {
            let scale = Double(from) / Double(to)
            return (0..<to).map { o in
                let start = Double(o) * scale, end = Double(o + 1) * scale
                var list: [(Int, Double)] = []
                var i = Int(start)
                while Double(i) < end, i < from {
                    let w = min(end, Double(i + 1)) - max(start, Double(i))
                    if w > 1e-9 { list.append((i, w / scale)) }
                    i += 1
                }
                return list
            }
        }
        let wx = weights(width, toWidth), wy = weights(height, toHeight)
        // Horizontal pass, then vertical.
        var rows = [Double](repeating: 0, count: toWidth * height * 3)
        for y in 0..<height {
            for x in 0..<toWidth {
                var r = 0.0, g = 0.0, b = 0.0
                for (sx, w) in wx[x] {
                    let o = (y * width + sx) * 3
                    r += Double(source[o]) * w
                    g += Double(source[o + 1]) * w
                    b += Double(source[o + 2]) * w
                }
                let o = (y * toWidth + x) * 3
                rows[o] = r
                rows[o + 1] = g
                rows[o + 2] = b
            }
        }
        var out = [Double](repeating: 0, count: toWidth * toHeight * 3)
        for y in 0..<toHeight {
            for (sy, w) in wy[y] {
                for x in 0..<toWidth {
                    let o = (y * toWidth + x) * 3, s = (sy * toWidth + x) * 3
                    out[o] += rows[s] * w
                    out[o + 1] += rows[s + 1] * w
                    out[o + 2] += rows[s + 2] * w
                }
            }
        }
        return out
    }

    /// PSNR (dB, 8-bit peak) of `shown` against `reference`, equal length, all channels.
    public static func psnr(_ shown: [UInt8], _ reference: [Double]) -> Double {
        psnr(mse(shown.map(Double.init), reference))
    }

    public static func psnr(_ mse: Double) -> Double {
        mse <= 1e-12 ? 99 : 10 * log10(255 * 255 / mse)
    }

    public static func mse(_ a: [Double], _ b: [Double]) -> Double {
        let n = min(a.count, b.count)
        guard n > 0 else { return 0 }
        var sum = 0.0
        for i in 0..<n {
            let d = a[i] - b[i]
            sum += d * d
        }
        return sum / Double(n)
    }

    /// The mean squared error of the best two-colour cells on `reference`, a grid of
    /// `2 × cellColumns` by `gridRows × cellRows` values: each cell's grid values split into
    /// `symbols`' sub-cells (each the mean of its grid values), then every split of those
    /// sub-cells into two groups tried, each group shown as its mean; colours unrounded.
    /// `.half` gives the ideal half block (each half the mean of its area).
    public static func idealMSE(_ reference: [Double], cellColumns: Int, cellRows: Int, gridRows: Int,
                                symbols: CellSymbols) -> Double {
        let width = cellColumns * 2
        let subRows = symbols.rows, subColumns = symbols.columns
        precondition(gridRows % subRows == 0, "the grid must refine the sub-cells")
        let band = gridRows / subRows, bandWidth = 2 / subColumns
        var total = 0.0
        var values = [Double](repeating: 0, count: 2 * gridRows * 3)
        var sub = [Double](repeating: 0, count: 8 * 3)
        for cy in 0..<cellRows {
            for cx in 0..<cellColumns {
                for gy in 0..<gridRows {
                    for gx in 0..<2 {
                        let o = ((cy * gridRows + gy) * width + cx * 2 + gx) * 3
                        let v = (gy * 2 + gx) * 3
                        values[v] = reference[o]
                        values[v + 1] = reference[o + 1]
                        values[v + 2] = reference[o + 2]
                    }
                }
                // Sub-cell means, and the error inside each sub-cell (no mode can remove it).
                var inside = 0.0
                for s in 0..<symbols.subcellCount {
                    let sc = s % subColumns, sr = s / subColumns
                    var m = (0.0, 0.0, 0.0)
                    var count = 0.0
                    for gy in (sr * band)..<((sr + 1) * band) {
                        for gx in (sc * bandWidth)..<((sc + 1) * bandWidth) {
                            let v = (gy * 2 + gx) * 3
                            m = (m.0 + values[v], m.1 + values[v + 1], m.2 + values[v + 2])
                            count += 1
                        }
                    }
                    m = (m.0 / count, m.1 / count, m.2 / count)
                    for gy in (sr * band)..<((sr + 1) * band) {
                        for gx in (sc * bandWidth)..<((sc + 1) * bandWidth) {
                            let v = (gy * 2 + gx) * 3
                            inside += sq(values[v] - m.0) + sq(values[v + 1] - m.1) + sq(values[v + 2] - m.2)
                        }
                    }
                    sub[s * 3] = m.0
                    sub[s * 3 + 1] = m.1
                    sub[s * 3 + 2] = m.2
                }
                let weight = Double(band * bandWidth)   // grid values per sub-cell
                var best = Double.infinity
                let n = symbols.subcellCount
                var pattern = 1
                while pattern < 1 << n {
                    var s1 = (0.0, 0.0, 0.0), s0 = (0.0, 0.0, 0.0), c1 = 0.0, c0 = 0.0
                    for i in 0..<n {
                        if pattern & (1 << i) != 0 {
                            s1 = (s1.0 + sub[i * 3], s1.1 + sub[i * 3 + 1], s1.2 + sub[i * 3 + 2])
                            c1 += 1
                        } else {
                            s0 = (s0.0 + sub[i * 3], s0.1 + sub[i * 3 + 1], s0.2 + sub[i * 3 + 2])
                            c0 += 1
                        }
                    }
                    let m1 = (s1.0 / max(1, c1), s1.1 / max(1, c1), s1.2 / max(1, c1))
                    let m0 = (s0.0 / max(1, c0), s0.1 / max(1, c0), s0.2 / max(1, c0))
                    var e = 0.0
                    for i in 0..<n {
                        let m = pattern & (1 << i) != 0 ? m1 : m0
                        e += sq(sub[i * 3] - m.0) + sq(sub[i * 3 + 1] - m.1) + sq(sub[i * 3 + 2] - m.2)
                    }
                    best = min(best, e)
                    pattern += 2
                }
                total += inside + best * weight
            }
        }
        return total / Double(width * cellRows * gridRows * 3)
    }

    @inline(__always) private static func sq(_ v: Double) -> Double { v * v }
}
