import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One filter of an equalizer: a second-order section of Robert Bristow-Johnson's cookbook,
/// the form Equalizer APO and AutoEq write profiles in and libavfilter's biquad filters run
/// (`equalizer`, `lowshelf`, `highshelf`, `lowpass`, `highpass`, each with `t=q`).
public struct EqualizerFilter: Equatable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        /// A peak (bell) around `frequency`.
        case peak
        /// A shelf below `frequency` (its midpoint, where half the gain is reached).
        case lowShelf
        /// A shelf above `frequency`.
        case highShelf
        /// Passes below `frequency` (no gain).
        case lowPass
        /// Passes above `frequency` (no gain).
        case highPass

        /// The libavfilter filter that runs it.
        var filterName: String {
            switch self {
            case .peak: "equalizer"
            case .lowShelf: "lowshelf"
            case .highShelf: "highshelf"
            case .lowPass: "lowpass"
            case .highPass: "highpass"
            }
        }
    }

    public var kind: Kind
    /// Hz.
    public var frequency: Double
    /// dB (none for the passes).
    public var gain: Double
    public var q: Double

    public init(_ kind: Kind, frequency: Double, gain: Double = 0, q: Double = EqualizerFilter.butterworthQ) {
        (self.kind, self.frequency, self.gain, self.q) = (kind, frequency, gain, q)
        if !hasGain { self.gain = 0 }
    }

    /// Peaks and shelves have a gain; the passes have none.
    public var hasGain: Bool { kind != .lowPass && kind != .highPass }

    /// 1/√2: the passes' Q when a profile gives none (maximally flat).
    public static let butterworthQ = 0.5.squareRoot()

    /// The section's coefficients at `sampleRate`, normalised (a0 = 1): b0, b1, b2, a1, a2.
    func coefficients(sampleRate: Double) -> (b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        let a = pow(10, gain / 40)
        let w0 = 2 * Double.pi * frequency / sampleRate
        let (cosw, alpha) = (cos(w0), sin(w0) / (2 * q))
        var (b0, b1, b2, a0, a1, a2): (Double, Double, Double, Double, Double, Double)
        switch kind {
        case .peak:
            (b0, b1, b2) = (1 + alpha * a, -2 * cosw, 1 - alpha * a)
            (a0, a1, a2) = (1 + alpha / a, -2 * cosw, 1 - alpha / a)
        case .lowShelf:
            let s = 2 * a.squareRoot() * alpha
            (b0, b1, b2) = (a * ((a + 1) - (a - 1) * cosw + s), 2 * a * ((a - 1) - (a + 1) * cosw), a * ((a + 1) - (a - 1) * cosw - s))
            (a0, a1, a2) = ((a + 1) + (a - 1) * cosw + s, -2 * ((a - 1) + (a + 1) * cosw), (a + 1) + (a - 1) * cosw - s)
        case .highShelf:
            let s = 2 * a.squareRoot() * alpha
            (b0, b1, b2) = (a * ((a + 1) + (a - 1) * cosw + s), -2 * a * ((a - 1) + (a + 1) * cosw), a * ((a + 1) + (a - 1) * cosw - s))
            (a0, a1, a2) = ((a + 1) - (a - 1) * cosw + s, 2 * ((a - 1) - (a + 1) * cosw), (a + 1) - (a - 1) * cosw - s)
        case .lowPass:
            (b0, b1, b2) = ((1 - cosw) / 2, 1 - cosw, (1 - cosw) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosw, 1 - alpha)
        case .highPass:
            (b0, b1, b2) = ((1 + cosw) / 2, -(1 + cosw), (1 + cosw) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cosw, 1 - alpha)
        }
        return (b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0)
    }

    /// The section's gain in dB at `frequency` (Hz) when it runs at `sampleRate`.
    public func response(at frequency: Double, sampleRate: Double) -> Double {
        let c = coefficients(sampleRate: sampleRate)
        let w = 2 * Double.pi * frequency / sampleRate
        // |H(e^jw)|² from the numerator and denominator polynomials in cos w and cos 2w.
        func power(_ x0: Double, _ x1: Double, _ x2: Double) -> Double {
            x0 * x0 + x1 * x1 + x2 * x2 + 2 * (x0 * x1 + x1 * x2) * cos(w) + 2 * x0 * x2 * cos(2 * w)
        }
        let ratio = power(c.b0, c.b1, c.b2) / power(1, c.a1, c.a2)
        return 10 * log10(max(ratio, 1e-30))
    }
}

/// An equalizer: a preamp and filters in a row, the sound of the whole as one response curve.
/// What ``EqualizerChoice`` resolves to (a preset, ten bands, a profile file).
public struct EqualizerCurve: Equatable, Sendable {
    /// dB applied before the filters (a profile's `Preamp:`; the safe preamp of a curve that
    /// would clip).
    public var preamp: Double
    public var filters: [EqualizerFilter]

