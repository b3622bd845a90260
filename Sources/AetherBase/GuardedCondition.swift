
/// A value behind a pthread mutex with a condition variable: the program's one
/// way to wait. A thread waits until a predicate on the value holds; a thread that changes the
/// value wakes the waiters (``update(_:)``), which re-check their predicate with the lock held.
/// Like ``Guarded``, it stays with pthreads so that ThreadSanitizer sees every wait.
public final class GuardedCondition<State>: @unchecked Sendable {  // `state` is only touched with `condition` held
    private let condition = PthreadLock()
    private var state: State
    /// Threads waiting on the condition now (only touched with `condition` held).
    private var waiting = 0

    public init(_ state: State) { self.state = state }

    /// The longest one wait on the condition lasts; a longer one is several, re-checking.
    static var longestWait: Double { 86_400 }

    /// Runs `body` with the lock held and wakes nobody: a look, or a change no waiter waits for.
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Runs `body` with the lock held, then wakes every waiter (they re-check their predicate).
    public func update<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// How many threads wait on the condition now: a test waits for a thread to be blocked
    /// (a condition, where a sleep would only hope so).
    public var waiters: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }

    /// Wakes every waiter. Call it after a change made under the lock (inside a `withLock` body
    /// too: it takes no lock), or to have the waiters re-check a predicate that also looks at
    /// something outside the state.
    public func broadcast() { condition.broadcast() }

    /// Waits until `ready` holds for the state, or until monotonic time `deadline` (nil:
    /// forever), then runs `body` with the lock still held; `body` learns whether `ready` held.
    /// `ready` runs with the lock held, at least every `recheck` seconds when given (for a
    /// predicate that also looks at something no ``update(_:)`` announces). `body` may change
    /// the state; it wakes nobody unless it calls ``broadcast()``.
    public func withLock<R>(
        when ready: (State) throws -> Bool, deadline: Double? = nil, recheck: Double? = nil,
        _ body: (inout State, Bool) throws -> R
    ) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        var satisfied = try ready(state)
        while !satisfied {
            var until = deadline
            if let recheck {
                let soon = MonotonicClock.seconds() + recheck
                until = min(until ?? soon, soon)
            }
            if let until {
                let now = MonotonicClock.seconds()
                if let deadline, now >= deadline { break }
                // At most a day per wait: a deadline of infinity has no timespec.
                waiting += 1
                condition.wait(until: now + min(until - now, Self.longestWait))
                waiting -= 1
            } else {
                waiting += 1
                condition.wait()
                waiting -= 1
            }
            satisfied = try ready(state)
        }
        return try body(&state, satisfied)
    }

    /// ``withLock(when:deadline:recheck:_:)`` with the deadline `timeout` seconds from now (nil:
    /// forever): the condition's own clock, read here, where the wait is.
    public func withLock<R>(
        when ready: (State) throws -> Bool, timeout: Double?, recheck: Double? = nil,
        _ body: (inout State, Bool) throws -> R
    ) rethrows -> R {
        try withLock(when: ready, deadline: timeout.map { MonotonicClock.seconds() + $0 }, recheck: recheck, body)
    }

    /// Waits until `ready` holds (true) or monotonic time `deadline` passes (false).
    @discardableResult
    public func wait(until ready: (State) -> Bool, deadline: Double?) -> Bool {
        withLock(when: ready, deadline: deadline) { _, satisfied in satisfied }
    }

    /// Waits until `ready` holds (true) or `timeout` seconds pass (false; nil: forever).
    @discardableResult
    public func wait(until ready: (State) -> Bool, timeout: Double?) -> Bool {
        wait(until: ready, deadline: timeout.map { MonotonicClock.seconds() + $0 })
    }
}
