import AetherBase
import AetherMedia
import AetherStreaming
import AetherSubtitles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The engine's public face: load a source, control transport, read state and telemetry.
/// No terminal knowledge; a host (the TUI, the headless CLI, a test) drives it.
///
/// Thread-safe. Frames, with their subtitle cues, are handed to the host's ``FrameSink`` (or
/// `setFrameHandler`'s closure) on the engine's present thread; a sink that paints on its own
/// thread sends back one ``FrameReport`` per frame with ``report(_:)``.
public final class Player: Sendable {
    /// Told whenever what a host shows changes (state, pause, buffering, a failure) in any item
    /// this player loads: a host's loop waits on it instead of polling.
    public let changes: ChangeNotifier
    /// The session loaded (or why the last load failed) and the next item prepared.
    let sessions: PlayerSessions

    public init() {
        let changes = ChangeNotifier()
        self.changes = changes
        sessions = PlayerSessions(changes: changes)
    }

    deinit { sessions.close() }

    /// The session playing now (internal: tests reach its threads' interleavings through it).
    var current: PlaybackSession? { sessions.current }

    // MARK: loading

    /// Opens `url`, picks tracks, opens decoders and the audio device, and positions at
    /// `options.start`. Playback starts paused; call `play()`.
    /// What a load came to, when it did not fail.
    public enum LoadOutcome: Sendable, Equatable {
        /// The item plays (paused until ``play()``).
        case playing
        /// The URL is a web page listing several videos (yt-dlp's): nothing was loaded; the host
        /// plays its entries in the page's place.
        case pagePlaylist(PagePlaylist)
    }

    @discardableResult
    public func load(url: String, options given: PlayerOptions) throws(PlayerError) -> LoadOutcome {
        try sessions.load(url: url, options: given)
    }

    /// Where the item playing started (its `--start`, a resumed position), as its session was
    /// opened; nil when nothing is loaded. The stats summary counts what played from it.
    public var startPosition: Double? { current?.options.start }

    /// Stops playback and releases the source (threads joined, C resources freed).
    public func stop() { sessions.stop() }

    // MARK: transport

    public func play() { setPaused(false) }
    public func pause() { setPaused(true) }
    public func togglePause() { setPaused(!(current?.control.read { $0.userPaused } ?? true)) }

    private func setPaused(_ paused: Bool) {
        guard let s = current else { return }
        // The last samples of a handed-over item: the next one, which owns the device, too.
        if let next = s.handedTo { setPaused(paused, next) }
        setPaused(paused, s)
    }

    private func setPaused(_ paused: Bool, _ s: PlaybackSession) {
        let resync = s.control.withLock { $0.setUserPaused(paused) }
        s.clock.setPaused(s.control.read { $0.paused })
        // Frame steps moved the picture away from the audio: realign both at the picture.
        if resync { s.requestSeek(to: s.clock.time, mode: .exact) }
    }

    /// Seeks to `seconds` (clamped to the media). Works while paused (the new frame is shown).
    public func seek(to seconds: Double, mode: SeekMode = .exact) {
        guard let target = try? OutsideValue.seconds(seconds, name: "seek") else { return }
        // This item's sound is all written: a seek now is in the next one.
        (current?.handedTo ?? current)?.requestSeek(to: target, mode: mode)
    }

    /// Seeks relative to the current position. A `.keyframe` seek forward lands on the first
    /// keyframe at or after the target (exactly at the target where none follows), so it never
    /// lands behind the position it left; backward, on the keyframe at or before it (mpv's rule).
    public func seek(by seconds: Double, mode: SeekMode = .keyframe) {
        guard let s = current else { return }
        let forward = seconds > 0
        if let next = s.handedTo {  // this item's sound is all written: from the next one's start
            guard let target = try? OutsideValue.seconds(seconds, name: "seek") else { return }
            next.requestSeek(to: target, mode: mode, forward: forward)
            return
        }
        let now = s.control.read { $0.pendingSeek?.target } ?? currentTime
        guard let target = try? OutsideValue.seconds(now + seconds, name: "seek") else { return }
        s.requestSeek(to: target, mode: mode, forward: forward)
    }

    /// Shows the next frame and pauses (mpv `.`).
    public func step() {
        guard let s = current else { return }
        pause()
        s.control.withLock { $0.step.requests += 1 }
    }

