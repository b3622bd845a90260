import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The spectrum of a window of mono samples in log-spaced bands, each a level from 0 (at or
/// below ``floorDB``) to 1 (a full-scale sine), through libavutil's real FFT (`av_tx`,
/// `AV_TX_FLOAT_RDFT`) after a Hann window.
///
/// Owns its `AVTXContext` (freed once, in `deinit`) and the transform's buffers. Not
/// thread-safe: one owner (the UI thread) calls it.
public final class SpectrumAnalyzer {
    /// Samples per transform (a power of two).
    public let size: Int
    /// Levels at or below this many dB under a full-scale sine are 0.
    public static let floorDB: Float = -70
    /// Lowest and highest band edges (Hz); the top is lowered to 95 % of the Nyquist frequency.
    public static let lowestFrequency = 40.0
    public static let highestFrequency = 16000.0

    private var context: OpaquePointer?
    private let transform: av_tx_fn
    private let input: UnsafeMutablePointer<Float>
    /// `size / 2 + 1` complex values (re, im).
    private let output: UnsafeMutablePointer<Float>
    private let hann: UnsafeMutablePointer<Float>
    private var plan: BandPlan?

    /// The corresponding C function is `av_tx_init`.
    public init(size: Int = 2048) throws(FFmpegError) {
        var n = 64
        while n < size { n <<= 1 }
        self.size = n
        var ctx: OpaquePointer?
        var fn: av_tx_fn?
        var scale: Float = 1
        let rc = av_tx_init(&ctx, &fn, AV_TX_FLOAT_RDFT, 0, Int32(n), &scale, 0)
        guard rc >= 0, let ctx, let fn else {
            av_tx_uninit(&ctx)
            throw FFmpegError(code: rc < 0 ? rc : aether_AVERROR(ENOSYS), function: "av_tx_init")
        }
        context = ctx
        transform = fn
        // av_tx wants its arrays aligned for the CPU's widest vectors (AVX-512: 64 bytes).
        func aligned(_ count: Int) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.size, alignment: 64)
            return p.initializeMemory(as: Float.self, repeating: 0, count: count)
        }
        input = aligned(n)
        output = aligned(n + 2)
        hann = aligned(n)
        for i in 0..<n { hann[i] = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))) }
    }

    deinit {
        av_tx_uninit(&context)
        UnsafeMutableRawPointer(input).deallocate()
        UnsafeMutableRawPointer(output).deallocate()
        UnsafeMutableRawPointer(hann).deallocate()
    }

    /// Fills `levels` (one per band, `bands` of them, low to high) from the last ``size`` of
    /// `samples` (fewer are padded with silence in front) at `sampleRate`.
    public func levels(of samples: UnsafeBufferPointer<Float>, sampleRate: Int, bands: Int, into levels: inout [Float]) {
        let bands = max(1, bands)
        if levels.count != bands { levels = [Float](repeating: 0, count: bands) }
        let rate = max(1000, sampleRate)
        let used = min(size, samples.count)
        let pad = size - used
        for i in 0..<pad { input[i] = 0 }
        if let base = samples.baseAddress {
            let from = base + (samples.count - used)
            for i in 0..<used { input[pad + i] = from[i] * hann[pad + i] }
        }
        transform(context, output, input, MemoryLayout<Float>.stride)
        if plan?.matches(size: size, sampleRate: rate, bands: bands) != true {
            plan = BandPlan(size: size, sampleRate: rate, bands: bands)
        }
        guard let plan else { return }
        // A full-scale sine's bin: amplitude × (sum of the window) / 2 = size / 4.
        let reference = Float(size) / 4
        func power(_ k: Int) -> Float { output[2 * k] * output[2 * k] + output[2 * k + 1] * output[2 * k + 1] }
        for b in 0..<bands {
            let band = plan.bands[b]
            var p: Float = 0
            if band.low < band.high {
                for k in band.low..<band.high { p += power(k) }
            } else {
                // Narrower than a bin: the amplitude between the two bins around its centre.
                let k = min(size / 2 - 1, Int(band.centre))
                let f = Float(band.centre - Double(k))
                let a = sqrtf(power(k)) * (1 - f) + sqrtf(power(k + 1)) * f
                p = a * a
            }
            levels[b] = Self.level(amplitude: sqrtf(p) / reference)
        }
    }

    /// Convenience for callers holding an array.
    public func levels(of samples: [Float], sampleRate: Int, bands: Int) -> [Float] {
        var out: [Float] = []
        samples.withUnsafeBufferPointer { levels(of: $0, sampleRate: sampleRate, bands: bands, into: &out) }
        return out
    }

    /// 0…1 for an amplitude relative to full scale: ``floorDB`` … 0 dB.
    static func level(amplitude: Float) -> Float {
        guard amplitude > 0, amplitude.isFinite else { return 0 }
        let db = 20 * log10f(amplitude)
        return min(1, max(0, (db - floorDB) / -floorDB))
    }

    /// The frequency range (Hz) band `band` of `bands` covers at `sampleRate`.
    public static func bandRange(_ band: Int, of bands: Int, sampleRate: Int) -> ClosedRange<Double> {
        let edges = BandPlan.edges(bands: max(1, bands), sampleRate: max(1000, sampleRate))
        let b = min(max(0, band), edges.count - 2)
        return edges[b]...edges[b + 1]
    }

    /// Which bins each band sums, for one size, rate and band count.
    private struct BandPlan {
        struct Band {
            /// Bins `low..<high` (empty when the band is narrower than a bin).
            var low: Int, high: Int
            /// The band's centre (geometric), in bins.
            var centre: Double
        }
        let size: Int, sampleRate: Int
        let bands: [Band]

        init(size: Int, sampleRate: Int, bands count: Int) {
            self.size = size
            self.sampleRate = sampleRate
            let edges = Self.edges(bands: count, sampleRate: sampleRate)
            let binHz = Double(sampleRate) / Double(size)
            bands = (0..<count).map { b in
                let low = Int((edges[b] / binHz).rounded(.up)), high = Int((edges[b + 1] / binHz).rounded(.up))
                return Band(low: min(low, size / 2), high: min(high, size / 2 + 1), centre: (edges[b] * edges[b + 1]).squareRoot() / binHz)
            }
        }

        func matches(size: Int, sampleRate: Int, bands: Int) -> Bool {
            self.size == size && self.sampleRate == sampleRate && self.bands.count == bands
        }

        /// `bands + 1` log-spaced edges from ``lowestFrequency`` to ``highestFrequency`` (or
        /// 95 % of the Nyquist frequency, when lower).
        static func edges(bands: Int, sampleRate: Int) -> [Double] {
            let low = SpectrumAnalyzer.lowestFrequency
            let high = max(low * 2, min(SpectrumAnalyzer.highestFrequency, 0.95 * Double(sampleRate) / 2))
            return (0...bands).map { low * pow(high / low, Double($0) / Double(bands)) }
        }
    }
}

