import Foundation

/// Small signal measurements for audio assertions.
public enum Signal {
    /// The largest difference between neighbouring samples in `range`: what a click leaves.
    public static func largestStep<S: BinaryFloatingPoint>(_ x: [S], _ range: Range<Int>) -> S {
        range.dropFirst().map { abs(x[$0] - x[$0 - 1]) }.max() ?? 0
    }

    /// The longest run of samples in `range` quieter than `threshold` (in absolute value): a gap.
    public static func longestQuietRun<S: BinaryFloatingPoint>(_ x: [S], _ range: Range<Int>, below threshold: S) -> Int {
        var run = 0, longest = 0
        for n in range {
            run = abs(x[n]) < threshold ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    public static func rmsDBFS(_ x: ArraySlice<Double>) -> Double {
        guard !x.isEmpty else { return -.infinity }
        let ms = x.reduce(0) { $0 + $1 * $1 } / Double(x.count)
        return 10 * log10(max(ms, 1e-20))
    }

    /// Amplitude (0…1) of the `frequency` component (Goertzel), for a sine of amplitude A ≈ A.
    public static func amplitude(_ x: ArraySlice<Double>, frequency: Double, rate: Double = 48000) -> Double {
        let n = Double(x.count)
        guard n > 0 else { return 0 }
        let w = 2 * Double.pi * frequency / rate
        let c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s0 = v + c * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - c * s1 * s2
        return 2 * sqrt(max(0, power)) / n
    }

    /// The strongest frequency between `low` and `high` Hz, in 1 Hz steps around coarse 10 Hz ones.
    public static func dominantFrequency(_ x: ArraySlice<Double>, low: Double = 50, high: Double = 4000) -> Double {
        var best = low, bestA = 0.0
        for f in stride(from: low, through: high, by: 10) {
            let a = amplitude(x, frequency: f)
            if a > bestA { bestA = a; best = f }
        }
        for f in stride(from: best - 10, through: best + 10, by: 1) {
            let a = amplitude(x, frequency: f)
            if a > bestA { bestA = a; best = f }
        }
        return best
    }
}
