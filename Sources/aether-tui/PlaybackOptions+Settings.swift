import AetherControl
import AetherEngine
import ArgumentParser
import TerminalGraphics
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Options whose values are a type's cases, parsed once by ArgumentParser (a bad value is its
/// one error, naming the values).
extension HRSeek: ExpressibleByArgument {}
extension GaplessMode: ExpressibleByArgument {}
extension KittySharedMemoryUse: ExpressibleByArgument {}
extension ASSStyleOptions.Override: ExpressibleByArgument {}

/// `--vo`: auto or a name the registry has (a bad one is ArgumentParser's error, naming them).
extension VideoDrivers.Choice: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public var defaultValueDescription: String { name }
    public static var allValueStrings: [String] { VideoDrivers.names }
}

/// A yes-or-no option (mpv's spelling of a flag with a value: `--ytdl=no`).
enum YesNo: String, CaseIterable, ExpressibleByArgument {
    case yes, no
    var isOn: Bool { self == .yes }
}

extension ReplayGainMode: ExpressibleByArgument {}

/// `--vo-sixel-dither`: the ditherer's names (`none`, `ordered`, `fs`) and mpv's that mean the same.
extension SixelDither: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
}

/// `--ao`: the ALSA device (through `--audio-device`) or none (no sound, no clock from it).
enum AudioOutputChoice: String, CaseIterable, ExpressibleByArgument {
    case alsa, null
}

/// `--sub-auto` (mpv's values): sidecar subtitles by name (`fuzzy`, `exact`, `all`: the player
/// looks beside the file either way) or none.
enum SubAuto: String, CaseIterable, ExpressibleByArgument {
    case fuzzy, exact, all, no
}

extension SixelRepaint: ExpressibleByArgument {}

/// `--loop-file`, `--loop-playlist`: no, inf (yes) or a count.
extension LoopCount: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String {
        switch self {
        case .no: "no"
        case .infinite: "inf"
        case .times(let n): "\(n)"
        }
    }
}

/// `--ab-loop-a`, `--ab-loop-b`: a time from the start (`[[hh:]mm:]ss[.ms]`, as `--start` takes
/// it) or `no`.
struct ABLoopPoint: ExpressibleByArgument {
    let seconds: Double?

    init?(argument: String) {
        if argument == "no" {
            seconds = nil
            return
        }
        guard case .seconds(let s)? = TimeArgument(argument) else { return nil }
        seconds = s
    }
}

/// `--image-display-duration`: seconds (0 to a day) or inf.
extension ImageDuration: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String {
        switch self {
        case .forever: "inf"
        case .seconds(let s): String(cFormat: "%g", s)
        }
    }
}

/// `--start`, `--length`: mpv's time syntax (``TimeArgument``).
extension TimeArgument: ExpressibleByArgument {
    init?(argument: String) { self.init(argument) }
}

/// `--aid`, `--sid`, `--vid`: a track by its number (1 = the first of its kind), auto (the
/// player's choice: the languages, the default flag) or no (none of that kind).
enum TrackChoice: ExpressibleByArgument, Equatable {
    case auto, no
    case number(Int)

    init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "no": self = .no
        default:
            guard let n = Int(argument), (1...9999).contains(n) else { return nil }
            self = .number(n)
        }
    }

    /// The 0-based track asked for; nil: auto or no.
    var index: Int? { if case .number(let n) = self { n - 1 } else { nil } }
    var defaultValueDescription: String { "auto" }
}

/// `--hls-bitrate`: auto, min, max or a peak bit rate (`700k`, `1.5M`).
extension VariantPreference: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String {
        switch self {
        case .auto: "auto"
        case .min: "min"
        case .max: "max"
        case .atMost(let rate): "\(rate)"
        }
    }
}

extension VideoRangePreference: ExpressibleByArgument {}
extension LoopFilterSkip: ExpressibleByArgument {}

/// `--vo-halfblock-colors`: truecolor (also `24bit`, `rgb`) or 256.
extension CellColorMode: ExpressibleByArgument {
    public init?(argument: String) {
        guard let mode = VideoDrivers.halfBlockColors(option: argument) else { return nil }
        self = mode
    }
}
/// `--vo-cells`: the symbols' names and the plurals and other spellings ``CellSymbols`` takes.
extension CellSymbols: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
}

