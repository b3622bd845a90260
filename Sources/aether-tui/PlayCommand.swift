import AetherEngine
import AetherTUI
import TerminalGraphics
import ArgumentParser
import Foundation

/// Options shared by playback in the TUI and headless (`--vo=null`) modes, named as mpv names them.
struct PlaybackOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("A media file or a URL libavformat can open.", valueName: "file|url"))
    var source: String

    @Option(help: ArgumentHelp("Video output: auto (the best the terminal has: kitty, then sixel, then halfblock), kitty, sixel, halfblock, or null (no picture, headless).", valueName: "auto|kitty|sixel|halfblock|null"))
    var vo: String = "auto"

    @Option(help: ArgumentHelp("Audio output: alsa or null (silent, still paced in real time).", valueName: "alsa|null"))
    var ao: String = "alsa"

    @Option(name: .customLong("audio-device"), help: ArgumentHelp("ALSA device to play through.", valueName: "name"))
    var audioDevice: String = "default"

    @Option(help: ArgumentHelp("Start position: seconds, [[hh:]mm:]ss[.ms], or N% of the duration.", valueName: "time"))
    var start: String?

    @Option(help: ArgumentHelp("Play at most this long from the start position.", valueName: "time"))
    var length: String?

    @Option(help: ArgumentHelp("Playback speed, 0.25 to 4 (pitch kept).", valueName: "x"))
    var speed: Double = 1

    @Option(help: ArgumentHelp("Audio track: its number (1 = first audio track), auto, or no.", valueName: "n|auto|no"))
    var aid: String = "auto"

    @Option(help: ArgumentHelp("Subtitle track: its number (1 = first subtitle track), auto, or no.", valueName: "n|auto|no"))
    var sid: String = "auto"

    @Option(help: ArgumentHelp("Video: auto, or no to decode no video at all and show the music view (cover art, tags, spectrum) instead.", valueName: "auto|no"))
    var vid: String = "auto"

    @Option(name: .customLong("sub-file"), help: ArgumentHelp("Load a subtitle file as an extra track (repeatable).", valueName: "path"))
    var subFiles: [String] = []

    @Option(name: .customLong("sub-codepage"), help: ArgumentHelp("Code page of subtitle files that are not UTF-8 (default CP1252).", valueName: "codepage"))
    var subCodepage: String = "CP1252"

    @Option(help: ArgumentHelp("Volume in percent, 0 to 130.", valueName: "percent"))
    var volume: Double = 100

    @Flag(help: "Start muted.")
    var mute = false

    @Flag(help: "Start paused (the first frame is shown).")
    var pause = false

    @Option(name: .customLong("http-header-fields"), help: ArgumentHelp("Extra HTTP headers for network sources, comma-separated 'Field: value' pairs (a comma not followed by a new 'Field:' stays in the value).", valueName: "fields"))
    var httpHeaderFields: String?

    @Option(help: ArgumentHelp("Colour theme: a name (default, light, solarized-dark, high-contrast, mono, or one in $XDG_CONFIG_HOME/aether-tui/themes) or a path to a .theme file.", valueName: "name|path"))
    var theme: String?

    @Option(name: .customLong("vo-sixel-colors"), help: ArgumentHelp("Sixel palette size, 2 to 256 (default: the terminal's colour registers).", valueName: "n"))
    var sixelColors: Int?

    @Option(name: .customLong("vo-sixel-dither"), help: ArgumentHelp("Sixel dithering: none (fewest bytes), ordered, or fs (Floyd–Steinberg).", valueName: "none|ordered|fs"))
    var sixelDither: String = "none"

    @Option(name: .customLong("vo-governor"), help: ArgumentHelp("Step picture quality down when the terminal cannot keep up (sixel colours, picture scale, every 2nd frame, half-block) and back up when it can: yes, or no to pin the settings.", valueName: "yes|no"))
    var voGovernor: String = "yes"

    @Option(name: .customLong("vd-lavc-skiploopfilter"), help: ArgumentHelp("H.264/HEVC frames decoded without the loop filter: none, default, nonref, bidir, nonkey or all (default: bidir when the picture is 4× or more smaller than the source, else none).", valueName: "level"))
    var skipLoopFilter: String?

    @Option(name: .customLong("vo-halfblock-colors"), help: ArgumentHelp("Half-block colours: truecolor or 256 (default: what the terminal supports).", valueName: "truecolor|256"))
    var halfBlockColors: String?

    @Option(name: .customLong("stats-file"), help: ArgumentHelp("Write telemetry as JSON lines at 1 Hz, plus a final summary line.", valueName: "path"))
    var statsFile: String?

    @Option(name: .customLong("screenshot-directory"), help: ArgumentHelp("Where s and S save screenshots (default: $XDG_PICTURES_DIR, else the current directory).", valueName: "path"))
    var screenshotDirectory: String?

    func validate() throws {
        guard VideoDrivers.names.contains(vo) else {
            throw ValidationError("--vo must be one of: \(VideoDrivers.names.joined(separator: ", "))")
        }
        guard ["alsa", "null"].contains(ao) else { throw ValidationError("--ao must be alsa or null") }
        guard (0.25...4).contains(speed) else { throw ValidationError("--speed must be between 0.25 and 4") }
        guard (0...130).contains(volume) else { throw ValidationError("--volume must be between 0 and 130") }
        if let n = sixelColors, !(2...256).contains(n) { throw ValidationError("--vo-sixel-colors must be between 2 and 256") }
        if let s = skipLoopFilter, LoopFilterSkip(rawValue: s) == nil {
            throw ValidationError("--vd-lavc-skiploopfilter must be one of: \(LoopFilterSkip.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ["yes", "no"].contains(voGovernor) else { throw ValidationError("--vo-governor must be yes or no") }
        guard ["none", "ordered", "fs"].contains(sixelDither) else { throw ValidationError("--vo-sixel-dither must be none, ordered or fs") }
        if let h = halfBlockColors, !["truecolor", "256"].contains(h) { throw ValidationError("--vo-halfblock-colors must be truecolor or 256") }
        if let start, TimeArgument(start) == nil { throw ValidationError("--start: cannot parse '\(start)' as a time") }
        if let length, TimeArgument(length) == nil { throw ValidationError("--length: cannot parse '\(length)' as a time") }
        guard trackChoice(aid) != nil else { throw ValidationError("--aid must be a track number, auto or no") }
        guard trackChoice(sid) != nil else { throw ValidationError("--sid must be a track number, auto or no") }
        guard ["auto", "no"].contains(vid) else { throw ValidationError("--vid must be auto or no") }
    }

    /// nil = invalid; .some(nil) = auto; .some(-1) = no; .some(k) = 0-based track.
    func trackChoice(_ value: String) -> Int?? {
        switch value {
        case "auto": return .some(nil)
        case "no": return .some(-1)
        default:
            guard let n = Int(value), n >= 1 else { return nil }
            return .some(n - 1)
        }
    }

    /// Engine options. Only a percentage in `--start`/`--length` needs the duration, so only then
    /// is the source probed before the player opens it.
    func resolvedPlayerOptions() throws -> PlayerOptions {
        let usesPercent = [start, length].contains { text in
            if case .percent = text.flatMap(TimeArgument.init) { return true }
            return false
        }
        guard usesPercent else { return playerOptions(duration: nil) }
        do {
            return playerOptions(duration: try MediaProbe.probe(url: source).duration)
        } catch {
            throw fail("cannot open '\(source)': \(error.message)")
        }
    }

    /// Engine options; `duration` resolves percentages.
    func playerOptions(duration: Double?) -> PlayerOptions {
        var o = PlayerOptions()
        o.start = start.flatMap(TimeArgument.init)?.resolve(duration: duration) ?? 0
        o.length = length.flatMap(TimeArgument.init)?.resolve(duration: duration)
        o.speed = speed
        o.volume = volume
        o.skipLoopFilter = skipLoopFilter.flatMap(LoopFilterSkip.init(rawValue:))
        o.muted = mute
        o.audioOutput = ao == "null" ? .null : .alsa(device: audioDevice)
        switch trackChoice(aid) {
        case .some(.some(-1)): o.audioEnabled = false
        case .some(.some(let k)): o.audioTrack = k
        default: break
        }
        switch trackChoice(sid) {
        case .some(.some(-1)): o.subtitlesEnabled = false
        case .some(.some(let k)): o.subtitleTrack = k
        default: break
        }
        o.subtitleFiles = subFiles
        o.videoEnabled = vid != "no"
        if let fields = httpHeaderFields {
            // Checked (CR/LF, token names) when the source is opened.
            for field in SourceOptions.splitFields(fields) { o.httpHeaders[field.name] = field.value }
        }
        o.subtitleCodepage = subCodepage
        return o
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a file or URL (the default command).")

    @OptionGroup var playback: PlaybackOptions
    @OptionGroup var common: CommonOptions

    func run() throws {
        try common.configureLogging()
        ALSASink.silenceLibraryErrors()
        if playback.vo == "null" {
            let code = try HeadlessPlayback(options: playback).run()
            if code != 0 { throw ExitCode(code) }
            return
        }
        guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1 else {
            throw fail("standard input and output must be a terminal (use --vo=null to play without one)")
        }
        let playerOptions = try playback.resolvedPlayerOptions()
        let env = ProcessInfo.processInfo.environment
        var theme: Theme
        do {
            theme = try ThemeLoader.load(playback.theme ?? "default", environment: env,
                                         executablePath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        } catch {
            throw fail("\(error)")
        }
        // NO_COLOR (no-color.org) drops the chrome's colours; an explicit --theme overrides it.
        // The picture is never affected.
        if playback.theme == nil, ThemeLoader.noColorRequested(environment: env) { theme = theme.withoutColor() }
        var options = TUIOptions(
            source: playback.source, player: playerOptions,
            videoOutput: playback.vo,
            drivers: VideoDrivers.Options(sixelColors: playback.sixelColors,
                                          sixelDither: SixelDither(option: playback.sixelDither) ?? .none,
                                          halfBlockColors: playback.halfBlockColors.flatMap(VideoDrivers.halfBlockColors(option:))),
            theme: theme, startPaused: playback.pause)
        options.statsFile = playback.statsFile
        options.screenshotDirectory = playback.screenshotDirectory
        options.governor = playback.voGovernor == "yes"
        let code = TUIApp(options: options).run()
        if code != 0 { throw ExitCode(code) }
    }
}
