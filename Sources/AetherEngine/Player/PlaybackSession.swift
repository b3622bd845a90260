import CFFmpeg
import Foundation
import Synchronization

/// What moves between the demux, decode and present threads: a payload or an end marker,
/// tagged with the seek generation (`serial`) it was produced under (ffplay's serial model).
enum QueueItem<Payload> {
    case item(Payload, serial: Int)
    case end(serial: Int)

    var serial: Int {
        switch self {
        case .item(_, let s), .end(let s): return s
        }
    }
}

/// One loaded source: the demuxer, decoders, queues, audio sink and the four real-time threads
/// (demux, video decode, audio decode+write, present). Created by `Player.load`.
final class PlaybackSession: @unchecked Sendable {  // cross-thread state is in `control`, queues, atomics
    let format: FormatContext
    let info: MediaInfo
    let videoIndex: Int?
    let options: PlayerOptions
    let policy: SyncPolicy
    let clock: MasterClock
    let telemetry = Telemetry()
    let control = ControlBox()
    let videoQueue: BoundedQueue<QueueItem<Packet>>
    let audioQueue: BoundedQueue<QueueItem<Packet>>
    let frameQueue: BoundedQueue<QueueItem<VideoFrame>>
    /// Picture memory for the frames: the queue, the frame being presented, the host's mailbox
    /// and the one it is painting.
    let pixelPool: PixelBufferPool
    /// `--vd-lavc-skiploopfilter` (nil: automatic).
    let skipLoopFilter: LoopFilterSkip?
    let sink: AudioSink?
    let renderSize = Guarded<PixelSize?>(nil)
    let onFrame = Guarded<(@Sendable (VideoFrame) -> Void)?>(nil)
    /// The host paints on its own thread and reports each frame's arrival on screen.
    let hostReportsDisplay = Guarded(false)
    /// The newest serial the host reported a picture of (mirrors `displayedSerial`, so the
    /// control lock is taken once per serial, not per frame).
    private let displayedSerial = Guarded(-1)
    /// The longest the sound of a load or seek waits for its first picture to reach the screen.
    static let firstPictureWaitSeconds = 0.5
    /// Seconds before its pts a paced frame is handed over (``Player/setPresentationLead(_:)``).
    let presentationLead = Guarded(0.0)
    let subtitles: SubtitleStore
    let warnings = Guarded<[String]>([])
    let endTime: Double?
    /// HLS or DASH through libavformat: unplayed variant streams are discarded.
    let isAdaptive: Bool
    /// A live stream (no length); with a timeshift window, the capture thread reads it into
    /// `timeshift` and the demux thread plays from there.
    let isLive: Bool
    let timeshift: TimeshiftBuffer?
    static let timeshiftSerial = Atomic<Int>(0)
    /// The adaptive stream's variants and the one playing (nil: not adaptive, or one variant).
    let variants: [StreamVariant]
    let variant: StreamVariant?
    /// Seconds the demuxer reads ahead (0: no cache, the packet queues bound it alone).
    let cacheSeconds: Double
    let threads = SessionThreads()
    /// Streams the header says are encrypted: never decoded.
    private(set) var encryptedStreams: Set<Int> = []
    /// Options the source was opened with (headers, protocol whitelist), for second readers.
    let openOptions: [String: String]
    let decoderNames = Guarded<(video: String, audio: String, deinterlacing: Bool, loopFilterSkip: String)>(("", "", false, ""))
    /// The source's cover picture (decoded on first use), nil when it has none.
    let coverArt: CoverArt?
    /// The samples written to the device, for visualisation (nil without audio).
    let audioTap: AudioTap?
    /// Decoder for the current audio stream; owned by the audio thread after start.
    var audioDecoder: AudioDecoder?
    /// Owned by the video thread after start.
    var videoDecoder: VideoDecoder?

