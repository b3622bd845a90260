#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A pthread mutex with a condition variable on the monotonic clock: what ``Guarded`` and
/// ``GuardedCondition`` stand on. The pthread objects live on the heap (they must not move)
/// and are destroyed with the lock.
final class PthreadLock: @unchecked Sendable {   // the pthread objects are the synchronisation
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines are monotonic seconds (``MonotonicClock``): a wall-clock step cannot
        // stretch or cut a wait.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (the lock held) until woken.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (the lock held) until woken or monotonic time `deadline` (seconds) passes.
    func wait(until deadline: Double) {
        let whole = deadline.rounded(.down)
        var ts = timespec(tv_sec: Int(whole), tv_nsec: Int(((deadline - whole) * 1e9).rounded(.down)))
        if ts.tv_nsec >= 1_000_000_000 { ts.tv_sec += 1; ts.tv_nsec -= 1_000_000_000 }
        _ = pthread_cond_timedwait(condition, mutex, &ts)
    }
}
