import AetherBase
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Cancel flag and read deadline polled by libavformat's interrupt callback, so that a stalled
/// network read or a cancelled open never hangs the caller.
public final class InterruptToken: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Nanoseconds of ``clock`` at which blocking I/O gives up; 0 = no deadline.
    private let deadline = Atomic<UInt64>(0)
    /// What the deadline and the waits are read from: the operation's clock (the player's, a
    /// ``ManualTimeSource``'s in tests, where a wait lets the time pass at once).
    package let clock: TimeSource
    /// Set by ``fail()``: a reader refused what the source sent (over budget); every blocking
    /// call gives up, but the token does not count as cancelled by the user.
    private let failed = Atomic<Bool>(false)

    /// Broadcast on every change of the flags or the deadline: ``wait(seconds:)`` ends as soon
    /// as the token interrupts.
    /// Counts the changes (a state of a size of its own: ThreadSanitizer reports accesses to an
    /// empty one as races).
    private let changed = GuardedCondition(0)

    /// A token whose deadline and waits are on `clock`.
    public init(clock: TimeSource) { self.clock = clock }

    private var now: UInt64 { UInt64(max(0, (clock.seconds * 1e9).rounded())) }

    /// Makes every blocking call on this token give up (a reader refused the source).
    package func fail() { change { failed.store(true, ordering: .relaxed) } }

    public func cancel() { change { cancelled.store(true, ordering: .relaxed) } }
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Arms a deadline `seconds` from now (nil disarms it).
    public func arm(seconds: Double?) {
        change {
            guard let seconds else { deadline.store(0, ordering: .relaxed); return }
            deadline.store(now + UInt64((max(0, seconds) * 1e9).rounded()), ordering: .relaxed)
        }
    }

    private func change(_ body: () -> Void) {
        changed.update { count in
            body()
            count &+= 1
        }
    }

    /// Waits `seconds` (a retry's back-off); false as soon as the token interrupts (cancelled,
    /// failed, or its deadline passed), true when the time is up.
    package func wait(seconds: Double) -> Bool {
        if shouldInterrupt { return false }
        // A manual clock: the time passes at once, up to the deadline when that comes first.
        let d = deadline.load(ordering: .relaxed), n = now
        if clock.passAtOnce(seconds: d != 0 ? min(max(0, seconds), Double(d > n ? d - n : 0) / 1e9) : max(0, seconds)) {
            return !shouldInterrupt
        }
        // A clock that runs by itself: a condition wait in real time, as long as is left on it.
        let end = self.now + UInt64(max(0, seconds) * 1e9)
        while true {
            if shouldInterrupt { return false }
            let now = self.now
            guard now < end else { return true }
            // Wake at the read deadline too: passing it interrupts (and a new deadline is
            // looked at again).
            let d = deadline.load(ordering: .relaxed)
            let until = d != 0 && d > now ? min(end, d + 1) : end
            changed.wait(until: { _ in self.shouldInterrupt || self.deadline.load(ordering: .relaxed) != d },
                         timeout: Double(until &- now) / 1e9)
        }
    }

    /// libavformat's interrupt callback polling this token (for a format context or a
    /// connection opened with `avio_open2`). The token must outlive what it is given to.
    package var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: interruptCallback, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    package var shouldInterrupt: Bool {
        if isCancelled || failed.load(ordering: .relaxed) { return true }
        let d = deadline.load(ordering: .relaxed)
        return d != 0 && now >= d
    }
}

private let interruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque else { return 0 }
    return Unmanaged<InterruptToken>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
}
