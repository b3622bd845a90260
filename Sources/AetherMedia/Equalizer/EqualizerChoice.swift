import AetherBase

/// What `--equalizer` (and `equalizer` in the config file, the property over IPC) names:
/// nothing (`flat`), a preset, ten graphic bands (`bands:0,2,3,…`), or a parametric profile
/// file in Equalizer APO's and AutoEq's form (a path: it contains a `/` or ends in `.txt`).
public enum EqualizerChoice: Equatable, Sendable {
    case flat
    case preset(EqualizerPreset)
    /// The gains of the ten bands (``GraphicBands/centres``), dB.
    case bands([Double])
    case profile(path: String)

    /// Reads `--equalizer`'s value; a refusal names what it takes.
    public init(parsing text: String) throws(OutsideValue.Refusal) {
        let name = "equalizer"
        let value = try OutsideValue.text(text, maxBytes: 4096, name: name)
        if value == "flat" || value == "no" || value == "off" {
            self = .flat
        } else if let preset = EqualizerPreset(rawValue: value) {
            self = .preset(preset)
        } else if value.hasPrefix("bands:") {
            let gains = value.dropFirst("bands:".count).split(separator: ",", omittingEmptySubsequences: false)
            guard gains.count == GraphicBands.centres.count else {
                throw OutsideValue.Refusal("'\(name)': bands: takes \(GraphicBands.centres.count) gains in dB, \(gains.count) given")
            }
            var bands: [Double] = []
            for gain in gains {
                let g = try OutsideValue.number(String(gain), name: name)
                guard GraphicBands.range.contains(g) else {
                    throw OutsideValue.Refusal("'\(name)': band gain \(TextSanitizer.clean(String(gain))) dB is not in \(Int(GraphicBands.range.lowerBound))…+\(Int(GraphicBands.range.upperBound))")
                }
                bands.append(g)
            }
            self = .bands(bands)
        } else if value.contains("/") || value.hasSuffix(".txt") {
            self = .profile(path: value)
        } else {
            let names = (["flat"] + EqualizerPreset.allCases.map(\.rawValue)).joined(separator: ", ")
            throw OutsideValue.Refusal("'\(name)': '\(TextSanitizer.clean(value))' is not a preset (\(names)), bands:G1,…,G10 or a profile file's path")
        }
    }

    /// The option's text for this choice (what `--equalizer` would be given).
    public var text: String {
        switch self {
        case .flat: "flat"
        case .preset(let preset): preset.rawValue
        case .bands(let gains): "bands:" + gains.map { EqualizerCurve.number($0) }.joined(separator: ",")
        case .profile(let path): path
        }
    }
}

/// An equalizer as the player holds it: what was chosen (what `--equalizer` and the property say)
/// and the curve it resolved to (a profile file read once, when chosen).
public struct EqualizerSetting: Equatable, Sendable {
    public var choice: EqualizerChoice
    public var curve: EqualizerCurve

    public init(choice: EqualizerChoice, curve: EqualizerCurve) {
        (self.choice, self.curve) = (choice, curve)
    }

    public static let flat = EqualizerSetting(choice: .flat, curve: .flat)

    /// The setting of `choice`. A profile file is read here, within its budgets: each line it
    /// refuses is a warning, and a file that cannot be read is the flat setting with one.
    /// `environment` expands a path's `~`.
    public init(resolving choice: EqualizerChoice, environment: [String: String], warn: (String) -> Void) {
        switch choice {
        case .flat: self = .flat
        case .preset(let preset): self.init(choice: choice, curve: preset.curve)
        case .bands(let gains): self.init(choice: choice, curve: GraphicBands.curve(gains))
        case .profile(let path):
            switch EqualizerProfile.read(path: Paths.expandingTilde(path, environment: environment)) {
            case .failure(let refusal):
                warn(refusal.message + "; the equalizer is off")
                self = .flat
            case .success(let profile):
                for line in profile.refused { warn("equalizer profile " + line) }
                self.init(choice: choice, curve: profile.curve)
            }
        }
    }

    /// What the stats call it: a preset's name, `bands`, a profile file's name (sanitised).
    public var name: String {
        switch choice {
        case .flat: "flat"
        case .preset(let preset): preset.rawValue
        case .bands: "bands"
        case .profile(let path): TextSanitizer.clean(Paths.lastComponent(path))
        }
    }
}

/// The ten bands of the graphic equalizer: peaks at the ISO octave centres, an octave wide.
public enum GraphicBands {
    /// Hz: ISO 266's octave band centres, 31.5 Hz to 16 kHz.
    public static let centres: [Double] = [31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
    /// A band's gain: ±12 dB.
    public static let range: ClosedRange<Double> = -12...12
    /// An octave's bandwidth as Q: √2 / (2 − 1).
    public static let q = 2.0.squareRoot()

    /// The curve of `gains` (one per centre; a band of no gain is kept, so that every band
    /// curve has one shape and a band moved while playing is one command to its filter).
    public static func curve(_ gains: [Double]) -> EqualizerCurve {
        EqualizerCurve(filters: zip(centres, gains).map { EqualizerFilter(.peak, frequency: $0, gain: $1, q: q) })
    }
}

/// The built-in presets: curves of the ten bands, each for a reason a listener would give.
public enum EqualizerPreset: String, CaseIterable, Sendable {
    /// More low end: +6 dB at 31.5 Hz easing to nothing by 500 Hz.
    case bass
    /// More air: from +2 dB at 2 kHz to +6 dB at 16 kHz.
    case treble
    /// Voices forward: the 1–4 kHz presence region up 4 dB, the lowest octaves down 2.
    case vocal
    /// For quiet listening (the ear's lower sensitivity to both ends at low levels, after the
    /// equal-loudness contours): lows and highs up, the middle left.
    case loudness
    /// Acoustic instruments: a little warmth and a little sparkle.
    case acoustic
    /// Electronic music: deep lows and bright highs, the lower middle back.
    case electronic
    /// Speech (podcasts, audiobooks): rumble off, intelligibility up.
    case speech

    /// The gains of the ten bands (``GraphicBands/centres``), dB.
    public var gains: [Double] {
        switch self {
        case .bass: [6, 5, 4, 2, 1, 0, 0, 0, 0, 0]
        case .treble: [0, 0, 0, 0, 0, 0, 2, 4, 5, 6]
        case .vocal: [-2, -2, -1, 0, 2, 4, 4, 3, 0, -1]
        case .loudness: [6, 4, 2, 0, -1, 0, 0, 1, 3, 4]
        case .acoustic: [3, 3, 2, 1, 1, 1, 2, 3, 2, 1]
        case .electronic: [5, 4, 1, 0, -2, 0, 1, 2, 4, 5]
        case .speech: [-8, -6, -3, 0, 2, 3, 3, 2, 0, -2]
        }
    }

    public var curve: EqualizerCurve { GraphicBands.curve(gains) }
}
