import AetherBase
import AetherMedia
import AetherStreaming
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Thumbnails for a player's scrub mode and filmstrip (and its screenshots' extractor), fetched off the UI thread: cut from the sheets of the source's
/// thumbnail track when its manifest publishes one (``SpriteSheetStills``: an HTTP(S) DASH or HLS
/// source), else (and for any sheet that cannot be had) decoded by a ``FrameExtractor`` (its
/// own demuxer and decoder). Playback is never touched.
///
/// One worker task asks for one thumbnail at a time: the newest position the UI wants first
/// (positions the marker passed meanwhile are skipped), and while nothing is wanted, the
/// thumbnails around the marker and then along the whole timeline, so that moving the marker
/// finds them cached (with a thumbnail track, only the sheets within a minute of the marker:
/// each covers many positions, and the whole timeline's would crowd the cache). The UI polls
/// ``take()``.
public final class ThumbnailFetcher: Sendable {
    public let extractor: FrameExtractor
    /// The manifest's thumbnail track, for a source that may have one.
    public let sprites: SpriteSheetStills?
    private struct State {
        var wanted: Double?
        var delivered: (time: Double, image: StillImage)?
        /// Filmstrip positions still to fetch, and what arrived for them.
        var strip: [Double] = []
        /// The strip's pictures are exact frames (chapters), not the keyframes before them.
        var stripExact = false
        var stripDelivered: [(time: Double, image: StillImage)] = []
        var around: Double = 0
        var duration: Double = 0
        var prefetch: [Double] = []
        var stopped = false
        var wake: CheckedContinuation<Void, Never>?
    }
    private let state = Guarded(State())
    private let width: Int
    private let task = Guarded<Task<Void, Never>?>(nil)

    /// - Parameter width: thumbnail width in pixels (one size for the cache).
    /// Runs (on the worker) when a thumbnail was delivered: wakes the UI loop.
    private let delivered: @Sendable () -> Void

    public init(url: String, network: NetworkSettings, width: Int = 320, clock: TimeSource, delivered: @escaping @Sendable () -> Void = {}) {
        self.delivered = delivered
        extractor = FrameExtractor(url: url, network: network, clock: clock)
        sprites = SpriteSheetStills.isCandidate(url)
            ? SpriteSheetStills(url: url, network: network, preferredWidth: width, clock: clock) : nil
        self.width = width
        let t = Task.detached(priority: .utility) { [self] in await work() }
        task.withLock { $0 = t }
    }

    /// UI thread: show the thumbnail for `time` as soon as there is one.
    public func request(_ time: Double, duration: Double) {
        let wake = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.wanted = time
            if abs(s.around - time) > 30 || s.duration != duration || s.prefetch.isEmpty {
                s.around = time
                s.duration = duration
                s.prefetch = Self.prefetchOrder(around: time, duration: duration)
            }
            defer { s.wake = nil }
            return s.wake
        }
        wake?.resume()
    }

    /// UI thread: fetch all of `times` (the filmstrip), in order, after the marker's wish;
    /// `exact`: the frame at each time, not the keyframe at or before it.
    public func requestStrip(_ times: [Double], exact: Bool = false) {
        let wake = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.strip = times
            s.stripExact = exact
            s.stripDelivered.removeAll()
            defer { s.wake = nil }
            return s.wake
        }
        wake?.resume()
    }

    /// Filmstrip thumbnails delivered since the last call.
    public func takeStrip() -> [(time: Double, image: StillImage)] {
        state.withLock { s in
            defer { s.stripDelivered.removeAll() }
            return s.stripDelivered
        }
    }

    /// The newest thumbnail delivered since the last call.
    public func take() -> (time: Double, image: StillImage)? {
        state.withLock { s in
            defer { s.delivered = nil }
            return s.delivered
        }
    }

    /// Ends the worker and releases the extractor's FFmpeg resources.
    public func shutdown() async {
        let wake = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.stopped = true
            defer { s.wake = nil }
            return s.wake
        }
        wake?.resume()
        // The extractor first: a decode the worker waits on may sit in a read stalled on the
        // network, which only the extractor's shutdown interrupts (the worker ended after it).
        await extractor.shutdown()
        await task.withLock { $0 }?.value
        await sprites?.shutdown()
    }

    /// Seconds to prefetch, nearest first: every 5 s for a minute around the marker, then the
    /// whole timeline in 40 steps.
    public static func prefetchOrder(around time: Double, duration: Double) -> [Double] {
        guard duration > 0 else { return [] }
        var order: [Double] = []
        for step in 1...12 {
            for sign in [1.0, -1.0] {
                let t = time + sign * Double(step) * 5
                if t >= 0, t < duration { order.append(t) }
            }
        }
        for i in 0..<40 { order.append(duration * Double(i) / 40) }
        return order
    }

    private enum Job { case marker(Double), strip(Double, exact: Bool), prefetch(Double) }

    private func work() async {
        while true {
            guard let job = await nextJob() else { return }
            switch job {
            case .marker(let time), .strip(let time, false):
                guard let image = await thumbnail(at: time) else { continue }
                state.withLock { s in
                    // A newer wish may have arrived meanwhile: it is served next, this one is shown now.
                    if case .marker = job { s.delivered = (time, image) } else { s.stripDelivered.append((time, image)) }
                }
                delivered()
            case .strip(let time, true):
                guard let image = try? await extractor.snapshot(at: time, maxWidth: width) else { continue }
                state.withLock { $0.stripDelivered.append((time, image)) }
                delivered()
            case .prefetch(let time):
                if let sprites, await sprites.track() != nil {
                    let around = state.withLock { $0.around }
                    if abs(time - around) <= 60, await !sprites.hasCachedSheet(at: time) {
                        _ = await sprites.thumbnail(at: time, maxWidth: width)
                    }
                    continue
                }
                if await extractor.cachedThumbnail(at: time) != nil { continue }
                _ = try? await extractor.thumbnail(at: time, maxWidth: width)
            }
        }
    }

    /// The thumbnail for `time`: from the thumbnail track when there is one and its sheet can be
    /// had, else decoded.
    private func thumbnail(at time: Double) async -> StillImage? {
        if let sprites, await sprites.track() != nil {
            if let image = await sprites.cachedThumbnail(at: time, maxWidth: width) { return image }
            if let image = await sprites.thumbnail(at: time, maxWidth: width) { return image }
        }
        if let image = await extractor.cachedThumbnail(at: time) { return image }
        return try? await extractor.thumbnail(at: time, maxWidth: width)
    }

    /// The wanted position, else the next prefetch position, else waits for a wish; nil when stopped.
    private func nextJob() async -> Job? {
        while true {
            let job = state.withLock { s -> Job?? in
                if s.stopped { return .some(nil) }
                if let t = s.wanted { s.wanted = nil; return .marker(t) }
                if !s.strip.isEmpty { return .strip(s.strip.removeFirst(), exact: s.stripExact) }
                if !s.prefetch.isEmpty { return .prefetch(s.prefetch.removeFirst()) }
                return nil
            }
            if let job { return job }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.stopped || s.wanted != nil || !s.strip.isEmpty { return true }
                    s.wake = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }
}
