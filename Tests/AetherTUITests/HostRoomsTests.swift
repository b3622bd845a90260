import AetherBase
import AetherControl
import AetherInput
@testable import AetherTUI
import Testing

/// The host's rooms as values (unit tier): the filmstrip's and scrub's thumbnails as events, the
/// filmstrip opening, the message line's turns and warnings, and the loop's next wake-up on a
/// manual clock.
struct HostRoomsTests {
    private func picture() -> VideoOutput.StillPicture { .init(width: 2, height: 1, pixels: [UInt8](repeating: 9, count: 8)) }

    @Test func theFilmstripOpensPausedOnTheChaptersWithTheOnePlayingChosen() {
        var view = ViewState()
        view.scrub = ScrubState(target: 5, byMouse: false)
        var context = HostContext(bindings: InputBindings())
        (context.duration, context.hasPicture, context.columns, context.position) = (600, true, 120, 250)
        context.chapterStarts = [0, 100, 200, 300]
        let effects = HostUpdate.update(&view, .ui(.filmstrip, now: 1), context: context)
        let strip = try? #require(view.filmstrip)
        #expect(view.scrub == nil, "scrub ends when the filmstrip opens")
        #expect(strip?.chapters == true && strip?.times == [0, 100, 200, 300])
        #expect(strip?.selection == 2, "the chapter playing at 250 s is the third")
        #expect(strip?.width == 24, "a fifth of 120 columns, at most 24")
        #expect(effects == [.pause, .wantStrip([0, 100, 200, 300], exact: true), .redraw])
    }

    @Test func theFilmstripRefusesWithoutAPictureOrADuration() {
        var view = ViewState()
        var context = HostContext(bindings: InputBindings())
        (context.duration, context.hasPicture) = (600, false)
        #expect(HostUpdate.update(&view, .ui(.filmstrip, now: 3), context: context) == [.redraw])
        #expect(view.filmstrip == nil && view.message.current?.text == "nothing to show in a filmstrip")
        (context.duration, context.hasPicture) = (nil, true)
        view.message.current = nil
        _ = HostUpdate.update(&view, .ui(.filmstrip, now: 3), context: context)
        #expect(view.filmstrip == nil && view.message.current?.until == 4.5)
    }

    @Test func thumbnailsArriveInTheirSlotsWithTheTimeTheyShow() {
        var view = ViewState()
        view.filmstrip = Filmstrip(times: [10, 20, 30], selection: 0, width: 16)
        let a = picture(), b = picture()
        let effects = HostUpdate.update(&view, .stripArrived([.init(time: 20, shows: 19.2, picture: a),
                                                              .init(time: 99, shows: 99, picture: b)]),
                                        context: HostContext(bindings: InputBindings()))
        #expect(effects == [.redraw])
        #expect(view.filmstrip?.pictures[1] === a && view.filmstrip?.pictures.count == 1, "a time not in the strip is left out")
        #expect(view.filmstrip?.shown[1] == 19.2, "the keyframe shown, not the time asked for")
        #expect(view.filmstrip?.stamps[1] == view.previewStamp && view.previewStamp == 1)
        // Closed: nothing changes.
        view.filmstrip = nil
        #expect(HostUpdate.update(&view, .stripArrived([.init(time: 10, shows: 10, picture: a)]),
                                  context: HostContext(bindings: InputBindings())).isEmpty)
    }

    @Test func scrubsThumbnailIsKeptOnlyWhileScrubbing() {
        var view = ViewState()
        let context = HostContext(bindings: InputBindings())
        let still = StillArrival(time: 42, shows: 41.5, picture: picture())
        #expect(HostUpdate.update(&view, .previewArrived(still), context: context).isEmpty)
        #expect(view.preview == nil)
        view.scrub = ScrubState(target: 42, byMouse: true)
        #expect(HostUpdate.update(&view, .previewArrived(still), context: context) == [.redraw])
        #expect(view.preview?.time == 42 && view.preview?.picture === still.picture && view.preview?.stamp == 1)
    }

    @Test func startupWarningsTakeTurnsAndTheRestAreCounted() {
        let clock = ManualTimeSource(milliseconds: 1000)
        var line = MessageLine()
        line.queueStartup(["a", "b", "c", "d", "e\u{1B}[2J"], at: clock.seconds)
        #expect(line.current?.text == "⚠ a" && line.current?.until == 5)
        #expect(line.queued == ["⚠ b", "⚠ c", "⚠ 2 more warnings: listed on stderr after quitting"])
        clock.advance(milliseconds: 3999)
        let early = line.turn(at: clock.seconds)
        #expect(!early)
        clock.advance(milliseconds: 1)
        let turned = line.turn(at: clock.seconds)
        #expect(turned && line.current?.text == "⚠ b" && line.current?.until == 9)
        // An escape in a warning never reaches the terminal.
        var two = MessageLine()
        two.queueStartup(["x\u{1B}[2J"], at: 0)
        #expect(two.current?.text.contains("\u{1B}") == false)
    }

    @Test func theEngineWarningShownIsTheNewestAndOnlyOnce() {
        var line = MessageLine()
        let none = line.engineWarnings([], at: 0)
        #expect(!none)
        let two = line.engineWarnings(["one", "two"], at: 2)
        #expect(two && line.current?.text == "⚠ two" && line.current?.until == 7)
        line.current = nil
        let again = line.engineWarnings(["one", "two"], at: 3)
        #expect(!again, "the same warnings are not shown again")
        let three = line.engineWarnings(["one", "two", "three"], at: 4)
        #expect(three && line.current?.text == "⚠ three")
    }

    @Test func theLoopWakesForTheFirstThingDueOnAManualClock() {
        let clock = ManualTimeSource(milliseconds: 10_000)
        // The telemetry sample at 10.6 s; paused: nothing else.
        var schedule = WakeSchedule(at: [10.6, .infinity])
        #expect(abs(schedule.seconds(now: clock.seconds) - 0.6) < 1e-9)
        // Playing at 12.1 s of media: the clock text's next quarter second is 0.15 s away; at
        // double speed half that.
        schedule.playing = .init(position: 12.1, rate: 1)
        #expect(abs(schedule.seconds(now: clock.seconds) - 0.15) < 1e-9)
        schedule.playing?.rate = 2
        #expect(abs(schedule.seconds(now: clock.seconds) - 0.075) < 1e-9)
        // A subtitle change 20 ms of media away, and the music view's 30 frames a second.
        schedule.playing = .init(position: 12.1, rate: 1, nextCue: 12.12, frameRate: 30)
        #expect(abs(schedule.seconds(now: clock.seconds) - 0.02) < 1e-9)
        schedule.playing = .init(position: 12.0, rate: 1, nextCue: nil, frameRate: 30)
        #expect(abs(schedule.seconds(now: clock.seconds) - 1.0 / 30) < 1e-9)
        // Something overdue: a millisecond, never zero (the loop does not spin).
        clock.advance(milliseconds: 5000)
        #expect(schedule.seconds(now: clock.seconds) == 0.001)
        // Nothing due at all: a minute.
        #expect(WakeSchedule().seconds(now: clock.seconds) == 60)
        // Network trouble: four times a second.
        #expect(WakeSchedule(networkTrouble: true).seconds(now: clock.seconds) == 0.25)
    }
}
