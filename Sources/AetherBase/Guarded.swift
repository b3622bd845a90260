
/// A value behind a pthread mutex: the program's one lock wrapper, used instead of
/// `Synchronization.Mutex` for state shared between threads. On Linux `Mutex` waits on futexes
/// that ThreadSanitizer cannot see, so every access it guards is reported as a race, and a
/// sanitizer run must be able to tell real races from those.
public final class Guarded<Value>: @unchecked Sendable {  // `value` is only touched with `lock` held
    private let lock = PthreadLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the lock held, on the value itself (a change, or a look at part of it).
    ///
    /// Not for reading out a value that holds a function (a handler): through the `inout`, Swift
    /// hands `body` the closure reabstracted to its concrete type and stores it back wrapped in
    /// one more thunk each time, so every `withLock { $0 }` made the handler a call deeper (a
    /// playlist of 100 000 failing items overflowed the stack so). Read it with ``current``.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value, read with the lock held and nothing written back: the way to take
    /// out a handler to call.
    public var current: Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
