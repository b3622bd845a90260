import AetherBase
import AetherMedia
import AetherStreaming
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Stills cut from the sprite sheets of an adaptive stream's thumbnail track (``SpriteTrack``,
/// what the manifest describes: a DASH-IF image adaptation set, an HLS
/// `#EXT-X-IMAGE-STREAM-INF`): a scrub preview without decoding any video. Each sheet is
/// fetched once, with the source's network settings (its headers on every request), decoded by
/// libavcodec (JPEG, PNG, WebP) and kept, as RGB, in a bounded LRU cache.
///
/// The manifest is read on the first request (or ``track()``). Fetching and decoding run on one
/// dedicated thread (``ExtractionThread``), never on Swift's cooperative pool or the caller's.
/// As with the ``FrameExtractor``, a newer request supersedes earlier ones: a sheet download for
/// another sheet stops at its next read, and every superseded call returns nil (a sheet that
/// arrived still goes into the cache). A sheet that cannot be fetched or decoded gives nil (the
/// caller falls back to decoding video) and is not asked for again for ``retryAfter`` seconds.
public actor SpriteSheetStills {
    public nonisolated let url: String
    private let preferredWidth: Int
    /// What a failed sheet's retry pause is timed by.
    private let clock: TimeSource
    private let thread: ExtractionThread<SpriteFetchContext>
    private let gate = RequestGate()
    /// Cancels the manifest fetch at shutdown.
    private let lifetime: InterruptToken
    private var loading: Task<SpriteTrack?, Never>?
    private var loaded: SpriteTrack??
    private var cache: SpriteSheetCache
    private var fetches: [String: (task: Task<DecodedSheet?, Never>, token: InterruptToken)] = [:]
    /// Sheets that failed, and when (monotonic seconds).
    private var failed: [String: Double] = [:]
    private var counters = SpriteSheetStillsStatistics()
    private var isShutDown = false

    /// Seconds a failed sheet is left alone before it is tried again.
    public static let retryAfter = 30.0
    /// Largest sheet file fetched.
    public static let maxSheetBytes = 16 << 20

    /// Whether `url` may publish a thumbnail track this type reads: an HTTP(S) DASH manifest or
    /// HLS playlist.
    public static func isCandidate(_ url: String) -> Bool {
        let scheme = NetworkSettings.scheme(of: url)
        return (scheme == "http" || scheme == "https") && (StreamVariants.isDASH(url) || StreamVariants.isHLS(url))
    }

    /// - Parameters:
    ///   - url: the DASH manifest or HLS master playlist (a local path works too).
    ///   - network: playback's network settings (headers, user agent, referrer); reads wait at
    ///     most ``FrameExtractor/readTimeout`` seconds and are retried at most twice.
    ///   - preferredWidth: which thumbnail size to pick when the manifest offers several.
    ///   - cacheBytes: pixel bytes of decoded sheets kept.
    public init(url: String, network: NetworkSettings, preferredWidth: Int = 320, cacheBytes: Int = 32 << 20,
                clock: TimeSource) {
        self.url = url
        self.clock = clock
        lifetime = InterruptToken(clock: clock)
        self.preferredWidth = max(1, preferredWidth)
        cache = SpriteSheetCache(byteLimit: max(0, cacheBytes))
        var settings = network
        settings.readTimeout = min(settings.readTimeout, FrameExtractor.readTimeout)
        settings.retries = min(settings.retries, 2)
        let fetchSettings = settings
        let options = try? SourceOptions.make(network: settings)
        thread = ExtractionThread(name: "aether-sprites") {
            SpriteFetchContext(options: options, network: fetchSettings)
        }
    }

    deinit {
        lifetime.cancel()
        thread.stop()
    }

    /// The track the manifest publishes (read once; nil when there is none or it cannot be read).
    public func track() async -> SpriteTrack? {
        if let loaded { return loaded }
        if isShutDown { return nil }
        if let loading { return await loading.value }
        let url = self.url, width = preferredWidth, lifetime = self.lifetime
        let task = Task { () -> SpriteTrack? in
            let track = await self.run { $0.loadTrack(url, preferredWidth: width, interrupt: lifetime) } ?? nil
            self.loaded = .some(track)
            self.loading = nil
            return track
        }
        loading = task
        return await task.value
    }

    /// The thumbnail standing for `seconds` (before the first, the first; past the end, the
    /// last), no wider than `maxWidth` (narrowed with its aspect kept, never enlarged); its
    /// `seconds` is the start of the time the thumbnail stands for. Nil without a track, when the
    /// sheet cannot be had, or when a newer request superseded this one.
    public func thumbnail(at seconds: Double, maxWidth: Int = 320) async -> StillImage? {
        guard !isShutDown else { return nil }
        counters.requests += 1
        let request = gate.next()
        guard let track = await track(), let tile = track.tile(at: seconds) else { return nil }
        guard gate.isCurrent(request) else { return superseded() }
        guard let sheet = await sheet(tile.sheet.url) else {
            return gate.isCurrent(request) ? nil : superseded()
        }
        guard gate.isCurrent(request) else { return superseded() }
        return Self.cut(tile, from: sheet, maxWidth: maxWidth)
    }

    /// The thumbnail for `seconds` when its sheet is cached, without fetching; nil otherwise.
    public func cachedThumbnail(at seconds: Double, maxWidth: Int = 320) -> StillImage? {
        guard case .some(.some(let track)) = loaded, let tile = track.tile(at: seconds),
              let sheet = cache.sheet(tile.sheet.url) else { return nil }
        counters.cacheHits += 1
        return Self.cut(tile, from: sheet, maxWidth: maxWidth)
    }

    /// Whether the sheet holding `seconds`' thumbnail is cached (false without a track).
    public func hasCachedSheet(at seconds: Double) -> Bool {
        guard case .some(.some(let track)) = loaded, let tile = track.tile(at: seconds) else { return false }
        return cache.contains(tile.sheet.url)
    }

    public var statistics: SpriteSheetStillsStatistics {
        var s = counters
        s.cachedSheets = cache.count
        s.cacheBytes = cache.bytes
        s.hasTrack = loaded.flatMap { $0 } != nil
        return s
    }

    /// Stops all work and waits for the thread to end. Permanent: later requests return nil.
    public func shutdown() async {
        isShutDown = true
        _ = gate.next()
        lifetime.cancel()
        for fetch in fetches.values { fetch.token.cancel() }
        cache.removeAll()
        await thread.stopAndWait()
    }

    // MARK: sheets

    private func superseded() -> StillImage? {
        counters.superseded += 1
        return nil
    }

    /// The decoded sheet at `url`: cached, joined to its fetch in flight, or fetched now (which
    /// stops the fetches of other sheets). Nil when it failed lately or fails now.
    private func sheet(_ url: String) async -> DecodedSheet? {
        if let hit = cache.sheet(url) {
            counters.cacheHits += 1
            return hit
        }
        if let when = failed[url], clock.seconds - when < Self.retryAfter { return nil }
        for (other, fetch) in fetches where other != url { fetch.token.cancel() }
        if let fetch = fetches[url] { return await fetch.task.value }
        let token = InterruptToken(clock: clock)
        let task = Task { () -> DecodedSheet? in
            let outcome = await self.run { $0.fetchSheet(url, interrupt: token) } ?? .cancelled
            if self.fetches[url]?.token === token { self.fetches[url] = nil }
            switch outcome {
            case .sheet(let sheet, let bytes):
                self.counters.sheetsFetched += 1
                self.counters.bytesFetched += bytes
                self.failed[url] = nil
                self.cache.insert(sheet, for: url)
                return sheet
            case .failed(let reason):
                self.counters.failures += 1
                self.failed[url] = clock.seconds
                AppLog.write("thumbs", "\(TextSanitizer.clean(url)): \(reason)")
                return nil
            case .cancelled:
                return nil
            }
        }
        fetches[url] = (task, token)
        return await task.value
    }

    /// Runs `job` on the thread and waits for it; nil when the thread has stopped.
    private func run<T: Sendable>(_ job: @escaping @Sendable (SpriteFetchContext) -> T) async -> T? {
        await withCheckedContinuation { (done: CheckedContinuation<T?, Never>) in
            let queued = thread.submit { context in done.resume(returning: job(context)) }
            if !queued { done.resume(returning: nil) }
        }
    }

    /// `tile` cut out of `sheet` and narrowed to `maxWidth`; nil when the cell lies outside it.
    static func cut(_ tile: SpriteTile, from sheet: DecodedSheet, maxWidth: Int) -> StillImage? {
        guard let rect = tile.rect(sheetWidth: sheet.width, sheetHeight: sheet.height) else { return nil }
        var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * 3)
        sheet.pixels.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<rect.height {
                    let from = ((rect.y + y) * sheet.width + rect.x) * 3
                    let to = y * rect.width * 3
                    for i in 0..<(rect.width * 3) { dst[to + i] = src[from + i] }
                }
            }
        }
        var width = rect.width, height = rect.height
        let limit = max(1, maxWidth)
        if width > limit {
            let h = max(1, Int((Double(height) * Double(limit) / Double(width)).rounded()))
            pixels = boxScale(pixels, width: width, height: height, to: limit, h)
            width = limit
            height = h
        }
        return StillImage(width: width, height: height, pixels: pixels, seconds: tile.start, isKeyframe: true)
    }

    /// Area-average downscale of packed RGB24 (each output pixel the mean of the source pixels
    /// it covers, fractional edges weighted).
    static func boxScale(_ src: [UInt8], width: Int, height: Int, to w: Int, _ h: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let sx = Double(width) / Double(w), sy = Double(height) / Double(h)
        for oy in 0..<h {
            let y0 = Double(oy) * sy, y1 = y0 + sy
            for ox in 0..<w {
                let x0 = Double(ox) * sx, x1 = x0 + sx
                var sum = (0.0, 0.0, 0.0), area = 0.0
                var y = Int(y0)
                while Double(y) < y1, y < height {
                    let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                    var x = Int(x0)
                    while Double(x) < x1, x < width {
                        let weight = (min(Double(x + 1), x1) - max(Double(x), x0)) * wy
                        let i = (y * width + x) * 3
                        sum.0 += Double(src[i]) * weight
                        sum.1 += Double(src[i + 1]) * weight
                        sum.2 += Double(src[i + 2]) * weight
                        area += weight
                        x += 1
                    }
                    y += 1
                }
                let o = (oy * w + ox) * 3
                if area > 0 {
                    out[o] = UInt8((sum.0 / area).rounded().clamped(to: 0...255))
                    out[o + 1] = UInt8((sum.1 / area).rounded().clamped(to: 0...255))
                    out[o + 2] = UInt8((sum.2 / area).rounded().clamped(to: 0...255))
                }
            }
        }
        return out
    }
}


