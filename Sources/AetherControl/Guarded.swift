import Foundation

/// A value behind a pthread mutex (NSLock), for state the host's thread and the remote front
/// ends' threads share. Used instead of `Synchronization.Mutex`: on Linux `Mutex` waits on
/// futexes ThreadSanitizer cannot see, so it reports every access it guards as a race (the
/// engine has its own copy of this type for the same reason).
final class Guarded<Value>: @unchecked Sendable {  // `value` is only touched with `lock` held
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
