/// Decides when a new palette is worth building (mpv vo_sixel's `detect_scene_change`).
///
/// Keeps a coarse colour histogram (4 bits per channel, a sparse sample grid) of the frame the
/// current palette was built from, and reports a change when the share of histogram mass that
/// moved exceeds the threshold. Comparing with the palette's own frame, not the previous frame,
/// lets a slow drift add up.
///
/// A drift test covers what the histogram misses: colours that come in over a small part of
/// the picture (a title, an object entering) and that the palette has nothing near. On the same
/// sample grid it measures the palette's mean squared error; when that grows past
/// ``driftFactor`` times its value on the palette's own frame (plus ``driftFloor``), the
/// palette is rebuilt.
struct SceneChangeDetector {
    /// Fraction (0…1) of the sampled pixels whose coarse colour must change.
    var threshold: Double
    private var reference: [Int32] = []
    private var current = [Int32](repeating: 0, count: 4096)
    /// The palette's mean squared error on the frame it was built from.
    private var baselineError = -1.0
    /// How much worse than on its own frame the palette may get before it is rebuilt.
    static let driftFactor = 2.0
    /// Squared RGB distance always tolerated on top (a palette that fits almost exactly must
    /// not be rebuilt for noise).
    static let driftFloor = 24.0

    init(threshold: Double) { self.threshold = threshold }

    mutating func reset() {
        reference = []
        baselineError = -1
    }

    /// Measures how well `lookup`'s palette fits `image`; true when it has drifted (see the
    /// type's note). The first measurement after a rebuild sets the baseline.
    mutating func hasDrifted(_ image: PixelImage, lookup: ColorLookup) -> Bool {
        let step = max(1, min(image.width, image.height) / 96)
        var sum = 0, count = 0
        let red = lookup.red, green = lookup.green, blue = lookup.blue
        image.forEachSample(step: step) { r, g, b in
            let k = Int(lookup.index(Int(r), Int(g), Int(b)))
            let dr = Int(red[k]) - Int(r), dg = Int(green[k]) - Int(g), db = Int(blue[k]) - Int(b)
            sum += dr * dr + dg * dg + db * db
            count += 1
        }
        let error = Double(sum) / Double(max(1, count))
        guard baselineError >= 0 else {
            baselineError = error
            return false
        }
        return error > baselineError * Self.driftFactor + Self.driftFloor
    }

    /// Makes the frame last sampled by ``shouldRebuild(for:)`` the reference (a palette was
    /// built from it for another reason).
    mutating func adoptReference() { reference = current }

    /// Forgets the drift baseline (a new palette was built).
    mutating func paletteRebuilt() { baselineError = -1 }

    /// Samples `image`; returns true when the palette should be rebuilt (and adopts the frame
    /// as the new reference).
    mutating func shouldRebuild(for image: PixelImage) -> Bool {
        sample(image)
        guard reference.count == current.count else {
            reference = current
            return true
        }
        var moved = 0, total = 0
        for i in 0..<current.count {
            moved += Int(abs(current[i] - reference[i]))
            total += Int(current[i])
        }
        guard total > 0 else { return false }
        let fraction = Double(moved) / Double(2 * total)
        if fraction > threshold {
            reference = current
            return true
        }
        return false
    }

    private mutating func sample(_ image: PixelImage) {
        for i in current.indices { current[i] = 0 }
        let step = max(1, min(image.width, image.height) / 96)
        current.withUnsafeMutableBufferPointer { hist in
            image.forEachSample(step: step) { r, g, b in
                hist[Int(r >> 4) << 8 | Int(g >> 4) << 4 | Int(b >> 4)] += 1
            }
        }
    }
}