/// Counters of a ``SpriteSheetStills``, for tests and the benchmark.
public struct SpriteSheetStillsStatistics: Sendable, Equatable {
    /// The manifest publishes a usable track (false before it was read).
    public var hasTrack = false
    /// Thumbnail requests received.
    public var requests = 0
    /// Sheets fetched and decoded, and the file bytes they took.
    public var sheetsFetched = 0
    public var bytesFetched = 0
    /// Sheets that could not be fetched or decoded.
    public var failures = 0
    /// Requests answered from a cached sheet.
    public var cacheHits = 0
    public var cachedSheets = 0
    /// Pixel bytes held by the cache.
    public var cacheBytes = 0
    /// Requests that returned nil because a newer one came.
    public var superseded = 0

    public init() {}
}

/// A decoded sheet: packed RGB24, `width * 3` bytes per row.
struct DecodedSheet: Sendable, Equatable {
    let width: Int
    let height: Int
    let pixels: [UInt8]
    var byteCount: Int { pixels.count }
}

/// Decoded sheets by URL, least recently used dropped first, within a byte cap and a count cap.
struct SpriteSheetCache {
    let byteLimit: Int
    let countLimit: Int
    private var entries: [String: (sheet: DecodedSheet, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    init(byteLimit: Int, countLimit: Int = 64) {
        self.byteLimit = byteLimit
        self.countLimit = max(1, countLimit)
    }

    var count: Int { entries.count }

    /// Without touching its recency.
    func contains(_ url: String) -> Bool { entries[url] != nil }

    mutating func sheet(_ url: String) -> DecodedSheet? {
        guard let entry = entries[url] else { return nil }
        clock += 1
        entries[url]?.lastUse = clock
        return entry.sheet
    }

    /// Keeps `sheet` unless it alone is over the byte cap; then drops the oldest until within both caps.
    mutating func insert(_ sheet: DecodedSheet, for url: String) {
        if let old = entries.removeValue(forKey: url) { bytes -= old.sheet.byteCount }
        guard sheet.byteCount <= byteLimit else { return }
        clock += 1
        entries[url] = (sheet, clock)
        bytes += sheet.byteCount
        while bytes > byteLimit || entries.count > countLimit,
              let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            if let gone = entries.removeValue(forKey: oldest) { bytes -= gone.sheet.byteCount }
        }
    }

    mutating func removeAll() {
        entries.removeAll()
        bytes = 0
    }
}

/// What one sheet fetch came to.
enum SheetOutcome: Sendable {
    case sheet(DecodedSheet, bytes: Int)
    case failed(String)
    case cancelled
}

/// The sprite thread's side: the request options, and the blocking fetch and decode.
final class SpriteFetchContext: ThreadConfinedContext {
    /// libavformat options for every request (nil when a header given is invalid: nothing is fetched).
    let options: [String: String]?
    let network: NetworkSettings
    /// Seconds a whole manifest or sheet fetch may take.
    static let fetchTimeout = 20.0