    /// A playlist or manifest read ahead of libavformat, within ``NetworkSession/manifestBudget``:
    /// nil when it cannot be read (libavformat's own open then says why); throws when it is over
    /// the budget.
    private static func prefetch(_ url: String, what: String, options: [String: String], settings: NetworkSettings,
                                 interrupt: InterruptToken, timeout: Double) throws -> [UInt8]? {
        do {
            let bytes: [UInt8] = try SmallFetch.bytes(url, options: options, settings: settings, interrupt: interrupt,
                                                      timeout: timeout, limit: Int(NetworkSession.manifestBudget))
            return bytes
        } catch where error.code == aether_AVERROR(EFBIG) {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(what) \(error.message)")
        } catch where error.code == aether_AVERROR_EXIT() && !interrupt.isCancelled {
            // The open deadline passed (a server that drips): libavformat would wait as long again.
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': the \(what) did not arrive within \(String(format: "%g", timeout)) s")
        } catch {
            return nil
        }
    }

    init(url: String, options: PlayerOptions) throws {
        self.options = options
        policy = options.policy
        clock = MasterClock(policy: options.policy)
        let openOptions: [String: String]
        do { openOptions = try SourceOptions.make(network: options.network) } catch {
            throw PlayerError("\(error)")
        }
        self.openOptions = openOptions
        let interrupt = options.interrupt ?? InterruptToken()
        // An HLS master: choose the variant here and, when its sound is muxed in, open its media
        // playlist alone, so that no other variant is ever fetched.
        var openURL = url
        var variants: [StreamVariant] = []
        var variant: StreamVariant?
        if StreamVariants.isHLS(url),
           let text = try Self.prefetch(url, what: "playlist", options: openOptions, settings: options.network,
                                        interrupt: interrupt, timeout: options.openTimeout).map({ String(decoding: $0, as: UTF8.self) }),
           let master = HLSMasterPlaylist.parse(text, base: url),
           let k = VariantChooser.choose(master.variants, preference: options.variantPreference, range: options.videoRange) {
            // A remote master may only point at http(s): never at local files.
            if NetworkSettings.isNetwork(url),
               let foreign = (master.variants.compactMap(\.uri) + master.renditions.compactMap(\.uri))
                .first(where: { !["http", "https"].contains(NetworkSettings.scheme(of: $0) ?? "file") }) {
                throw PlayerError("cannot open '\(TextSanitizer.clean(url))': the playlist refers to '\(TextSanitizer.clean(foreign))' (a network source may only use http and https)")
            }
            variants = master.variants
            variant = master.variants[k]
            if !master.needsRenditions(master.variants[k]), let uri = master.variants[k].uri { openURL = uri }
            FFmpegLog.write("net", "HLS master: \(master.variants.count) variants; playing \(k + 1) (\(master.variants[k].summary))\(openURL == url ? " through the master (separate audio renditions)" : "")")
        }
        // A remote DASH manifest is read by libavformat's demuxer, which opens what it names
        // without the protocol whitelist: refuse one that names anything but http(s). It is read
        // here first within the manifest budget and checked (no DOCTYPE or entities, well-formed,
        // element count): libavformat's own read has no bound (xml_guard.c checks its copy again).
        if StreamVariants.isDASH(url),
           let bytes = try Self.prefetch(url, what: "manifest", options: openOptions, settings: options.network,
                                         interrupt: interrupt, timeout: options.openTimeout) {
            if let why = ManifestXML.refusal(bytes) {
                throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(why)")
            }
            if NetworkSettings.isNetwork(url), let foreign = StreamVariants.foreignReference(inManifest: String(decoding: bytes, as: UTF8.self)) {
                throw PlayerError("cannot open '\(TextSanitizer.clean(url))': the manifest refers to '\(TextSanitizer.clean(foreign))' (a network source may only use http and https)")
            }
        }
        if interrupt.isCancelled { throw PlayerError("cannot open '\(TextSanitizer.clean(url))': interrupted") }
        let format: FormatContext
        do {
            format = try FormatContext(url: openURL, options: openOptions, timeout: options.openTimeout,
                                       interrupt: interrupt, network: options.network)
        } catch {
            throw PlayerError("cannot open '\(TextSanitizer.clean(openURL))': \(NetworkSettings.explain(error, url: openURL, options: openOptions, timeout: options.network.readTimeout, openDeadline: interrupt.isCancelled ? nil : options.openTimeout))")
        }
        self.format = format
        var probed: MediaInfo
        do {
            format.interrupt.arm(seconds: options.openTimeout)
            defer { format.interrupt.arm(seconds: nil) }
            probed = try MediaProbe.probe(format)
        } catch {
            throw PlayerError("cannot read '\(TextSanitizer.clean(openURL))': \(error.message)")
        }
        // HLS through the master, or DASH: libavformat exposes every variant's video as a stream;
        // one is chosen and the others are discarded (never fetched once playing).
        isAdaptive = probed.container.contains("hls") || probed.container.contains("dash")
        if isAdaptive, probed.video.count > 1 {
            let candidates = probed.video.map { v -> StreamVariant in
                var c = StreamVariant(bandwidth: Self.variantBitrate(format, v.index))
                c.width = v.width
                c.height = v.height
                c.codecs = v.codec
                c.videoRange = v.format == .sdr ? "SDR" : v.format == .hlg ? "HLG" : "PQ"
                return c
            }
            if let k = VariantChooser.choose(candidates, preference: options.variantPreference, range: options.videoRange) {
                if variant == nil || variants.isEmpty { variants = candidates; variant = candidates[k] }
                probed.video = [probed.video[k]]
            }
        }
        // `--vid=N` (adaptive sources keep the variant chosen above).
        if let k = options.videoTrack, probed.video.indices.contains(k) { probed.chosenVideo = k }
        info = probed
        // Live: a network source without a length (live HLS/DASH, a TS over HTTP, UDP), or forced.
        isLive = options.live ?? (NetworkSettings.isNetwork(url) && probed.duration == nil)
        if isLive, options.timeshiftSeconds > 0 {
            let memory = max(1 << 20, options.timeshiftMemoryBytes)
            let parent = options.timeshiftDirectory ?? NSTemporaryDirectory() + "aether-timeshift"
            TimeshiftBuffer.removeStale(in: parent)
            let disk = TimeshiftBuffer.diskLimit(asked: options.timeshiftDiskBytes, directory: parent)
            FFmpegLog.write("live", "timeshift: \(options.timeshiftSeconds) s, \(memory >> 20) MiB in memory, at most \(disk >> 20) MiB on disk in \(TextSanitizer.clean(parent))")
            timeshift = TimeshiftBuffer(settings: .init(
                window: options.timeshiftSeconds, memoryLimit: memory,
                directory: parent + "/timeshift-\(getpid())-\(PlaybackSession.timeshiftSerial.add(1, ordering: .relaxed).newValue)",
                diskLimit: disk,
                chunkBytes: max(64 << 10, min(2 << 20, memory / 4))))
        } else {
            timeshift = nil
        }
        self.variant = variant
        self.variants = variants
        // `--vid=no`: no video stream at all (an attached picture never is one: see CoverArt).
        videoIndex = options.videoEnabled ? info.primaryVideo?.index : nil
        coverArt = CoverArt.take(from: format)
        // CENC in MP4: said from the header, before anything reaches a decoder.
        var encrypted = Set<Int>()
        if info.container.contains("mp4") || info.container.contains("mov"), url != "-", !url.contains("://") || url.hasPrefix("file:"),
           let found = EncryptionScan.scan(path: url.hasPrefix("file:") ? String(url.dropFirst(5)) : url) {
            let streams = (found.video ? info.video.map { ($0.index, $0.codec) } : [])
                + (found.audio ? info.audio.map { ($0.index, $0.codec) } : [])
            let lines = streams.map { "stream #\($0.0) (\($0.1)) is encrypted (\(found.scheme)); cannot play it" }
            let playable = (found.video ? 0 : info.video.count) + (found.audio ? 0 : info.audio.count)
            if playable == 0, let first = lines.first {
                throw PlayerError("cannot play '\(TextSanitizer.clean(url))': \(first)")
            }
            encrypted = Set(streams.map(\.0))
            warnings.withLock { $0.append(contentsOf: lines) }
        }
        endTime = options.length.map { options.start + max(0, $0) }
        cacheSeconds = max(0, options.cacheSeconds ?? (NetworkSettings.isNetwork(url) ? options.networkCacheSeconds : 0))
        // A cache holds its seconds of packets (mpv's default byte cap, 150 MiB); without one,
        // the queues hold a few seconds.
        let queueBytes = cacheSeconds > 0 ? max(options.policy.packetQueueBytes, 150 << 20) : options.policy.packetQueueBytes
        let videoPackets = cacheSeconds > 0 ? max(600, min(1 << 22, Int(saturating: cacheSeconds * 130))) : 600
        videoQueue = BoundedQueue(maxCount: videoPackets, maxCost: queueBytes) { item in
            if case .item(let p, _) = item { return p.size }
            return 0
        }
        audioQueue = BoundedQueue(maxCount: max(4000, videoPackets * 4), maxCost: queueBytes / 2) { item in
            if case .item(let p, _) = item { return p.size }
            return 0
        }
        frameQueue = BoundedQueue(maxCount: options.policy.frameQueueCapacity, maxCost: options.policy.frameQueueBytes) { item in
            if case .item(let frame, _) = item { return frame.pixels?.count ?? 0 }
            return 0
        }
        pixelPool = PixelBufferPool(limit: options.policy.frameQueueCapacity + 4)
        skipLoopFilter = options.skipLoopFilter
        subtitles = SubtitleStore(info: info, url: openURL, openOptions: openOptions, timeline: format.timeline,
                                  codepage: options.subtitleCodepage)

        // Video decoder.
        encryptedStreams = encrypted
        if let videoIndex, !encrypted.contains(videoIndex), let stream = format.stream(videoIndex) {
            do {
                videoDecoder = try VideoDecoder(stream: stream, index: videoIndex, threads: options.decodeThreads,
                                                timeline: format.timeline)
            } catch {
                let codec = info.primaryVideo?.codec ?? "video"
                warnings.withLock { $0.append("cannot decode video stream #\(videoIndex) (\(codec)): \(error.message)") }
            }
        }
        // Audio track and sink.
        var audioIndex: Int? = nil
        if options.audioEnabled, info.audio.contains(where: { !encrypted.contains($0.index) }) {
            let playable = info.audio.filter { !encrypted.contains($0.index) }
            if let k = options.audioTrack, info.audio.indices.contains(k) {
                audioIndex = info.audio[k].index
            } else if let match = LanguagePreference.first(of: options.audioLanguages, in: playable.map(\.tags.language)) {
                audioIndex = playable[match].index
            } else {
                // libavformat's choice weighs the default flag, then channels and bit rate.
                let best = av_find_best_stream(format.pointer, AVMEDIA_TYPE_AUDIO, -1, Int32(videoIndex ?? -1), nil, 0)
                audioIndex = best >= 0 ? Int(best) : info.audio.first?.index
            }
        }
        var sink: AudioSink? = nil
        if let index = audioIndex, let stream = format.stream(index), let par = stream.pointee.codecpar {
            // A damaged header can claim any rate (2147483647 Hz): ask the device for a sane one,
            // libswresample converts whatever the decoder really produces.
            let rate = Int(par.pointee.sample_rate)
            let wantRate = (8000...384_000).contains(rate) ? rate : 48000
            // Ask for stereo: we downmix ourselves (centre and surrounds kept), whatever the device.
            let wantChannels = min(2, max(1, Int(par.pointee.ch_layout.nb_channels)))
            switch options.audioOutput {
            case .null:
                sink = NullSink(format: AudioFormat(sampleRate: wantRate, channels: wantChannels))
            case .alsa(let device):
                do {
                    sink = try ALSASink(device: device, rate: wantRate, channels: wantChannels)
                } catch {
                    warnings.withLock { $0.append("audio device '\(device)' unavailable (\(error.message)); playing without sound") }
                    sink = NullSink(format: AudioFormat(sampleRate: wantRate, channels: wantChannels))
                }
            }
            if let sink {
                do {
                    audioDecoder = try AudioDecoder(stream: stream, index: index, output: sink.format, timeline: format.timeline)
                } catch {
                    warnings.withLock { $0.append("cannot decode audio stream #\(index) (\(error.message)); playing without sound") }
                    audioIndex = nil
                }
            }
        }
        self.sink = audioDecoder == nil ? nil : sink
        audioTap = self.sink.map { AudioTap(sampleRate: $0.format.sampleRate) }
        if audioDecoder == nil { audioIndex = nil }
        if videoDecoder == nil && audioDecoder == nil {
            let why = warnings.withLock { w in
                w.last.map { ": " + $0.replacingOccurrences(of: "; playing without sound", with: "") }
                    ?? ": no decodable audio or video stream"
            }
            throw PlayerError("nothing to play in '\(TextSanitizer.clean(url))'\(why)")
        }
        // Sidecars first, so `--sid` can name a `--sub-file` track.
        for path in options.subtitleFiles {
            do { try subtitles.addSidecar(path: path) } catch { warnings.withLock { $0.append("\(error)") } }
        }
        _ = subtitles.initialTrack(requested: options.subtitleTrack, enabled: options.subtitlesEnabled,
                                   languages: options.subtitleLanguages)
        control.withLock { c in
            c.audioStreamIndex = audioIndex
            c.rate = min(4, max(0.25, options.speed))
            c.volume = min(130, max(0, options.volume))
            c.muted = options.muted
            c.audioDelay = options.audioDelay.isFinite ? min(10, max(-10, options.audioDelay)) : 0
        }
        clock.setRate(min(4, max(0.25, options.speed)))
        audioDecoder?.setRate(min(4, max(0.25, options.speed)))
        decoderNames.withLock { $0 = (videoDecoder?.codec.decoderName ?? "", audioDecoder?.decoderName ?? "", false, "") }
        applyAdaptiveDiscard(audio: audioIndex)
        requestSeek(to: max(0, options.start), mode: .exact)
    }

