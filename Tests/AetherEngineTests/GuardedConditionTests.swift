import AetherBase
import Foundation
import Testing

/// ``GuardedCondition``: the one way a thread waits for another. Real threads, and no sleeps:
/// every test waits on the condition itself (a lost wake-up shows as a timeout, not a hang).
@Suite struct GuardedConditionTests {
    /// Starts `body` on a thread of its own.
    private func spawn(_ body: @escaping @Sendable () -> Void) {
        Thread { body() }.start()
    }

    /// Nothing ever changes the state, so the wait ends only because its deadline passed (one
    /// that missed it would never end: the time limit reports that). It ends no earlier than the
    /// deadline, a time on the condition's own clock (`CLOCK_MONOTONIC`): an order of two
    /// readings of one clock, not a measured duration with a bound on how slow the machine is.
    @Test(.timeLimit(.minutes(1))) func aTimeoutEndsTheWaitWhenNothingChanges() {
        let c = GuardedCondition(0)
        let deadline = MonotonicClock.seconds() + 0.05
        #expect(!c.wait(until: { $0 > 0 }, deadline: deadline))
        #expect(MonotonicClock.seconds() >= deadline, "the wait ended before its deadline")
        #expect(!c.wait(until: { $0 > 0 }, timeout: 0.05), "the same with a timeout")
    }

    @Test func aPastDeadlineOrZeroTimeoutDoesNotWait() {
        let c = GuardedCondition(false)
        #expect(!c.wait(until: { $0 }, timeout: 0))
        #expect(!c.wait(until: { $0 }, deadline: MonotonicClock.seconds() - 1))
        c.withLock { $0 = true }
        #expect(c.wait(until: { $0 }, timeout: 0))
    }

    @Test func aFarOrInfiniteDeadlineWaitsLikeNone() {
        // NSCondition traps on a date past Int64 nanoseconds: such deadlines must still work.
        for deadline in [Double.infinity, 1e300, Double(UInt64.max) / 1e9] {
            let c = GuardedCondition(false)
            Thread { c.update { $0 = true } }.start()
            #expect(c.wait(until: { $0 }, deadline: deadline))
        }
    }

    @Test func anUpdateFromAnotherThreadEndsTheWait() {
        let c = GuardedCondition(0)
        spawn { c.update { $0 = 1 } }
        #expect(c.wait(until: { $0 == 1 }, timeout: 10))
    }

    @Test func theWaitGoesOnUntilThePredicateHolds() {
        // Every step wakes the waiter; only the last satisfies it.
        let c = GuardedCondition(0)
        let steps = 50
        spawn {
            for _ in 0..<steps {
                c.update { $0 += 1 }
            }
        }
        let seen = c.withLock(when: { $0 == steps }, deadline: MonotonicClock.seconds() + 10) { value, ready in
            ready ? value : -1
        }
        #expect(seen == steps)
    }

    @Test func aChangeUnderWithLockWakesNobodyUntilBroadcast() {
        let c = GuardedCondition(0)
        let waiting = GuardedCondition(false)
        let woke = GuardedCondition<Bool?>(nil)
        spawn {
            let ok = c.withLock(when: { s in
                waiting.update { $0 = true }
                return s == 1
            }, deadline: MonotonicClock.seconds() + 10) { _, ready in ready }
            woke.update { $0 = ok }
        }
        #expect(waiting.wait(until: { $0 }, timeout: 10))
        c.withLock { $0 = 1 }
        c.broadcast()
        #expect(woke.wait(until: { $0 != nil }, timeout: 10))
        #expect(woke.withLock { $0 } == true)
    }

    @Test func recheckReevaluatesAPredicateOnOutsideState() {
        // The predicate looks at something no update announces: `recheck` bounds how long that
        // goes unseen.
        let c = GuardedCondition(0)
        let outside = Guarded(false)
        let done = GuardedCondition<Bool?>(nil)
        spawn {
            let ok = c.withLock(when: { _ in outside.withLock { $0 } }, deadline: MonotonicClock.seconds() + 10, recheck: 0.01) { _, ready in ready }
            done.update { $0 = ok }
        }
        outside.withLock { $0 = true }
        #expect(done.wait(until: { $0 != nil }, timeout: 10))
        #expect(done.withLock { $0 } == true)
    }

    @Test func oneUpdateWakesEveryWaiter() {
        let gate = GuardedCondition(false)
        let counts = GuardedCondition((waiting: 0, woken: 0))
        let waiters = 4
        for _ in 0..<waiters {
            spawn {
                var first = true
                let ok = gate.withLock(when: { open in
                    // Counted once each, when the waiter first finds the gate shut (it then
                    // waits without letting go of the gate's lock in between).
                    if first, !open { counts.update { $0.waiting += 1 } }
                    first = false
                    return open
                }, deadline: MonotonicClock.seconds() + 10) { _, ready in ready }
                counts.update { $0.woken += ok ? 1 : 0 }
            }
        }
        // Every waiter is asleep on the gate (the lock the gate's update takes is let go only
        // inside the wait), then one update wakes them all.
        #expect(counts.wait(until: { $0.waiting == waiters }, timeout: 10))
        gate.update { $0 = true }
        #expect(counts.wait(until: { $0.woken == waiters }, timeout: 10))
    }

    @Test func bodyRunsWithTheLockHeldAfterTheWait() {
        // A consumer takes what a producer put, atomically with the wait: nothing is lost or
        // taken twice.
        let items = GuardedCondition([Int]())
        let total = 1000
        spawn {
            for i in 0..<total { items.update { $0.append(i) } }
        }
        var taken: [Int] = []
        while taken.count < total {
            let got = items.withLock(when: { !$0.isEmpty }, deadline: MonotonicClock.seconds() + 10) { list, ready -> [Int] in
                defer { list.removeAll() }
                return ready ? list : []
            }
            if got.isEmpty { break }
            taken += got
        }
        #expect(taken == Array(0..<total))
    }
}
