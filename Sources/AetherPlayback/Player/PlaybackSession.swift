import AetherBase
import AetherMedia
import AetherStreaming
import AetherSubtitles
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
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

/// One loaded source, made by `Player.load` from what ``SourceOpener`` opened: the demux side
/// (the demuxer, the packet and frame queues, the cache and capture threads, the timeshift
/// window) and the three pipelines it feeds, each owning its own state and thread:
/// ``VideoPipeline``, ``AudioPipeline`` and ``Presenter``. `stop()` is the one owner of every
/// thread (``SessionThreads``). See the Playback article's type map. What the source is (its
/// demuxer, info, variants, timeshift window, subtitles…) is read from the ``OpenedSource`` the
/// session was given, `session.info` being `session.source.info`: no field is copied.
@dynamicMemberLookup
final class PlaybackSession: @unchecked Sendable {  // cross-thread state is in `control`, queues, atomics
    /// What ``SourceOpener`` opened.
    let source: OpenedSource
    subscript<T>(dynamicMember path: KeyPath<OpenedSource, T>) -> T { source[keyPath: path] }
    var format: FormatContext { source.format }
    var info: MediaInfo { source.info }
    /// Streams the source had when it opened: a later one is followed by ``followedStream(_:_:)``.
    let streamCountAtOpen: Int
    let options: PlayerOptions
    /// The loudness gain of this file under `--replaygain*` (dB, factor, which tag; nil: off).
    let replayGain: (db: Double, factor: Double, source: String?)
    let policy: SyncPolicy
    let clock: MasterClock
    let telemetry: Telemetry
    let control: ControlBox
    let videoQueue: BoundedQueue<QueueItem<Packet>>
    let audioQueue: BoundedQueue<QueueItem<Packet>>
    let frameQueue: BoundedQueue<QueueItem<VideoFrame>>
    /// Hands due frames with their cues to the host's ``FrameSink`` and takes its reports.
    let presenter: Presenter
    /// Decode failures in a row, with no frame ever decoded, after which a stream is declared
    /// undecodable and left out (the others play on).
    static let undecodableAfterErrors = 24
    /// The longest the sound of a load or seek waits for its first picture to reach the screen.
    static let firstPictureWaitSeconds = 0.5
    let warnings: Guarded<[String]>
    /// `--stream-record`'s file being written (``StreamRecorder``), nil when none.
    let recording = Guarded<StreamRecorder?>(nil)
    let threads = SessionThreads()
    /// Decodes the sound and plays it on the device (nil: no audio decoder). Set once in
    /// `init`, before any thread starts.
    private(set) var audio: AudioPipeline?
    /// The audio device (nil without audio).
    var sink: AudioSink? { audio?.sink }
    /// Which session may stop the device: shared with the item before or after (gapless).
    let sinkOwner: SinkOwner
    /// The prepared next item that continues this one's device at its end (gapless).
    let successor = Guarded<PlaybackSession?>(nil)
    /// The samples written to the device, for visualisation (nil without audio).
    var audioTap: AudioTap? { audio?.tap }
    /// Decodes and converts the video (nil: no video decoder). Set once in `init`, before any
    /// thread starts.
    private(set) var video: VideoPipeline?
    var videoDecoder: VideoDecoder? { video?.decoder }

    /// Opens `url` (``SourceOpener``) and sets up the queues and the clock; the threads start
    /// with ``start()``.
    convenience init(url: String, options: PlayerOptions, subtitleDelay: Guarded<Double> = Guarded(0),
                     frameDivisor: Guarded<Int> = Guarded(1), changes: ChangeNotifier = ChangeNotifier()) throws(PlayerError) {
        try self.init(opened: SourceOpener.open(url: url, options: options), options: options, subtitleDelay: subtitleDelay,
                      frameDivisor: frameDivisor, changes: changes)
    }