    /// Shows the previous frame and pauses (mpv `,`): an exact seek one frame back.
    public func stepBack() {
        guard let s = current else { return }
        pause()
        let interval = s.videoDecoder?.frameInterval ?? 0.04
        let shown = s.control.read { $0.lastPresentedPTS } ?? currentTime
        s.requestSeek(to: max(0, shown - interval), mode: .exact)
    }

    /// Playback speed, clamped to 0.25–4; audio keeps its pitch.
    public func setRate(_ rate: Double) {
        guard let s = current else { return }
        let r = PlaybackSettings.bounded(rate: rate)
        s.control.withLock { $0.settings.rate = r }
        s.clock.setRate(r)
    }

    /// Volume in percent, clamped to 0–130.
    public func setVolume(_ volume: Double) {
        for s in [current, current?.handedTo].compactMap({ $0 }) { s.control.withLock { $0.settings.volume = PlaybackSettings.bounded(volume: volume) } }
    }

    public func setMuted(_ muted: Bool) {
        for s in [current, current?.handedTo].compactMap({ $0 }) { s.control.withLock { $0.settings.muted = muted } }
    }

    /// Another equalizer, heard from the next samples decoded on (the device's buffer later),
    /// with no gap and no step (``PlaybackSettings/equalizer``). The caller keeps it for the
    /// items after, as the volume.
    public func setEqualizer(_ setting: EqualizerSetting) {
        for s in [current, current?.handedTo].compactMap({ $0 }) { s.control.withLock { $0.settings.equalizer = setting } }
    }

    /// The equalizer the sound goes through (flat when nothing plays).
    public var equalizer: EqualizerSetting { current?.control.read { $0.settings.equalizer } ?? .flat }

    /// The equalizer as the audio runs it: its filters below Nyquist and its safe preamp at the
    /// rate the stream decodes to (flat when none runs).
    public var runningEqualizer: EqualizerCurve { current?.audio?.runningEqualizer.withLock { $0 } ?? .flat }

    /// Seconds the sound should come after the picture (mpv's `--audio-delay`; negative: before),
    /// clamped to ±10 s. The picture follows the audio clock shifted by this much.
    public func setAudioDelay(_ seconds: Double) {
        guard seconds.isFinite else { return }
        current?.control.withLock { $0.settings.audioDelay = PlaybackSettings.bounded(audioDelay: seconds) }
    }

    public var audioDelay: Double { current?.control.read { $0.settings.audioDelay } ?? 0 }

    /// The host paints only every `n`-th frame (1–8; a slow output's governor): the others are
    /// not converted to pixels at all, nor decoded where no other frame refers to them
    /// (``FrameCadence``), and are counted as skipped (``FrameCounts/skipped``).
    /// Scaling a 4K frame costs as much whatever the picture's size, so at 4K60 on two cores
    /// converting frames the output leaves out took the CPU the output needed.
    public func setFrameDivisor(_ n: Int) { sessions.frameDivisor.withLock { $0 = min(8, max(1, n)) } }

    /// Switches to `MediaInfo.audio[track]` mid-playback (nil = no audio), keeping the position.
    public func selectAudioTrack(_ track: Int?) {
        guard let s = current, s.sink != nil else { return }
        let index = track.flatMap { s.info.audio.indices.contains($0) ? s.info.audio[$0].index : nil }
        if s.control.withLock({ $0.selectAudio(index) }) { s.requestSeek(to: currentTime, mode: .exact) }
    }

    /// Asks for frames scaled to `size` (nil = no pixels, timing only), a resized 8-bit source
    /// staged as `eightBitStaging` says (``Scaler/Staging``: `.rgb` gives every pixel its own
    /// interpolated chroma, for a host that shows every pixel's colour). Takes effect at the
    /// next frame.
    public func setRenderSize(_ size: PixelSize?, eightBitStaging: Scaler.Staging = Scaler.standardEightBit) {
        guard let video = current?.video else { return }
        video.renderSize.withLock { $0 = size }
        video.eightBitStaging.withLock { $0 = eightBitStaging }
    }

    /// Shows the current frame again at the current render size (after a layout change while
    /// paused, or when the host attached after the first frame went out). Playing needs nothing:
    /// the next frame comes at the new size.
    public func redisplay() {
        guard let s = current, s.videoDecoder != nil else { return }
        let (paused, target, coming) = s.control.withLock {
            ($0.paused, $0.pendingSeek?.target ?? $0.lastPresentedPTS, $0.pendingSeek != nil || !$0.seek.firstFrameSeen)
        }
        // The first frame of the current position is still to come (a load or seek in flight):
        // it is converted at the size set now, so seeking again would only decode it twice.
        guard paused, !coming, s.control.read({ $0.state }) != .ended else { return }
        s.requestSeek(to: target ?? currentTime, mode: .exact)
    }

