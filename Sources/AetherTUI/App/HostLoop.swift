import AetherBase
import AetherCommands
import AetherControl
import AetherInput
import AetherMedia
import AetherPlayback
import AetherScreen
import FoundationEssentials
import Glibc
import TerminalGraphics

// The host's loop in one file, in the style of Elm's and Bubble Tea's (Screen.md draws it):
//
//   1. The loop (`TUIApp.loop`): each pass lets the controller tick, reads the terminal and
//      the background results, sends what happened as events, draws, and waits for the next.
//   2. Events (`HostEvent`): everything that happens, from keys to the clock.
//   3. The model (`ViewState`): what the views are made from. Its modes' parts (the menu,
//      scrub, the filmstrip, the panel, the message line) live beside their own updates.
//   4. The update (`HostUpdate.update`): the model's one writer, with no I/O; it returns effects.
//   5. Effects (`HostEffect`) and the runtime (`HostRuntime.send`, `perform`): events are
//      handled one at a time, in order (`EventInbox`), and their effects are carried out in
//      one place, on the controller, the player and the screen.
//   6. Views (`HostRuntime.draw`): the player read once (`PlayerReading`), the tick, then the
//      painter composes the frame from the model and that reading (`ChromeView.compose`).
//
// Workers (the open, thumbnails, screenshots, the inspector's reads) run on their own threads;
// their results wake the loop and come in at the next pass as events.

// MARK: - 1. The loop

extension TUIApp {
    /// Passes until quit, the end of the playlist or a signal; the exit it ends with.
    func loop() -> RunEnd {
        while true {
            if quit.isRaised { return .status(.interrupted) }
            // Remote commands, the playlist's next item, the published state.
            if case .finished(let end) = controller.tick() { return end }
            if jobs?.handle(self) == true {
                // The shell has the terminal (continued with `bg`): wait for `fg` (its SIGCONT
                // wakes us); the terminal is not read meanwhile.
                waitForEvents(timeout: 1, readTerminal: false)
                continue
            }
            let readSomething = runtime.readInput()
            runtime.pollStills()
            runtime.pollScreenshots()
            runtime.pollInspector()
            runtime.checkTerminalSize()
            display.repaintThroughTmux(now: clock.seconds)
            runtime.applyGovernor()
            runtime.send(.engineWarnings(player.warnings, now: clock.seconds))
            let now = clock.seconds
            if now - lastTrim >= TUIApp.trimInterval {
                // Scrub previews, filmstrips, screenshots and resizes free memory in bursts:
                // give it back (see MemoryPolicy).
                MemoryPolicy.trim()
                let took = clock.seconds - now
                if took > 0.005 { AppLog.write("tui", String(cFormat: "malloc_trim took %.1f ms", took * 1000)) }
                lastTrim = now
            }
            if let sample = runtime.recorder.sample(player: player, output: display.output.currentTotals,
                                            terminalBytes: display.terminal.statistics.bytesWritten, now: now) {
                runtime.send(.telemetry(sample))
            }
            let reading = runtime.draw()
            // Input acted on may have queued work for the controller (a quit, a playlist step):
            // the next pass runs it before waiting.
            waitForEvents(timeout: runtime.pendingInput || readSomething ? 0
                          : runtime.nextDue(now: clock.seconds, reading, also: [lastTrim + TUIApp.trimInterval]))
        }
    }