    /// `continuing`: the playing item whose device this one continues (``OpenedSource/continuesSink``).
    init(opened: OpenedSource, options: PlayerOptions, subtitleDelay: Guarded<Double>, frameDivisor: Guarded<Int> = Guarded(1),
         changes: ChangeNotifier = ChangeNotifier(),
         continuing: PlaybackSession? = nil) {
        control = ControlBox(changes: changes)
        sinkOwner = opened.continuesSink ? continuing?.sinkOwner ?? SinkOwner() : SinkOwner()
        self.options = options
        policy = options.policy
        clock = MasterClock(policy: options.policy, timeSource: options.time)
        telemetry = Telemetry(time: options.time)
        source = opened
        replayGain = options.replayGain.applied(to: opened.info.replayGain)
        streamCountAtOpen = opened.format.streamCount
        warnings = Guarded(opened.warnings)
        // A cache holds its seconds of packets (mpv's default byte cap, 150 MiB); without one,
        // the queues hold a few seconds.
        let queueBytes = source.cacheSeconds > 0 ? max(options.policy.packetQueueBytes, 150 << 20) : options.policy.packetQueueBytes
        let videoPackets = source.cacheSeconds > 0 ? max(600, min(1 << 22, Int(saturating: source.cacheSeconds * 130))) : 600
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
        presenter = Presenter(frames: frameQueue, control: control, clock: clock, telemetry: telemetry, policy: policy,
                              subtitles: source.subtitles, subtitleDelay: subtitleDelay, frameDivisor: frameDivisor,
                              videoEnded: { [control, clock, hasVideo = opened.videoDecoder != nil] in
                                  control.withLock { $0.endIfPlayedOut(hasVideo: hasVideo, now: clock.host.seconds) }
                              })
        control.withLock { c in
            c.audioStreamIndex = opened.audioIndex
            c.rate = min(4, max(0.25, options.speed))
            c.volume = min(130, max(0, options.volume))
            c.muted = options.muted
            c.audioDelay = options.audioDelay.isFinite ? min(10, max(-10, options.audioDelay)) : 0
        }
        clock.setRate(min(4, max(0.25, options.speed)))
        if let decoder = opened.videoDecoder {
            video = VideoPipeline(decoder: decoder, packets: videoQueue, frames: frameQueue, control: control, clock: clock,
                                  telemetry: telemetry, policy: policy, frameDivisor: frameDivisor, skipLoopFilter: options.skipLoopFilter,
                                  endTime: source.endTime, codecName: info.primaryVideo?.codec ?? "video", keyframeAfterSeek: source.changesCodec,
                                  retryExactSeek: { [unowned self] serial in retryExactSeek(serial: serial) },
                                  disable: { [unowned self] index, message in disable(streamIndex: index, because: message) })
        }
        if let decoder = opened.audioDecoder, let sink = opened.sink {
            audio = AudioPipeline(decoder: decoder, sink: sink, packets: audioQueue, control: control, clock: clock,
                                  telemetry: telemetry, streams: AudioStreams(main: format, externals: opened.externals),
                                  info: info, startTime: opened.audioStart, endTime: [source.endTime, opened.audioEnd].compactMap { $0 }.min(), replayGain: replayGain.factor,
                                  hasVideo: opened.videoDecoder != nil, continuesSink: opened.continuesSink,
                                  handOver: { [unowned self] in handOverSink() },
                                  waitForFirstPicture: { [unowned self] serial in waitForFirstPicture(serial: serial) },
                                  disable: { [unowned self] index, message in disable(streamIndex: index, because: message) },
                                  warn: { [unowned self] message in warn(message) })
            audio?.setRate(min(4, max(0.25, options.speed)))
        }
        applyAdaptiveDiscard(audio: opened.audioIndex)
        if !opened.continuesSink { sinkOwner.claim(ObjectIdentifier(self)) }
        requestSeek(to: max(0, options.start), mode: .exact)
    }

    var hasAudio: Bool { control.read { $0.audioStreamIndex != nil } }

