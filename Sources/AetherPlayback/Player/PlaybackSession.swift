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

/// What every thread of a session shares: its control state, its master clock, its telemetry
/// and the sync policy their rules read.
struct SessionContext {
    let control: ControlBox
    let clock: MasterClock
    let telemetry: Telemetry
    let policy: SyncPolicy
}

/// One loaded source, made by `Player.load` from what ``SourceOpener`` opened: its control (seeks,
/// streams left out, the cache's pauses, the stop) over the threads that play it, each owning
/// its own state: ``DemuxLoop`` (the demux thread, and live with timeshift the capture thread),
/// ``AudioFileReader``, ``VideoPipeline``, ``AudioPipeline`` and ``Presenter``, joined by
/// ``SessionQueues``. `stop()` is the one owner of every thread (``SessionThreads``). See the
/// Playback article's thread table. What the source is (its demuxer, info, variants, timeshift
/// window, subtitles…) is read from the ``OpenedSource`` the session was given, `session.info`
/// being `session.source.info`: no field is copied.
@dynamicMemberLookup
final class PlaybackSession: @unchecked Sendable {  // cross-thread state is in `control`, queues, atomics
    /// What ``SourceOpener`` opened.
    let source: OpenedSource
    subscript<T>(dynamicMember path: KeyPath<OpenedSource, T>) -> T { source[keyPath: path] }
    let options: PlayerOptions
    /// The control state, the clock, the telemetry and the policy every thread shares.
    let context: SessionContext
    let queues: SessionQueues
    /// Hands due frames with their cues to the host's ``FrameSink`` and takes its reports.
    let presenter: Presenter
    /// Decode failures in a row, with no frame ever decoded, after which a stream is declared
    /// undecodable and left out (the others play on).
    static let undecodableAfterErrors = 24
    /// The longest the sound of a load or seek waits for its first picture to reach the screen.
    static let firstPictureWaitSeconds = 0.5
    let warnings: Guarded<[String]>
    /// `--stream-record`'s file being written (``StreamRecorder``), nil when none: the demux
    /// thread writes every packet it reads to it.
    let recording = Guarded<StreamRecorder?>(nil)
    let threads = SessionThreads()
    /// Reads the source (the demux thread; the capture thread when live with timeshift). Set
    /// once in `init`, before any thread starts.
    private(set) var demux: DemuxLoop?
    /// Reads the `--audio-file`s (nil: none opened). Set once in `init`, before any thread starts.
    private(set) var audioFiles: AudioFileReader?
    /// Decodes the sound and plays it on the device (nil: no audio decoder). Set once in
    /// `init`, before any thread starts.
    private(set) var audio: AudioPipeline?
    /// Which session may stop the device: shared with the item before or after (gapless).
    let sinkOwner: SinkOwner
    /// The prepared next item that continues this one's device at its end (gapless).
    let successor = Guarded<PlaybackSession?>(nil)
    /// Decodes and converts the video (nil: no video decoder). Set once in `init`, before any
    /// thread starts.
    private(set) var video: VideoPipeline?

