/// Chooses a palette for a picture: variance-based median cut over a 5-bit-per-channel
/// histogram, then a few k-means passes over the histogram bins.
///
/// Runs only when the scene changes (see ``SceneChangeDetector``), so it favours quality over
/// speed; a 1280×768 frame takes a few milliseconds.
enum Quantizer {
    private struct Bin {
        var r: Float, g: Float, b: Float
        var weight: Float
    }

    /// Samples at most about `maxSamples` pixels of `image` on a regular grid.
    static func palette(for image: PixelImage, colors: Int, maxSamples: Int = 200_000) -> SixelPalette {
        let bins = histogram(image, maxSamples: maxSamples)
        let target = max(1, min(256, colors))
        if bins.count <= target {
            return SixelPalette(colors: bins.map { (UInt8($0.r.rounded()), UInt8($0.g.rounded()), UInt8($0.b.rounded())) })
        }
        var centres = medianCut(bins, target: target)
        kMeans(bins, centres: &centres, iterations: 3)
        return SixelPalette(colors: centres.map {
            (UInt8(clamping: Int($0.r.rounded())), UInt8(clamping: Int($0.g.rounded())), UInt8(clamping: Int($0.b.rounded())))
        })
    }

    private static func histogram(_ image: PixelImage, maxSamples: Int) -> [Bin] {
        var count = [UInt32](repeating: 0, count: 1 << 15)
        var sum = [UInt32](repeating: 0, count: 3 << 15)
        let total = image.width * image.height
        // Sample every `step`-th pixel on every `step`-th row.
        var step = 1
        while total / (step * step) > maxSamples { step += 1 }
        image.forEachSample(step: step) { r8, g8, b8 in
            let r = Int(r8), g = Int(g8), b = Int(b8)
            let i = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            count[i] += 1
            sum[3 * i] += UInt32(r)
            sum[3 * i + 1] += UInt32(g)
            sum[3 * i + 2] += UInt32(b)
        }
        var bins: [Bin] = []
        for i in 0..<(1 << 15) where count[i] > 0 {
            let n = Float(count[i])
            bins.append(Bin(r: Float(sum[3 * i]) / n, g: Float(sum[3 * i + 1]) / n, b: Float(sum[3 * i + 2]) / n, weight: n))
        }
        return bins
    }

    private struct Box {
        var range: Range<Int>
        var error: Float
        var axis: Int
    }

    /// Splits the box with the largest squared error along its widest-variance axis at the
    /// weighted median, until there are `target` boxes; returns each box's weighted mean.
    private static func medianCut(_ input: [Bin], target: Int) -> [Bin] {
        var bins = input
        var boxes = [makeBox(bins, 0..<bins.count)]
        while boxes.count < target {
            guard let (which, box) = boxes.enumerated().filter({ $0.element.range.count > 1 })
                .max(by: { $0.element.error < $1.element.error }), box.error > 0 else { break }
            let axis = box.axis
            bins[box.range].sort { channel($0, axis) < channel($1, axis) }
            let half = bins[box.range].reduce(Float(0)) { $0 + $1.weight } / 2
            var acc: Float = 0
            var split = box.range.lowerBound + 1
            for i in box.range {
                acc += bins[i].weight
                if acc >= half {
                    split = min(max(i + 1, box.range.lowerBound + 1), box.range.upperBound - 1)
                    break
                }
            }
            boxes[which] = makeBox(bins, box.range.lowerBound..<split)
            boxes.append(makeBox(bins, split..<box.range.upperBound))
        }
        return boxes.map { mean(bins[$0.range]) }
    }

    @inline(__always) private static func channel(_ b: Bin, _ axis: Int) -> Float {
        axis == 0 ? b.r : (axis == 1 ? b.g : b.b)
    }

    private static func mean(_ bins: ArraySlice<Bin>) -> Bin {
        var r: Float = 0, g: Float = 0, b: Float = 0, w: Float = 0
        for bin in bins {
            r += bin.r * bin.weight
            g += bin.g * bin.weight
            b += bin.b * bin.weight
            w += bin.weight
        }
        guard w > 0 else { return Bin(r: 0, g: 0, b: 0, weight: 0) }
        return Bin(r: r / w, g: g / w, b: b / w, weight: w)
    }

    private static func makeBox(_ bins: [Bin], _ range: Range<Int>) -> Box {
        let m = mean(bins[range])
        var vr: Float = 0, vg: Float = 0, vb: Float = 0
        for bin in bins[range] {
            vr += (bin.r - m.r) * (bin.r - m.r) * bin.weight
            vg += (bin.g - m.g) * (bin.g - m.g) * bin.weight
            vb += (bin.b - m.b) * (bin.b - m.b) * bin.weight
        }
        let axis = vr >= vg && vr >= vb ? 0 : (vg >= vb ? 1 : 2)
        return Box(range: range, error: vr + vg + vb, axis: axis)
    }

    /// Lloyd iterations over the weighted bins; empty clusters keep their centre. The nearest
    /// centre is found as ``ColorLookup`` finds a palette colour: centres sorted by green, a
    /// walk outwards from the bin's green that stops once green alone is farther than the best.
    private static func kMeans(_ bins: [Bin], centres: inout [Bin], iterations: Int) {
        let k = centres.count
        var acc = [Bin](repeating: Bin(r: 0, g: 0, b: 0, weight: 0), count: k)
        var order = [Int](0..<k)
        for _ in 0..<iterations {
            for j in 0..<k { acc[j] = Bin(r: 0, g: 0, b: 0, weight: 0) }
            order.sort { centres[$0].g < centres[$1].g }
            let sorted = order.map { centres[$0] }
            sorted.withUnsafeBufferPointer { c in
                for bin in bins {
                    // Binary search for the first centre with green ≥ the bin's.
                    var lo = 0, hi = k
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        if c[mid].g < bin.g { lo = mid + 1 } else { hi = mid }
                    }
                    var best = 0
                    var bestD = Float.greatestFiniteMagnitude
                    var up = lo, down = lo - 1
                    while up < k || down >= 0 {
                        if up < k {
                            let dg = c[up].g - bin.g
                            if dg * dg > bestD {
                                up = k
                            } else {
                                let dr = c[up].r - bin.r, db = c[up].b - bin.b
                                let d = dr * dr + dg * dg + db * db
                                if d < bestD { bestD = d; best = up }
                                up += 1
                            }
                        }
                        if down >= 0 {
                            let dg = c[down].g - bin.g
                            if dg * dg > bestD {
                                down = -1
                            } else {
                                let dr = c[down].r - bin.r, db = c[down].b - bin.b
                                let d = dr * dr + dg * dg + db * db
                                if d < bestD { bestD = d; best = down }
                                down -= 1
                            }
                        }
                    }
                    let j = order[best]
                    acc[j].r += bin.r * bin.weight
                    acc[j].g += bin.g * bin.weight
                    acc[j].b += bin.b * bin.weight
                    acc[j].weight += bin.weight
                }
            }
            for j in 0..<k where acc[j].weight > 0 {
                let w = acc[j].weight
                centres[j] = Bin(r: acc[j].r / w, g: acc[j].g / w, b: acc[j].b / w, weight: w)
            }
        }
    }
}
