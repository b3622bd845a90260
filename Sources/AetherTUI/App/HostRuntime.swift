import AetherControl
import AetherPlayback
import AetherBase
import FoundationEssentials
import TerminalGraphics

/// The host's runtime (Elm's and Bubble Tea's): it holds the model (``ViewState``), turns what
/// arrives (keys, the mouse, terminal replies, thumbnails, the clock) into ``HostEvent``s, runs
/// ``HostUpdate`` and carries out its effects on the controller, the player and the screen; the
/// ``ScreenPainter`` draws the model. The inspector's keys are its own update
/// (``Inspector/handle(_:pageRows:)``).
final class HostRuntime {
    /// The UI's model. Its setter is this file's: ``send(_:)`` is the one place it is written
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

    /// Runs the update on the model with what the player says now (the tick: only what it
    /// decides by, no timeline), and carries out its effects.
    func send(_ event: HostEvent) {
        var context = HostContext(bindings: options.bindings)
        let isTick = if case .tick = event { true } else { false }
        // The equalizer's panel opens on the player's equalizer, and follows it at the tick.
        if !isTick || view.equalizer != nil {
            context.equalizer = player.equalizer
            context.runningEqualizer = player.runningEqualizer
        }
        if isTick {
            context.liveLatency = player.liveLatency
            context.menuRows = TrackMenuView.visibleRows(in: display.layout.videoArea)
            context.layoutStale = display.isUp && painter.layoutIsStale
        } else {
            context.barRange = ChromeView.barAxis(player).range
            context.chapterStarts = (player.mediaInfo?.chapters ?? []).map(\.start)
            context.position = player.currentTime
            context.duration = player.duration
            context.hasPicture = player.hasVideo
            context.columns = display.layout.columns
        }

        perform(HostUpdate.update(&view, event, context: context))
    }

    /// Carries out what the update asked for: the one place the model's effects reach the
    /// controller, the player and the screen.
    func perform(_ effects: [HostEffect]) {
        for effect in effects {
            switch effect {
            case .command(let command): controller.execute(command)
            case .selectAudio(let index): controller.selectAudio(index)
            case .selectSubtitle(let id): controller.selectSubtitle(id)
            case .redraw: display.screen.dirty = true
            case .relayout: relayout()
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

    /// One pass of the screen: the update's tick on the loop's clock (it may lay out again),
    /// the inspector's lists kept in view, then the painter's draw of the model as it stands.
    func draw() {
        send(.tick(now: clock.seconds))
        if let inspector = view.inspector { InspectorView.keepSelectionsInView(inspector, in: inspector.rect(in: display.layout.videoArea)) }
        painter.draw(view, telemetry: recorder.telemetry)
    }

    func relayout() { painter.relayout(view) }

    /// The terminal's size looked at (`anyway`: asked again), and laid out again when it changed.
    func checkTerminalSize(anyway: Bool = false) {
        if let event = painter.apply(display.checkSize(anyway: anyway), view) { send(event) }
    }

    /// The governor's step, if it took one: a new scale, or another output.
    func applyGovernor() {
        if let event = painter.applyGovernor(view) { send(event) }
    }

    /// Shows `text` on the message line for `seconds` (sanitised there: track labels and
    /// chapter names come from the media).
    func osd(_ text: String, seconds: Double = 1.5) {
        send(.message(text, seconds: seconds, now: clock.seconds))
    }

    /// The output's scene for the current layout and overlays. Inside `terminal.withScreen`.
    func updateOutputScene() { painter.updateOutputScene(view) }

    /// A new item: its previews, menus and scrub state belonged to the last one, and so did the
    /// music view's cover and tags.
    func itemChanged() {
        stills.itemChanged()
        send(.itemChanged)
        painter.music = nil
    }

    /// Seconds until something on screen is due without an event (``WakeSchedule``); `also`: other times on the loop's clock the caller has due.
    func nextDue(now: Double, also: [Double] = []) -> Double {
        let playing = player.state == .playing
        var schedule = WakeSchedule(at: [recorder.nextDue, display.tmuxDue] + also,
                                    networkTrouble: ChromeView.networkText(player) != nil)
        if playing {
            schedule.playing = .init(position: player.currentTime, rate: player.rate,
                                     nextCue: controller.subtitlesVisible ? player.nextSubtitleChange : nil,
                                     frameRate: painter.music != nil ? MusicView.rate : nil)
        }
        let hiding = playing && display.screen.chromeVisible && !view.chrome.pinned && view.menu == nil
        schedule.within = [view.nextHideOrExpiry(now: now, hiding: hiding), controller.nextDue,
                           ChromeView.openingDue(controller.openingItem, now: now)].compactMap { $0 }
        return schedule.seconds(now: now)
    }
}
