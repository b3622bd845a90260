import AetherControl
import AetherPlayback
import AetherBase
import FoundationEssentials
import TerminalGraphics

extension HostRuntime {
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
    func updateOutputScene() { painter.updateOutputScene(view, read()) }

    /// A new item: its previews, menus and scrub state belonged to the last one, and so did the
    /// music view's cover and tags.
    func itemChanged() {
        stills.itemChanged()
        send(.itemChanged)
        painter.music = nil
    }

    /// Seconds until something on screen is due without an event (``WakeSchedule``), for
    /// `reading` (the pass's); `also`: other times on the loop's clock the caller has due.
    func nextDue(now: Double, _ reading: PlayerReading, also: [Double] = []) -> Double {
        let playing = reading.state == .playing
        var schedule = WakeSchedule(at: [recorder.nextDue, display.tmuxDue] + also,
                                    networkTrouble: reading.networkText != nil)
        if playing {
            schedule.playing = .init(position: reading.position, rate: reading.rate,
                                     nextCue: reading.subtitlesVisible ? player.nextSubtitleChange : nil,
                                     frameRate: painter.music != nil ? MusicView.rate : nil)
        }
        let hiding = playing && display.screen.chromeVisible && !view.chrome.pinned && view.menu == nil
        schedule.within = [view.nextHideOrExpiry(now: now, hiding: hiding), controller.nextDue,
                           ChromeView.openingDue(reading.opening, now: now)].compactMap { $0 }
        return schedule.seconds(now: now)
    }
}
