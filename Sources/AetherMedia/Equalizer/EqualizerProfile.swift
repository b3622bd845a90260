import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// A parametric equalizer profile in the form Equalizer APO reads and AutoEq writes
/// (`ParametricEQ.txt`):
///
///     Preamp: -6.2 dB
///     Filter 1: ON PK Fc 105 Hz Gain -3.2 dB Q 0.70
///     Filter 2: ON LSC Fc 105 Hz Gain 6.0 dB Q 0.70
///     Filter 3: ON HPQ Fc 20 Hz Q 0.5
///
/// Types: `PK` (a peak), `LSC`/`LS` and `HSC`/`HS` (shelves: AutoEq's are the cookbook's
/// shelves at `Fc` with `Q`), `LP`/`LPQ` and `HP`/`HPQ` (passes; Q 0.707 when none is given).
/// A peak's width may be `BW Oct N` instead of `Q`. `OFF` filters, blank lines and `#` comments
/// are skipped; several `Preamp:` lines add up, as in Equalizer APO.
///
/// Read within budgets: the first ``maxBytes`` of the file (the rest is not read, and said),
/// lines of at most ``maxLineBytes``, at most ``maxFilters`` filters. UTF-8, or UTF-16 with its
/// byte order mark; CR LF line ends. Every value goes through ``OutsideValue`` and its range:
/// a line with a value that is not finite, out of range (a Q of 0, a frequency at or above
/// 24 kHz, Nyquist at 48 kHz) or not understood is refused alone, named once (the first
/// ``namedRefusals``, then a count); the good lines are kept.
public struct EqualizerProfile: Equatable, Sendable {
    public var curve: EqualizerCurve
    /// What was left out, one line each: `name:N: why`, and the budgets that cut the file.
    public var refused: [String]

    /// The bytes read of a profile file (1 MiB: AutoEq's are under 1 KiB).
    public static let maxBytes = 1 << 20
    /// A longer line is refused unread.
    public static let maxLineBytes = 4096
    /// Filters kept (Equalizer APO's own files rarely pass 30).
    public static let maxFilters = 64
    /// Refused lines named one by one; the rest are counted.
    public static let namedRefusals = 20

    public static let frequencies: Range<Double> = 10..<24_000
    public static let gains: ClosedRange<Double> = -30...30
    public static let qs: ClosedRange<Double> = 0.025...40
    public static let preamps: ClosedRange<Double> = -60...30

    public init(curve: EqualizerCurve, refused: [String]) { (self.curve, self.refused) = (curve, refused) }

    /// Reads the profile at `path` within the budgets; nil with the reason when the file
    /// cannot be read at all (missing, not a regular file).
    public static func read(path: String) -> Result<EqualizerProfile, OutsideValue.Refusal> {
        guard let (bytes, truncated) = TextBudget.read(path: path, limit: maxBytes) else {
            return .failure(OutsideValue.Refusal("equalizer profile '\(TextSanitizer.clean(path))': cannot read it (missing, or not a regular file)"))
        }
        return .success(parse(bytes, name: Paths.lastComponent(path), truncated: truncated))
    }

