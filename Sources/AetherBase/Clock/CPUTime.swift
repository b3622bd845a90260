#if canImport(Glibc)
import Glibc
#endif

/// The processor time spent so far, in seconds: what a cost is measured in (the bench's), read
/// here as the system's other clocks are (``MonotonicClock``).
public enum CPUTime {
    /// The whole process's (every thread's, libavfilter's workers included).
    public static var process: Double { read(CLOCK_PROCESS_CPUTIME_ID) }
    /// The calling thread's.
    public static var thread: Double { read(CLOCK_THREAD_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
