import AetherControl
import AetherEngine
import CNcurses
import CTerminal
import Foundation
import TerminalGraphics

/// The ncurses host: reads keys and mouse, lays out the video and chrome, and drives the
/// engine. One UI thread (the caller's); video frames are drawn on the output's render thread
/// (``VideoOutput``); every byte reaches the terminal through ``Terminal``, whose writer
/// thread is the only one that can block on it.
public final class TUIApp {
    /// Exit codes, as mpv uses them.
    public enum Exit: Int32 { case ok = 0, error = 1, endedEarly = 2, signal = 4 }

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
    /// The current item's stats summary is written.
    var summaryWritten = false
    let terminal = Terminal()
    var output: VideoOutput!
    var capabilities: TerminalCapabilities
    /// The active video driver (used here only for its placement; it draws on the render thread).
    var driver: any VideoDriver = NullDriver()
    var palette: Palette!
    var layout: Layout!
    var view = ViewState()
    /// Drops terminal replies that arrive after the probe (they are not keys).
    var replyFilter = ReplyFilter()
    /// Text cues wrapped once per cue and width (UI thread only).
    var subtitleWraps = SubtitleWrapCache()
    var subtitleCells = SubtitleCellCache()
    let quit = QuitSignals()
    /// Wakes the loop: input aside, everything that changes the screen signals it.
    let wake = WakeUp()
    /// Ctrl-Z and friends (made when the screen comes up).
    var jobs: JobSignals!
    /// Suspended by job control: whether playback was going (nil: not suspended).
    var suspendedPlaying: Bool?
    var telemetryHistory = TelemetryHistory()
    var lastTelemetrySample = 0.0
    var lastTelemetry = TelemetrySnapshot()
    var lastOutputTotals = VideoOutput.Totals()
    var lastDrawnFrameSecond = -1.0
    var stats: StatsFile?
    var wallStart = 0.0
    /// Scrub previews (made on first use).
    var previews: PreviewFetcher?
    /// The music view (cover, tags, spectrum), shown while no video stream plays.
    var music: MusicView?
    /// Messages from screenshots taken in the background.
    let screenshotResults = MessageBox()

    public init(options: TUIOptions) {
        self.options = options
        capabilities = TerminalCapabilities()
        controller = PlayerController(player: player, playlist: options.playlist, settings: options.controller)
        services = RemoteServices(hub: controller.hub)
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
        let budget = options.probeBudget
        let probe = BackgroundResult(name: "aether.probe") {
            CapabilityProbe.probe(input: STDIN_FILENO, output: STDOUT_FILENO,
                                  environment: TerminalEnvironment(env), budget: budget)
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
            if quit.isRaised { return Exit.signal.rawValue }
            for line in controller.reportedErrors() {
                FileHandle.standardError.write(Data("aether-tui: \(TextSanitizer.clean(line))\n".utf8))
            }
            return controller.exitCode()
        }
        FFmpegLog.write("tui", "media open")
        let report = probe.wait()
        capabilities = report.capabilities
        FFmpegLog.write("tui", "terminal probed in \(Int(capabilities.probeMilliseconds)) ms (answered: \(capabilities.answered), version: \(capabilities.terminalVersion ?? "-"))")
        driver = VideoDrivers.make(options.videoOutput, capabilities: capabilities, options: options.drivers) ?? NullDriver()

        if let path = options.statsFile {
            do { stats = try StatsFile(path: path) } catch {
                FileHandle.standardError.write(Data("aether-tui: \(error)\n".utf8))
                return Exit.error.rawValue
            }
        }

        // 3. Take the screen, with restoration armed for every way out.
        output = VideoOutput(terminal: terminal, player: player, driver: driver,
                             synchronizedUpdate: capabilities.synchronizedOutput, governed: options.governor,
                             subtitleStyle: options.subtitleStyle,
                             makeStillDriver: { [capabilities, drivers = options.drivers] name, instance in
                                 var options = drivers
                                 options.instance = instance
                                 return VideoDrivers.entry(named: name)?.make(capabilities, options)
                             })
        do { try startScreen(terminfoDirectory: terminfo.wait()) } catch {
            player.stop()
            FileHandle.standardError.write(Data("aether-tui: \(error)\n".utf8))
            return Exit.error.rawValue
        }
        defer { stopScreen() }
        jobs = JobSignals(wake: { [wake] in wake.signal() })
        defer { jobs.cancel() }
        // What wakes the loop besides the keyboard: the engine's state, remote commands, the
        // governor, background results, signals.
        quit.onRaise { [wake] in wake.signal() }
        player.changes.set { [wake] in wake.signal() }
        defer { player.changes.set(nil) }
        controller.hub.onRequest { [wake] in wake.signal() }
        screenshotResults.wakes(wake)
        output.onGovernorChange = { [wake] in wake.signal() }

        // 4. Wire the engine to the screen and play; the remote front ends start.
        output.start()
        screenUp = true
        attachItem()
        FFmpegLog.write("tui", "screen up, video output \(driver.name)" + (driver.logDetail.map { " (\($0))" } ?? ""))
        for warning in services.start(options.remote) { osd("⚠ " + warning, seconds: 5) }
        showStartupWarnings()
        defer { services.stop() }
        if let tab = options.inspectorTab { openInspector(tab: Inspector.Tab(name: tab) ?? .container, node: options.inspectorNode) }
        if options.startPaused { player.redisplay() } else { player.play() }
        view.lastInput = MonotonicClock.seconds()
        let code = loop()
        writeSummary(interrupted: code == Exit.signal.rawValue)
        controller.finish(interrupted: code == Exit.signal.rawValue)
        return code
    }

