import AetherControl
import AetherMedia
import AetherPlayback
import AetherInput
import AetherScreen
import CTerminal
import AetherBase
import FoundationEssentials
import Glibc
import OutputChoice
import TerminalGraphics

/// The ncurses host: reads keys and mouse, lays out the video and chrome, and drives the
/// engine. One UI thread (the caller's); video frames are drawn on the output's render thread
/// (``VideoOutput``); every byte reaches the terminal through ``Terminal``, whose writer
/// thread is the only one that can block on it.
public final class TUIApp {
    let options: TUIOptions
    /// Carries out every command (keys, mouse, IPC, MPRIS) and walks the playlist.
    let controller: PlayerController
    /// The JSON IPC socket and MPRIS.
    let services: RemoteServices
    /// The model, its events and effects, and the painter that draws it.
    let runtime: HostRuntime
    /// When free heap pages were last handed back, and how often.
    var lastTrim = 0.0
    static let trimInterval = 5.0
    let quit = QuitSignals()
    /// Ctrl-Z and friends (made when the screen comes up).
    var jobs: JobControl?
    /// What the loop decides by: when to wake, when the chrome hides and a message ends, the
    /// encode timing and the governor of the video output (``TimeSource/monotonic``).
    let clock: TimeSource

    public init(options: TUIOptions, clock: TimeSource) {
        self.options = options
        self.clock = clock
        let player = Player()
        controller = PlayerController(player: player, playlist: options.playlist, settings: options.controller, clock: clock)
        services = RemoteServices(hub: controller.hub, clock: clock)
        let painter = ScreenPainter(display: Display(player: player, options: options, clock: clock), controller: controller,
                                    options: options, clock: clock)
        runtime = HostRuntime(painter: painter, options: options, clock: clock, wake: WakeUp())
        controller.setSubtitleDelaySetting(options.subtitleDelay)
        controller.host = self
    }

    var player: Player { controller.player }
    var display: Display { runtime.display }
    var wake: WakeUp { runtime.wake }

    /// Runs until quit or end of file; the terminal is restored on every path. Throws what
    /// keeps the screen from coming up (the stats file, an unknown terminal type).
    public func run() throws(CommandFailure) -> RunEnd {
        // 1. Open the media; failures are one line on the terminal as it was. A quit signal
        //    during the open (a stalled network source) cancels it.
        // Every engine thread gets an alternate signal stack: a stack overflow on any of them
        // can still restore the terminal.
        EngineThreads.setStartHook { aether_terminal_install_altstack() }
        quit.onRaise { [interrupter = controller.interrupter] in interrupter.raise() }
        // 2. Ask the terminal what it can do (before ncurses owns it), on its own thread while
        //    the media opens: a terminal that answers slowly (ssh) or not at all (the budget)
        //    costs no start-up time on top of the open.
        let env = ProcessInfo.processInfo.environment
        let (budget, clock) = (options.output.probeBudget, clock)
        let probe = BackgroundResult(name: "aether.probe") {
            CapabilityProbe.probe(input: STDIN_FILENO, output: STDOUT_FILENO,
                                  environment: TerminalEnvironment(env), budget: budget, time: clock)
        }
        // The terminfo entry ncurses will read, without erase and scroll capabilities
        // (TextOnlyTerminfo), made while the media opens.
        let terminfo = BackgroundResult(name: "aether.terminfo") { TextOnlyTerminfo.prepare(term: env["TERM"] ?? "") }
        defer { if let directory = terminfo.wait() { TextOnlyTerminfo.remove(directory) } }
        // The first item opens on its own thread; the loop's wake follows the engine from now
        // (an open that ended wakes it).
        player.changes.set { [wake] in wake.signal() }
        defer { player.changes.set(nil) }
        let started = controller.start(paused: true)
        // A moment for the open: a local file opens within it, and the screen comes up with
        // its picture; a slower one gets the screen now, which names it and takes keys.
        let ended = started ? awaitOpen(until: clock.seconds + Self.openMoment) : .status(controller.status())
        let report = probe.wait()
        guard let end = ended ?? awaitOpen(until: clock.seconds) else { return try takeScreen(probed: report, terminfo: terminfo, environment: env) }
        // The terminal is back in its own modes before the error lines.
        if quit.isRaised { return .status(.interrupted) }
        controller.reportedErrors().forEach(StandardStream.say)
        return end
    }

    /// A moment: how long the host waits for the first item to open before its screen comes up
    /// anyway, and how long an open goes before the transport row names it.
    static let openMoment = 0.5

    /// Ticks the controller until no item opens, a quit signal, or `deadline` on the loop's
    /// clock (one tick at least). The exit status when the walk is over with nothing that
    /// opened; nil otherwise.
    func awaitOpen(until deadline: Double) -> RunEnd? {
        while true {
            if case .finished(let end) = controller.tick() { return end }
            let left = deadline - clock.seconds
            if controller.openingItem == nil || quit.isRaised || left <= 0 { return nil }
            waitForEvents(timeout: left, readTerminal: false)
        }
    }