    /// Hands every due frame, with its subtitle cues, to `sink` on the present thread (see
    /// ``FrameSink`` for the contract); nil: frames go nowhere.
    public func setFrameSink(_ sink: (any FrameSink)?) {
        current?.presenter.sink.withLock { $0 = sink }
    }

    /// Receives every presented frame on the present thread (a sink that shows a frame by the
    /// time the closure returns).
    public func setFrameHandler(_ handler: (@Sendable (VideoFrame) -> Void)?) {
        setFrameSink(handler.map { HandlerSink($0) })
    }

    /// The sink's report on a frame it was handed: on screen (with how long painting took) or
    /// replaced unseen. The engine measures the A/V gap of paced frames here, starts the sound
    /// of a seek with its first picture, and hands frames over early by the median paint
    /// latency (``presentationLead``). Any thread; never blocks for long.
    public func report(_ report: FrameReport) {
        current?.presenter.receive(report)
    }

    /// How long before its time a paced frame is handed to the sink: the median of the paint
    /// latencies recently reported (0 until four are known), used up to one frame interval.
    public var presentationLead: Double { current?.presenter.feedback.presentationLead ?? 0 }

    // MARK: state

    public var state: PlayerState {
        guard let s = current else { return sessions.loadError == nil ? .idle : .error }
        return s.control.read { $0.state }
    }

    public var isPaused: Bool { current?.control.read { $0.userPaused || $0.state == .ended } ?? true }

    /// A network source ran dry and playback waits for the cache to refill (`buffering…`).
    public var isBuffering: Bool { current?.control.read { $0.cache.buffering } ?? false }

    /// How far the demuxer has read ahead, in media seconds, for a source with a demuxer cache
    /// (network sources); nil otherwise.
    public var cachedUntil: Double? { current?.cachedUntil }

    /// A live stream (no length): positions run from where playback joined it.
    public var isLive: Bool { current?.reading.isLive ?? false }

    /// Live: the kept window (oldest moment ... live edge) in media seconds; nil without one.
    public var liveWindow: ClosedRange<Double>? { current?.liveWindow }

    /// Seconds playback is behind the live edge (nil when not live).
    public var liveLatency: Double? { Self.latency(behindEdgeOf: liveWindow, at: currentTime) }

    /// Seconds `position` is behind the live edge of `window` (nil: no window, not live).
    public static func latency(behindEdgeOf window: ClosedRange<Double>?, at position: Double) -> Double? {
        window.map { max(0, $0.upperBound - position) }
    }

    /// Where a seek may go: the kept window for live, the length otherwise (nil: unknown).
    public var seekableRange: ClosedRange<Double>? {
        if isLive { return liveWindow }
        return duration.map { 0...$0 }
    }

    /// Timeshift window bytes in memory and on disk (live only).
    public var timeshiftBytes: (memory: Int, disk: Int)? { current?.reading.timeshift?.bytes }

    /// The variant of an adaptive stream (HLS, DASH) that plays, and all of them (empty for
    /// other sources).
    public var variant: StreamVariant? { current?.format.adaptive?.status.variant ?? current?.adaptive.variant }

    /// Bit-rate switching (`--hls-bitrate=auto` on a switchable HLS source): the variant now, the
    /// throughput estimate, every switch with its reason. Nil when the variant is fixed.
    public var adaptive: AdaptiveStatus? { current?.format.adaptive?.status }
    public var variants: [StreamVariant] { current?.adaptive.variants ?? [] }

    /// What the network is doing for the current source (nil for a local one).
    public var networkStatus: NetworkStatus? { current?.format.networkStatus }
    /// Whether the current item failed, or ended early, because the network did not deliver
    /// (``NetworkFailure/Cause/isTransport``): the exit status of its own.
    public var networkGaveUp: Bool { (failure?.network ?? current?.format.network?.networkFailure)?.cause.isTransport == true }

    /// Whether the video stream is playing (false when there is none, or it was left out as
    /// undecodable or encrypted).
    public var hasVideo: Bool { current?.hasVideo ?? false }

    /// The clock's media time (seconds).
    public var currentTime: Double { current?.position ?? 0 }

