import AetherControl
import AetherPlayback
import AetherBase
import FoundationEssentials
import TerminalGraphics

/// The host's runtime (Elm's and Bubble Tea's): it holds the model (``ViewState``), turns what
/// arrives (keys, the mouse, terminal replies, thumbnails, the clock) into ``HostEvent``s, runs
/// ``HostUpdate`` and carries out its effects on the controller, the player and the screen; the
/// ``ScreenPainter`` draws the model. The inspector's keys are its own update
/// (``Inspector/handle(_:_:)``).
final class HostRuntime {
    /// The UI's model.
    var view = ViewState()
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

    /// One pass of the screen: the update's tick on the loop's clock, then the painter's draw.
    func draw() {
        send(.tick(now: clock.seconds))
        painter.draw(&view, telemetry: recorder.telemetry)
    }

    func relayout() { painter.relayout(&view) }

    /// The output's scene for the current layout and overlays. Inside `terminal.withScreen`.
    func updateOutputScene() { painter.updateOutputScene(view) }

    /// A new item: its previews, menus and scrub state belonged to the last one, and so did the
    /// music view's cover and tags.
    func itemChanged() {
        stills.itemChanged()
        view.scrub = nil
        view.preview = nil
        view.filmstrip = nil
        view.menu = nil
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
