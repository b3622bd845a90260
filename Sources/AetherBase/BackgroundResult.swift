/// A value computed on a thread of its own (the capability probe, the terminfo entry, an
/// item's open), read when it is needed. Thread-safe.
public final class BackgroundResult<Value>: Sendable {
    /// Nil until the thread is done.
    private let value = GuardedCondition<Value?>(nil)

    /// - Parameter whenDone: runs on the thread once the value is in (a host's loop is woken
    ///   to read it with ``finished``).
    public init(name: String, whenDone: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable () -> Value) {
        OSThread.start(name: name) { [value] in
            let result = body()
            value.update { $0 = result }
            whenDone?()
        }
    }

    /// Waits for the value (the probe: at most its budget plus a little).
    public func wait() -> Value {
        value.withLock(when: { $0 != nil }) { v, _ in v! }   // the predicate held: set
    }

    /// Waits at most `seconds` for the value (nil: not yet).
    public func wait(timeout seconds: Double) -> Value? {
        value.withLock(when: { $0 != nil }, timeout: seconds) { v, _ in v }
    }

    /// The value if the thread is done, without waiting.
    public var finished: Value? { value.withLock { $0 } }
}
