import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The most recent samples the audio thread wrote to the device, mixed to mono, with the media
/// time each run of them plays at: what a visualisation (spectrum, level meter) reads to show
/// "the samples playing now".
///
/// The audio thread calls ``append(_:channels:pts:mediaDuration:)`` once per chunk it writes,
/// and ``reset()`` when the device is reset (seek, speed change). It copies into memory allocated
/// once: no allocation per buffer, one short lock per chunk. Any thread may read
/// (``window(endingAt:into:)``).
public final class AudioTap: Sendable {
    /// Frames kept (a power of two): 1.4 s at 48 kHz, more than a device buffer and a window.
    public static let defaultCapacity = 1 << 16
    /// Chunks whose start time is remembered (a chunk is 20–100 ms).
    static let anchorCapacity = 128

    /// Samples per second of what is appended (the device's rate).
    public let sampleRate: Int
    public let capacity: Int

    /// Where a chunk starts: its first frame (counted since the last reset) and its media time.
    private struct Anchor {
        var frame: Int
        var pts: Double
        var secondsPerFrame: Double
    }

    /// The memory allocated once, and what is in it: touched only with the lock held.
    private struct Ring {
        let samples: UnsafeMutablePointer<Float>
        let anchors: UnsafeMutablePointer<Anchor>
        var anchorCount = 0
        /// Frames appended since the last reset.
        var written = 0
    }
    private let state: Guarded<Ring>

    public init(sampleRate: Int, capacity: Int = AudioTap.defaultCapacity) {
        self.sampleRate = max(1, sampleRate)
        var size = 1024
        while size < capacity { size <<= 1 }
        self.capacity = size
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: size)
        samples.initialize(repeating: 0, count: size)
        let anchors = UnsafeMutablePointer<Anchor>.allocate(capacity: Self.anchorCapacity)
        anchors.initialize(repeating: Anchor(frame: 0, pts: 0, secondsPerFrame: 0), count: Self.anchorCapacity)
        state = Guarded(Ring(samples: samples, anchors: anchors))
    }

    deinit {
        state.withLock {
            $0.samples.deallocate()
            $0.anchors.deallocate()
        }
    }

    /// Audio thread: `samples` (interleaved s16, `channels` per frame) start at media time `pts`
    /// and cover `mediaDuration` media seconds (more or less than their length at a speed ≠ 1).
    public func append(_ samples: UnsafeBufferPointer<Int16>, channels: Int, pts: Double, mediaDuration: Double) {
        let channels = max(1, channels)
        let frames = samples.count / channels
        guard frames > 0, pts.isFinite, mediaDuration.isFinite, mediaDuration > 0, let base = samples.baseAddress else { return }
        // Only the newest `capacity` frames of an oversized chunk can be kept.
        let skip = max(0, frames - capacity)
        let secondsPerFrame = mediaDuration / Double(frames)
        let scale = 1 / (32768 * Float(channels))
        let mask = capacity - 1
        state.withLock { r in
            r.anchors[r.anchorCount % Self.anchorCapacity] = Anchor(frame: r.written + skip, pts: pts + Double(skip) * secondsPerFrame,
                                                                    secondsPerFrame: secondsPerFrame)
            r.anchorCount += 1
            var source = base + skip * channels
            var slot = r.written + skip
            for _ in skip..<frames {
                var sum: Int32 = 0
                for c in 0..<channels { sum += Int32(source[c]) }
                r.samples[slot & mask] = Float(sum) * scale
                source += channels
                slot += 1
            }
            r.written += frames
        }
    }

    /// Audio thread: what was appended is no longer going to play (the device was reset).
    public func reset() {
        state.withLock {
            $0.written = 0
            $0.anchorCount = 0
        }
    }

    /// Fills `out` with the mono samples (−1…1) that end with the one playing at media time
    /// `time`: the last `out.count` samples heard. Samples not (or no longer) held are zeros.
    /// Returns false, with `out` all zeros, when nothing held plays at or before `time` (before
    /// the first chunk, after a reset).
    @discardableResult
    public func window(endingAt time: Double, into out: UnsafeMutableBufferPointer<Float>) -> Bool {
        guard let outBase = out.baseAddress else { return false }
        out.update(repeating: 0)
        return state.withLock { r in
            // The newest chunk that starts at or before `time`, among those still in the ring.
            let oldestFrame = r.written - capacity
            var end: Int?
            var k = r.anchorCount - 1
            while k >= max(0, r.anchorCount - Self.anchorCapacity) {
                let a = r.anchors[k % Self.anchorCapacity]
                if a.frame < oldestFrame { break }
                if a.pts <= time {
                    let offset = (time - a.pts) / max(1e-9, a.secondsPerFrame)
                    end = a.frame + Int(min(Double(capacity), offset.rounded(.down))) + 1
                    break
                }
                k -= 1
            }
            guard var last = end else { return false }
            last = min(last, r.written)
            let first = max(last - out.count, oldestFrame, 0)
            guard first < last else { return true }
            let mask = capacity - 1
            var target = outBase + (out.count - (last - first))
            for frame in first..<last {
                target.pointee = r.samples[frame & mask]
                target += 1
            }
            return true
        }
    }

    /// Convenience for callers holding an array: ``window(endingAt:into:)`` into `out`.
    @discardableResult
    public func window(endingAt time: Double, into out: inout [Float]) -> Bool {
        out.withUnsafeMutableBufferPointer { window(endingAt: time, into: $0) }
    }
}