    init(options: [String: String]?, network: NetworkSettings) {
        self.options = options
        self.network = network
    }

    func close() {}

    /// Reads the manifest at `url` and its thumbnail track (for HLS, the master playlist and the
    /// chosen image playlist).
    func loadTrack(_ url: String, preferredWidth: Int, interrupt: InterruptToken) -> SpriteTrack? {
        guard let options else { return nil }
        func fetch(_ u: String) -> String? {
            SmallFetch.text(u, options: options, settings: network, interrupt: interrupt, timeout: Self.fetchTimeout)
        }
        var track: SpriteTrack?
        if StreamVariants.isDASH(url) {
            track = fetch(url).flatMap { DASHThumbnails.track(in: $0, base: url, preferredWidth: preferredWidth) }
        } else if StreamVariants.isHLS(url), let master = fetch(url),
                  let stream = HLSThumbnails.choose(HLSThumbnails.imageStreams(in: master, base: url), preferredWidth: preferredWidth),
                  SpriteTrack.allowed(stream.uri, base: url) {
            track = fetch(stream.uri).flatMap { HLSThumbnails.track(inPlaylist: $0, base: stream.uri, stream: stream) }
        }
        AppLog.write("thumbs", track?.summary ?? "no thumbnail track in \(TextSanitizer.clean(url))")
        return track
    }

