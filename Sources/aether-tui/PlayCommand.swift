import AetherControl
import AetherEngine
import AetherTUI
import AetherThemes
import TerminalGraphics
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a file or URL (the default command).")

    @OptionGroup var playback: PlaybackOptions
    @OptionGroup var common: CommonOptions

    func run() throws(CommandFailure) {
        try common.configureLogging()
        ALSASink.silenceLibraryErrors()
        if playback.audioDevice == "help" { return Self.listAudioDevices() }
        if playback.theme == "help" { return Self.listThemes() }
        if playback.equalizer == .help { return StandardStream.write(EqualizerOption.list) }
        try Self.runTUI(playback)
    }

    /// `--theme=help`: the names `--theme` takes, one a line under a heading (the shell
    /// completions read the indented lines).
    static func listThemes() {
        let names = ThemeLoader.available(environment: ProcessInfo.processInfo.environment,
                                          executablePath: ExecutablePath.current ?? CommandLine.arguments[0])
        print("Themes for --theme (or a path to a .theme file):")
        for name in names { print("  " + TextSanitizer.clean(name)) }
    }

    /// `--audio-device=help` (mpv's): the ALSA devices, the first line saying what they are for.
    static func listAudioDevices() {
        let (devices, leftOut) = ALSADevices.list()
        print("ALSA devices for --audio-device (default: default):")
        for d in devices { print("  '\(d.name)'" + (d.description.isEmpty ? "" : " (\(d.description))")) }
        if devices.isEmpty { print("  none (alsa-lib lists no device that plays)") }
        if leftOut > 0 { print("  … and \(leftOut) more") }
    }

    /// The TUI on `playback`'s sources (or headless with `--vo=null`); `adjust` changes the
    /// options first (`inspect` opens the inspector). The player's composition root: the one
    /// clock every decision of the host and the engine reads is made here.
    static func runTUI(_ playback: PlaybackOptions, adjust: (inout TUIOptions) -> Void = { _ in }) throws(CommandFailure) {
        let clock = TimeSource.monotonic
        if playback.vo.isHeadless {
            let end = try HeadlessPlayback(options: playback, clock: clock).run()
            if end.code != 0 { throw .ended(end) }
            return
        }
        // `-` plays standard input; the keys then come from the controlling terminal.
        if playback.sources.contains("-"), isatty(STDIN_FILENO) == 0 {
            let media = dup(STDIN_FILENO)
            let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard media >= 0, tty >= 0 else {
                throw .failed("'-' plays standard input, and the player then needs a terminal on /dev/tty for its keys (use --vo=null to play without one)")
            }
            _ = fcntl(media, F_SETFD, FD_CLOEXEC)
            dup2(tty, STDIN_FILENO)
            close(tty)
            SourceOptions.standardInput.store(media, ordering: .relaxed)
        }
        guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1 else {
            throw .failed("standard input and output must be a terminal (use --vo=null to play without one)")
        }
        let env = ProcessInfo.processInfo.environment
        let setup = try PlaybackSetup(playback, environment: env, clock: clock, warn: { warn($0) })
        let executable = ExecutablePath.current ?? CommandLine.arguments[0]
        // NO_COLOR (no-color.org) drops the chrome's colours; an explicit --theme overrides it.
        // The picture is never affected.
        let noColor = playback.theme == nil && ThemeLoader.noColorRequested(environment: env)
        var theme: Theme
        do {
            theme = try ThemeLoader.load(playback.theme ?? "default", environment: env, executablePath: executable)
        } catch {
            throw .failed(error.description)
        }
        if noColor { theme = theme.withoutColor() }
        // Without --theme, a light background (the terminal's OSC 11 answer) gets the light theme.
        var themeOnLight = playback.theme == nil ? try? ThemeLoader.load("light", environment: env, executablePath: executable) : nil
        if noColor { themeOnLight = themeOnLight?.withoutColor() }

        var options = TUIOptions(
            playlist: setup.playlist, controller: setup.controller,
            output: OutputSettings(choice: playback.vo,
                                   drivers: VideoDrivers.Options(sixelColors: playback.sixelColors,
                                                                 sixelDither: playback.sixelDither,
                                                                 sixelRepaint: playback.sixelRepaint.value,
                                                                 halfBlockColors: playback.halfBlockColors,
                                                                 cellSymbols: playback.voCells.value,
                                                                 cellTolerance: playback.voCellsTolerance)),
            theme: theme, startPaused: playback.pause)
        options.themeOnLight = themeOnLight
        options.output.drivers.kittySharedMemory = playback.kittyUseShm
        options.statsFile = playback.statsFile
        options.screenshotDirectory = playback.screenshotDirectory
        options.title = playback.title
        options.output.governor = playback.voGovernor.isOn
        options.remote = setup.remote
        options.subtitleDelay = playback.subDelay
        // (Checked in `validate()` already: a refusal here would be the same usage error.)
        do { options.subtitleStyle = try PlaybackSetup.subtitleStyle(playback) } catch { throw .usage(error.message) }
        options.bindings = setup.bindings
        options.startupWarnings = ConfigArguments.startupWarnings + setup.warnings
        adjust(&options)
        let end = try TUIApp(options: options, clock: clock).run()
        if end.code != 0 { throw .ended(end) }
    }
}