    /// Wires the loaded item to the screen: frames to the output, the layout for its picture.
    func attachItem() {
        wallStart = MonotonicClock.seconds()
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
                                      wallSeconds: MonotonicClock.seconds() - wallStart, interrupted: interrupted)
        summary.renderer = driver.name
        summary.output = outputDescription
        summary.framesPainted = output.currentTotals.framesPainted
        summary.terminalBytes = terminal.statistics.bytesWritten
        summary.source = TextSanitizer.clean(currentSource)
        summary.playlistPosition = controller.playlist.position
        stats.write("summary", summary)
    }

    /// A value computed on a thread of its own (named, for logs and backtraces), waited for
    /// when needed: the capability probe, the terminfo entry.
    final class BackgroundResult<Value>: @unchecked Sendable {  // `value` is written before `done` is signalled
        private var value: Value?
        private let done = DispatchSemaphore(value: 0)

        init(name: String, _ body: @escaping @Sendable () -> Value) {
            let t = Thread { [self] in
                value = body()
                done.signal()
            }
            t.name = name
            t.start()
        }

        /// Waits for the value (the probe: at most its budget plus a little).
        func wait() -> Value {
            done.wait()
            done.signal()   // a second wait returns at once
            return value!   // set before `done` is signalled
        }
    }

    private func loop() -> Int32 {
        while true {
            if quit.isRaised { return Exit.signal.rawValue }
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
            applyGovernor()
            showNewWarnings()
            let now = MonotonicClock.seconds()
            if now - lastTrim >= TUIApp.trimInterval {
                // Scrub previews, filmstrips, screenshots and resizes free memory in bursts:
                // give it back (see MemoryPolicy).
                MemoryPolicy.trim()
                let took = MonotonicClock.seconds() - now
                if took > 0.005 { FFmpegLog.write("tui", String(format: "malloc_trim took %.1f ms", took * 1000)) }
                lastTrim = now
            }
            if now - lastTelemetrySample >= 1 {
                lastTelemetry = player.telemetry(advance: true)
                let totals = output.currentTotals
                if totals.framesPainted > lastOutputTotals.framesPainted {
                    let n = Double(totals.framesPainted - lastOutputTotals.framesPainted)
                    lastTelemetry.renderMsPerFrame = (totals.renderSeconds - lastOutputTotals.renderSeconds) * 1000 / n
                    lastTelemetry.writeMsPerFrame = (totals.writeSeconds - lastOutputTotals.writeSeconds) * 1000 / n
                }
                lastOutputTotals = totals
                telemetryHistory.add(lastTelemetry, terminalBytes: terminal.statistics.bytesWritten)
                stats?.record(lastTelemetry, player: player)
                view.inspector?.live.record(lastTelemetry)
                lastTelemetrySample = now
                view.dirty = true
            }
            draw()
            // Input acted on may have queued work for the controller (a quit, a playlist step):
            // the next pass runs it before waiting.
            waitForEvents(timeout: view.pendingInput || readSomething ? 0 : nextDue(now: MonotonicClock.seconds()))
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
    /// next subtitle change of the media time while playing, the music view's next frame.
    func nextDue(now: Double) -> Double {
        var due = min(lastTelemetrySample + 1, lastTrim + TUIApp.trimInterval) - now
        if let osd = view.osdMessage { due = min(due, osd.until - now) }
        if player.state == .playing {
            let rate = max(0.01, player.rate)
            let quarters = player.currentTime * 4
            due = min(due, (quarters.rounded(.down) + 1 - quarters) / 4 / rate)
            if view.chromeVisible, !view.chromePinned, view.menu == nil {
                due = min(due, view.lastInput + ViewState.chromeTimeout - now)
            }
            if controller.subtitlesVisible, let next = player.nextSubtitleChange {
                due = min(due, (next - player.currentTime) / rate)
            }
            if music != nil { due = min(due, 1 / MusicView.rate) }
        }
        // Network trouble (`reconnecting (2)`) counts up without a state change.
        if networkText() != nil { due = min(due, 0.25) }
        return max(0.001, due)
    }

    // MARK: screen lifecycle

    /// What every way out writes (normal quit, signals, a crash, Ctrl-Z): CAN and ST first (a
    /// crash can come in the middle of a sixel image, a DCS string, or an escape sequence, which
    /// would otherwise swallow the rest), mouse reports off (press, drag, any motion, SGR), SGR
    /// reset, synchronized output off, the cursor on, the main screen.
    static let restoreSequence = "\u{18}\u{1B}\\\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l\u{1B}[0m\u{1B}[?2026l\u{1B}[?25h\u{1B}[?1049l"

    private func startScreen(terminfoDirectory: String?) throws(Terminal.StartError) {
        try terminal.start(restoreSequence: Self.restoreSequence, terminfoDirectory: terminfoDirectory)
        terminal.withScreen {
            armScreenModes()
            // ncurses believes the cells under the video are blank: insert/delete-character
            // would shift video cells into an overlay (seen as picture cells inside the stats box
            // in tmux). Rows are always rewritten in place.
            idcok(aether_stdscr(), false)
            idlok(aether_stdscr(), false)
            set_escdelay(25)
            nodelay(aether_stdscr(), true)
            curs_set(0)
            // Shift+arrows as tmux and xterm send them, whatever the terminfo says.
            define_key("\u{1B}[1;2D", KEY_SLEFT)
            define_key("\u{1B}[1;2C", KEY_SRIGHT)
            // Home/End in every common encoding, whatever terminfo says (tmux sends CSI 1~/4~
            // under TERM=xterm-256color, rxvt CSI 7~/8~, xterm CSI H/F or SS3 H/F).
            for seq in ["\u{1B}[H", "\u{1B}OH", "\u{1B}[1~", "\u{1B}[7~"] { define_key(seq, KEY_HOME) }
            for seq in ["\u{1B}[F", "\u{1B}OF", "\u{1B}[4~", "\u{1B}[8~"] { define_key(seq, KEY_END) }
            // Ctrl++ and Ctrl+- (audio delay) as xterm's modifyOtherKeys and kitty report them.
            for seq in ["\u{1B}[27;5;43~", "\u{1B}[43;5u"] { define_key(seq, TUIApp.ctrlPlusCode) }
            for seq in ["\u{1B}[27;5;45~", "\u{1B}[45;5u"] { define_key(seq, TUIApp.ctrlMinusCode) }
            if has_colors() {
                start_color()
                use_default_colors()
            }
            palette = Palette(theme: options.theme, colors: has_colors() ? Int(aether_COLORS()) : 0)
            erase()
            refresh()
        }
    }

    /// Keypad and mouse reporting (at start, and again after a suspend). Inside `withScreen`.
    ///
    /// ncurses would enable only press and release (mode 1000) for xterm's terminfo, so it is
    /// taught no mouse at all (its `kmous` key is undefined: reports reach ``ReplyFilter`` as
    /// characters, which decodes them); the player turns on any-motion reports in SGR encoding
    /// itself (``MouseReport/enableSequence``) where the terminfo entry has a mouse (`kmous`).
    /// The restore sequence turns them off on every way out.
    func armScreenModes() {
        keypad(aether_stdscr(), true)
        let hasMouse = aether_terminfo_has_mouse() != 0
        define_key(nil, KEY_MOUSE)
        if hasMouse { terminal.emitInScreen(Array(MouseReport.enableSequence.utf8)) }
    }

    private func stopScreen() {
        view.inspector?.close()
        player.setFrameSink(nil)
        if let previews {
            // The extractor's FFmpeg work ends before the process does.
            let done = DispatchSemaphore(value: 0)
            Task.detached { await previews.shutdown(); done.signal() }
            _ = done.wait(timeout: .now() + 2)
        }
        let warnings = player.warnings
        output.stop()
        player.stop()
        // Pictures that outlive the screen (kitty's) are taken down; a stalled terminal is
        // given half a second to take what is pending, then abandoned (quitting takes under a
        // second however long the terminal stays stalled).
        let teardown = ByteBuffer(capacity: 256)
        driver.teardown(into: teardown)
        if !teardown.isEmpty { terminal.write(teardown.bytes) }
        terminal.stop(abandonAfter: 0.5)
        // What went wrong but did not stop playback (a stream left out, a sidecar refused)
        // stays readable after the screen is gone.
        for warning in warnings {
            FileHandle.standardError.write(Data("aether-tui: warning: \(TextSanitizer.clean(warning))\n".utf8))
        }
        for line in controller.reportedErrors() {
            FileHandle.standardError.write(Data("aether-tui: \(TextSanitizer.clean(line))\n".utf8))
        }
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
        view.queuedMessages += lines
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
    /// suspend).
    func checkTerminalSize(relayoutAnyway: Bool = false) {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0,
           Int(ws.ws_col) != layout.columns || Int(ws.ws_row) != layout.rows {
            terminal.withScreen { _ = resizeterm(Int32(ws.ws_row), Int32(ws.ws_col)) }
            refreshTmuxPane()
            relayout()
        } else if relayoutAnyway {
            relayout()
        }
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
        let aspect = info?.primaryVideo?.displayAspect ?? 16.0 / 9
        let (cols, rows) = terminal.withScreen { (Curses.columns, Curses.rows) }
        layout = Layout(columns: cols, rows: rows, cellSize: capabilities.cellSize ?? CellSize(width: 8, height: 16),
                        displayAspect: aspect, driver: player.hasVideo ? driver : nil,
                        showTelemetry: view.showTelemetry, maxPicture: capabilities.effectiveSixelMaxGeometry,
                        scale: view.pictureScale)
        layoutMusicView()
        if layout.placement.isEmpty {
            player.setRenderSize(nil)
        } else {
            player.setRenderSize(layout.renderSize)
        }
        terminal.withScreen {
            erase()
            clearok(aether_stdscr(), true)
            // Keep the old overlay rectangles masked until the next draw recomputes them, so no
            // frame paints where ncurses is about to draw an overlay.
            updateOutputScene()
        }
        view.screenCleared = true
        player.redisplay()
        view.dirty = true
    }

    /// Draws with `entry`'s driver from now on (the `d` key, the governor's last resort).
    func switchDriver(to entry: VideoDrivers.Entry) {
        driver = entry.make(capabilities, options.drivers)
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

    /// The governor stepped: a new picture scale is a relayout; its last resort is half-block.
    func applyGovernor() {
        guard let change = output.takeGovernorChange() else { return }
        if change.fallback, driver.name != VideoDrivers.fallback.name {
            switchDriver(to: VideoDrivers.fallback)
            osd("terminal too slow for \(TextSanitizer.clean(options.videoOutput)): half-block")
        } else if change.scale != view.pictureScale {
            view.pictureScale = change.scale
            relayout()
        }
    }

    /// The output's placement and mask for the current layout and overlays. Call inside
    /// `terminal.withScreen`, before ncurses draws the overlays.
    func updateOutputScene() {
        var mask = CellMask(columns: layout.columns, rows: layout.rows)
        for r in view.overlayRects { mask.cover(r) }
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

/// UI state the key handlers change and the drawing reads.
struct ViewState {
    var dirty = true
    var warningsShown = 0
    var showStats = false
    var showHelp = false
    var showTelemetry = false
    var showRemaining = false
    var chromePinned = false
    var chromeVisible = true
    var lastInput = 0.0
    /// Live: the smallest latency behind the edge seen since the item began (where playback
    /// joined the stream, a few segments back); the bar says how far behind only beyond it.
    var liveBaseline: Double?
    var menu: TrackMenu?
    var osdMessage: (text: String, until: Double)?
    /// Messages waiting for the message line (start-up warnings), shown in turn.
    var queuedMessages: [String] = []
    var overlayRects: [CellRect] = []
    /// The governor's picture scale (1: the whole area).
    var pictureScale = 1.0
    var dragging = false
    var menuRect: CellRect?
    /// Scrub mode (nil: off) and the thumbnail shown for its marker.
    var scrub: ScrubState?
    var preview: ScrubPreview?
    var previewStamp = 0
    /// `B`: the filmstrip (nil: closed).
    var filmstrip: Filmstrip?
    /// `` ` `` or `inspect`: the pipeline inspector (nil: closed).
    var inspector: Inspector?
    /// Cells the preview covered when last drawn (erased when it moves or goes).
    var previewRect: CellRect?
    /// The last read stopped at `TUIApp.maxInputPerRead` with more waiting in ncurses: read again
    /// before waiting on the fd.
    var pendingInput = false
    /// The next refresh clears the terminal (clearok): the video must be repainted after it.
    var screenCleared = false
    /// Which subtitle cues were last drawn.
    var cueKey = ""
    /// Seconds of playback without input after which the chrome hides (mpv's OSD timeout).
    static let chromeTimeout = 3.0
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT (Ctrl-\), handled off the signal context via Dispatch:
/// a host's loop polls `isRaised` and stops cleanly, restoring the terminal (the TUI and the
/// headless player share it). SIGQUIT would otherwise reach the Swift runtime's backtracer, which
/// prints inside the alternate screen and leaves the terminal raw.
public final class QuitSignals: @unchecked Sendable {  // `raised`, `handlers` and `sources` are only touched on `queue` (and in `init`)
    public static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "aether.tui.signals")
    private var raised = false
    private var handlers: [@Sendable () -> Void] = []

    /// Runs `body` (on the signal queue) when a quit signal arrives, or at once if one has.
    public func onRaise(_ body: @escaping @Sendable () -> Void) {
        let now = queue.sync { () -> Bool in
            if !raised { handlers.append(body) }
            return raised
        }
        if now { body() }
    }

    public init() {
        for sig in QuitSignals.signals {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            s.setEventHandler { [unowned self] in
                raised = true
                let run = handlers
                handlers = []
                run.forEach { $0() }
            }
            s.resume()
            sources.append(s)
        }
    }

    public var isRaised: Bool { queue.sync { raised } }
}

/// The controller's callbacks: what only the screen can do.
extension TUIApp: PlayerHost {
    public func controllerWillOpen(_ controller: PlayerController) {
        // One watch for a run of opens (items that fail are skipped in one go): it ends when
        // the loop reads keys again (``endOpenWatch()``).
        guard openWatch == nil else { return }
        let probe = screenUp ? nil : probeThread
        let bindings = options.bindings
        openWatch = OpenWatch(input: STDIN_FILENO, takeModes: !screenUp, before: { _ = probe?.wait() }) { [hub = controller.hub] byte in
            // The user's bindings decide what quits (q, Q and Ctrl-C by default).
            let key: Key = byte == 0x03 ? .control("c") : .character(Character(UnicodeScalar(byte)))
            if let command = bindings.command(for: key), command.leavesThePlayer {
                FFmpegLog.write("tui", "\(command) while a source opens: cancelling the open")
                hub.submit(command)
            }
        }
    }

    public func controllerDidOpen(_ controller: PlayerController) {}

    /// The loop is back: keys go to ncurses again.
    func endOpenWatch() {
        openWatch?.stop()
        openWatch = nil
    }

    public func controllerWillUnloadItem(_ controller: PlayerController, reason: String) {
        writeSummary(interrupted: false)
    }

    public func controllerDidLoadItem(_ controller: PlayerController) {
        // A new item: its previews, menus and scrub state belonged to the last one.
        if let previews {
            Task.detached { await previews.shutdown() }
            self.previews = nil
        }
        view.scrub = nil
        view.preview = nil
        view.filmstrip = nil
        view.menu = nil
        music = nil   // the next item's cover and tags
        guard screenUp else { return }
        attachItem()
    }

    public func controller(_ controller: PlayerController, show message: String) {
        osd(message, seconds: message.hasPrefix("resuming") || message.hasPrefix("cannot") ? 4 : 1.5)
    }

    public func controller(_ controller: PlayerController, perform ui: String) -> CommandResult {
        perform(ui: ui)
    }

    public func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult {
        takeScreenshot(subtitles: subtitles)
        return .ok
    }
}