    /// Adaptive sources: every video and audio stream but the ones playing is discarded, so the
    /// demuxer never fetches their segments; a stream that appeared later is the one playing
    /// in another codec (``followedStream(_:audioIndex:sources:)``). Demux thread (or before it starts).
    func applyAdaptiveDiscard(audio: Int?) {
        guard source.isAdaptive else { return }
        for i in 0..<format.streamCount {
            guard let stream = format.stream(i), let type = stream.pointee.codecpar?.pointee.codec_type else { continue }
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO else { continue }
            let keep = i == source.videoIndex || i == audio || i >= streamCountAtOpen
            stream.pointee.discard = keep ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }
    var hasVideo: Bool { videoDecoder != nil && !control.read { $0.videoDisabled } }

    /// A stream that cannot be played after all (undecodable, encrypted): leave it out and let
    /// the others play; with nothing left the session fails with `message`.
    func disable(streamIndex index: Int, because message: String) {
        let nothingLeft = control.withLock { c -> Bool in
            if index == source.videoIndex {
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
                c.apply(.failed(PlayerError(message, cause: .nothingToPlay)))
                return true
            }
            return false
        }
        if index != source.videoIndex { clock.removeLimit() }
        if !nothingLeft { warn(message) } else { AppLog.write("player", message) }
        videoQueue.wake()
        checkEnded()
    }

    func start() {
        if let adaptive = format.adaptive {
            // Seconds demuxed ahead of the playhead: the buffer the switching rule weighs.
            adaptive.setBufferLevel { [control, clock] in max(0, control.read { $0.demuxedUntil } - clock.time) }
            adaptive.arm()
        }
        // Each thread holds the session until it ends: C resources are freed after the last one.
        threads.start("aether.demux") { [self] in demuxLoop() }
        threads.start("aether.video") { [self] in video?.run() }
        threads.start("aether.audio") { [self] in audio?.run() }
        threads.start("aether.present") { [self] in presenter.run() }
        if source.cacheSeconds > 0 { threads.start("aether.cache") { [self] in cacheLoop() } }
        if source.timeshift != nil { threads.start("aether.capture") { [self] in captureLoop() } }
        if !source.externals.isEmpty { threads.start("aether.audiofile") { [self] in audioFileLoop() } }
    }

    /// Live with timeshift: reads the stream into the kept window, whatever the playhead does
    /// (paused, rewound), until it ends or the session stops. Owns the demuxer's reads.
    private func captureLoop() {
        guard let timeshift = source.timeshift, let packet = try? Packet() else { return }
        var audio = control.read { $0.audioStreamIndex }
        var errors = 0
        let hasVideo = source.videoIndex != nil && videoDecoder != nil
        while !isStopped {
            let wanted = control.read { $0.audioStreamIndex }
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
                AppLog.write("live", "read error \(errors): \(error.message)")
                if format.ioFailed || format.atEndOfInput || errors >= PlaybackSession.maxConsecutiveReadErrors {
                    timeshift.finish(error: format.atEndOfInput && !format.ioFailed ? nil : format.readFailure(error))
                    return
                }
                continue
            }
            let index = packet.streamIndex
            timeshift.append(packet, time: ptsSeconds(packet, index),
                             videoKeyframe: index == source.videoIndex && packet.isKeyframe, hasVideo: hasVideo,
                             paces: hasVideo ? index == source.videoIndex : index == audio)
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
            let c = control.wait(seconds: 0.05) { $0.stopped }
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
                AppLog.write("cache", change ? "buffering: the demuxer is \(String(cFormat: "%.2f", control.read { $0.demuxedUntil } - now)) s ahead" : "buffered: playing on")
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
        for ext in source.externals { ext.format.interrupt.cancel() }
        // A device handed to the next item (or not yet handed to this one) is not this one's to stop.
        if sinkOwner.release(ObjectIdentifier(self)) { sink?.interrupt() }
        successor.withLock { $0 = nil }
        videoQueue.close()
        audioQueue.close()
        frameQueue.close()
        let stuck = threads.join(timeout: PlaybackSession.stopTimeout)
        if !stuck.isEmpty { AppLog.write("player", "stop: threads still running after \(PlaybackSession.stopTimeout) s: \(stuck.joined(separator: ", "))") }
        source.subtitles.close()
        source.timeshift?.close()
        finishRecording()
        let pool = video?.pixelPool.counts ?? (allocated: 0, reused: 0)
        AppLog.write("player", "stopped; picture buffers allocated \(pool.allocated), reused \(pool.reused)")
    }

    var isStopped: Bool { control.read { $0.stopped } }

    /// `forward`: a keyframe seek that must not land before `target` (see ``PendingSeek``).
    func requestSeek(to target: Double, mode: SeekMode, forward: Bool = false) {
        guard recordSeek(to: target, mode: mode, forward: forward) else { return }
        wakeForSeek()
    }

    /// The first half of ``requestSeek(to:mode:)``: the seek is pending (the demux thread may
    /// carry it out from here on). False when there is nothing to seek.
    func recordSeek(to target: Double, mode: SeekMode, forward: Bool = false) -> Bool {
        var t = max(0, target)
        if let d = info.duration { t = min(t, max(0, d - 0.05)) }
        if source.isLive {
            // Inside the kept window; without one a live stream cannot be repositioned.
            guard let window = source.timeshift?.window else { return false }
            t = min(max(t, window.lowerBound), window.upperBound)
        }
        guard t.isFinite else { return false }
        let seekTarget = t
        let failed = control.read { $0.state == .error }
        if failed { return false }
        control.withLock { c in
            c.seek.request(to: seekTarget, mode: mode, forward: forward)
            c.apply(.seekRequested)
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
        AppLog.write("player", message)
    }

    /// Marks the session ended once every active stream has finished.
    func checkEnded() {
        let hasVideo = videoDecoder != nil
        control.withLock { $0.endIfPlayedOut(hasVideo: hasVideo, now: clock.host.seconds) }
    }
}

extension PlaybackSession {
    /// Audio thread, before the first samples of `serial`: when the sink paints on its own
    /// thread, waits (at most ``firstPictureWaitSeconds``) until that serial's first picture is
    /// reported on screen, so sound and clock start with the picture rather than while a slow
    /// terminal is still drawing it (mpv starts audio once the first frame is shown, too).
    func waitForFirstPicture(serial: Int) {
        guard videoDecoder != nil, presenter.sinkReportsDisplay else { return }
        control.wait(seconds: Self.firstPictureWaitSeconds) { $0.displayedSerial >= serial || $0.serial != serial || $0.stopped }
    }
}