    /// `continuing`: the playing item whose device this one continues (``OpenedSource/Audio/continuesSink``).
    init(opened: OpenedSource, options: PlayerOptions, subtitleDelay: Guarded<Double>, frameDivisor: Guarded<Int> = Guarded(1),
         changes: ChangeNotifier = ChangeNotifier(), continuing: PlaybackSession? = nil) {
        let control = ControlBox(changes: changes)
        let clock = MasterClock(policy: options.policy, timeSource: options.time)
        let context = SessionContext(control: control, clock: clock, telemetry: Telemetry(time: options.time), policy: options.policy)
        sinkOwner = opened.audio.continuesSink ? continuing?.sinkOwner ?? SinkOwner() : SinkOwner()
        self.options = options
        self.context = context
        source = opened
        warnings = Guarded(opened.warnings)
        queues = SessionQueues(policy: options.policy, cacheSeconds: opened.reading.cacheSeconds)
        presenter = Presenter(frames: queues.frames, control: control, clock: clock, telemetry: context.telemetry, policy: options.policy,
                              subtitles: opened.subtitles, subtitleDelay: subtitleDelay, frameDivisor: frameDivisor,
                              videoEnded: { [control, clock, hasVideo = opened.video.decoder != nil] in
                                  control.withLock { $0.endIfPlayedOut(hasVideo: hasVideo, now: clock.host.seconds) }
                              })
        control.withLock { c in
            c.streams.audio = opened.audio.index
            c.settings = options.playing.bounded
        }
        clock.setRate(PlaybackSettings.bounded(rate: options.playing.rate))
        let disable: @Sendable (Int, String) -> Void = { [unowned self] in self.disable(streamIndex: $0, because: $1) }
        let warn: @Sendable (String) -> Void = { [unowned self] in self.warn($0) }
        demux = DemuxLoop(source: opened, context: context, queues: queues, recording: recording,
                          hooks: .init(disable: disable, warn: warn))
        if !opened.externals.isEmpty {
            audioFiles = AudioFileReader(source: opened, context: context, queue: queues.audio, warn: warn)
        }
        if let decoder = opened.video.decoder {
            video = VideoPipeline(decoder: decoder, packets: queues.video, frames: queues.frames, context: context,
                                  frameDivisor: frameDivisor,
                                  plan: .init(skipLoopFilter: options.video.skipLoopFilter, endTime: opened.reading.endTime,
                                              codecName: info.primaryVideo?.codec ?? "video", keyframeAfterSeek: opened.adaptive.changesCodec),
                                  hooks: .init(retryExactSeek: { [unowned self] serial in retryExactSeek(serial: serial) }, disable: disable))
        }
        if let decoder = opened.audio.decoder, let sink = opened.audio.sink {
            audio = AudioPipeline(decoder: decoder, sink: sink, packets: queues.audio, context: context,
                                  streams: AudioStreams(main: format, externals: opened.externals), info: info,
                                  plan: .init(startTime: opened.audio.start, endTime: [opened.reading.endTime, opened.audio.end].compactMap { $0 }.min(),
                                              replayGain: replayGain.factor, hasVideo: opened.video.decoder != nil,
                                              continuesSink: opened.audio.continuesSink),
                                  hooks: .init(handOver: { [unowned self] in handOverSink() },
                                               waitForFirstPicture: { [unowned self] serial in waitForFirstPicture(serial: serial) },
                                               disable: disable, warn: warn))
            audio?.setRate(PlaybackSettings.bounded(rate: options.playing.rate))
        }
        opened.discardUnplayed(audio: opened.audio.index)
        if !opened.audio.continuesSink { sinkOwner.claim(ObjectIdentifier(self)) }
        requestSeek(to: max(0, options.start), mode: .exact)
    }

    /// A stream that cannot be played after all (undecodable, encrypted): leave it out and let
    /// the others play; with nothing left the session fails with `message`.
    func disable(streamIndex index: Int, because message: String) {
        let nothingLeft = control.withLock { c -> Bool in
            if index == source.video.index {
                guard !c.streams.videoDisabled else { return false }
                c.streams.videoDisabled = true
                c.seek.end(.video, serial: nil)
                c.seek.land(at: c.seek.skipVideoUntil ?? c.demuxedUntil, serial: c.serial)
            } else if index == c.streams.audio {
                c.streams.audio = nil
                c.seek.end(.audio, serial: nil)
            } else {
                return false
            }
            let noVideo = videoDecoder == nil || c.streams.videoDisabled
            if noVideo && c.streams.audio == nil && c.ending.failure == nil {
                c.apply(.failed(PlayerError(message, cause: .nothingToPlay)))
                return true
            }
            return false
        }
        if index != source.video.index { clock.removeLimit() }
        if !nothingLeft { warn(message) } else { AppLog.write("player", message) }
        queues.video.wake()
        checkEnded()
    }

    func start() {
        if let adaptive = format.adaptive {
            // Seconds demuxed ahead of the playhead: the buffer the switching rule weighs.
            adaptive.setBufferLevel { [control, clock] in max(0, control.read { $0.demuxedUntil } - clock.time) }
            adaptive.arm()
        }
        // Each thread holds the session until it ends: C resources are freed after the last one.
        threads.start("aether.demux") { [self] in demux?.run() }
        threads.start("aether.video") { [self] in video?.run() }
        threads.start("aether.audio") { [self] in audio?.run() }
        threads.start("aether.present") { [self] in presenter.run() }
        if source.reading.cacheSeconds > 0 { threads.start("aether.cache") { [self] in cacheLoop() } }
        if source.reading.timeshift != nil { threads.start("aether.capture") { [self] in demux?.capture() } }
        if audioFiles != nil { threads.start("aether.audiofile") { [self] in audioFiles?.run() } }
    }

    /// Playhead-to-demuxer margin under which a cached source stops to refill.
    static let bufferingLowWater = 0.25

