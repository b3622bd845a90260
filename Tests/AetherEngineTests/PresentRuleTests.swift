import AetherBase
@testable import AetherPlayback
import Testing

/// The presenter's pacing rule on a manual clock, to the millisecond (unit tier): when a frame
/// waits, when it is shown, and when a late one is dropped.
@Suite struct PresentRuleTests {
    let policy = SyncPolicy()
    let frame = 1.0 / 24

    func action(pts: Double, now: Double, rate: Double = 1, lead: Double = 0, inGrace: Bool = false, queued: Int = 3) -> PresentRule.Action {
        PresentRule.action(pts: pts, duration: frame, now: now, rate: rate, lead: lead, inGrace: inGrace, queued: queued, policy: policy)
    }

    @Test func anEarlyFrameWaitsInStepsOfTheLongestWait() {
        #expect(action(pts: 10.200, now: 10.000) == .wait(policy.maxWaitSeconds))
        guard case .wait(let w) = action(pts: 10.010, now: 10.000) else { Issue.record("no wait"); return }
        #expect(abs(w - 0.010) < 1e-9)
        // At twice the speed the same media distance is half the wall time.
        guard case .wait(let half) = action(pts: 10.010, now: 10.000, rate: 2) else { Issue.record("no wait"); return }
        #expect(abs(half - 0.005) < 1e-9)
        // A host that paints for 4 ms gets it 4 ms early; within a millisecond of its time it is shown.
        guard case .wait(let early) = action(pts: 10.010, now: 10.000, lead: 0.004) else { Issue.record("no wait"); return }
        #expect(abs(early - 0.006) < 1e-9)
        #expect(action(pts: 10.0009, now: 10.000) == .show(due: 10.0009 - 10.000))
    }

    @Test func aFrameLateByMoreThanItsDurationIsDroppedWhenANewerOneWaits() {
        // 41.7 ms is one frame at 24 fps: late by 41 ms it is shown, by 43 ms dropped.
        guard case .show(let due) = action(pts: 10.000, now: 10.041) else { Issue.record("not shown"); return }
        #expect(abs(due + 0.041) < 1e-9)
        #expect(action(pts: 10.000, now: 10.043) == .drop)
        // The only frame there is is shown, however late (nothing newer to show instead).
        #expect(action(pts: 10.000, now: 10.500, queued: 1) == .show(due: -0.5))
        // In the start-up grace nothing is dropped.
        #expect(action(pts: 10.000, now: 10.500, inGrace: true) == .show(due: -0.5))
    }

    /// The clock the presenter and the video thread read, on a manual time source: armed at
    /// media 10 s, then moved by hand.
    func runningClock() -> (ManualTimeSource, MasterClock) {
        let time = ManualTimeSource(milliseconds: 50_000)
        let clock = MasterClock(policy: policy, timeSource: time.source)
        clock.arm(at: 10, source: .system)
        clock.setPaused(false)
        return (time, clock)
    }

    func inGrace(_ clock: MasterClock) -> Bool { (clock.secondsSinceArmed ?? 0) < policy.startGraceSeconds }

    @Test func theLateDropWaitsForTheStartGraceOnAManualClock() {
        let (time, clock) = runningClock()
        // 100 ms after arming the frame at 10.000 is 100 ms late, but the clock has just started.
        time.advance(milliseconds: 100)
        guard case .show(let due) = action(pts: 10.000, now: clock.time, inGrace: inGrace(clock)) else {
            Issue.record("dropped in the grace"); return
        }
        #expect(abs(due + 0.1) < 1e-9)
        // 301 ms after arming the grace is over: the same lateness for the frame at 10.201 drops it.
        time.advance(milliseconds: 201)
        #expect(!inGrace(clock))
        #expect(action(pts: 10.201, now: clock.time, inGrace: inGrace(clock)) == .drop)
        // One millisecond under a frame late, it is still shown.
        #expect(action(pts: 10.301 - frame + 0.001, now: clock.time, inGrace: inGrace(clock)) != .drop)
    }

    @Test func theVideoThreadDropsEarlyOnlyPastOneAndAHalfFramesAndAfterTheGrace() {
        let (time, clock) = runningClock()
        func drops(_ pts: Double, rate: Double = 1) -> Bool {
            PresentRule.dropsEarly(pts: pts, interval: frame, now: clock.time, rate: rate, inGrace: inGrace(clock), policy: policy)
        }
        // In the start grace a frame 200 ms behind is converted (the presenter shows it).
        time.advance(milliseconds: 200)
        #expect(!drops(10.000))
        time.advance(milliseconds: 300)   // clock 10.500, grace over
        #expect(!inGrace(clock))
        #expect(drops(10.500 - 0.063), "62.5 ms is one and a half frames at 24 fps: 63 ms behind is dropped")
        #expect(!drops(10.500 - 0.062), "62 ms behind is converted")
        #expect(!drops(10.500 - 0.100, rate: 0.5), "at half speed the bound is 125 ms of media")
        #expect(!drops(10.500 - 11), "ten seconds and more is a discontinuity, not a late frame")
        #expect(!drops(10.600), "a frame ahead of the clock is never dropped")
    }
}
