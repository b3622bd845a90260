import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A sink that plays nothing but paces like a device with `bufferSeconds` of buffer, so headless
/// playback with `--ao=null` still runs in real time.
public final class NullSink: AudioSink {
    public let format: AudioFormat
    public let bufferSeconds: Double
    public var name: String { "null" }
    public var isClockSource: Bool { true }
    public var bufferFrames: Int { Int(bufferSeconds * Double(format.sampleRate)) }
    /// Monotonic time at which everything written so far will have been "heard".
    private var playedUntil: Double = 0
    private var pausedAt: Double? = nil
    private let interrupted = GuardedCondition(false)
    /// The "device's" time: the session's clock.
    private let time: TimeSource

    public func interrupt() { interrupted.update { $0 = true } }

    /// Sleeps `seconds` unless interrupted.
    private func pause(_ seconds: Double) { interrupted.wait(until: { $0 }, timeout: seconds) }

    public init(format: AudioFormat, bufferSeconds: Double = 0.1, time: TimeSource) {
        self.time = time
        self.format = format
        self.bufferSeconds = bufferSeconds
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        let seconds = Double(samples.count / format.channels) / Double(format.sampleRate)
        let now = time.seconds
        if pausedAt != nil { setPaused(false) }
        playedUntil = max(playedUntil, now) + seconds
        let wait = playedUntil - bufferSeconds - now
        if wait > 0 { pause(wait) }
    }

    public func delayFrames() -> Int {
        let now = pausedAt ?? time.seconds
        return max(0, Int(saturating: ((playedUntil - now) * Double(format.sampleRate)).rounded()))
    }

    public func setPaused(_ paused: Bool) {
        let now = time.seconds
        if paused, pausedAt == nil { pausedAt = now }
        if !paused, let at = pausedAt {
            if playedUntil > at { playedUntil += now - at }
            pausedAt = nil
        }
    }

    public func reset() { playedUntil = 0; pausedAt = nil }
    public func drain() {
        let wait = playedUntil - time.seconds
        if wait > 0, pausedAt == nil { pause(min(wait, bufferSeconds + 1)) }
    }
}
