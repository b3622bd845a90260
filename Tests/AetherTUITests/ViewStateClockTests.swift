import AetherBase
@testable import AetherTUI
import Testing

/// The screen's decisions by time on the loop's clock (``TUIApp/clock``), against a
/// ``ManualTimeSource``: when the chrome hides, when a message ends, when the loop wakes for them.
struct ViewStateClockTests {
    @Test func theChromeHidesAtExactlyItsTimeout() {
        let clock = ManualTimeSource(milliseconds: 5000)
        var view = ViewState()
        view.chrome.noteInput(at: clock.seconds)
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: true) == ChromeState.timeout)
        clock.advance(milliseconds: 2999)
        #expect(view.chrome.shownByInput(at: clock.seconds))
        #expect(abs((view.nextHideOrExpiry(now: clock.seconds, hiding: true) ?? 0) - 0.001) < 1e-9)
        clock.advance(milliseconds: 1)
        #expect(!view.chrome.shownByInput(at: clock.seconds))
        // Input again: shown for another 3 s from then.
        clock.advance(milliseconds: 700)
        view.chrome.noteInput(at: clock.seconds)
        #expect(view.chrome.shownByInput(at: clock.seconds))
        clock.advance(milliseconds: 3000)
        #expect(!view.chrome.shownByInput(at: clock.seconds))
        // Not hiding (paused, pinned, a menu open): nothing due.
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: false) == nil)
    }

    @Test func aMessageEndsAtItsTimeAndTheLoopWakesForIt() {
        let clock = ManualTimeSource()
        var view = ViewState()
        #expect(!view.message.expired(at: clock.seconds))
        view.message.show("volume 50%", seconds: 1.5, at: clock.seconds)
        view.chrome.noteInput(at: clock.seconds)
        // The message ends first (1.5 s), then the chrome hides (3 s).
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: true) == 1.5)
        clock.advance(milliseconds: 1499)
        #expect(!view.message.expired(at: clock.seconds))
        clock.advance(milliseconds: 1)
        #expect(view.message.expired(at: clock.seconds))
        view.message.current = nil
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: true) == 1.5)
        // A message longer than the chrome's timeout: the chrome hides first.
        view.message.show("⚠ a warning", seconds: 4, at: clock.seconds)
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: true) == 1.5)
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: false) == 4)
    }

    /// `i` shows the stats overlay for exactly four seconds (again from a later `i`), and the
    /// loop wakes for its end; `I` holds it until toggled, and `i` then does not end it.
    @Test func iShowsTheStatsForFourSecondsAndIHoldsThem() {
        let clock = ManualTimeSource(milliseconds: 1000)
        var view = ViewState()
        view.overlays.showStatsBriefly(at: clock.seconds)
        #expect(view.overlays.statsShown && view.nextHideOrExpiry(now: clock.seconds, hiding: false) == Overlays.statsSeconds)
        clock.advance(milliseconds: 2500)
        view.overlays.showStatsBriefly(at: clock.seconds)
        clock.advance(milliseconds: 3999)
        #expect(!view.overlays.statsExpire(at: clock.seconds) && view.overlays.statsShown)
        clock.advance(milliseconds: 1)
        #expect(view.overlays.statsExpire(at: clock.seconds) && !view.overlays.statsShown)
        #expect(view.nextHideOrExpiry(now: clock.seconds, hiding: false) == nil)
        view.overlays.stats = true
        view.overlays.showStatsBriefly(at: clock.seconds)
        clock.advance(milliseconds: 60_000)
        #expect(!view.overlays.statsExpire(at: clock.seconds) && view.overlays.statsShown)
    }
}