    /// A source with a demuxer cache: pauses playback when the demuxer falls behind the playhead
    /// (the network stalled) and resumes once `cachePauseWait` seconds are buffered again, or
    /// the input ended. The user's pause is kept apart (``SessionControl/userPaused``).
    private func cacheLoop() {
        let wait = max(0.1, options.stream.cachePauseWait)
        while true {
            let c = control.wait(seconds: 0.05) { $0.stopped }
            if c.stopped { return }
            let now = clock.time
            let change = control.withLock { c -> Bool? in
                let ahead = c.demuxedUntil - now
                let settled = c.state == .playing || c.state == .paused
                if !c.cache.buffering {
                    guard settled, !c.userPaused, c.pendingSeek == nil, !c.demux.eof, c.seek.firstFrameSeen || videoDecoder == nil,
                          ahead < PlaybackSession.bufferingLowWater else { return nil }
                    c.cache.buffering = true
                    if now - c.seek.start > 1 { c.cache.rebuffers += 1 }
                    c.paused = true
                    return true
                }
                guard c.demux.eof || ahead >= wait || c.pendingSeek != nil || c.state == .ended || c.state == .error else { return nil }
                c.cache.buffering = false
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
        queues.close()
        let stuck = threads.join(timeout: PlaybackSession.stopTimeout)
        if !stuck.isEmpty { AppLog.write("player", "stop: threads still running after \(PlaybackSession.stopTimeout) s: \(stuck.joined(separator: ", "))") }
        source.subtitles.close()
        source.reading.timeshift?.close()
        finishRecording()
        let pool = video?.pixelPool.counts ?? (allocated: 0, reused: 0)
        AppLog.write("player", "stopped; picture buffers allocated \(pool.allocated), reused \(pool.reused)")
    }

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
        if source.reading.isLive {
            // Inside the kept window; without one a live stream cannot be repositioned.
            guard let window = source.reading.timeshift?.window else { return false }
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
        queues.wakePackets()
    }

    /// The first frame of an exact seek came after the target: seek again from further back
    /// (keeping the target). Returns false when out of retries (the frame is shown).
    func retryExactSeek(serial: Int) -> Bool {
        let retried = control.withLock { $0.seek.retry(serial: serial) }
        if retried { queues.wakePackets() }
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
    var format: FormatContext { source.format }
    var info: MediaInfo { source.info }
    var control: ControlBox { context.control }
    var clock: MasterClock { context.clock }
    var telemetry: Telemetry { context.telemetry }
    /// The loudness gain of this file under `--replaygain*` (dB, factor, which tag; nil: off).
    var replayGain: (db: Double, factor: Double, source: String?) { options.audio.replayGain.applied(to: info.replayGain) }
    /// The audio device (nil without audio).
    var sink: AudioSink? { audio?.sink }
    /// The samples written to the device, for visualisation (nil without audio).
    var audioTap: AudioTap? { audio?.tap }
    var videoDecoder: VideoDecoder? { video?.decoder }
    var hasAudio: Bool { control.read { $0.streams.audio != nil } }
    var hasVideo: Bool { videoDecoder != nil && !control.read { $0.streams.videoDisabled } }

    /// The clock's media time; a seek's target while it is asked for or carried out; once
    /// ended, where the media stops (``Player/currentTime``).
    var position: Double {
        let (state, target) = control.read { ($0.state, $0.pendingSeek?.target ?? $0.seek.inFlight) }
        if let target { return target }
        if state == .ended {
            let last = control.read { max($0.lastPresentedPTS ?? 0, $0.demuxedUntil) }
            return min(source.reading.endTime ?? .infinity, info.duration ?? last, max(last, clock.time))
        }
        return clock.time
    }

    /// How far the demuxer has read ahead, in media seconds, for a source with a demuxer cache;
    /// nil otherwise (``Player/cachedUntil``).
    var cachedUntil: Double? {
        guard source.reading.cacheSeconds > 0 else { return nil }
        return control.read { $0.demux.eof ? (info.duration ?? $0.demuxedUntil) : $0.demuxedUntil }
    }

    /// Live: the kept window (oldest moment ... live edge) in media seconds; nil when not live.
    var liveWindow: ClosedRange<Double>? {
        guard source.reading.isLive else { return nil }
        if let window = source.reading.timeshift?.window { return window }
        let edge = control.read { $0.demuxedUntil }
        return edge...edge
    }

    /// Audio thread, before the first samples of `serial`: when the sink paints on its own
    /// thread, waits (at most ``firstPictureWaitSeconds``) until that serial's first picture is
    /// reported on screen, so sound and clock start with the picture rather than while a slow
    /// terminal is still drawing it (mpv starts audio once the first frame is shown, too).
    func waitForFirstPicture(serial: Int) {
        guard videoDecoder != nil, presenter.sinkReportsDisplay else { return }
        control.wait(seconds: Self.firstPictureWaitSeconds) { $0.displayedSerial >= serial || $0.serial != serial || $0.stopped }
    }
}