    /// Reads a profile's bytes; `name` names it in the refusals; `truncated`: the file went on
    /// past ``maxBytes``.
    public static func parse(_ bytes: [UInt8], name: String, truncated: Bool = false) -> EqualizerProfile {
        let shown = TextSanitizer.clean(name)
        var profile = EqualizerProfile(curve: .flat, refused: [])
        var refusals = 0
        func refuse(_ number: Int, _ why: String) {
            refusals += 1
            if refusals <= namedRefusals { profile.refused.append("\(shown):\(number): \(why)") }
        }
        var filtersOver = 0
        let text = TextBudget.utf8(fromMarked: bytes)
        TextBudget.forEachLine(text, maxLineBytes: maxLineBytes) { number, line in
            guard let line else { refuse(number, "line longer than \(maxLineBytes) bytes"); return true }
            let words = String(decoding: line, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = words.first, !first.hasPrefix("#") else { return true }
            do throws(OutsideValue.Refusal) {
                if first.lowercased() == "preamp:" {
                    profile.curve.preamp = try preamp(words.dropFirst(), total: profile.curve.preamp)
                } else if first.lowercased().hasPrefix("filter") {
                    guard let filter = try filter(words) else { return true }   // OFF
                    if profile.curve.filters.count < maxFilters { profile.curve.filters.append(filter) } else { filtersOver += 1 }
                } else {
                    throw OutsideValue.Refusal("not a Preamp: or Filter line ('\(TextSanitizer.clean(String(first.prefix(24))))')")
                }
            } catch {
                refuse(number, error.message)
            }
            return true
        }
        if refusals > namedRefusals { profile.refused.append("\(shown): \(refusals - namedRefusals) more lines refused") }
        if filtersOver > 0 { profile.refused.append("\(shown): \(filtersOver) filters after the first \(maxFilters) left out") }
        if truncated { profile.refused.append("\(shown): read the first \(maxBytes >> 20) MiB only; the rest left out") }
        return profile
    }

    /// `Preamp: -6.2 dB` (the words after `Preamp:`), added to `total`.
    static func preamp(_ words: ArraySlice<String>, total: Double) throws(OutsideValue.Refusal) -> Double {
        guard let value = words.first, words.count <= 2, words.count == 1 || words.last?.lowercased() == "db" else {
            throw OutsideValue.Refusal("Preamp: takes a gain in dB ('Preamp: -6.2 dB')")
        }
        let gain = try OutsideValue.number(value, name: "Preamp")
        let sum = total + gain
        guard preamps.contains(sum) else { throw OutsideValue.Refusal("Preamp \(EqualizerCurve.number(gain)) dB: the total is not in \(Int(preamps.lowerBound))…+\(Int(preamps.upperBound)) dB") }
        return sum
    }

    /// `Filter N: ON PK Fc 105 Hz Gain -3.2 dB Q 0.70` as words; nil for an `OFF` filter.
    static func filter(_ words: [String]) throws(OutsideValue.Refusal) -> EqualizerFilter? {
        // "Filter", "Filter:", "Filter 1:", "Filter1:": the state follows the first word with a colon.
        guard let colon = words.firstIndex(where: { $0.hasSuffix(":") }), colon <= 1, colon + 2 < words.count else {
            throw OutsideValue.Refusal("a filter is 'Filter N: ON TYPE Fc F Hz …'")
        }
        switch words[colon + 1].uppercased() {
        case "ON": break
        case "OFF": return nil
        default: throw OutsideValue.Refusal("a filter is ON or OFF, not '\(TextSanitizer.clean(String(words[colon + 1].prefix(16))))'")
        }
        let type = words[colon + 2].uppercased()
        let kind: EqualizerFilter.Kind
        switch type {
        case "PK", "PEQ": kind = .peak
        case "LSC", "LS": kind = .lowShelf
        case "HSC", "HS": kind = .highShelf
        case "LP", "LPQ": kind = .lowPass
        case "HP", "HPQ": kind = .highPass
        default: throw OutsideValue.Refusal("filter type '\(TextSanitizer.clean(String(type.prefix(16))))' is not one of PK, LSC, HSC, LP, HP")
        }
        // The parameters: Fc F Hz, Gain G dB, Q Q, BW Oct N (each once).
        var (frequency, gain, q): (Double?, Double?, Double?) = (nil, nil, nil)
        var rest = words[(colon + 3)...]
        while let key = rest.first?.lowercased() {
            rest = rest.dropFirst()
            switch key {
            case "fc":
                frequency = try value(&rest, name: "Fc", unit: "hz")
            case "gain":
                gain = try value(&rest, name: "Gain", unit: "db")
            case "q":
                q = try value(&rest, name: "Q", unit: nil)
            case "bw":
                guard rest.first?.lowercased() == "oct" else { throw OutsideValue.Refusal("BW takes 'Oct N'") }
                rest = rest.dropFirst()
                let octaves = try value(&rest, name: "BW Oct", unit: nil)
                guard (0.01...10).contains(octaves) else { throw OutsideValue.Refusal("BW Oct \(EqualizerCurve.number(octaves)) is not in 0.01…10") }
                // An octave bandwidth N as Q: √(2^N) / (2^N − 1).
                let p = pow(2, octaves)
                q = p.squareRoot() / (p - 1)
            default:
                throw OutsideValue.Refusal("'\(TextSanitizer.clean(String(key.prefix(16))))' is not Fc, Gain, Q or BW Oct")
            }
        }
        guard let frequency else { throw OutsideValue.Refusal("the filter has no Fc") }
        guard frequencies.contains(frequency) else {
            throw OutsideValue.Refusal("Fc \(EqualizerCurve.number(frequency)) Hz is not in 10 Hz…24 kHz (Nyquist at 48 kHz)")
        }
        let filter = EqualizerFilter(kind, frequency: frequency, gain: gain ?? 0, q: q ?? EqualizerFilter.butterworthQ)
        if filter.hasGain {
            guard let gain else { throw OutsideValue.Refusal("\(type) needs a Gain") }
            guard gains.contains(gain) else { throw OutsideValue.Refusal("Gain \(EqualizerCurve.number(gain)) dB is not in -30…+30") }
            guard q != nil || kind != .peak else { throw OutsideValue.Refusal("PK needs a Q or BW Oct") }
        }
        guard qs.contains(filter.q) else { throw OutsideValue.Refusal("Q \(EqualizerCurve.number(filter.q)) is not in 0.025…40") }
        return filter
    }

    /// The number at the front of `words`, and its unit after it when one is given.
    private static func value(_ words: inout ArraySlice<String>, name: String, unit: String?) throws(OutsideValue.Refusal) -> Double {
        guard let text = words.first else { throw OutsideValue.Refusal("\(name) has no value") }
        words = words.dropFirst()
        let number = try OutsideValue.number(text, name: name)
        if let unit, words.first?.lowercased() == unit { words = words.dropFirst() }
        return number
    }
}
