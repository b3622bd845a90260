import FoundationEssentials

/// Where code that decides by time reads it: the clock it is given (NIO's
/// `NIODeadline` behind an injectable loop, ffplay's `Clock` fed by one time function).
/// ``monotonic`` (`CLOCK_MONOTONIC`) in the program; a ``ManualTimeSource`` in tests, advanced
/// by hand, so logic that waits and measures (bit-rate switching, the master clock) runs in
/// milliseconds without sleeping.
///
/// Waits stay with their owner (a session's interruptible condition wait); code that waits
/// reads the time again afterwards, so under a manual clock the test's wait advances it.
public struct TimeSource: Sendable {
    private let read: @Sendable () -> Double
    /// Lets seconds pass on this clock (nil: they pass in real time).
    private let pass: (@Sendable (Double) -> Void)?

    /// `read`: monotonic seconds from an arbitrary origin, never going back; `pass`: lets that
    /// many seconds go by on it at once (a manual clock), nil for a clock that runs by itself.
    public init(_ read: @escaping @Sendable () -> Double, pass: (@Sendable (Double) -> Void)? = nil) {
        self.read = read
        self.pass = pass
    }

    /// Monotonic seconds.
    public var seconds: Double { read() }

    /// An asynchronous wait of `seconds` on this clock: a task's sleep on ``monotonic``; on a
    /// ``ManualTimeSource`` the time passes at once (and the task yields), as its
    /// ``ManualTimeSource/wait(seconds:)`` does for the code under test. Ends early when the
    /// task is cancelled.
    public func sleep(seconds: Double) async {
        guard seconds.isFinite, seconds > 0 else { return }
        if let pass {
            pass(seconds)
            await Task.yield()
        } else {
            try? await Task.sleep(nanoseconds: UInt64(min(seconds, 1e9) * 1e9))
        }
    }

    /// Lets `seconds` go by at once on a clock that moves only when told (a
    /// ``ManualTimeSource``'s) and says so; false for a clock that runs by itself, on which the
    /// caller waits in real time (a condition's deadline, a poll).
    package func passAtOnce(seconds: Double) -> Bool {
        guard let pass else { return false }
        if seconds.isFinite, seconds > 0 { pass(seconds) }
        return true
    }

    /// `CLOCK_MONOTONIC`.
    public static let monotonic = TimeSource { MonotonicClock.seconds() }
}

/// A clock that moves only when told: whole milliseconds, from `start`. ``wait(seconds:)`` is
/// a wait that lets the time pass at once, for the `wait:` closures of the code under test.
public final class ManualTimeSource: Sendable {
    private let now: Guarded<Int64>

    public init(milliseconds start: Int64 = 0) { now = Guarded(start) }

    /// Milliseconds since the origin.
    public var milliseconds: Int64 { now.withLock { $0 } }
    public var seconds: Double { Double(milliseconds) / 1000 }

    public func advance(milliseconds ms: Int64) {
        precondition(ms >= 0, "a monotonic clock never goes back")
        now.withLock { $0 += ms }
    }

    /// Advances by `seconds`, rounded up to a whole millisecond (a wait never ends early; a
    /// nanosecond over, the rounding error of a difference of seconds, does not count).
    public func advance(seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        advance(milliseconds: Int64((seconds * 1000 - 1e-6).rounded(.up)))
    }

    /// Lets `seconds` pass and says the wait was not interrupted.
    public func wait(seconds: Double) -> Bool {
        advance(seconds: seconds)
        return true
    }

    /// This clock as the source the code under test reads (its ``TimeSource/sleep(seconds:)``
    /// advances this clock).
    public var source: TimeSource { TimeSource({ [self] in self.seconds }, pass: { [self] in advance(seconds: $0) }) }
}