    public var duration: Double? { current?.info.duration }
    public var mediaInfo: MediaInfo? { current?.info }
    public var rate: Double { current?.control.read { $0.settings.rate } ?? 1 }
    public var volume: Double { current?.control.read { $0.settings.volume } ?? 100 }
    /// The loudness gain the playing file gets (``ReplayGainSettings/applied(to:)``); nil: off
    /// or nothing playing.
    public var replayGain: (db: Double, source: String)? { current.flatMap { s in s.replayGain.source.map { (s.replayGain.db, $0) } } }
    public var isMuted: Bool { current?.control.read { $0.settings.muted } ?? false }
    public var videoFormat: VideoFormat? { current?.info.primaryVideo?.format }

    /// The video as it plays: the probed stream's facts with the size of the frame on screen
    /// (a bit-rate switch brings a variant of another size; its pixel aspect kept) and the
    /// playing variant's frame rate. What the stats, the bar and IPC show of the picture.
    public var playingVideo: VideoStreamInfo? {
        guard let s = current, var v = s.info.primaryVideo else { return nil }
        if let size = s.presenter.presentedSource, size.width > 0, size.height > 0,
           size.width != v.width || size.height != v.height {
            let pixelAspect = v.width > 0 && v.height > 0 && v.displayAspect > 0 ? v.displayAspect * Double(v.height) / Double(v.width) : 1
            v.width = size.width
            v.height = size.height
            v.displayAspect = Double(size.width) / Double(size.height) * pixelAspect
        }
        if let rate = variant?.frameRate, rate > 0 { v.frameRate = rate }
        return v
    }

    /// Position in `MediaInfo.audio` of the playing track, nil when silent.
    /// The video track playing, as an index into `MediaInfo.video` (nil: none, `--vid=no`).
    public var activeVideoTrack: Int? {
        guard let s = current, s.source.video.index != nil else { return nil }
        return s.info.primaryVideoPosition
    }

    public var activeAudioTrack: Int? {
        guard let s = current else { return nil }
        let index = s.control.read { $0.streams.audio }
        return s.info.audio.firstIndex { $0.index == index }
    }

    // MARK: music

    /// The source's cover art (its attached picture: ID3 `APIC`, FLAC `PICTURE`, MP4 `covr`),
    /// upright RGB no larger than 1024 px; decoded on the first call (a few milliseconds), nil
    /// when the source has none or it cannot be decoded.
    public var coverArt: StillImage? { current?.coverArt?.image }

    /// Music tags of the source (sanitised); empty when idle.
    public var tags: MediaTags { current?.info.tags ?? MediaTags() }

    /// Fills `samples` with the mono samples (−1…1) heard up to the clock's position now (the
    /// last `samples.count` of them; zeros where none are held, e.g. just after a seek) and
    /// returns their sample rate; nil, with `samples` untouched, when nothing plays audio.
    @discardableResult
    public func audioWindow(into samples: inout [Float]) -> Int? {
        guard let s = current, let tap = s.audioTap, s.hasAudio else { return nil }
        tap.window(endingAt: currentTime, into: &samples)
        return tap.sampleRate
    }

    /// Problems that did not stop playback (audio device fell back, a track failed).
    public var warnings: [String] { current?.warnings.withLock { $0 } ?? [] }

    /// Set when playback ended before the media did (truncated file, read error).
    public var endedEarlyMessage: String? { current?.control.read { $0.ending.earlyMessage } }

    /// Why the load failed, or why the session failed after loading (`state == .error`: every
    /// stream turned out to be undecodable or encrypted), with its cause.
    public var failure: PlayerError? {
        guard let s = current else { return sessions.loadError }
        return s.control.read { $0.ending.failure }
    }

    /// Wall seconds from the moment the clock first ran to the end of playback (or now).
    public var playingWallSeconds: Double? {
        guard let s = current, let start = s.clock.firstArmedHost else { return nil }
        return (s.control.read { $0.ending.host } ?? s.clock.host.seconds) - start
    }

    /// Statistics over every frame presented so far (for summaries).
    public var gapStatistics: GapStatistics { current?.telemetry.allGaps ?? GapStatistics([]) }

    /// The 1 Hz telemetry view. `advance` starts a new interval for the instant rates (call it
    /// once a second from one place); other readers pass false.
    public func telemetry(advance: Bool = true) -> TelemetrySnapshot {
        current.map { TelemetrySnapshot(session: $0, advance: advance) } ?? TelemetrySnapshot()
    }
}