    public init(preamp: Double = 0, filters: [EqualizerFilter] = []) {
        (self.preamp, self.filters) = (preamp, filters)
    }

    /// No equalizer: nothing to run.
    public static let flat = EqualizerCurve()

    /// Whether running it changes the sound at all: no preamp, and every filter a peak or a
    /// shelf of no gain (a pass always changes it).
    public var isFlat: Bool {
        preamp == 0 && filters.allSatisfy { $0.hasGain && $0.gain == 0 }
    }

    /// The whole curve's gain in dB at `frequency` (Hz) when it runs at `sampleRate`: the
    /// preamp and every filter's response, added.
    public func response(at frequency: Double, sampleRate: Double) -> Double {
        filters.reduce(preamp) { $0 + $1.response(at: frequency, sampleRate: sampleRate) }
    }

    /// The frequencies a curve is read at: 1/24 octave from 20 Hz to 20 kHz (or just below
    /// Nyquist).
    public static func readingPoints(sampleRate: Double) -> [Double] {
        let top = min(20_000, sampleRate * 0.49)
        return stride(from: 0.0, through: log2(top / 20) * 24, by: 1).map { 20 * pow(2, $0 / 24) }
    }

    /// The highest gain the curve gives any frequency it is read at, in dB (what a full-scale
    /// tone there would rise by).
    public func peakGain(sampleRate: Double) -> Double {
        Self.readingPoints(sampleRate: sampleRate).map { response(at: $0, sampleRate: sampleRate) }.max() ?? preamp
    }

    /// The curve with its preamp lowered so that no frequency gains (its peak at 0 dB); itself
    /// when none does.
    public func safe(sampleRate: Double) -> EqualizerCurve {
        let peak = peakGain(sampleRate: sampleRate)
        guard peak > 0 else { return self }
        var curve = self
        curve.preamp -= peak
        return curve
    }

    /// The filters that can run at `sampleRate`: a filter at or above 0.49 of it (Nyquist,
    /// nearly) has no meaning there and is left out.
    public func runnable(sampleRate: Double) -> (curve: EqualizerCurve, leftOut: [EqualizerFilter]) {
        let limit = sampleRate * 0.49
        var curve = self
        curve.filters = filters.filter { $0.frequency < limit }
        return (curve, filters.filter { $0.frequency >= limit })
    }

    /// The curve as libavfilter filters: the preamp (`volume@eqpre`, 0 dB too, so that a curve
    /// keeps its shape while its preamp moves), then each filter, named `eq0`, `eq1` … so that a
    /// change can reach the one filter it moves (``commands(toBecome:)``). A flat curve has a
    /// chain too (that changes nothing): whether to run one at all is the player's choice.
    public var filterChain: String {
        var parts = ["volume@\(Self.preampTarget)=volume=\(Self.number(preamp))dB"]
        for (index, filter) in filters.enumerated() {
            var options = ["f=\(Self.number(filter.frequency))", "t=q", "w=\(Self.number(filter.q))"]
            if filter.hasGain { options.append("g=\(Self.number(filter.gain))") }
            parts.append("\(filter.kind.filterName)@eq\(index)=" + options.joined(separator: ":"))
        }
        return parts.joined(separator: ",")
    }

    /// The preamp's name in ``filterChain`` (`volume@eqpre`).
    public static let preampTarget = "eqpre"

    /// A command to one filter of a running chain (``filterChain``'s names).
    public struct Command: Equatable, Sendable {
        public var target: String
        public var command: String
        public var argument: String
    }

    /// The commands that turn a graph running this curve's chain into one running `other`'s,
    /// filter by filter (a band moved: one command); nil when `other`'s chain has another shape
    /// (other kinds of filter, or another number), which takes a new graph.
    public func commands(toBecome other: EqualizerCurve) -> [Command]? {
        guard filters.count == other.filters.count,
              zip(filters, other.filters).allSatisfy({ $0.kind == $1.kind }) else { return nil }
        var commands: [Command] = []
        if preamp != other.preamp { commands.append(Command(target: Self.preampTarget, command: "volume", argument: "\(Self.number(other.preamp))dB")) }
        for (index, (old, new)) in zip(filters, other.filters).enumerated() {
            let target = "eq\(index)"
            if old.frequency != new.frequency { commands.append(Command(target: target, command: "f", argument: Self.number(new.frequency))) }
            if old.q != new.q { commands.append(Command(target: target, command: "w", argument: Self.number(new.q))) }
            if old.gain != new.gain, new.hasGain { commands.append(Command(target: target, command: "g", argument: Self.number(new.gain))) }
        }
        return commands
    }

    /// A number as libavfilter's option parser reads it (no exponent, no locale), and as the
    /// option and the stats show it.
    public static func number(_ value: Double) -> String {
        String(cFormat: "%.6g", value).contains("e") ? String(cFormat: "%.6f", value) : String(cFormat: "%.6g", value)
    }
}
