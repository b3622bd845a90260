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
}
