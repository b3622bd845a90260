/// Decides when a new palette is worth building (mpv vo_sixel's `detect_scene_change`).
///
/// Keeps a coarse colour histogram (4 bits per channel, a sparse sample grid) of the frame the
/// current palette was built from, and reports a change when the share of histogram mass that
/// moved exceeds the threshold. Comparing with the palette's own frame, not the previous frame,
/// lets a slow drift add up.
struct SceneChangeDetector {
    /// Fraction (0…1) of the sampled pixels whose coarse colour must change.
    var threshold: Double
    private var reference: [Int32] = []
    private var current = [Int32](repeating: 0, count: 4096)

    init(threshold: Double) { self.threshold = threshold }

    mutating func reset() { reference = [] }

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