    /// Waits until the terminal has input, something signals ``wake``, or `timeout` seconds
    /// pass (the next thing due on screen, ``HostRuntime/nextDue(now:_:also:)``).
    func waitForEvents(timeout: Double, readTerminal: Bool = true) {
        var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        if readTerminal { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = Int32(max(0, min(timeout, 60)) * 1000)
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        wake.drain()
    }
}

// MARK: - 2. Events

/// What happens to the host's model (Elm's and Bubble Tea's messages): a key no mode outside the
/// model took, a click on the open menu, time passing on the loop's clock, and what the runtime
/// saw happen (input, a new item, the output made anew, the inspector opened). ``HostUpdate`` is
/// the one writer of the model: the runtime sends it these and carries out what it returns.
enum HostEvent: Equatable {
    /// A key, typed or sent by IPC `keypress`.
    case key(Key)
    /// The user did something at `now` (a key, a click, a resize, a return from job control):
    /// the chrome shows.
    case input(now: Double)
    /// A line for the message line (the controller's, a screenshot's, a warning) for `seconds`.
    case message(String, seconds: Double, now: Double)
    /// The start-up warnings (aether-tui.conf, input.conf, playlists), shown in turn from `now`.
    case startupWarnings([String], now: Double)
    /// What the engine warns of so far (a stream left out, a sidecar refused): the new ones show.
    case engineWarnings([String], now: Double)
    /// Another item plays: its scrub state, previews, filmstrip, menu and live baseline belonged
    /// to the last one.
    case itemChanged
    /// The governor stepped the picture's scale.
    case pictureScale(Double)
    /// The video output was made anew (another driver, or the same again after the terminal's
    /// answers changed): its scale starts over; `message` says so on the message line.
    case outputChanged(message: String?, now: Double)
    /// The inspector opened (the runtime made it and its readers) or closed (nil).
    case inspector(Inspector?)
    /// The open menu's row `index` was clicked.
    case menuPick(Int)
    /// On the equalizer's panel: a press over band `band` at `gain` dB (nil: on its label row),
    /// or the wheel over it (`wheelUp`).
    case equalizerMouse(band: Int, gain: Double?, wheelUp: Bool?)
    /// The loop's clock reads `now`: what shows for a while ends at its time.
    case tick(now: Double)
    /// One of the screen's own actions (a binding's `script-binding`), at `now`.
    case ui(UIAction, now: Double)
    /// A menu, made from what the player has now, opens.
    case openMenu(TrackMenu)
    /// The mouse wheel turned (up: forward).
    case wheel(up: Bool)
    /// The mouse pressed (button 1), moved or released, on the progress bar's row or not, over
    /// `time` on the bar's axis: hovering and dragging scrub, releasing a drag seeks there.
    case bar(BarMouse)
    /// The thumbnail for scrub's marker arrived.
    case previewArrived(StillArrival)
    /// Thumbnails for the filmstrip arrived.
    case stripArrived([StillArrival])
    /// The telemetry's sample of the second (the pane and the stats show it; the inspector's
    /// live tab keeps its history).
    case telemetry(TelemetrySnapshot)
}

/// A thumbnail from the fetcher: asked for at `time`, showing the frame at `shows` (a keyframe's
/// time, or `time` when decoded exactly).
struct StillArrival: Equatable {
    var time: Double
    var shows: Double
    var picture: VideoOutput.StillPicture

    static func == (a: StillArrival, b: StillArrival) -> Bool { a.time == b.time && a.shows == b.shows && a.picture === b.picture }
}

/// The mouse as the progress bar sees it (``HostEvent/bar(_:)``).
struct BarMouse: Equatable {
    enum Action: Equatable { case press, motion, release, other }
    var action: Action
    var onBar: Bool
    var time: Double
}

// MARK: - 3. The model

/// The UI's model: what the views are made from. ``HostUpdate`` is its one writer (the runtime
/// holds it with a private setter and sends events); drawing takes it by value.
struct ViewState {
    /// The transport rows: when they show, what they show.
    var chrome = ChromeState()
    /// The stats overlay and the key help.
    var overlays = Overlays()
    /// The message line.
    var message = MessageLine()
    /// Live: the smallest latency behind the edge seen since the item began (where playback
    /// joined the stream, a few segments back); the bar says how far behind only beyond it.
    /// Kept by the update's tick.
    var liveBaseline: Double?
    var menu: TrackMenu?
    /// The governor's picture scale (1: the whole area).
    var pictureScale = 1.0
    var dragging = false
    /// Scrub mode (nil: off) and the thumbnail shown for its marker.
    var scrub: ScrubState?
    var preview: ScrubPreview?
    var previewStamp = 0
    /// `B`: the filmstrip (nil: closed).
    var filmstrip: Filmstrip?
    /// `` ` `` or `inspect`: the pipeline inspector (nil: closed). A reference: its readers and
    /// its own update (``Inspector/handle(_:pageRows:)``) are the runtime's.
    var inspector: Inspector?
    /// `e`: the equalizer's panel (nil: closed).
    var equalizer: EqualizerPanel?

    // The decisions by time, on the loop's clock (``TUIApp/clock``): `now` is its seconds.