    /// Fetches and decodes one sheet.
    func fetchSheet(_ url: String, interrupt: InterruptToken) -> SheetOutcome {
        guard let options, !interrupt.isCancelled else { return .cancelled }
        guard let bytes = SmallFetch.nonEmptyBytes(url, options: options, settings: network, interrupt: interrupt,
                                                   timeout: Self.fetchTimeout, limit: SpriteSheetStills.maxSheetBytes) else {
            return interrupt.isCancelled ? .cancelled : .failed("cannot fetch the thumbnail sheet")
        }
        do {
            return .sheet(try SheetDecoder.decode(bytes), bytes: bytes.count)
        } catch {
            return .failed("cannot decode the thumbnail sheet: \(error)")
        }
    }
}

/// Decodes a sheet file (JPEG, PNG or WebP, told by its first bytes) with libavcodec to RGB24.
enum SheetDecoder {
    /// Largest picture decoded (8 Mpx: 24 MB as RGB).
    static let maxPixels = 8 << 20

    enum Failure: Error, CustomStringConvertible {
        case unknownFormat
        case noPicture
        var description: String {
            switch self {
            case .unknownFormat: "not a JPEG, PNG or WebP picture"
            case .noPicture: "the decoder gave no picture"
            }
        }
    }

    static func codec(for bytes: [UInt8]) -> AVCodecID? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return AV_CODEC_ID_MJPEG }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return AV_CODEC_ID_PNG }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual(Array("WEBP".utf8)) {
            return AV_CODEC_ID_WEBP
        }
        return nil
    }

    static func decode(_ bytes: [UInt8]) throws -> DecodedSheet {
        guard let id = codec(for: bytes) else { throw Failure.unknownFormat }
        let parameters = try CodecParameters(codec: id, type: AVMEDIA_TYPE_VIDEO)
        let codec = try CodecContext(parameters: parameters.pointer, timeBase: AVRational(num: 1, den: 1), threads: 1) { ctx in
            ctx.pointee.max_pixels = Int64(maxPixels)
        }
        let packet = try Packet(bytes: bytes)
        let frame = try Frame()
        _ = try codec.send(packet)
        _ = try codec.send(nil)
        guard try codec.receive(into: frame) else { throw Failure.noPicture }
        let width = frame.width, height = frame.height
        guard width > 0, height > 0, width * height <= maxPixels else { throw Failure.noPicture }
        let buffer = PixelBuffer(count: width * height * 3)
        try Scaler(flags: Scaler.bilinear).scale(frame, width: width, height: height, format: AV_PIX_FMT_RGB24,
                                              into: buffer.base, stride: width * 3)
        return DecodedSheet(width: width, height: height, pixels: buffer.copyBytes())
    }
}