/// Bars that rise at once and fall slowly, with a peak mark that holds, then falls: what makes a
/// spectrum readable at 20–30 updates a second. Pure; time comes from the caller.
public struct SpectrumSmoother: Sendable, Equatable {
    public private(set) var levels: [Float] = []
    public private(set) var peaks: [Float] = []
    private var peakAge: [Double] = []
    /// Levels fall at most this much (of the full height) per second.
    public var fallPerSecond: Float = 1.5
    /// A peak mark stays this long (seconds), then falls at `peakFallPerSecond`.
    public var peakHold = 0.6
    public var peakFallPerSecond: Float = 0.8

    public init() {}

    /// Takes new levels, `elapsed` seconds after the previous ones. A new band count starts over.
    public mutating func update(_ new: [Float], elapsed: Double) {
        if new.count != levels.count {
            levels = [Float](repeating: 0, count: new.count)
            peaks = levels
            peakAge = [Double](repeating: 0, count: new.count)
        }
        let dt = max(0, elapsed.isFinite ? elapsed : 0)
        for i in new.indices {
            let value = min(1, max(0, new[i].isFinite ? new[i] : 0))
            levels[i] = max(value, levels[i] - fallPerSecond * Float(dt))
            if levels[i] >= peaks[i] {
                peaks[i] = levels[i]
                peakAge[i] = 0
            } else {
                peakAge[i] += dt
                if peakAge[i] > peakHold { peaks[i] = max(levels[i], peaks[i] - peakFallPerSecond * Float(dt)) }
            }
        }
    }
}

/// RMS and peak of a window of samples, for a one-row level meter.
public enum LevelMeter {
    /// RMS and peak in dB relative to full scale (−∞ for silence).
    public static func measure(_ samples: UnsafeBufferPointer<Float>) -> (rms: Float, peak: Float) {
        guard !samples.isEmpty else { return (-.infinity, -.infinity) }
        var sum: Float = 0, peak: Float = 0
        for s in samples {
            sum += s * s
            peak = max(peak, abs(s))
        }
        let rms = (sum / Float(samples.count)).squareRoot()
        return (rms > 0 ? 20 * log10f(rms) : -.infinity, peak > 0 ? 20 * log10f(peak) : -.infinity)
    }

    /// 0…1 for a dB value: ``SpectrumAnalyzer/floorDB`` … 0 dB.
    public static func fraction(_ db: Float) -> Float {
        guard db.isFinite else { return 0 }
        return min(1, max(0, (db - SpectrumAnalyzer.floorDB) / -SpectrumAnalyzer.floorDB))
    }
}
