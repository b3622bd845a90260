import AetherEngine
@testable import AetherPlayback
import Testing

@Suite struct MasterClockTests {
    /// Moved by hand (as swift-nio's tests drive an embedded event loop).
    let time = ManualTimeSource(milliseconds: 100_000)
    var clock: MasterClock { MasterClock(timeSource: time.source) }

    @Test func holdsTheAnchorUntilArmedThenRuns() {
        let clock = clock
        clock.reset(to: 5)
        clock.setPaused(false)
        time.advance(seconds: 1)
        #expect(clock.time == 5, "an unarmed clock does not run")
        clock.arm(at: 5, source: .audio)
        time.advance(seconds: 0.5)
        #expect(abs(clock.time - 5.5) < 1e-9)
        #expect(clock.isArmed && clock.source == .audio)
    }

    @Test func rateScalesAndStaysContinuous() {
        let clock = clock
        clock.setPaused(false)
        clock.arm(at: 0, source: .system)
        time.advance(seconds: 1)
        clock.setRate(2)
        #expect(abs(clock.time - 1) < 1e-9, "changing speed does not jump")
        time.advance(seconds: 1)
        #expect(abs(clock.time - 3) < 1e-9)
    }

    @Test func pauseFreezesAndResumeContinues() {
        let clock = clock
        clock.setPaused(false)
        clock.arm(at: 10, source: .audio)
        time.advance(seconds: 2)
        clock.setPaused(true)
        time.advance(seconds: 30)
        #expect(abs(clock.time - 12) < 1e-9)
        clock.setPaused(false)
        time.advance(seconds: 1)
        #expect(abs(clock.time - 13) < 1e-9)
    }

    @Test func smallErrorsAreSlewedLargeOnesResync() {
        let clock = clock
        clock.setPaused(false)
        let serial = clock.reset(to: 0)
        clock.arm(at: 0, source: .audio, serial: serial)
        time.advance(seconds: 1)
        clock.correct(heard: 1.01, serial: serial)  // 10 ms ahead: slewed by slewFactor
        #expect(abs(clock.time - (1 + 0.01 * clock.policy.slewFactor)) < 1e-9)
        clock.correct(heard: 3, serial: serial)      // far off: re-anchored
        #expect(abs(clock.time - 3) < 1e-9)
    }

    @Test func readingsFromAnOlderSerialAreIgnored() {
        let clock = clock
        clock.setPaused(false)
        let old = clock.reset(to: 0)
        clock.arm(at: 0, source: .audio, serial: old)
        let new = clock.reset(to: 50)
        #expect(new != old)
        clock.arm(at: 0, source: .audio, serial: old)  // stale: ignored
        #expect(!clock.isArmed)
        clock.arm(at: 50, source: .audio, serial: new)
        clock.correct(heard: 99, serial: old)
        #expect(abs(clock.time - 50) < 1e-9)
    }

    /// A running clock whose audio was written up to 0.5 s, 2 s after it started.
    func clockHeldByAnUnderrun() -> MasterClock {
        let clock = clock
        clock.setPaused(false)
        let serial = clock.reset(to: 0)
        clock.arm(at: 0, source: .audio, serial: serial)
        clock.limit(to: 0.5, serial: serial)
        time.advance(seconds: 2)
        return clock
    }

    @Test func neverRunsPastTheAudioWritten() {
        let clock = clockHeldByAnUnderrun()
        #expect(clock.time == 0.5, "an underrun holds the clock")
        clock.removeLimit()
        #expect(abs(clock.time - 2) < 1e-9)
    }

    @Test func pausingAClockHeldByAnUnderrunKeepsItWhereItStood() {
        let clock = clockHeldByAnUnderrun()
        clock.setPaused(true)
        clock.removeLimit()
        #expect(clock.time == 0.5, "paused at \(clock.time) s, held at 0.5 s")
        clock.setPaused(false)
        time.advance(seconds: 1)
        #expect(abs(clock.time - 1.5) < 1e-9)
        clock.setRate(2)
        #expect(abs(clock.time - 1.5) < 1e-9)
    }

    @Test func aPositionSetUnderAnOlderSerialIsIgnored() {
        let clock = clock
        let old = clock.reset(to: 0)
        clock.arm(at: 0, source: .audio, serial: old)
        let new = clock.reset(to: 40)
        clock.set(media: 3, serial: old)   // the device's position of before a seek
        #expect(clock.time == 40)
        clock.set(media: 41, serial: new)
        #expect(clock.time == 41)
    }
}
