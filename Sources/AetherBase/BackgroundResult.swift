
/// A value computed on a thread of its own (named, for logs and backtraces), waited for when
/// needed: the TUI's capability probe and terminfo entry.
public final class BackgroundResult<Value>: Sendable {
    /// Nil until the thread is done.
    private let value = GuardedCondition<Value?>(nil)

    public init(name: String, _ body: @escaping @Sendable () -> Value) {
        OSThread.start(name: name) { [value] in
            let result = body()
            value.update { $0 = result }
        }
    }

    /// Waits for the value (the probe: at most its budget plus a little).
    public func wait() -> Value {
        value.withLock(when: { $0 != nil }) { v, _ in v! }   // the predicate held: set
    }
}
