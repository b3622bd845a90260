import AetherControl
import AetherEngine
import AetherInput
import AetherScreen
import CNcurses
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
    let player = Player()
    /// Carries out every command (keys, mouse, IPC, MPRIS) and walks the playlist.
    let controller: PlayerController
    /// The JSON IPC socket and MPRIS.
    let services: RemoteServices
    /// The screen is up (items loaded before it only get wired to it when it comes up).
    var screenUp = false
    /// When free heap pages were last handed back, and how often.
    var lastTrim = 0.0
    static let trimInterval = 5.0
    /// The capability probe of start-up (it owns the terminal until it finishes).
    var probeThread: BackgroundResult<CapabilityProbe.Report>?
    /// Reads the quit keys while the loop is blocked opening an item.
    var openWatch: OpenWatch?
    var summaryWritten = false   // the current item's stats summary is written
    let terminal: Terminal
    /// The picture's output: made with the host, drawing once the screen is up.
    let output: VideoOutput
    /// What the terminal can do (probed, then updated on resizes), guarded: the render thread reads it too.
    var capabilities: TerminalCapabilities {
        get { sharedCapabilities.withLock { $0 } }
        set { sharedCapabilities.withLock { $0 = newValue } }
    }
    let sharedCapabilities = Guarded(TerminalCapabilities())
    /// The active video driver (used here only for its placement; it draws on the render thread).
    var driver: any VideoDriver = NullDriver()
    var autoOutput: AutoOutput?   // `--vo=auto`'s figures and choice (``OutputSetup``)
    /// The theme's colours as the terminal shows them, and where the picture and the chrome go
    /// (no colours and a 1×1 screen until the screen is up).
    var palette: Palette
    var layout = Layout(columns: 1, rows: 1, cellSize: nil, displayAspect: 16.0 / 9, driver: nil, showTelemetry: false)
    /// The UI's model, and what was last drawn from it.
    var view = ViewState()
    var screen = ScreenState()
    /// Drops terminal replies that arrive after the probe (they are not keys).
    var replyFilter = ReplyFilter()
    /// Text cues wrapped once per cue and width (UI thread only).
    var subtitleWraps = SubtitleWrapCache()
    var subtitleCells = SubtitleCellCache()
    let quit = QuitSignals()
    /// Wakes the loop: input aside, everything that changes the screen signals it.
    let wake = WakeUp()
    /// Ctrl-Z and friends (made when the screen comes up).
    var jobs: JobSignals?
    /// Suspended by job control: whether playback was going (nil: not suspended).
    var suspendedPlaying: Bool?
    /// The telemetry shown, sampled once a second.
    var telemetry = TelemetrySampler()
    var stats: StatsFile?
    var wallStart = 0.0
    /// Scrub previews (made on first use).
    var previews: PreviewFetcher?
    /// The music view (cover, tags, spectrum), shown while no video stream plays.
    var music: MusicView?
    /// Messages from screenshots taken in the background.
    let screenshotResults = MessageBox()

    /// What the loop decides by: when to wake, when the chrome hides and a message ends, the
    /// encode timing and the governor of the video output (``TimeSource/monotonic``).
    let clock: TimeSource

    public init(options: TUIOptions, clock: TimeSource = .monotonic) {
        self.options = options
        self.clock = clock
        palette = Palette(theme: options.theme, colors: 0)
        terminal = Terminal(time: clock)
        controller = PlayerController(player: player, playlist: options.playlist, settings: options.controller, clock: clock)
        services = RemoteServices(hub: controller.hub, clock: clock)
        output = VideoOutput(terminal: terminal, player: player, governed: options.governor, subtitleStyle: options.subtitleStyle,
                             clock: clock, makeStillDriver: { [sharedCapabilities, drivers = options.drivers] name, instance in
                                 var options = drivers
                                 options.instance = instance
                                 return VideoDrivers.entry(named: name)?.make(sharedCapabilities.withLock { $0 }, options)
                             })
        controller.setSubtitleDelaySetting(options.subtitleDelay)
        controller.host = self
    }

    /// The item playing (its path or URL).
    var currentSource: String { controller.playlist.current?.source ?? options.source }

    /// Runs until quit or end of file; the terminal is restored on every path.
    public func run() -> Int32 {
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
        let (budget, clock) = (options.probeBudget, clock)
        let probe = BackgroundResult(name: "aether.probe") {
            CapabilityProbe.probe(input: STDIN_FILENO, output: STDOUT_FILENO,
                                  environment: TerminalEnvironment(env), budget: budget, time: clock)
        }
        probeThread = probe
        // The terminfo entry ncurses will read, without erase and scroll capabilities
        // (TextOnlyTerminfo), made while the media opens.
        let terminfo = BackgroundResult(name: "aether.terminfo") { TextOnlyTerminfo.prepare(term: env["TERM"] ?? "") }
        defer { if let directory = terminfo.wait() { TextOnlyTerminfo.remove(directory) } }
        let started = controller.start(paused: true)
        endOpenWatch()
        guard started else {
            _ = probe.wait()   // the terminal is back in its own modes before the error line
            if quit.isRaised { return ExitStatus.interrupted.rawValue }
            for line in controller.reportedErrors() { StandardStream.error("aether-tui: \(TextSanitizer.clean(line))\n") }
            return controller.exitCode()
        }
        AppLog.write("tui", "media open")
        let report = probe.wait()
        AppLog.write("tui", "terminal probed in \(Int(report.capabilities.probeMilliseconds)) ms (answered: \(report.capabilities.answered), version: \(report.capabilities.terminalVersion ?? "-"))")
        let setup = OutputSetup.choose(report: report, options: options, video: player.mediaInfo?.primaryVideo,
                                       showTelemetry: view.showTelemetry, environment: env, clock: clock)
        (capabilities, driver, autoOutput) = (setup.capabilities, setup.driver, setup.autoOutput)

        if let path = options.statsFile {
            do { stats = try StatsFile(path: path) } catch { StandardStream.error("aether-tui: \(error)\n"); return ExitStatus.failed.rawValue }
        }

        // 3. Take the screen, with restoration armed for every way out.
        do { try startScreen(terminfoDirectory: terminfo.wait()) } catch {
            player.stop()
            StandardStream.error("aether-tui: \(error)\n")
            return ExitStatus.failed.rawValue
        }
        defer { stopScreen() }
        returnKeys(setup.typed)   // typed before those the screen's start returned: read first
        jobs = JobSignals(wake: { [wake] in wake.signal() })
        defer { jobs?.cancel() }
        // What wakes the loop besides the keyboard: the engine's state, remote commands, the
        // governor, background results, signals.
        quit.onRaise { [wake] in wake.signal() }
        player.changes.set { [wake] in wake.signal() }
        defer { player.changes.set(nil) }
        controller.hub.onRequest { [wake] in wake.signal() }
        screenshotResults.wakes(wake)
        output.onGovernorChange = { [wake] in wake.signal() }

        // 4. Wire the engine to the screen and play; the remote front ends start.
        output.start(driver: driver, synchronizedUpdate: capabilities.synchronizedOutput)
        screenUp = true
        armTmuxRepaints(now: clock.seconds)
        if let tab = options.inspectorTab { openInspectorAtStart(tab: tab) }
        attachItem()
        AppLog.write("tui", "screen up, video output \(driver.name)" + (driver.logDetail.map { " (\($0))" } ?? ""))
        for warning in controller.start(services, options.remote) { osd("⚠ " + warning, seconds: 5) }
        showStartupWarnings()
        defer { services.stop() }
        if options.startPaused { player.redisplay() } else { player.play() }
        view.noteInput(at: clock.seconds)
        let code = loop()
        writeSummary(interrupted: code == ExitStatus.interrupted.rawValue)
        controller.finish(interrupted: code == ExitStatus.interrupted.rawValue)
        return code
    }

    /// Wires the loaded item to the screen: frames to the output, the layout for its picture.
    func attachItem() {
        wallStart = clock.seconds
        view.liveBaseline = nil
        summaryWritten = false
        player.setFrameSink(output)
        relayout()
    }

    /// One stats summary per item.
    func writeSummary(interrupted: Bool) {
        guard let stats, !summaryWritten, player.mediaInfo != nil else { return }
        summaryWritten = true
        var summary = PlaybackSummary(player: player, startPosition: controller.itemStartPosition,
                                      wallSeconds: clock.seconds - wallStart, interrupted: interrupted)
        summary.renderer = driver.name
        summary.output = outputDescription
        summary.framesPainted = output.currentTotals.framesPainted
        if checksTmuxDelivery { summary.picturesLostInTmux = screen.tmuxDelivery.lost }
        summary.terminalBytes = terminal.statistics.bytesWritten
        summary.source = TextSanitizer.clean(currentSource)
        summary.playlistPosition = controller.playlist.position
        stats.writeSummary(summary, player: player)
    }

    private func loop() -> Int32 {
        while true {
            if quit.isRaised { return ExitStatus.interrupted.rawValue }
            // Remote commands, the playlist's next item, the published state.
            if case .finished(let code) = controller.tick() { return code }
            endOpenWatch()
            if handleJobControl() {
                // The shell has the terminal (continued with `bg`): wait for `fg` (its SIGCONT
                // wakes us); the terminal is not read meanwhile.
                waitForEvents(timeout: 1, readTerminal: false)
                continue
            }
            let readSomething = readInput()
            pollPreview()
            pollFilmstrip()
            pollScreenshots()
            pollInspector()
            checkTerminalSize()
            repaintThroughTmux(now: clock.seconds)
            applyGovernor()
            showNewWarnings()
            let now = clock.seconds
            if now - lastTrim >= TUIApp.trimInterval {
                // Scrub previews, filmstrips, screenshots and resizes free memory in bursts:
                // give it back (see MemoryPolicy).
                MemoryPolicy.trim()
                let took = clock.seconds - now
                if took > 0.005 { AppLog.write("tui", String(cFormat: "malloc_trim took %.1f ms", took * 1000)) }
                lastTrim = now
            }
            if now >= telemetry.nextDue {
                let sample = telemetry.sample(player.telemetry(advance: true), output: output.currentTotals,
                                              terminalBytes: terminal.statistics.bytesWritten, now: now)
                stats?.record(sample, player: player)
                view.inspector?.live.record(sample)
                screen.dirty = true
            }
            draw()
            // Input acted on may have queued work for the controller (a quit, a playlist step):
            // the next pass runs it before waiting.
            waitForEvents(timeout: view.pendingInput || readSomething ? 0 : nextDue(now: clock.seconds))
        }
    }

    /// Waits until the terminal has input, something signals ``wake``, or `timeout` seconds
    /// pass (the next thing due on screen, ``nextDue(now:)``).
    func waitForEvents(timeout: Double, readTerminal: Bool = true) {
        var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        if readTerminal { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = Int32(max(0, min(timeout, 60)) * 1000)
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        wake.drain()
    }

    /// Seconds until something on screen is due without an event: the telemetry sample (1 s),
    /// the message expiring, the chrome hiding, the clock text's next quarter second and the
    /// next subtitle change of the media time while playing, the music view's next frame, the
    /// controller's next step (an image's time up).
    func nextDue(now: Double) -> Double {
        var due = min(telemetry.nextDue, lastTrim + TUIApp.trimInterval, tmuxDue) - now
        if player.state == .playing {
            let rate = max(0.01, player.rate)
            let quarters = player.currentTime * 4
            due = min(due, (quarters.rounded(.down) + 1 - quarters) / 4 / rate)
            if controller.subtitlesVisible, let next = player.nextSubtitleChange {
                due = min(due, (next - player.currentTime) / rate)
            }
            if music != nil { due = min(due, 1 / MusicView.rate) }
        }
        let hiding = player.state == .playing && screen.chromeVisible && !view.chromePinned && view.menu == nil
        if let next = view.nextHideOrExpiry(now: now, hiding: hiding) { due = min(due, next) }
        // Network trouble (`reconnecting (2)`) counts up without a state change.
        if networkText() != nil { due = min(due, 0.25) }
        // An image's time is up (the playlist moves on).
        if let next = controller.nextDue { due = min(due, next) }
        return max(0.001, due)
    }

    /// What was wrong in aether-tui.conf, input.conf or the playlist shows on the message line
    /// once the screen is up, one after another, 4 s each (a few at most: all of them are on
    /// stderr, read after quitting).
    private func showStartupWarnings() {
        var lines = options.startupWarnings.map { "⚠ " + $0 }
        guard !lines.isEmpty else { return }
        let shown = 4
        if lines.count > shown {
            let more = lines.count - (shown - 1)
            lines = Array(lines.prefix(shown - 1)) + ["⚠ \(more) more warnings: listed on stderr after quitting"]
        }
        if view.osdMessage == nil {
            osd(lines.removeFirst(), seconds: 4)
        }
        view.queuedMessages += lines.map { TextSanitizer.clean($0) }
    }

    /// Engine warnings that arrived since the last look (a stream found undecodable mid-way)
    /// show on the OSD as they come.
    private func showNewWarnings() {
        let count = player.warnings.count
        guard count > view.warningsShown else { return }
        if let last = player.warnings.last { osd("⚠ " + last, seconds: 5) }
        view.warningsShown = count
    }

    // MARK: layout

    /// SIGWINCH reaches ncurses only if its handler runs on a thread that then calls get_wch;
    /// asking the kernel on each pass of the loop (one ioctl; SIGWINCH wakes the loop) makes
    /// resizes certain. `relayoutAnyway`: lay out and repaint even at the same size (after a
    /// suspend). The pixels too: a font change or tmux learning its terminal's is a new cell size.
    func checkTerminalSize(relayoutAnyway: Bool = false) {
        var ws = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else {
            if relayoutAnyway { relayout() }
            return
        }
        let cellsChanged = Int(ws.ws_col) != layout.columns || Int(ws.ws_row) != layout.rows
        let cellSizeChanged = sharedCapabilities.withLock {
            $0.updateWindow(columns: Int(ws.ws_col), rows: Int(ws.ws_row), pixelWidth: Int(ws.ws_xpixel), pixelHeight: Int(ws.ws_ypixel))
        }
        if cellSizeChanged { AppLog.write("tui", "cell size now \(capabilities.cellSize?.description ?? "-")") }
        // Through tmux the window may be another terminal's now: its sixel limits, again (``takeReply(_:)``).
        if cellsChanged || cellSizeChanged, capabilities.tmuxPassthrough {
            terminal.withScreen { terminal.emitInScreen(CapabilityProbe.outerSixelLimitsQuery) }
        }
        if cellsChanged {
            terminal.withScreen { _ = resizeterm(Int32(ws.ws_row), Int32(ws.ws_col)) }
            refreshTmuxPane()
            relayout()
        } else if cellSizeChanged || relayoutAnyway {
            relayout()
        }
    }

    /// The terminal's answer to ``CapabilityProbe/outerSixelLimitsQuery``: new limits are a new
    /// layout (the picture capped to them), new colour registers a sixel driver made for them.
    func takeReply(_ bytes: [UInt8]) {
        if takeAttributesReply(bytes) { return }
        let registers = capabilities.sixelColorRegisters
        guard sharedCapabilities.withLock({ $0.takeSixelLimits(from: bytes) }) else { return }
        let caps = capabilities
        AppLog.write("tui", "sixel limits now \(caps.sixelMaxGeometry?.description ?? "-"), \(caps.sixelColorRegisters.map(String.init) ?? "-") colours")
        if caps.sixelColorRegisters != registers, let entry = VideoDrivers.entry(named: driver.name), entry.madeForColourRegisters {
            driver = entry.make(caps, options.drivers)
            terminal.withScreen { output.setDriver(driver) }
        }
        relayout()
    }

    /// Inside tmux with passthrough, pictures are placed from the pane's origin on the outer
    /// terminal, and a resize may have moved the pane (a split, a closed neighbour): ask tmux
    /// again (a few milliseconds) and, if the pane moved, draw with a driver made for where it is.
    func refreshTmuxPane() {
        guard capabilities.tmuxPassthrough else { return }
        let environment = TerminalEnvironment(ProcessInfo.processInfo.environment)
        guard let pane = TmuxQuery(environment: environment).finish(timeout: .milliseconds(100)),
              pane != capabilities.tmuxPane else { return }
        capabilities.tmuxPane = pane
        guard let entry = VideoDrivers.entry(named: driver.name) else { return }
        driver = entry.make(capabilities, options.drivers)
        view.pictureScale = 1
        terminal.withScreen { output.setDriver(driver) }
    }

    func relayout() {
        let info = player.mediaInfo
        // The picture as it is shown: upright (a phone's portrait video stands up), at the size
        // the playing variant has.
        let aspect = (player.playingVideo ?? info?.primaryVideo)?.uprightAspect ?? 16.0 / 9
        let (cols, rows) = terminal.withScreen { (Curses.columns, Curses.rows) }
        layout = Layout(columns: cols, rows: rows, cellSize: capabilities.cellSize,
                        displayAspect: aspect, driver: player.hasVideo ? driver : nil,
                        showTelemetry: view.showTelemetry, maxPicture: capabilities.effectiveSixelMaxGeometry,
                        scale: view.pictureScale)
        layoutMusicView()
        if layout.placement.isEmpty {
            player.setRenderSize(nil)
        } else {
            player.setRenderSize(layout.renderSize, eightBitStaging: driver.showsEveryPixelsColour ? .rgb : Scaler.standardEightBit)
        }
        terminal.withScreen {
            screen.compositor.clear()
            // Keep the old overlay rectangles masked until the next draw recomputes them, so no
            // frame paints where ncurses is about to draw an overlay.
            updateOutputScene()
        }
        screen.screenCleared = true
        player.redisplay()
        screen.dirty = true
    }

    /// Draws with `entry`'s driver from now on (the `d` key, the governor's last resort).
    func switchDriver(to entry: VideoDrivers.Entry, options drivers: VideoDrivers.Options? = nil) {
        driver = entry.make(capabilities, drivers ?? options.drivers)
        view.pictureScale = 1
        // The old output's picture is erased before anything is drawn for the new one.
        terminal.withScreen { output.setDriver(driver) }
        relayout()
        osd("video output: \(driver.name)")
    }

    /// The video output as the stats box shows it.
    var outputDescription: String {
        let governed = output.governorDescription
        return governed.isEmpty ? driver.name : governed
    }

    /// The governor stepped: a new picture scale is a relayout; its last resort is another
    /// output: under `--vo=auto` the best other one by the figures with the live one in
    /// (``AutoOutput/givenUp(live:pixels:sourceFPS:)``), else half-block.
    func applyGovernor() {
        guard let (change, figure) = output.takeGovernorChange() else { return }
        if change.fallback, driver.name != VideoDrivers.fallback.name {
            if let auto = autoOutput, auto.candidate.driver == driver.name, let figure,
               let next = auto.givenUp(live: figure.milliseconds, pixels: figure.pixels, sourceFPS: player.playingVideo?.frameRate ?? 24),
               let entry = VideoDrivers.entry(named: next.candidate.driver) {
                autoOutput = next
                AppLog.write("tui", "--vo=auto: \(auto.candidate.label) given up at \(Int(figure.milliseconds)) ms a frame of \(figure.pixels) px: \(next.candidate.label)")
                switchDriver(to: entry, options: next.options(options.drivers))
                osd("terminal too slow for \(auto.candidate.label): \(next.candidate.label)")
                return
            }
            switchDriver(to: VideoDrivers.fallback)
            osd("terminal too slow for \(options.videoOutput.name): half-block")
        } else if change.scale != view.pictureScale {
            view.pictureScale = change.scale
            relayout()
        }
    }

    /// The output's placement and mask for the current layout and overlays. Call inside
    /// `terminal.withScreen`, before ncurses draws the overlays.
    func updateOutputScene() {
        var mask = CellMask(columns: layout.columns, rows: layout.rows)
        for r in screen.overlayRects { mask.cover(r) }
        var stills: [VideoOutput.Still] = []
        if let cover = musicCoverStill(mask: mask) { stills.append(cover) }
        if let preview = view.preview, let scrub = view.scrub,
           let spot = previewPlacement(for: preview, marker: markerColumn(scrub.target)) {
            stills.append(.init(placement: spot.placement, stamp: preview.stamp, picture: preview.picture))
        } else if let strip = view.filmstrip {
            stills = filmstripStills(strip)
        }
        if let still = inspectorStill() { stills.append(still) }
        output.configure(.init(placement: layout.placement, mask: mask, stills: stills))
    }
}