/// An option that is `auto` (the player decides) or one of `Value`'s (`--vo-sixel-repaint`,
/// `--vo-cells`).
enum AutoOr<Value: ExpressibleByArgument & Equatable>: ExpressibleByArgument, Equatable {
    case auto
    case value(Value)

    init?(argument: String) {
        if argument == "auto" { self = .auto; return }
        guard let value = Value(argument: argument) else { return nil }
        self = .value(value)
    }

    /// The value asked for; nil: auto.
    var value: Value? { if case .value(let v) = self { v } else { nil } }
    var defaultValueDescription: String { "auto" }
    static var allValueStrings: [String] { ["auto"] + Value.allValueStrings }
}

/// `--cache`: the demuxer cache for network sources only (auto), always, or never.
enum CacheChoice: String, CaseIterable, ExpressibleByArgument {
    case auto, yes, no
}

extension AudioChannels: ExpressibleByArgument {
    public init?(argument: String) { self.init(option: argument) }
    public var defaultValueDescription: String { option }
}

/// `--af`: libavfilter's syntax, or mpv's `lavfi=[graph]` and `lavfi-NAME` forms of it.
/// `--equalizer`'s value: a choice, or `help` (the presets listed).
enum EqualizerOption: Equatable {
    case choice(EqualizerChoice)
    case help

    /// The setting for the player (``EqualizerSetting/init(resolving:environment:warn:)``: a
    /// profile's refused lines are warnings; playback goes on either way).
    func resolved(environment: [String: String], warn: (String) -> Void) -> EqualizerSetting {
        guard case .choice(let choice) = self else { return .flat }
        return EqualizerSetting(resolving: choice, environment: environment, warn: warn)
    }

    /// `--equalizer=help`: the presets, each with its ten gains.
    static var list: String {
        let centres = GraphicBands.centres.map { $0 >= 1000 ? "\(Int($0 / 1000))k" : EqualizerCurve.number($0) }
        var lines = ["Equalizer presets for --equalizer (dB at " + centres.joined(separator: " ") + " Hz):"]
        let rows = [("flat", Array(repeating: 0.0, count: GraphicBands.centres.count))] + EqualizerPreset.allCases.map { ($0.rawValue, $0.gains) }
        for (name, gains) in rows {
            let text = gains.map { ($0 > 0 ? "+" : "") + EqualizerCurve.number($0) }.joined(separator: " ")
            lines.append("  " + name + String(repeating: " ", count: max(1, 11 - name.count)) + text + (name == "flat" ? "  (none)" : ""))
        }
        lines.append("Also: bands:G1,…,G10, or a profile file's path.")
        return lines.joined(separator: "\n") + "\n"
    }
}

enum AudioFilterOption {
    /// The libavfilter graph `option` names ("" for none).
    static func graph(_ option: String) -> String {
        var text = option.trimmingWhitespace()
        if text.hasPrefix("lavfi=[") && text.hasSuffix("]") { text = String(text.dropFirst(7).dropLast()) }
        return text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("lavfi-") ? String($0.dropFirst(6)) : String($0) }
            .joined(separator: ",")
    }

    /// nil when the filters build (or there are none), else why not, in one line.
    static func check(_ option: String) -> String? {
        let graph = graph(option)
        guard !graph.isEmpty else { return nil }
        guard graph.utf8.count <= 4096 else { return "longer than 4096 bytes" }
        return FilterGraph.checkAudio(graph).map { "cannot use '\(TextSanitizer.clean(graph))': \($0)" }
    }
}

/// A disc's title as `--edition` takes it: `auto` (the main title) or its number, 1–99.
enum TitleArgument: ExpressibleByArgument, Equatable {
    case auto
    case number(Int)

    init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if let n = Int(argument), (1...99).contains(n) {
            self = .number(n)
        } else {
            return nil
        }
    }

    var number: Int? { if case .number(let n) = self { n } else { nil } }
    var defaultValueDescription: String { number.map(String.init) ?? "auto" }
}