    var hasAudio: Bool { control.withLock { $0.audioStreamIndex != nil } }

    /// A variant stream's peak bit rate: libavformat's `variant_bitrate` (HLS BANDWIDTH, DASH
    /// bandwidth), else the stream's bit rate.
    static func variantBitrate(_ format: FormatContext, _ index: Int) -> Int {
        guard let stream = format.stream(index) else { return 0 }
        if let entry = av_dict_get(stream.pointee.metadata, "variant_bitrate", nil, 0), let rate = Int(String(cString: entry.pointee.value)) {
            return rate
        }
        return Int(stream.pointee.codecpar?.pointee.bit_rate ?? 0)
    }

    /// Adaptive sources: every video and audio stream but the ones playing is discarded, so the
    /// demuxer never fetches their segments. Demux thread (or before it starts).
    func applyAdaptiveDiscard(audio: Int?) {
        guard isAdaptive else { return }
        for i in 0..<format.streamCount {
            guard let stream = format.stream(i), let type = stream.pointee.codecpar?.pointee.codec_type else { continue }
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO else { continue }
            let keep = i == videoIndex || i == audio
            stream.pointee.discard = keep ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }
    var hasVideo: Bool { videoDecoder != nil && !control.withLock { $0.videoDisabled } }

    /// A stream that cannot be played after all (undecodable, encrypted): leave it out and let
    /// the others play; with nothing left the session fails with `message`.
    func disable(streamIndex index: Int, because message: String) {
        let nothingLeft = control.withLock { c -> Bool in
            if index == videoIndex {
                guard !c.videoDisabled else { return false }
                c.videoDisabled = true
                c.videoEnded = true
                if c.landed == nil { c.landed = c.skipVideoUntil ?? c.demuxedUntil }
            } else if index == c.audioStreamIndex {
                c.audioStreamIndex = nil
                c.audioEnded = true
            } else {
                return false
            }
            let noVideo = videoDecoder == nil || c.videoDisabled
            if noVideo && c.audioStreamIndex == nil && c.failure == nil {
                c.failure = message
                c.state = .error
                return true
            }
            return false
        }
        if index != videoIndex { clock.removeLimit() }
        if !nothingLeft { warn(message) } else { FFmpegLog.write("player", message) }
        videoQueue.wake()
        checkEnded()
    }

    func start() {
        // Each thread holds the session until it ends: C resources are freed after the last one.
        threads.start("aether.demux") { [self] in demuxLoop() }
        threads.start("aether.video") { [self] in videoLoop() }
        threads.start("aether.audio") { [self] in audioLoop() }
        threads.start("aether.present") { [self] in presentLoop() }
        if cacheSeconds > 0 { threads.start("aether.cache") { [self] in cacheLoop() } }
        if timeshift != nil { threads.start("aether.capture") { [self] in captureLoop() } }
    }

    /// Live with timeshift: reads the stream into the kept window, whatever the playhead does
    /// (paused, rewound), until it ends or the session stops. Owns the demuxer's reads.
    private func captureLoop() {
        guard let timeshift, let packet = try? Packet() else { return }
        var audio = control.withLock { $0.audioStreamIndex }
        var errors = 0
        let hasVideo = videoIndex != nil && videoDecoder != nil
        while !isStopped {
            let wanted = control.withLock { $0.audioStreamIndex }
            if wanted != audio {
                applyAdaptiveDiscard(audio: wanted)
                audio = wanted
            }
            do {
                guard try format.read(into: packet) else {
                    timeshift.finish(error: nil)
                    return
                }
                errors = 0
            } catch {
                if isStopped { break }
                if error.isTryAgain {
                    control.wait(seconds: 0.01) { $0.stopped }
                    continue
                }
                errors += 1
                FFmpegLog.write("live", "read error \(errors): \(error.message)")
                if format.ioFailed || format.atEndOfInput || errors >= PlaybackSession.maxConsecutiveReadErrors {
                    timeshift.finish(error: format.atEndOfInput && !format.ioFailed ? nil : format.readFailure(error))
                    return
                }
                continue
            }
            let index = packet.streamIndex
            timeshift.append(packet, time: ptsSeconds(packet, index),
                             videoKeyframe: index == videoIndex && packet.isKeyframe, hasVideo: hasVideo)
            packet.unref()
        }
        timeshift.finish(error: nil)
    }

    /// Playhead-to-demuxer margin under which a cached source stops to refill.
    static let bufferingLowWater = 0.25

    /// A source with a demuxer cache: pauses playback when the demuxer falls behind the playhead
    /// (the network stalled) and resumes once `cachePauseWait` seconds are buffered again, or
    /// the input ended. The user's pause is kept apart (``SessionControl/userPaused``).
    private func cacheLoop() {
        let wait = max(0.1, options.cachePauseWait)
        while true {
            let c = control.wait(until: MonotonicClock.seconds() + 0.05) { $0.stopped }
            if c.stopped { return }
            let now = clock.time
            let change = control.withLock { c -> Bool? in
                let ahead = c.demuxedUntil - now
                let settled = c.state == .playing || c.state == .paused
                if !c.buffering {
                    guard settled, !c.userPaused, c.pendingSeek == nil, !c.demuxEOF, c.firstFrameSeen || videoDecoder == nil,
                          ahead < PlaybackSession.bufferingLowWater else { return nil }
                    c.buffering = true
                    if now - c.serialStart > 1 { c.rebuffers += 1 }
                    c.paused = true
                    return true
                }
                guard c.demuxEOF || ahead >= wait || c.pendingSeek != nil || c.state == .ended || c.state == .error else { return nil }
                c.buffering = false
                c.paused = c.userPaused || c.state == .ended
                return c.paused
            }
            if let change {
                clock.setPaused(change)
                FFmpegLog.write("cache", change ? "buffering: the demuxer is \(String(format: "%.2f", control.withLock { $0.demuxedUntil } - now)) s ahead" : "buffered: playing on")
            }
        }
    }

    /// Longest `stop()` waits for the threads to end.
    static let stopTimeout = 1.0

    /// Stops every thread and joins them, within `stopTimeout` whatever the decoders and the
    /// devices are doing (blocking reads and device writes are interrupted). A thread that
    /// still has not ended is reported in the log; it holds the session until it does.
    func stop() {
        control.withLock { $0.stopped = true }
        format.interrupt.cancel()
        sink?.interrupt()
        videoQueue.close()
        audioQueue.close()
        frameQueue.close()
        let stuck = threads.join(timeout: PlaybackSession.stopTimeout)
        if !stuck.isEmpty { FFmpegLog.write("player", "stop: threads still running after \(PlaybackSession.stopTimeout) s: \(stuck.joined(separator: ", "))") }
        subtitles.close()
        timeshift?.close()
        let pool = pixelPool.counts
        FFmpegLog.write("player", "stopped; picture buffers allocated \(pool.allocated), reused \(pool.reused)")
    }

    var isStopped: Bool { control.withLock { $0.stopped } }

    func requestSeek(to target: Double, mode: SeekMode) {
        guard recordSeek(to: target, mode: mode) else { return }
        wakeForSeek()
    }

    /// The first half of ``requestSeek(to:mode:)``: the seek is pending (the demux thread may
    /// carry it out from here on). False when there is nothing to seek.
    func recordSeek(to target: Double, mode: SeekMode) -> Bool {
        var t = max(0, target)
        if let d = info.duration { t = min(t, max(0, d - 0.05)) }
        if isLive {
            // Inside the kept window; without one a live stream cannot be repositioned.
            guard let window = timeshift?.window else { return false }
            t = min(max(t, window.lowerBound), window.upperBound)
        }
        guard t.isFinite else { return false }
        let seekTarget = t
        let failed = control.withLock { $0.state == .error }
        if failed { return false }
        control.withLock { c in
            if c.pendingSeek == nil { c.resumeAfterSeek = !c.userPaused }
            c.pendingSeek = (seekTarget, mode)
            c.state = .seeking
            c.seekPreroll = 0
            c.seekRetries = 0
        }
        return true
    }

    /// The second half of ``requestSeek(to:mode:)``, which may run after the demux thread has
    /// carried the seek out (the caller was preempted).
    func wakeForSeek() {
        // Wake a demux push waiting on a full queue (it gives up: a seek is pending). Never
        // flush here: the demux thread may already have carried this seek out and queued the
        // new serial's packets (a short file entirely, end items included), and a late flush
        // would throw them away and leave every thread waiting for input that never comes.
        // The demux thread flushes the queues itself when it performs the seek.
        videoQueue.wake()
        audioQueue.wake()
    }

    /// Prerolls tried, in turn, when an exact seek lands after its target.
    static let seekPrerolls = [1.0, 4.0, 15.0]

    /// The first frame of an exact seek came after the target: seek again from further back
    /// (keeping the target). Returns false when out of retries (the frame is shown).
    func retryExactSeek(serial: Int) -> Bool {
        let retried = control.withLock { c -> Bool in
            // Nothing to gain once the demuxer already started from the beginning.
            guard c.serial == serial, c.pendingSeek == nil, let target = c.skipVideoUntil,
                  target - c.seekPreroll > 0, c.seekRetries < PlaybackSession.seekPrerolls.count else { return false }
            c.seekPreroll = PlaybackSession.seekPrerolls[c.seekRetries]
            c.seekRetries += 1
            c.pendingSeek = (target, .exact)
            return true
        }
        if retried {
            videoQueue.wake()
            audioQueue.wake()
        }
        return retried
    }

    func warn(_ message: String) {
        warnings.withLock { $0.append(message) }
        FFmpegLog.write("player", message)
    }

    /// Marks the session ended once every active stream has finished.
    func checkEnded() {
        control.withLock { c in
            guard c.pendingSeek == nil, c.state != .error, c.state != .seeking || c.landed != nil else { return }
            let videoDone = videoDecoder == nil || c.videoEnded || c.videoDisabled
            let audioDone = c.audioStreamIndex == nil || c.audioEnded
            if videoDone && audioDone && c.state != .ended {
                c.state = .ended
                c.paused = true
                c.buffering = false
                c.endedHost = MonotonicClock.seconds()
            }
        }
    }
}

extension PlaybackSession {
    /// The host put a frame of `serial` on screen.
    func noteDisplayed(serial: Int) {
        let isNew = displayedSerial.withLock { newest -> Bool in
            guard serial > newest else { return false }
            newest = serial
            return true
        }
        if isNew { control.withLock { $0.displayedSerial = max($0.displayedSerial, serial) } }
    }

    /// Audio thread, before the first samples of `serial`: when the host paints on its own
    /// thread, waits (at most ``firstPictureWaitSeconds``) until that serial's first picture is
    /// on screen, so sound and clock start with the picture rather than while a slow terminal
    /// is still drawing it (mpv starts audio once the first frame is shown, too).
    func waitForFirstPicture(serial: Int) {
        guard videoDecoder != nil, hostReportsDisplay.withLock({ $0 }) else { return }
        control.wait(seconds: Self.firstPictureWaitSeconds) { $0.displayedSerial >= serial || $0.serial != serial || $0.stopped }
    }
}
