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
    /// Where due frames go (``FrameSink``); set by the host, read by the present thread.
    let frameSink = Guarded<(any FrameSink)?>(nil)
    /// What the host's reports say (newest serial on screen, presentation lead).
    let feedback = PresentationFeedback()
    /// Seconds subtitles come later than their timestamps: the player's, shared by its sessions.
    let subtitleDelay: Guarded<Double>
    /// The longest the sound of a load or seek waits for its first picture to reach the screen.
    static let firstPictureWaitSeconds = 0.5
    let subtitles: SubtitleStore
    let warnings: Guarded<[String]>
    let endTime: Double?
    /// HLS or DASH through libavformat: unplayed variant streams are discarded.
    let isAdaptive: Bool
    /// A live stream (no length); with a timeshift window, the capture thread reads it into
    /// `timeshift` and the demux thread plays from there.
    let isLive: Bool
    let timeshift: TimeshiftBuffer?
    /// The adaptive stream's variants and the one playing (nil: not adaptive, or one variant).
    let variants: [StreamVariant]
    let variant: StreamVariant?
    /// Seconds the demuxer reads ahead (0: no cache, the packet queues bound it alone).
    let cacheSeconds: Double
    let threads = SessionThreads()
    /// Streams the header says are encrypted: never decoded.
    let encryptedStreams: Set<Int>
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

    /// Opens `url` (``SourceOpener``) and sets up the queues and the clock; the threads start
    /// with ``start()``.
    convenience init(url: String, options: PlayerOptions, subtitleDelay: Guarded<Double> = Guarded(0)) throws {
        try self.init(opened: SourceOpener.open(url: url, options: options), options: options, subtitleDelay: subtitleDelay)
    }

    init(opened: OpenedSource, options: PlayerOptions, subtitleDelay: Guarded<Double>) {
        self.options = options
        self.subtitleDelay = subtitleDelay
        policy = options.policy
        clock = MasterClock(policy: options.policy)
        format = opened.format
        info = opened.info
        openOptions = opened.openOptions
        videoIndex = opened.videoIndex
        isAdaptive = opened.isAdaptive
        isLive = opened.isLive
        timeshift = opened.timeshift
        variants = opened.variants
        variant = opened.variant
        encryptedStreams = opened.encryptedStreams
        endTime = opened.endTime
        cacheSeconds = opened.cacheSeconds
        coverArt = opened.coverArt
        subtitles = opened.subtitles
        videoDecoder = opened.videoDecoder
        audioDecoder = opened.audioDecoder
        sink = opened.sink
        audioTap = opened.sink.map { AudioTap(sampleRate: $0.format.sampleRate) }
        warnings = Guarded(opened.warnings)
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
        control.withLock { c in
            c.audioStreamIndex = opened.audioIndex
            c.rate = min(4, max(0.25, options.speed))
            c.volume = min(130, max(0, options.volume))
            c.muted = options.muted
            c.audioDelay = options.audioDelay.isFinite ? min(10, max(-10, options.audioDelay)) : 0
        }
        clock.setRate(min(4, max(0.25, options.speed)))
        audioDecoder?.setRate(min(4, max(0.25, options.speed)))
        decoderNames.withLock { $0 = (videoDecoder?.codec.decoderName ?? "", audioDecoder?.decoderName ?? "", false, "") }
        applyAdaptiveDiscard(audio: opened.audioIndex)
        requestSeek(to: max(0, options.start), mode: .exact)
    }

    var hasAudio: Bool { control.withLock { $0.audioStreamIndex != nil } }

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
                c.seek.end(.video, serial: nil)
                c.seek.land(at: c.seek.skipVideoUntil ?? c.demuxedUntil, serial: c.serial)
            } else if index == c.audioStreamIndex {
                c.audioStreamIndex = nil
                c.seek.end(.audio, serial: nil)
            } else {
                return false
            }
            let noVideo = videoDecoder == nil || c.videoDisabled
            if noVideo && c.audioStreamIndex == nil && c.failure == nil {
                c.apply(.failed(message))
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
                if error.isTryAgain { usleep(10_000); continue }
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
                    guard settled, !c.userPaused, c.pendingSeek == nil, !c.demuxEOF, c.seek.firstFrameSeen || videoDecoder == nil,
                          ahead < PlaybackSession.bufferingLowWater else { return nil }
                    c.buffering = true
                    if now - c.seek.start > 1 { c.rebuffers += 1 }
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

    /// Tests only: how long `requestSeek` stalls between recording the seek and waking the demux
    /// thread, as a preempted caller would (the demux thread carries the seek out meanwhile).
    static let testPauseAfterSeekRequest = Guarded<Double?>(nil)

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
        var t = max(0, target)
        if let d = info.duration { t = min(t, max(0, d - 0.05)) }
        if isLive {
            // Inside the kept window; without one a live stream cannot be repositioned.
            guard let window = timeshift?.window else { return }
            t = min(max(t, window.lowerBound), window.upperBound)
        }
        guard t.isFinite else { return }
        let seekTarget = t
        let failed = control.withLock { $0.state == .error }
        if failed { return }
        control.withLock { c in
            c.seek.request(to: seekTarget, mode: mode)
            c.apply(.seekRequested)
        }
        if let pause = PlaybackSession.testPauseAfterSeekRequest.withLock({ $0 }) { Thread.sleep(forTimeInterval: pause) }
        // Wake a demux push waiting on a full queue (it gives up: a seek is pending). Never
        // flush here: the demux thread may already have carried this seek out and queued the
        // new serial's packets (a short file entirely, end items included), and a late flush
        // would throw them away and leave every thread waiting for input that never comes.
        // The demux thread flushes the queues itself when it performs the seek.
        videoQueue.wake()
        audioQueue.wake()
    }

    /// The first frame of an exact seek came after the target: seek again from further back
    /// (keeping the target). Returns false when out of retries (the frame is shown).
    func retryExactSeek(serial: Int) -> Bool {
        let retried = control.withLock { $0.seek.retry(serial: serial) }
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
            let videoDone = videoDecoder == nil || c.seek.videoEnded || c.videoDisabled
            let audioDone = c.audioStreamIndex == nil || c.seek.audioEnded
            if videoDone && audioDone { c.apply(.ended) }
        }
    }
}

