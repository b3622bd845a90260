import AetherTransport
import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Everything one network source opens goes through here: the main input and, through
/// libavformat's `io_open`/`io_close` hooks, every nested open of the HLS and DASH demuxers
/// (playlists, segments, keys, init sections). Each open gets the same request options (headers,
/// user agent, referrer, read deadline) and the protocol policy; HTTP(S) resources are read by a
/// ``ResilientInput``. The session is the format context's `opaque` and lives as long as it.
package final class NetworkSession: Sendable {
    let settings: NetworkSettings
    /// The source's status and its one throughput estimate: the switcher's (fed by segments)
    /// when it switches, else one fed by arrivals.
    package let monitor: NetworkMonitor
    let interrupt: InterruptToken
    /// Options for every open (libavformat protocol options).
    package let options: [String: String]
    /// What each nested context handed to libavformat belongs to (a ``ResilientInput``, or the
    /// ``MemoryInput`` of a segment fetched whole), released in ``closeNested(_:)``.
    private let readers = Guarded<[UnsafeMutableRawPointer: AnyObject]>([:])
    /// The transport of every HTTP(S) read of the source: one connection cache (a playlist, its
    /// segments and its key from one host share connections), the source's TLS policy.
    package let transport: TransportSession
    /// Bit-rate switching: picks each HLS segment's variant and is told its download time.
    let adaptive: AdaptiveSwitcher?
    /// HLS playlists spliced with discontinuities: their segments served on one timeline.
    package let splice = HLSSplice()
    /// A segment fetched whole may be this large (a larger one is refused).
    static let wholeSegmentLimit = 256 << 20

    /// What became of the source so far.
    struct Outcome {
        /// The source's own URL (set by ``openMain(url:)``).
        var mainURL = ""
        /// Whether any byte has arrived.
        var flowed = false
        /// Why a reader refused the source, or why the source gave up (``refuse(_:code:)``),
        /// the first time one did.
        var refusal: (failure: NetworkFailure, code: Int32)?
        /// The transfers failing since the last byte arrived (nil: bytes flow).
        var outage: Outage?
    }
    private let outcome = Guarded(Outcome())

    /// Bytes a playlist or manifest may have, after any decompression (a 10-hour VOD playlist of
    /// 2 s segments is about 2 MiB; libavformat holds each entry in memory).
    package static let manifestBudget: Int64 = 16 << 20

    /// A reader refused what the source sent, or the source gave up (`failure`, one line;
    /// `code`, the AVERROR behind it: `EFBIG` for a budget): every blocking call of the source
    /// gives up at once, and the open or read fails with this reason.
    func refuse(_ failure: NetworkFailure, code: Int32) {
        AppLog.write("net", failure.line)
        outcome.withLock { if $0.refusal == nil { $0.refusal = (failure, code) } }
        monitor.failed(failure)
        if failsSource { interrupt.fail() }
    }

    /// Why a reader refused the source, if one did.
    package var refusal: String? { outcome.withLock { $0.refusal?.failure.line } }
    /// The AVERROR of ``refusal``.
    var refusalCode: Int32? { outcome.withLock { $0.refusal?.code } }

    /// Why the source failed: a refusal, else the last transfer that gave up (nil when none did).
    package var failure: String? { networkFailure?.line }

    /// ``failure`` with its cause.
    package var networkFailure: NetworkFailure? {
        if let refusal = outcome.withLock({ $0.refusal?.failure }) { return refusal }
        if case .failed(let why) = monitor.status.phase { return why }
        return nil
    }

    /// Schemes a network source's nested opens may use: never local files, pipes or other
    /// transports a remote playlist could point at. Every one but `data` is fetched here,
    /// through the transport (issue 59).
    static let networkSchemes: Set<String> = ["http", "https", "crypto+http", "crypto+https", "data"]
    /// The protocol whitelist for a network source (and its nested opens): what libavformat may
    /// open itself, which is only a `data:` URI. Its `http`, `tcp`, `tls` and `crypto` are not on
    /// it, so no byte of a network source reaches the player through them.
    static let networkWhitelist = "data"

    /// Whether a refusal (``refuse(_:)``) makes the whole source give up (a playback source), or
    /// only the one fetch (a playlist fetched alone, a thumbnail sheet).
    private let failsSource: Bool

    /// What the session serves from memory before asking the network.
    struct Memory: Sendable {
        /// Playlists served from memory by URL (a DASH manifest translated, ``DASHSource``):
        /// asked first for every open; nil for a URL it does not hold.
        let documents: (@Sendable (String) -> [UInt8]?)?
        /// Playlists the opener already read (the master, the anchor's playlist, audio
        /// renditions): each is served once from memory to the demuxer's first open of its URL,
        /// so none is fetched twice at open; later opens (a live reload) go to the network.
        let prefetched: PrefetchedDocuments?
        /// How a translated DASH manifest's fMP4 segment is fetched, by the URL its playlist
        /// names: whole, with its init section, served as MPEG-TS (``SegmentTransmuxer``).
        let transmuxed: (@Sendable (String) -> DASHPlaylists.Fetch?)?
        /// Init sections fetched so far (a few KiB each; at most ``WholeSegment/initCacheLimit`` kept).
        let initCache = Guarded<[DASHManifest.Resource: [UInt8]]>([:])

        /// A document held for `url` (``documents``, else ``prefetched``), or nil.
        func document(_ url: String) -> [UInt8]? { documents?(url) ?? prefetched?.take(url) }
    }
    let memory: Memory

    /// `transport`: the connections to share (an open's, whose prefetches made them; nil: a
    /// session of its own).
    package init(settings: NetworkSettings, interrupt: InterruptToken, options: [String: String], failsSource: Bool = true,
         transport: TransportSession? = nil,
         adaptive: AdaptiveSwitcher? = nil, documents: (@Sendable (String) -> [UInt8]?)? = nil,
         transmuxed: (@Sendable (String) -> DASHPlaylists.Fetch?)? = nil, prefetched: PrefetchedDocuments? = nil,
         jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.settings = settings
        self.transport = transport ?? TransportSession(policy: settings.tls)
        self.jitter = jitter
        self.adaptive = adaptive
        monitor = adaptive?.monitor ?? NetworkMonitor(clock: interrupt.clock)
        memory = Memory(documents: documents, prefetched: prefetched, transmuxed: transmuxed)
        self.interrupt = interrupt
        self.failsSource = failsSource
        var merged = options
        merged["rw_timeout"] = settings.readTimeoutOption
        if let agent = settings.userAgent { merged["user_agent"] = agent }
        if let referrer = settings.referrer { merged["referer"] = referrer }
        merged["protocol_whitelist"] = Self.networkWhitelist
        // Demuxer options, not protocol ones.
        merged.removeValue(forKey: "safe")
        self.options = merged
    }

    /// Whether any byte has arrived (before it, an I/O error is most likely a bad host name).
    var hasFlowed: Bool { outcome.withLock { $0.flowed } }

    func received(_ count: Int) {
        monitor.received(count)
        outcome.withLock {
            $0.flowed = true
            $0.outage = nil
        }
    }

    /// The transfers failing since the last byte arrived: one budget for the whole source, not
    /// one per attempt or per transfer (a live stream's next segment does not start it again).
    struct Outage {
        /// When the source stopped getting bytes it asked for (seconds of the session's clock).
        let since: Double
        /// Why: the first failure since the last byte, and its cause.
        let first: NetworkFailure
        /// Reconnects so far, over every transfer of the source.
        var attempts = 0
    }

    /// A transfer failed with `failure` (a transient one, to be retried): the outage it belongs
    /// to, one reconnect more. `waited`: seconds the failed read had already waited without a
    /// byte (a read deadline that passed), counted in the outage.
    func failedOnce(_ failure: NetworkFailure, waited: Double) -> Outage {
        let now = clock.seconds
        return outcome.withLock {
            var outage = $0.outage ?? Outage(since: now - waited, first: failure)
            outage.attempts += 1
            $0.outage = outage
            return outage
        }
    }

    /// Waits `seconds`, waking early (false) when the session is interrupted (cancelled, or the
    /// token's deadline passed: then at that deadline). Read from the token's clock.
    package func backOff(seconds: Double) -> Bool { interrupt.wait(seconds: seconds) }

    /// Where the retry delays' jitter is drawn from (0...1; random, a constant in tests).
    private let jitter: @Sendable () -> Double

    /// The wait before retry `attempt` (1-based) of a broken transfer: the settings' backoff
    /// (``NetworkSettings/backoff(attempt:unit:)``) with this session's jitter.
    package func retryDelay(attempt: Int) -> Double { settings.backoff(attempt: attempt, unit: jitter()) }

    /// What the session times downloads and waits by: its token's clock.
    var clock: TimeSource { interrupt.clock }

    /// The source's own URL (set by ``openMain(url:)``).
    var mainURL: String { outcome.withLock { $0.mainURL } }

    /// Opens the main input: a document served from memory, else a ``ResilientInput``. Returns
    /// the owner of the context (kept alive until the demuxer is closed) and the context.
    package func openMain(url: String) throws(FFmpegError) -> (owner: AnyObject, context: UnsafeMutablePointer<AVIOContext>,
                                                               demuxerOptions: [String: String]) {
        outcome.withLock { $0.mainURL = url }
        if let bytes = memoryDocument(url) {
            let memory = try MemoryInput(bytes)
            return (memory, memory.context, [:])
        }
        if LocalPlaylist.holds(url) {
            let memory = try MemoryInput(offered(url, try LocalPlaylist.read(url)))
            return (memory, memory.context, [:])
        }
        // An HLS playlist is read whole, so the splice sees it (``HLSSplice``).
        if StreamVariants.isHLS(url), NetworkSettings.isNetwork(url) {
            let memory = try MemoryInput(offered(url, try readWhole(url, options: options, limit: Int(Self.manifestBudget))))
            return (memory, memory.context, [:])
        }
        let input = try ResilientInput(url: url, options: options, session: self)
        return (input, input.context, input.demuxerOptions)
    }

    /// A document served from memory (``Memory/document(_:)``), or nil. A variant's
    /// playlist read at open, or a translated live DASH playlist reloaded, is handed to the
    /// switcher, so its copy is the demuxer's (a byte-range anchor's is served rewritten).
    private func memoryDocument(_ url: String) -> [UInt8]? {
        memory.document(url).map { offered(url, $0) }
    }

    /// What the demuxer is served for `bytes`, a document read whole at `url` (``PlaylistOffer``:
    /// a variant's playlist to the switcher, a media playlist to the splice unless it is a
    /// translated DASH manifest's, whose segments are timed by their periods).
    private func offered(_ url: String, _ bytes: [UInt8]) -> [UInt8] {
        PlaylistOffer.offer(url, bytes, to: adaptive?.watches(url) == true ? adaptive : nil,
                            splice: memory.transmuxed == nil ? splice : nil)
    }

    /// `io_open` for nested opens. Returns 0 or an AVERROR.
    func openNested(url: String, flags: Int32, callerOptions: OpaquePointer?,
                    into pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        guard flags & AVIO_FLAG_WRITE == 0 else { return aether_AVERROR(EPERM) }
        if let bytes = memoryDocument(url) {
            do { return try serve(bytes, into: pb) } catch { return error.code }
        }
        let scheme = NetworkSettings.scheme(of: url) ?? "file"
        // A local playlist's local segment (the demuxer's own rules for it applied already):
        // libavformat's file protocol, and nothing else.
        if scheme == "file", LocalPlaylist.holds(mainURL) {
            return libavformatOpen(url, flags: flags, options: ["protocol_whitelist": "file"], into: pb)
        }
        guard Self.networkSchemes.contains(scheme) else {
            let reason = "refused to open '\(TextSanitizer.clean(url))' from a network source (protocol '\(TextSanitizer.clean(scheme))' is not allowed)"
            AppLog.write("net", reason)
            monitor.failed(NetworkFailure(.policy, url: url, line: reason))
            return aether_AVERROR(EPERM)
        }
        // The caller's options (byte ranges, `seekable`) under ours (headers, deadline, policy).
        var merged: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(callerOptions, "", entry, AV_DICT_IGNORE_SUFFIX) {
            merged[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            entry = next
        }
        for (key, value) in options { merged[key] = value }
        if scheme == "crypto+http" || scheme == "crypto+https" {
            return EncryptedSegment.open(url, options: merged, session: self, into: pb)
        }
        if scheme == "http" || scheme == "https" {
            // An HLS playlist (a live reload too): read whole, handed to the switcher and the
            // splice, served from memory, so the demuxer and they see one copy.
            if adaptive?.watches(url) == true || splice.watches(url) || StreamVariants.isHLS(url) {
                do throws(FFmpegError) {
                    let data = try readWhole(url, options: merged, limit: Int(Self.manifestBudget))
                    return try serve(offered(url, data), into: pb)
                } catch {
                    return error.code
                }
            }
            if let adaptive, let plan = adaptive.plan(for: url, wait: { self.backOff(seconds: $0) }) {
                var result = WholeSegment.open(plan, options: merged, requested: url, session: self, into: pb)
                if result < 0, plan.url != url, !interrupt.shouldInterrupt {
                    adaptive.failed(plan)
                    result = WholeSegment.open(adaptive.own(url, mediaSeconds: plan.mediaSeconds), options: merged, measured: false, requested: url,
                                               session: self, into: pb)
                }
                return result
            }
            if memory.transmuxed?(url) != nil || splice.place(of: url) != nil {
                return WholeSegment.open(AdaptiveSwitcher.Plan(url: url, rung: -1, mediaSeconds: 0), options: merged, measured: false, session: self, into: pb)
            }
            do {
                let reader = try ResilientInput(url: url, options: merged, session: self)
                pb.pointee = reader.context
                readers.withLock { $0[UnsafeMutableRawPointer(reader.context)] = reader }
                return 0
            } catch {
                return error.code
            }
        }
        monitor.requested()
        return libavformatOpen(url, flags: flags, options: merged, into: pb)
    }

    /// What libavformat opens itself for a nested open (`data:`, a local playlist's files):
    /// `avio_open2` with `options` (their whitelist) and the session's interrupt.
    private func libavformatOpen(_ url: String, flags: Int32, options: [String: String],
                                 into pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        var dict: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        defer { av_dict_free(&dict) }
        var callback = interrupt.callback
        return avio_open2(pb, url, flags, &callback, &dict)
    }

    /// Reads `url` whole through a ``ResilientInput`` (resume, retries, counts): the one bounded
    /// fetch of a whole resource (segments, init sections, playlists, downloads). At most `limit`
    /// bytes, or throws ``tooLarge(_:)``; `length`: stop after this many (a byte range requested
    /// from its offset). `carryOn`, asked after each 16 KiB with the bytes so far and the seconds
    /// since the start, may stop the download (false): then it throws `ECANCELED`.
    package func readWhole(_ url: String, options: [String: String], limit: Int, length: Int? = nil,
                           carryOn: ((Int, Double) -> Bool)? = nil) throws(FFmpegError) -> [UInt8] {
        var data: [UInt8] = []
        let started = clock.seconds
        let reader = try ResilientInput(url: url, options: options, session: self)
        var chunk = [UInt8](repeating: 0, count: carryOn == nil ? 64 << 10 : 16 << 10)
        while true {
            let want = length.map { min(chunk.count, $0 - data.count) } ?? chunk.count
            if want <= 0 { break }
            let n = avio_read(reader.context, &chunk, Int32(want))
            if n == aether_AVERROR_EOF() || n == 0 { break }
            guard n > 0 else { throw FFmpegError(code: n, function: "avio_read") }
            guard data.count + Int(n) <= limit else { throw Self.tooLarge(limit) }
            data += chunk[0..<Int(n)]
            if let carryOn, !carryOn(data.count, clock.seconds - started) {
                throw FFmpegError(code: aether_AVERROR(ECANCELED), function: "avio_read")
            }
        }
        return data
    }

    /// The error of a read that went over its `limit` (code `EFBIG`), in one line.
    package static func tooLarge(_ limit: Int) -> FFmpegError {
        FFmpegError(function: "avio_read", message: "larger than \(ByteSize.describe(Int64(limit))) refused", code: aether_AVERROR(EFBIG))
    }

    /// Hands `bytes` to the demuxer as the opened file (kept alive in `readers` until
    /// `closeNested`); 0, or throws when the reader cannot be made.
    func serve(_ bytes: [UInt8], into pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) throws(FFmpegError) -> Int32 {
        let memory = try MemoryInput(bytes)
        pb.pointee = memory.context
        readers.withLock { $0[UnsafeMutableRawPointer(memory.context)] = memory }
        return 0
    }

    /// `io_close2`: frees a context opened by ``openNested(url:flags:callerOptions:into:)``.
    func closeNested(_ pb: UnsafeMutablePointer<AVIOContext>) {
        let key = UnsafeMutableRawPointer(pb)
        let reader = readers.withLock { $0.removeValue(forKey: key) }
        if reader == nil {
            var doomed: UnsafeMutablePointer<AVIOContext>? = pb
            avio_closep(&doomed)
        }
        // `reader` is released here: its deinit frees its contexts.
    }

    /// Installs the hooks on `ctx` (its `opaque` becomes this session, unretained: the owner
    /// keeps the session alive until the context is closed).
    package func install(on ctx: UnsafeMutablePointer<AVFormatContext>) {
        ctx.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        ctx.pointee.io_open = networkIOOpen
        ctx.pointee.io_close2 = networkIOClose
    }
}

private let networkIOOpen: @convention(c) (UnsafeMutablePointer<AVFormatContext>?,
                                           UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                                           UnsafePointer<CChar>?, Int32,
                                           UnsafeMutablePointer<OpaquePointer?>?) -> Int32 = { s, pb, url, flags, options in
    guard let s, let pb, let url else { return aether_AVERROR(EINVAL) }
    guard let opaque = s.pointee.opaque else {
        // Not one of ours (a nested context without the session): refuse rather than guess.
        return aether_AVERROR(EPERM)
    }
    let session = Unmanaged<NetworkSession>.fromOpaque(opaque).takeUnretainedValue()
    return session.openNested(url: String(cString: url), flags: flags, callerOptions: options?.pointee, into: pb)
}

/// `io_close2` (libavformat calls it since FFmpeg 5.0; `io_close` is gone in 7).
private let networkIOClose: @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVIOContext>?) -> Int32 = { s, pb in
    guard let pb else { return 0 }
    guard let s, let opaque = s.pointee.opaque else {
        var doomed: UnsafeMutablePointer<AVIOContext>? = pb
        return avio_closep(&doomed)
    }
    Unmanaged<NetworkSession>.fromOpaque(opaque).takeUnretainedValue().closeNested(pb)
    return 0
}
