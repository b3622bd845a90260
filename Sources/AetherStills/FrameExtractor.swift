import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Thumbnails and exact snapshots of a source, taken with its own demuxer and decoder: a
/// preview decode never touches playback (the picture on screen, the clock, the audio).
///
/// Blocking FFmpeg work runs on one dedicated thread (``ExtractionThread``), not on Swift's
/// cooperative pool; this actor only queues requests and awaits their results. The source opens
/// lazily on the first request (or ``prewarm()``), closes after `idleTimeout` seconds without
/// requests (dropping the cache), and reopens on the next one; ``shutdown()`` is final.
///
/// A newer request, thumbnail or snapshot, supersedes every earlier one: work in flight stops at
/// its next packet or frame, and every superseded call returns nil, even one whose picture was
/// already decoded (that picture still goes into the cache). While scrubbing, the latest position
/// wins.
public actor FrameExtractor {
    public nonisolated let url: String
    private let idleTimeout: Double
    /// What the idle close is timed by.
    private let clock: TimeSource
    /// The one thread the blocking work runs on (internal: tests occupy it to queue requests).
    nonisolated let thread: ExtractionThread<ExtractionContext>
    private let gate = RequestGate()
    private let status = ExtractionStatus()
    /// Every blocking read of the source (its open, a manifest's fetch, the demuxer's reads)
    /// polls it: ``shutdown()`` cancels it, so a read stalled on the network ends at once
    /// instead of at its deadline.
    private let interrupt: InterruptToken
    private var cache = StillCache()
    private var counters = FrameExtractorStatistics()
    private var isShutDown = false
    private var inFlight = 0
    /// When the last request finished (monotonic seconds).
    private var lastActivity = 0.0
    /// Sleeps on ``clock`` until `lastActivity + idleTimeout`, then closes the source if nothing
    /// came since. One at a time: a timer per request would leave a pending sleep per request behind.
    private var idleWatcher: Task<Void, Never>?
    /// The last idle watcher started, kept after it ended (``idleWatcherEnded()``).
    private var lastIdleWatcher: Task<Void, Never>?

    /// Returns once the last idle watcher ended: the source was closed for idleness (its cache
    /// dropped), or the extractor shut down.
    package func idleWatcherEnded() async { await lastIdleWatcher?.value }

    /// Seconds a request's network reads (and the open) may block before giving up.
    public static let readTimeout = 8.0

    /// - Parameters:
    ///   - url: a file or any URL libavformat opens (same protocol whitelist as playback).
    ///   - headers: HTTP headers for network sources (its own connection, as playback's).
    ///   - idleTimeout: seconds without requests after which the source is closed.
    ///   - decoderThreads: decoder threads, at most 2.
    public init(url: String, headers: [String: String] = [:], idleTimeout: Double = 10, decoderThreads: Int = 2, clock: TimeSource) {
        var network = NetworkSettings()
        network.headers = headers
        self.init(url: url, network: network, idleTimeout: idleTimeout, decoderThreads: decoderThreads, clock: clock)
    }

    /// As ``init(url:headers:idleTimeout:decoderThreads:clock:)``, with every network setting of
    /// playback (headers, user agent, referrer; a network source goes through the resilient
    /// reader, with the extractor's own shorter read deadline).
    public init(url: String, network: NetworkSettings, idleTimeout: Double = 10, decoderThreads: Int = 2,
                clock: TimeSource) {
        self.url = url
        self.clock = clock
        self.idleTimeout = idleTimeout.sane(in: 0...86_400) ?? 10
        var settings = network
        settings.readTimeout = min(settings.readTimeout, FrameExtractor.readTimeout)
        settings.retries = min(settings.retries, 2)
        let network = settings
        let options: Result<[String: String], FrameExtractorError>
        do { options = .success(try SourceOptions.make(network: network)) } catch {
            options = .failure(.invalidHeader(error.description))
        }
        let threads = max(1, min(2, decoderThreads))
        let status = self.status
        let interrupt = InterruptToken(clock: clock)
        self.interrupt = interrupt
        thread = ExtractionThread(name: "aether-frames") {
            ExtractionContext(url: url, options: options, network: network, threads: threads,
                              readTimeout: FrameExtractor.readTimeout, status: status, interrupt: interrupt)
        }
    }

    deinit {
        idleWatcher?.cancel()
        thread.stop()
    }

    /// Opens the demuxer and decoder now, ahead of a scrub gesture (errors wait for the first request).
    public func prewarm() async {
        guard !isShutDown else { return }
        await perform { context in _ = try? context.open() }
        armIdleTimer()
    }

    /// The nearest keyframe at or before `seconds` (clamped into the media), decoded alone and
    /// scaled to at most `maxWidth` pixels wide with the display aspect (sample aspect ratio and
    /// rotation applied). nil when a newer request superseded this one.
    public func thumbnail(at seconds: Double, maxWidth: Int = 320) async throws -> StillImage? {
        let request = try begin()
        let width = max(1, maxWidth)
        if let hit = cache.thumbnail(at: clamp(seconds), width: width) {
            counters.cacheHits += 1
            armIdleTimer()
            return hit
        }
        guard let (image, position) = try await decode(request, at: seconds, .thumbnail(maxWidth: width)) else { return nil }
        cache.insertThumbnail(image, at: position, requestedWidth: width)
        return delivered(image, request)
    }

    /// The exact frame shown at `seconds` (decoded forward from the keyframe before it: the frame
    /// whose interval contains the time), at the display size or fitted into `maxWidth` ×
    /// `maxHeight`. nil when a newer request superseded this one.
    public func snapshot(at seconds: Double, maxWidth: Int? = nil, maxHeight: Int? = nil) async throws -> StillImage? {
        let request = try begin()
        let bounds = (maxWidth.map { max(1, $0) }, maxHeight.map { max(1, $0) })
        if let hit = cache.snapshot(at: clamp(seconds), maxWidth: bounds.0, maxHeight: bounds.1) {
            counters.cacheHits += 1
            armIdleTimer()
            return hit
        }
        guard let (image, position) = try await decode(request, at: seconds, .snapshot(maxWidth: bounds.0, maxHeight: bounds.1)) else {
            return nil
        }
        let interval = status.timing.withLock { $0?.frameInterval } ?? 1.0 / 25
        cache.insertSnapshot(image, at: position, maxWidth: bounds.0, maxHeight: bounds.1, frameInterval: interval)
        return delivered(image, request)
    }

    /// The cached thumbnail for `seconds`' whole second, at whatever size it was made, without
    /// decoding (an instant preview while a precise one is on its way); nil when none is cached.
    public func cachedThumbnail(at seconds: Double) -> StillImage? {
        let hit = cache.anyThumbnail(at: clamp(seconds))
        if hit != nil { counters.cacheHits += 1 }
        return hit
    }

    /// Drops every cached still (the source stays open): the next requests decode.
    public func clearCache() { cache.removeAll() }

    /// The media's length in seconds once the source has been opened (nil before, or when the
    /// container does not say).
    public var duration: Double? { status.timing.withLock { $0?.duration } }

    /// Stops all work and waits until every FFmpeg resource is released. Permanent: later
    /// requests throw ``FrameExtractorError/shutDown``.
    public func shutdown() async {
        isShutDown = true
        _ = gate.next()  // whatever is in flight stops at its next check
        interrupt.cancel()  // and a read blocked on the network now
        // No request begins now: whoever waits for one is let go.
        requestWaiters.forEach { $0.resume.resume() }
        requestWaiters = []
        idleWatcher?.cancel()
        idleWatcher = nil
        cache.removeAll()
        await thread.stopAndWait()
    }

    public var statistics: FrameExtractorStatistics {
        var s = counters
        s.isOpen = status.isOpen.load(ordering: .relaxed)
        s.opens = status.opens.load(ordering: .relaxed)
        s.thumbnailsCached = cache.thumbnailCount
        s.snapshotsCached = cache.snapshotCount
        s.cacheBytes = cache.bytes
        return s
    }

    // MARK: requests

    /// A new current request (superseding the one in flight).
    private func begin() throws(FrameExtractorError) -> UInt64 {
        guard !isShutDown else { throw .shutDown }
        counters.requests += 1
        let ready = requestWaiters.filter { $0.count <= counters.requests }
        requestWaiters.removeAll { $0.count <= counters.requests }
        for waiter in ready { waiter.resume.resume() }
        return gate.next()
    }

    /// Those waiting for a number of requests to have begun (``requestsBegan(_:)``).
    private var requestWaiters: [(count: Int, resume: CheckedContinuation<Void, Never>)] = []

    /// Returns once `count` requests have begun since the extractor was made: for a caller (a
    /// test) that orders its requests by a condition rather than by polling the statistics.
    package func requestsBegan(_ count: Int) async {
        if counters.requests >= count { return }
        await withCheckedContinuation { requestWaiters.append((count, $0)) }
    }

    /// The position as the decoder will take it, when the source's length is known.
    private func clamp(_ seconds: Double) -> Double {
        let t = seconds.isFinite ? max(0, seconds) : 0
        guard let last = status.timing.withLock({ $0?.lastPosition }) else { return t }
        return min(t, last)
    }

    /// `image` when `request` is still the newest, else nil (counted as superseded).
    private func delivered(_ image: StillImage, _ request: UInt64) -> StillImage? {
        guard gate.isCurrent(request) else {
            counters.superseded += 1
            return nil
        }
        return image
    }

    private struct Outcome: Sendable {
        var image: StillImage?
        var position: Double
    }

    /// Runs one decode on the thread: nil (counted) when superseded before or during it.
    private func decode(_ request: UInt64, at seconds: Double, _ kind: StillDecoder.Request) async throws -> (StillImage, Double)? {
        inFlight += 1
        defer {
            inFlight -= 1
            armIdleTimer()
        }
        let gate = self.gate
        let outcome: Outcome? = try await withCheckedThrowingContinuation { done in
            let queued = thread.submit { context in
                // Superseded while queued: not even opened.
                guard gate.isCurrent(request) else { return done.resume(returning: nil) }
                do {
                    let decoder = try context.open()
                    let position = decoder.clamp(seconds)
                    let image = try decoder.extract(at: position, kind) { !gate.isCurrent(request) }
                    done.resume(returning: Outcome(image: image, position: position))
                } catch {
                    // A failed read may leave the demuxer anywhere: start afresh next time.
                    context.close()
                    if gate.isCurrent(request) { done.resume(throwing: error) } else { done.resume(returning: nil) }
                }
            }
            if !queued { done.resume(throwing: FrameExtractorError.shutDown) }
        }
        guard let outcome else {
            counters.superseded += 1
            return nil
        }
        counters.decodes += 1
        guard let image = outcome.image else {
            counters.superseded += 1
            return nil
        }
        return (image, outcome.position)
    }

    /// Runs `job` on the thread and waits for it.
    private func perform(_ job: @escaping @Sendable (ExtractionContext) -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let queued = thread.submit { context in
                job(context)
                done.resume()
            }
            if !queued { done.resume() }
        }
    }

    // MARK: idle close

    private func armIdleTimer() {
        guard inFlight == 0, !isShutDown else { return }
        lastActivity = clock.seconds
        guard idleWatcher == nil else { return }
        idleWatcher = Task { [weak self, clock] in
            while let wait = await self?.idleWait() {
                await clock.sleep(seconds: wait)
                if Task.isCancelled { return }
            }
        }
        lastIdleWatcher = idleWatcher
    }

    /// Seconds the watcher sleeps before it looks again; nil when it ends (the source was closed
    /// for idleness, and the cache dropped, or the extractor shut down).
    private func idleWait() async -> Double? {
        guard !isShutDown else { return nil }
        let left = lastActivity + idleTimeout - clock.seconds
        if inFlight > 0 || left > 0 { return max(0.01, inFlight > 0 ? idleTimeout : left) }
        // Cleared before the wait: a request arriving meanwhile arms a new watcher.
        idleWatcher = nil
        cache.removeAll()
        await perform { $0.close() }
        return nil
    }
}