    /// Seconds from `now` until the chrome hides (when `hiding`: playing, nothing pins it), the
    /// message ends or the stats overlay `i` showed goes, whichever is first; nil when none is due.
    func nextHideOrExpiry(now: Double, hiding: Bool) -> Double? {
        let due = [message.current.map { $0.until - now }, overlays.statsUntil.map { $0 - now },
                   hiding ? chrome.lastInput + ChromeState.timeout - now : nil].compactMap { $0 }
        return due.min()
    }
}

// MARK: - 4. The update

/// What the update reads besides the model and the event: the user's bindings and what the
/// player says the timeline is (made by the runtime for each event).
struct HostContext {
    var bindings: InputBindings
    /// What the progress bar covers: the file, or a live stream's kept window (nil: nothing to scrub).
    var barRange: ClosedRange<Double>? = nil
    /// Where the chapters start, in order.
    var chapterStarts: [Double] = []
    /// The playback position (where `b` puts the marker).
    var position = 0.0
    /// The item's duration (nil: unknown or live), whether a picture plays, and the screen's width.
    var duration: Double? = nil
    var hasPicture = false
    var columns = 80
    /// For the tick: how far behind a live stream's edge playback is now (nil: not live).
    var liveLatency: Double? = nil
    /// For the tick: the menu's rows that fit the video area.
    var menuRows = 1
    /// For the tick: the layout was made for another picture (its shape changed, a video stream
    /// came or went, lyrics came): lay out again.
    var layoutStale = false
    /// The player's equalizer as set and as it runs (the panel opens on them and follows them).
    var equalizer = EqualizerSetting.flat
    var runningEqualizer = EqualizerCurve.flat
}

/// The host's update: `update(&view, event)` changes the model (``ViewState``) and returns the
/// effects, with no I/O, so every rule here is tested on values (`HostUpdateTests`,
/// `HostRoomsTests`), time included (the event carries it). The runtime (``HostRuntime``) reads
/// the events, runs this and carries out the effects. Each mode has its own update (``MenuUpdate``,
/// ``ScrubUpdate``, ``FilmstripUpdate``); the inspector takes its keys first while it is open
/// (``Inspector/handle(_:pageRows:)``), and the output's cycle is the runtime's.
enum HostUpdate {
    static func update(_ view: inout ViewState, _ event: HostEvent, context: HostContext) -> [HostEffect] {
        switch event {
        case .key(let key):
            if view.menu != nil { return MenuUpdate.key(&view, key) }
            if let effects = EqualizerUpdate.key(&view, key) { return effects }
            if let effects = ScrubUpdate.key(&view, key, context) ?? FilmstripUpdate.key(&view, key) { return effects }
            if key == .escape {
                guard view.overlays.help || view.overlays.statsShown else { return [] }
                view.overlays.help = false
                view.overlays.stats = false
                view.overlays.statsUntil = nil
                return [.redraw]
            }
            // Everything else goes through the bindings (the defaults under input.conf's) to the
            // controller, like IPC and MPRIS commands.
            return context.bindings.command(for: key).map { [.command($0)] } ?? []
        case .equalizerMouse(let band, let gain, let wheelUp):
            let now = view.chrome.lastInput
            if let wheelUp { return EqualizerUpdate.move(&view, band: band, by: wheelUp ? EqualizerPanel.step : -EqualizerPanel.step, now: now) }
            guard let gain else {
                view.equalizer?.band = band
                return [.redraw]
            }
            return EqualizerUpdate.place(&view, band: band, gain: gain, now: now)
        case .menuPick(let index):
            guard let menu = view.menu, menu.items.indices.contains(index) else { return [] }
            view.menu?.selection = index
            return MenuUpdate.choose(&view)
        case .openMenu(let menu):
            view.menu = menu
            return [.redraw]
        case .wheel(let up):
            return [.command(.seek(up ? 5 : -5, .relative, .auto))]
        case .previewArrived(let still): return ScrubUpdate.arrived(&view, still)
        case .stripArrived(let stills): return FilmstripUpdate.arrived(&view, stills)
        case .bar(let mouse):
            return ScrubUpdate.barMouse(&view, mouse, context)
        case .ui(let action, let now):
            switch action {
            case .scrub:
                guard let range = context.barRange else {
                    view.message.show("nothing to scrub", seconds: 1.5, at: now)
                    return [.redraw]
                }
                return ScrubUpdate.placeMarker(&view, at: context.position, byMouse: false, range: range)
            case .stats: view.overlays.showStatsBriefly(at: now)
            case .statsToggle:
                view.overlays.stats.toggle()
                view.overlays.statsUntil = nil
            case .help: view.overlays.help.toggle()
            case .equalizer:
                view.equalizer = view.equalizer == nil ? EqualizerPanel(setting: context.equalizer, running: context.runningEqualizer) : nil
            case .telemetry:
                view.chrome.showTelemetry.toggle()
                return [.relayout, .redraw]
            case .remaining: view.chrome.showRemaining.toggle()
            case .pinOSD:
                view.chrome.pinned.toggle()
                view.message.show(view.chrome.pinned ? "transport bar pinned" : "transport bar auto-hides", seconds: 1.5, at: now)
            // The runtime's: they fetch pictures or change the output.
            case .filmstrip: return FilmstripUpdate.open(&view, context, now: now)
            case .menuAudio, .menuSub, .menuPlaylist, .cycleVO, .inspector: return []
            }
            return [.redraw]
        case .tick(let now):
            var effects: [HostEffect] = context.layoutStale ? [.relayout, .redraw] : []
            if view.overlays.statsExpire(at: now) { effects.append(.redraw) }
            // The next start-up warning (aether-tui.conf, input.conf, playlists) in turn.
            if view.message.turn(at: now) { effects.append(.redraw) }
            // Live: the smallest latency behind the edge seen since the item began.
            if let latency = context.liveLatency { view.liveBaseline = min(view.liveBaseline ?? latency, latency) }
            if var menu = view.menu {
                menu.scrollToSelection(visibleRows: context.menuRows)
                view.menu = menu
            }
            if EqualizerUpdate.follow(&view, setting: context.equalizer, running: context.runningEqualizer) { effects.append(.redraw) }
            return effects
        case .input(let now):
            view.chrome.noteInput(at: now)
            return [.redraw]
        case .message(let text, let seconds, let now):
            view.message.show(text, seconds: seconds, at: now)
            return [.redraw]
        case .startupWarnings(let warnings, let now):
            view.message.queueStartup(warnings, at: now)
            return [.redraw]
        case .engineWarnings(let warnings, let now):
            return view.message.engineWarnings(warnings, at: now) ? [.redraw] : []
        case .itemChanged:
            (view.scrub, view.preview, view.filmstrip, view.menu, view.liveBaseline) = (nil, nil, nil, nil, nil)
            return [.redraw]
        case .pictureScale(let scale):
            guard scale != view.pictureScale else { return [] }
            view.pictureScale = scale
            return [.relayout]
        case .outputChanged(let message, let now):
            view.pictureScale = 1
            if let message { view.message.show(message, seconds: 1.5, at: now) }
            return [.relayout, .redraw]
        case .telemetry(let sample):
            view.inspector?.live.record(sample)
            return [.redraw]
        case .inspector(let inspector):
            view.inspector = inspector
            return inspector == nil ? [.redraw, .outputScene] : [.redraw]
        }
    }
}

// MARK: - 5. Effects, and the runtime that carries them out

/// What the runtime carries out for ``HostUpdate`` (Elm's commands): how the update's decisions
/// reach the controller, the player or the screen. (What the controller's own callbacks do when
/// an item loads, attaching the output and laying out again, is the host's: ``PlayerHost``.)
enum HostEffect: Equatable {
    /// To the controller, as a binding, IPC or MPRIS would send it.
    case command(PlayerCommand)
    /// A menu's choice (the controller says which track on the message line).
    case selectAudio(Int?)
    case selectSubtitle(Int?)
    /// What the screen shows changed: compose it again.
    case redraw
    /// The screen's parts moved (the telemetry pane came or went): lay out again.
    case relayout
    /// An overlay that masked the picture or placed one went (the inspector closed): the
    /// output's scene again, and the picture repainted under where it was.
    case outputScene
    /// Seek there exactly (scrub's marker, the filmstrip's thumbnail), and say so.
    case seekExactly(Double)
    /// The thumbnail for scrub's marker at this time, of a timeline this long, is wanted.
    case wantPreview(Double, duration: Double)
    /// Scrub mode began: the thumbnail fetcher is needed (when the source has a picture to show).
    case openPreviews
    /// The filmstrip's thumbnails are wanted at these times (decoded exactly, or at keyframes).
    case wantStrip([Double], exact: Bool)
    /// Playback pauses (nothing when paused already).
    case pause
}

/// The host's runtime (Elm's and Bubble Tea's): it holds the model (``ViewState``), turns what
/// arrives (keys, the mouse, terminal replies, thumbnails, the clock) into ``HostEvent``s, runs
/// ``HostUpdate`` and carries out its effects on the controller, the player and the screen; the
/// ``ScreenPainter`` draws the model. The inspector's keys are its own update
/// (``Inspector/handle(_:pageRows:)``).
final class HostRuntime {
    /// The UI's model. Its setter is this file's: ``send(_:_:)`` is the one place it is written
    /// (through ``HostUpdate``); everything else reads it or sends an event.
    private(set) var view = ViewState()
    /// The last read stopped at `Display.maxInputPerRead` with more waiting in ncurses: read
    /// again before waiting on the fd.
    var pendingInput = false
    let painter: ScreenPainter
    let controller: PlayerController
    let options: TUIOptions
    let clock: TimeSource
    /// Wakes the loop: input aside, everything that changes the screen signals it.
    let wake: WakeUp
    /// Thumbnails and screenshots in the background.
    let stills: StillJobs
    /// The telemetry shown, the stats file and each item's summary.
    var recorder = PlaybackRecorder()

