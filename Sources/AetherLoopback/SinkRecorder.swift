import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Records what a PulseAudio null sink plays (`parec -d <sink>.monitor`) as 48 kHz s16 stereo.
///
/// `.shared`: the daemon's `nullsink`, where every player plays by default. A recording hears
/// everything played into it, so test processes that record it never overlap: the first such
/// recorder of a process takes an exclusive lock on a file beside the sink and the process keeps
/// it until it exits (the realtime tier is one process; nothing else plays meanwhile).
///
/// `.own`: a null sink of its own (`module-null-sink`, unloaded by `stop`), held at a sound
/// card's latency by a silent keep-alive stream as `pulse-null-sink.sh` holds the shared one; a
/// player started with `environment` (`PULSE_SINK`) plays into it and nothing else does, so
/// suites in several processes record at once (the network tier).
public final class SinkRecorder: @unchecked Sendable {  // the processes are only touched by the owner
    public enum Sink: Sendable { case shared, own }

    /// The lock's descriptor, open for the rest of the process once taken.
    private static let sinkLock: Int32 = {
        let directory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        let fd = open(directory + "/aether-null-sink.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if fd >= 0 { _ = flock(fd, LOCK_EX) }
        return fd
    }()

    /// Waits until no other test process records the shared sink, then keeps it for this one.
    public static func holdTheSink() { _ = sinkLock }

    public struct SinkError: Error, CustomStringConvertible {
        public let description: String
    }

    /// What a player process needs in its environment to play into this recorder's sink
    /// (empty for the shared sink, the default).
    public let environment: [String: String]

    private let process = Process()
    /// What parec has written to its standard output so far, read on a thread of its own.
    private let received = Received()
    private let started = MonotonicTime.now()
    /// The own sink's module and keep-alive stream (nil for the shared sink).
    private var ownSink: (module: String, keepAlive: Process)?

    public init(_ sink: Sink = .shared) throws {
        let name: String
        switch sink {
        case .shared:
            Self.holdTheSink()
            name = "nullsink"
            environment = [:]
        case .own:
            name = "aether-rec-\(getpid())-\(UUID().uuidString.prefix(8))"
            let load = Process.run(["/usr/bin/pactl", "load-module", "module-null-sink", "sink_name=\(name)",
                                    "rate=48000", "channels=2"], timeout: 10)
            let module = load.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            guard load.status == 0, !module.isEmpty else {
                throw SinkError(description: "pactl load-module module-null-sink: \(load.stderr)")
            }
            let keepAlive = Process()
            keepAlive.executableURL = URL(fileURLWithPath: "/usr/bin/pacat")
            keepAlive.arguments = ["-p", "-d", name, "--client-name=aether-keepalive", "--latency-msec=20", "--raw",
                                   "--format=s16le", "--rate=48000", "--channels=2", "/dev/zero"]
            try keepAlive.run()
            ownSink = (module, keepAlive)
            environment = ["PULSE_SINK": name]
        }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        process.arguments = ["-d", name + ".monitor", "--raw", "--format=s16le", "--rate=48000", "--channels=2",
                             "--latency-msec=10"]
        process.standardOutput = output
        do { try process.run() } catch { removeOwnSink(); throw error }
        // Process closes this process's copy of parec's end, so parec's exit ends the reading.
        let reading = output.fileHandleForReading, received = received
        Thread.detachNewThread { received.read(reading) }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        removeOwnSink()
    }

    /// Stops the keep-alive and unloads the own sink (once).
    private func removeOwnSink() {
        guard let (module, keepAlive) = ownSink else { return }
        ownSink = nil
        if keepAlive.isRunning {
            kill(keepAlive.processIdentifier, SIGKILL)
            keepAlive.waitUntilExit()
        }
        _ = Process.run(["/usr/bin/pactl", "unload-module", module], timeout: 10)
    }

    /// Seconds since recording started.
    public var elapsed: Double { MonotonicTime.now() - started }

    /// Samples per channel recorded so far (parec writes s16 stereo).
    public var samplesRecorded: Int { received.withLock { $0.count } / 4 }

    /// Waits until the recording holds `count` samples per channel (true), or `timeout` seconds
    /// pass (false). A recording window measured on the wall clock comes short when parec starts
    /// late on a loaded machine (27,647 samples of 28,800 in a CI run); the sink's own samples
    /// are the window.
    @discardableResult
    public func waitFor(samples count: Int, timeout: Double = 5) -> Bool {
        received.wait(forBytes: count * 4, timeout: timeout)
    }

    /// Records until the recording holds `count` samples per channel (or `timeout` passes),
    /// then stops and returns them.
    public func stop(after count: Int, timeout: Double = 5) -> (left: [Double], right: [Double]) {
        waitFor(samples: count, timeout: timeout)
        return stop()
    }

    /// What a command was heard to play (``hear(_:timeout:)``): how it ended, and the seconds
    /// from its launch to its first and its last sample above −34 dBFS (nil: it played nothing).
    public struct Heard: Sendable {
        public let run: ProcessResult
        public let first: Double?
        public let last: Double?
    }

    /// Runs `argv` to its end playing into a null sink of its own (`.own`), recorded from before
    /// its launch to a tenth of a second after its exit: the one measure of a first sound, for
    /// the suite and `aether-bench`.
    public static func hear(_ argv: [String], timeout: Double) throws -> Heard {
        let recorder = try SinkRecorder(.own)
        guard recorder.waitFor(samples: 4800) else { throw SinkError(description: "parec recorded nothing in 5 s") }
        let launched = recorder.samplesRecorded
        let run = Process.run(argv, environment: recorder.environment, timeout: timeout)
        // What the sink plays lags what parec has delivered by its latency: a little more.
        recorder.waitFor(samples: recorder.samplesRecorded + 4800)
        let (left, _) = recorder.stop()
        let loud = left.indices.filter { $0 >= launched && abs(left[$0]) > 0.02 }
        func seconds(_ sample: Int) -> Double { Double(sample - launched) / 48000 }
        return Heard(run: run, first: loud.first.map(seconds), last: loud.last.map(seconds))
    }

    /// Stops and returns the samples, de-interleaved (left, right) as Double in -1…1.
    public func stop() -> (left: [Double], right: [Double]) {
        // SIGKILL: a test runner may have SIGTERM ignored, and ignored signals survive exec.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        removeOwnSink()
        received.waitForEnd(timeout: 5)
        let data = received.withLock { $0 }
        var left: [Double] = [], right: [Double] = []
        data.withUnsafeBytes { raw in
            let s = raw.bindMemory(to: Int16.self)
            left.reserveCapacity(s.count / 2)
            right.reserveCapacity(s.count / 2)
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

/// A recorder's received bytes under a condition: the reading thread appends and wakes the
/// waiters; the end of parec's output ends it.
private final class Received: @unchecked Sendable {   // every field under `condition`
    private let condition = NSCondition()
    private var data = Data()
    private var ended = false

    /// Reads `handle` to its end.
    func read(_ handle: FileHandle) {
        while true {
            let chunk = handle.availableData   // blocks until bytes or the end
            condition.lock()
            if chunk.isEmpty { ended = true } else { data.append(chunk) }
            condition.broadcast()
            condition.unlock()
            if chunk.isEmpty { return }
        }
    }

    func withLock<T>(_ body: (Data) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(data)
    }

    /// Waits until `count` bytes came (true), or the output ended or `timeout` passed (false).
    func wait(forBytes count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while data.count < count, !ended, condition.wait(until: deadline) {}
        return data.count >= count
    }

    /// Waits until the output ended (or `timeout` passed).
    func waitForEnd(timeout: Double) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !ended, condition.wait(until: deadline) {}
    }
}

