
/// A value behind a pthread mutex: the program's one lock wrapper, used instead of
/// `Synchronization.Mutex` for state shared between threads. On Linux `Mutex` waits on futexes
/// that ThreadSanitizer cannot see, so every access it guards is reported as a race, and a
/// sanitizer run must be able to tell real races from those.
public final class Guarded<Value>: @unchecked Sendable {  // `value` is only touched with `lock` held
    private let lock = PthreadLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