    init(painter: ScreenPainter, options: TUIOptions, clock: TimeSource, wake: WakeUp) {
        (self.painter, controller, self.options, self.clock, self.wake) = (painter, painter.controller, options, clock, wake)
        stills = StillJobs(network: options.player.network, clock: clock, wake: wake)
    }

    var display: Display { painter.display }
    var player: Player { controller.player }
    var currentSource: String { painter.source }

    /// The player and the controller as they are now (``PlayerReading``).
    func read() -> PlayerReading { painter.read() }

    /// Runs the update on the model with `player` as read (nil: read when the event's turn
    /// comes), and carries out its effects. An event sent while another is handled (from its
    /// effects: the controller's callbacks) waits until that one's effects are done
    /// (``EventInbox``), and is then handled before this call returns.
    func send(_ event: HostEvent, _ player: PlayerReading? = nil) {
        inbox.deliver((event, player)) { event, player in
            perform(HostUpdate.update(&view, event, context: context(for: event, player ?? read())))
        }
    }

    /// The events waiting their turn.
    private let inbox = EventInbox<(HostEvent, PlayerReading?)>()

    /// What the update reads besides the model, from `player` as read (the tick: only what it
    /// decides by, no timeline).
    private func context(for event: HostEvent, _ player: PlayerReading) -> HostContext {
        var context = HostContext(bindings: options.bindings)
        // The equalizer's panel opens on the player's equalizer, and follows it at the tick.
        (context.equalizer, context.runningEqualizer) = (player.equalizer, player.runningEqualizer)
        if case .tick = event {
            context.liveLatency = player.liveLatency
            context.menuRows = TrackMenuView.visibleRows(in: display.layout.videoArea)
            context.layoutStale = display.isUp && painter.layoutIsStale(player)
        } else {
            context.barRange = player.barAxis.range
            context.chapterStarts = (player.mediaInfo?.chapters ?? []).map(\.start)
            context.position = player.position
            context.duration = player.duration
            context.hasPicture = player.hasVideo
            context.columns = display.layout.columns
        }
        return context
    }