extension PlaybackSession {
    /// The sink's report on a frame it was handed (any host thread): the first picture of a
    /// serial lets that serial's sound start; a paced frame of the current serial shown while
    /// playing gives its A/V gap, and its paint latency feeds the presentation lead.
    func receive(_ report: FrameReport) {
        switch report.outcome {
        case .superseded:
            telemetry.superseded()
        case .displayed(let latency):
            let frame = report.frame
            var counts = false
            if frame.paced, clock.isArmed {
                let (serial, paused, delay) = control.withLock { ($0.serial, $0.paused, $0.audioDelay) }
                if frame.serial == serial, !paused {
                    telemetry.displayed(gap: frame.pts - clock.time - delay)
                    counts = true
                }
            }
            let isNew = feedback.displayed(serial: frame.serial, latency: counts ? latency : nil)
            if isNew { control.withLock { $0.displayedSerial = max($0.displayedSerial, frame.serial) } }
        }
    }

    /// Audio thread, before the first samples of `serial`: when the sink paints on its own
    /// thread, waits (at most ``firstPictureWaitSeconds``) until that serial's first picture is
    /// reported on screen, so sound and clock start with the picture rather than while a slow
    /// terminal is still drawing it (mpv starts audio once the first frame is shown, too).
    func waitForFirstPicture(serial: Int) {
        guard videoDecoder != nil, frameSink.withLock({ $0?.reportsDisplay ?? false }) else { return }
        control.wait(seconds: Self.firstPictureWaitSeconds) { $0.displayedSerial >= serial || $0.serial != serial || $0.stopped }
    }
}
