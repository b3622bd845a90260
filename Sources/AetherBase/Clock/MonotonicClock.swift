#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` in nanoseconds and seconds.
public enum MonotonicClock {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}

/// A deadline in `CLOCK_MONOTONIC` itself, for waits a C library or the kernel carries out in
/// that clock's terms (`poll`'s timeout, sd-bus's absolute timeouts): never an injected
/// ``TimeSource``, whose time they do not share. Decisions read the injected clock; this is
/// only where a wait meets the system.
public struct SystemDeadline: Sendable {
    /// `CLOCK_MONOTONIC` microseconds.
    public let microseconds: UInt64

    /// `seconds` from now.
    public init(after seconds: Double) {
        microseconds = MonotonicClock.nanoseconds() / 1000 + UInt64(max(0, min(seconds, 1e9)) * 1e6)
    }

    /// An absolute time a C library gave (sd-bus's `sd_bus_get_timeout`).
    public init(microseconds: UInt64) { self.microseconds = microseconds }

    /// Microseconds until the deadline; 0 once it has passed.
    public var microsecondsLeft: UInt64 {
        let now = MonotonicClock.nanoseconds() / 1000
        return microseconds > now ? microseconds - now : 0
    }

    /// Whole milliseconds until the deadline, rounded up (a `poll` timeout); 0 once passed.
    public var millisecondsLeft: Int32 { Int32(clamping: (microsecondsLeft + 999) / 1000) }

    public var hasPassed: Bool { microsecondsLeft == 0 }
}

/// How long work took (a sixel encode's stages, a frame step's decode): a cost reported to
/// statistics, measured on the ``TimeSource`` it is given, as every reading of the time outside
/// the roots is.
public struct Stopwatch: Sendable {
    private let clock: TimeSource
    private let start: Double

    /// A stopwatch started now on `clock` (the real one in the program, a manual one in tests).
    public init(clock: TimeSource) {
        self.clock = clock
        start = clock.seconds
    }

    /// Nanoseconds since the stopwatch was made.
    public var nanoseconds: UInt64 { UInt64(max(0, ((clock.seconds - start) * 1e9).rounded())) }
}

/// UTC seconds since 1970 (`CLOCK_REALTIME`): the time a live DASH manifest's availability is
/// stated in. Code that decides by it takes it as a closure (a fixed value in tests); this is
/// the one place it is read.
public enum WallClock {
    public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