    /// Carries out what the update asked for, on the controller, the player and the screen.
    /// (The inspector's own update asks for its reads, which ``perform(_:on:)`` starts.)
    func perform(_ effects: [HostEffect]) {
        for effect in effects {
            switch effect {
            case .command(let command): controller.execute(command)
            case .selectAudio(let index): controller.selectAudio(index)
            case .selectSubtitle(let id): controller.selectSubtitle(id)
            case .redraw: display.screen.dirty = true
            case .relayout: relayout()
            case .outputScene:
                display.terminal.withScreen { updateOutputScene() }
                display.output.repaint()
            case .seekExactly(let target):
                player.seek(to: target, mode: .exact)
                osd("seek \(TimeFormat.clock(target))")
            case .wantPreview(let time, let duration): stills.previews?.request(time, duration: duration)
            case .wantStrip(let times, let exact): previewFetcher()?.requestStrip(times, exact: exact)
            case .pause: if !player.isPaused { player.togglePause() }
            case .openPreviews:
                // Without a playing video stream (the music view) the marker has a time but no picture.
                if player.hasVideo { _ = previewFetcher() }
            }
        }
    }

    // MARK: 6. Views

    /// One pass of the screen: the player read once, the update's tick on the loop's clock
    /// (it may lay out again), the inspector's lists kept in view, then the painter's draw of
    /// the model and that reading. Returns the reading (the loop's wake-up is worked out from it).
    @discardableResult
    func draw() -> PlayerReading {
        let reading = read()
        send(.tick(now: clock.seconds), reading)
        if let inspector = view.inspector { InspectorView.keepSelectionsInView(inspector, in: inspector.rect(in: display.layout.videoArea)) }
        painter.draw(view, reading, telemetry: recorder.telemetry)
        return reading
    }
}