    /// The screen comes up (the item opened, or is opening) and the loop runs to the end.
    private func takeScreen(probed report: CapabilityProbe.Report, terminfo: BackgroundResult<String?>,
                            environment env: [String: String]) throws(CommandFailure) -> RunEnd {
        AppLog.write("tui", controller.openingItem == nil ? "media open" : "media opening")
        AppLog.write("tui", "terminal probed in \(Int(report.capabilities.probe.milliseconds)) ms (answered: \(report.capabilities.probe.answered), version: \(report.capabilities.terminal.version ?? "-"))")
        // (An item still opening is weighed without its picture: `auto` picks by the terminal alone.)
        let setup = OutputSetup.choose(report: report, options: options, video: player.mediaInfo?.primaryVideo,
                                       showTelemetry: runtime.view.chrome.showTelemetry, environment: env, clock: clock)
        (display.capabilities, display.driver, display.autoOutput) = (setup.capabilities, setup.driver, setup.autoOutput)
        display.theme = options.theme(on: setup.capabilities.background)
        if let background = setup.capabilities.background {
            AppLog.write("tui", "theme \(display.theme.name): the terminal's background is \(background.isLight ? "light" : "dark") (OSC 11)")
        }

        if let path = options.statsFile {
            do { try runtime.recorder.open(statsFile: path) } catch { throw .failed(error.message) }
        }

        // 3. Take the screen, with restoration armed for every way out.
        do { try display.start(terminfoDirectory: terminfo.wait()) } catch {
            player.stop()
            throw .failed(error.description)
        }
        defer { stopScreen() }
        display.returnKeys(setup.typed)   // typed before those the screen's start returned: read first
        jobs = JobControl(wake: { [wake] in wake.signal() })
        defer { jobs?.cancel() }
        // What wakes the loop besides the keyboard: the engine's state, remote commands, the
        // governor, background results, signals.
        quit.onRaise { [wake] in wake.signal() }
        controller.hub.onRequest { [wake] in wake.signal() }
        display.output.onGovernorChange = { [wake] in wake.signal() }

        // 4. Wire the engine to the screen and play; the remote front ends start.
        display.output.start(driver: display.driver, synchronizedUpdate: display.capabilities.synchronizedOutput)
        display.isUp = true
        display.armTmuxRepaints(now: clock.seconds)
        if let start = options.inspector { runtime.openInspectorAtStart(tab: start.tab) }
        attachItem()
        AppLog.write("tui", "screen up, video output \(display.driver.name)" + (display.driver.logDetail.map { " (\($0))" } ?? ""))
        for warning in controller.start(services, options.remote) { runtime.osd("⚠ " + warning, seconds: 5) }
        runtime.send(.startupWarnings(options.startupWarnings, now: clock.seconds))
        defer { services.stop() }
        if controller.openingItem != nil {
            controller.setOpeningPaused(options.startPaused)
        } else if options.startPaused { player.redisplay() } else { player.play() }
        runtime.send(.input(now: clock.seconds))
        let end = loop()
        writeSummary(interrupted: end.interrupted)
        controller.finish(interrupted: end.interrupted)
        return end
    }

    /// The screen goes: the inspector's readers, the frame sink and the thumbnails' FFmpeg
    /// work end, the output stops before the player, and the terminal is given back. What went
    /// wrong but did not stop playback (a stream left out, a sidecar refused) stays readable after.
    func stopScreen() {
        controller.cancelOpen()
        runtime.view.inspector?.close()
        player.setFrameSink(nil)
        runtime.stills.shutdown()
        let warnings = player.warnings
        display.stopOutput()
        player.stop()
        display.stop()
        for warning in warnings { StandardStream.say("warning: \(warning)") }
        controller.reportedErrors().forEach(StandardStream.say)
    }

    /// Wires the loaded item to the screen: frames to the output, the layout for its picture.
    func attachItem() {
        runtime.recorder.itemStarted(at: clock.seconds)
        player.setFrameSink(display.output)
        runtime.relayout()
    }

    /// One stats summary per item.
    func writeSummary(interrupted: Bool) {
        runtime.recorder.writeSummary(player: player, startPosition: controller.itemStartPosition, interrupted: interrupted,
                              now: clock.seconds) { summary in
            summary.terminal.renderer = display.driver.name
            summary.terminal.output = display.outputDescription
            summary.terminal.framesPainted = display.output.currentTotals.framesPainted
            if display.checksTmuxDelivery { summary.terminal.picturesLostInTmux = display.screen.tmuxDelivery.lost }
            summary.terminal.bytes = display.terminal.statistics.bytesWritten
            summary.item.source = TextSanitizer.clean(runtime.currentSource)
            summary.item.playlistPosition = controller.playlist.position
        }
    }

}
