import Foundation

/// Records what the PulseAudio null sink plays (`parec -d nullsink.monitor`) as 48 kHz s16 stereo.
///
/// A recording hears everything played into the sink, so test processes that record never
/// overlap: the first recorder of a process takes an exclusive lock on a file beside the sink and
/// the process keeps it until it exits (test.sh runs a tier's suites in several processes at once;
/// a suite that records makes the others that record wait for it, and nothing else of a tier
/// that records plays into the sink).
public final class SinkRecorder: @unchecked Sendable {  // the process is only touched by the owner
    /// The lock's descriptor, open for the rest of the process once taken.
    private static let sinkLock: Int32 = {
        let directory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        let fd = open(directory + "/aether-null-sink.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if fd >= 0 { _ = flock(fd, LOCK_EX) }
        return fd
    }()

    /// Waits until no other test process records, then keeps the sink for this one.
    public static func holdTheSink() { _ = sinkLock }

    private let process = Process()
    private let file: URL
    private let started = MonotonicTime.now()

    public init() throws {
        Self.holdTheSink()
        file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("aether-rec-\(UUID().uuidString).raw")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        process.arguments = ["-d", "nullsink.monitor", "--raw", "--format=s16le", "--rate=48000", "--channels=2",
                             "--latency-msec=10", file.path]
        try process.run()
    }

    /// Seconds since recording started.
    public var elapsed: Double { MonotonicTime.now() - started }

    /// Stops and returns the samples, de-interleaved (left, right) as Double in -1…1.
    public func stop() -> (left: [Double], right: [Double]) {
        // SIGKILL: a test runner may have SIGTERM ignored, and ignored signals survive exec.
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { Thread.sleep(forTimeInterval: 0.005) }
        let data = (try? Data(contentsOf: file)) ?? Data()
        try? FileManager.default.removeItem(at: file)
        var left: [Double] = [], right: [Double] = []
        data.withUnsafeBytes { raw in
            let s = raw.bindMemory(to: Int16.self)
            left.reserveCapacity(s.count / 2); right.reserveCapacity(s.count / 2)
            var i = 0
            while i + 1 < s.count {
                left.append(Double(Int16(littleEndian: s[i])) / 32768)
                right.append(Double(Int16(littleEndian: s[i + 1])) / 32768)
                i += 2
            }
        }
        return (left, right)
    }
}

public enum MonotonicTime {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Small signal measurements for audio assertions.
public enum Signal {
    public static func rmsDBFS(_ x: ArraySlice<Double>) -> Double {
        guard !x.isEmpty else { return -.infinity }
        let ms = x.reduce(0) { $0 + $1 * $1 } / Double(x.count)
        return 10 * log10(max(ms, 1e-20))
    }

    /// Amplitude (0…1) of the `frequency` component (Goertzel), for a sine of amplitude A ≈ A.
    public static func amplitude(_ x: ArraySlice<Double>, frequency: Double, rate: Double = 48000) -> Double {
        let n = Double(x.count)
        guard n > 0 else { return 0 }
        let w = 2 * Double.pi * frequency / rate
        let c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s0 = v + c * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - c * s1 * s2
        return 2 * sqrt(max(0, power)) / n
    }

    /// The strongest frequency between `low` and `high` Hz, in 1 Hz steps around coarse 10 Hz ones.
    public static func dominantFrequency(_ x: ArraySlice<Double>, low: Double = 50, high: Double = 4000) -> Double {
        var best = low, bestA = 0.0
        for f in stride(from: low, through: high, by: 10) {
            let a = amplitude(x, frequency: f)
            if a > bestA { bestA = a; best = f }
        }
        for f in stride(from: best - 10, through: best + 10, by: 1) {
            let a = amplitude(x, frequency: f)
            if a > bestA { bestA = a; best = f }
        }
        return best
    }
}
