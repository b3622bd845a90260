import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A seek asked for and not yet taken by the demux thread.
struct PendingSeek: Equatable {
    var target: Double
    var mode: SeekMode
    /// A keyframe seek forward (mpv's relative seek with a positive amount): it lands on the
    /// first keyframe at or after the target, never before it (so never behind the position it
    /// left); where no keyframe follows, exactly at the target.
    var forward = false
}

/// One seek generation after another (ffplay's serial model): the seek asked for, the one the
/// demux thread is carrying out, where the current serial starts and lands, the exact seek's
/// preroll and retries, and which streams of the serial have ended. Only changed through the
/// transitions below, each named for what it does, always inside ``ControlBox/withLock``
/// (the table names the threads that call each):
///
/// | transition | thread | fields |
/// |---|---|---|
/// | `request` | any (``Player``'s seeks, track switch, redisplay) | `pending`, `preroll`, `retries` |
/// | `retry` | video (an exact seek landed past its target) | `pending`, `preroll`, `retries` |
/// | `take` | demux | `pending` → `inFlight` |
/// | `begin` | demux | `serial` |
/// | `started` | demux (the demuxer repositioned) | `inFlight`, `start`, `forward`, `skipVideoUntil`, `landed`, `firstFrameSeen`, `videoEnded`, `audioEnded` |
/// | `land` | video (first frame of a keyframe seek), audio (no frame within 2 s), `disable` | `landed` |
/// | `sawFirstFrame` | video | `firstFrameSeen` |
/// | `end` | present (video), audio (audio), `disable` (either) | `videoEnded`, `audioEnded` |
struct SeekGeneration {
    /// The generation every queued item, frame and clock anchor is tagged with.
    private(set) var serial = 0
    /// The newest seek asked for and not yet taken by the demux thread.
    private(set) var pending: PendingSeek?
    /// A seek the demux thread has taken but not yet carried out (the clock still shows the old
    /// position): ``Player/currentTime`` reports its target meanwhile.
    private(set) var inFlight: Double?
    /// Media time the current serial started from (the load's or the seek's target).
    private(set) var start = 0.0
    /// Exact seek that landed after its target (MPEG-TS timestamp searches can overshoot a
    /// keyframe): the demuxer goes this many seconds further back, and how often it has.
    private(set) var preroll = 0.0
    private(set) var retries = 0
    /// Exact and forward seeks: frames ending before this are skipped by the video thread.
    private(set) var skipVideoUntil: Double?
    /// The current serial is a forward keyframe seek: it lands on its first frame at or after
    /// ``skipVideoUntil`` (a keyframe past the target is no overshoot to retry).
    private(set) var forward = false
    /// Where the current serial's playback begins; nil until the first video frame after a
    /// keyframe seek says where the keyframe is.
    private(set) var landed: Double?
    /// The current serial's video thread has let a frame through (no more exact-seek retries).
    private(set) var firstFrameSeen = false
    private(set) var videoEnded = false
    private(set) var audioEnded = false

    /// Prerolls tried, in turn, when an exact seek lands after its target.
    static let prerolls = [1.0, 4.0, 15.0]

    /// A seek is wanted (the newest wins); its preroll starts from nothing.
    mutating func request(to target: Double, mode: SeekMode, forward: Bool = false) {
        pending = PendingSeek(target: target, mode: mode, forward: forward && mode == .keyframe)
        preroll = 0
        retries = 0
    }

    /// The first frame of exact seek `serial` came after the target: ask for it again from
    /// further back. False when out of retries (or nothing is to be gained: the demuxer
    /// already starts at the beginning).
    mutating func retry(serial: Int) -> Bool {
        guard serial == self.serial, pending == nil, !forward, let target = skipVideoUntil,
              target - preroll > 0, retries < Self.prerolls.count else { return false }
        preroll = Self.prerolls[retries]
        retries += 1
        pending = PendingSeek(target: target, mode: .exact)
        return true
    }

    /// The demux thread takes the pending seek, which is in flight until `started`.
    mutating func take() -> PendingSeek? {
        guard let seek = pending else { return nil }
        inFlight = seek.target
        pending = nil
        return seek
    }

    /// A new generation: items of older ones are dropped from here on.
    mutating func begin() -> Int {
        serial += 1
        return serial
    }

    /// The demuxer is at `target` for `serial`: playback of the serial starts there (exact
    /// and forward seeks skip the frames before it; `landsAtTarget`: no keyframe has to say
    /// where it lands). False when a newer generation began meanwhile.
    mutating func started(serial: Int, at target: Double, mode: SeekMode, forward: Bool = false, landsAtTarget: Bool) -> Bool {
        if pending == nil { inFlight = nil }
        guard serial == self.serial else { return false }
        start = target
        self.forward = forward && mode == .keyframe
        skipVideoUntil = mode == .exact || self.forward ? target : nil
        landed = landsAtTarget ? target : nil
        firstFrameSeen = false
        videoEnded = false
        audioEnded = false
        return true
    }

    /// Playback of `serial` begins at `time`, unless its landing is known already. Returns
    /// whether this call decided it.
    @discardableResult
    mutating func land(at time: Double, serial: Int) -> Bool {
        guard serial == self.serial, landed == nil else { return false }
        landed = time
        return true
    }

    /// The video thread lets `serial`'s first frame through; true the first time.
    mutating func sawFirstFrame(serial: Int) -> Bool {
        guard serial == self.serial, !firstFrameSeen else { return false }
        firstFrameSeen = true
        return true
    }

    enum Stream { case video, audio }

    /// `stream` of `serial` has played out (nil: of whatever serial, a stream left out).
    mutating func end(_ stream: Stream, serial: Int?) {
        guard serial == nil || serial == self.serial else { return }
        switch stream {
        case .video: videoEnded = true
        case .audio: audioEnded = true
        }
    }
}

/// Control state shared by the session's threads; only touched inside `ControlBox.withLock`.
/// The present loop and the others copy it whole (one lock for all: a copy is a consistent
/// view). It is grouped by what each part decides; who writes what:
/// - `seek`: see ``SeekGeneration``'s transitions.
/// - `state`: only ``apply(_:)``: seek requested (any thread), landed (present thread, audio
///   thread for sources without video), pause changed (``Player``), ended (`checkEnded`, from
///   the present, audio and video threads), failed (`disable`).
/// - `paused`, `cache`: ``Player`` (the user's pause) and the cache thread (an underrun);
///   `apply(.ended(at:))` pauses.
/// - `userPaused`, `settings`: ``Player`` (and the session's init, before any thread runs).
/// - `streams.audio`: ``Player`` (track switch), `disable`, the audio thread (the device
///   failed); `streams.videoDisabled`: `disable` (demux or decode threads).
/// - `ending`: `failure` and `host` only ``apply(_:)``; `earlyMessage` the demux thread.
/// - `demux`, `progress.demuxedUntil`: the demux thread.
/// - `step`: ``Player`` adds/clears, the present thread consumes/sets, the demux thread
///   clears on a new serial.
/// - `handoff`: the gapless hand-over (``PlaybackSession/handOverSink()``).
/// - `displayedSerial`: the host's reports (``Player/report(_:)``).
/// - `progress.lastPresentedPTS`: the present thread.
/// - `stopped`: `stop()`.
struct SessionControl {
    var seek = SeekGeneration()
    /// Where playback stands: changed by ``apply(_:)`` only.
    private(set) var state = PlayerState.loading
    /// How it ended: when, on what failure, and why early.
    var ending = Ending()
    /// Effective pause (the threads stop): the user's pause or a cache underrun.
    var paused = true
    /// What the user asked for (``Player/pause()``/``Player/play()``).
    var userPaused = true
    var cache = CacheFill()
    /// What the user set for the playing item (``Player``; the session's init before any thread).
    var settings = PlaybackSettings()
    var streams = Streams()
    var demux = DemuxMarks()
    var step = Stepping()
    var handoff = Handoff()
    /// The newest serial whose picture the host reported on screen (hosts that paint on their
    /// own thread): the sound of a load or seek starts with its first picture.
    var displayedSerial = -1
    var stopped = false
    var progress = Progress()

    /// Which streams play.
    struct Streams {
        /// The audio stream playing (nil: none).
        var audio: Int?
        /// The video stream could not be decoded at all: it is left out, the other streams play.
        var videoDisabled = false
    }

    /// A demuxer cache's fill (network sources): the cache thread decides.
    struct CacheFill {
        /// A network source ran dry: paused until the demuxer cache holds enough again.
        var buffering = false
        /// Times playback stopped to refill the cache (not counting the fill right after a load
        /// or seek, which is the start, not an interruption).
        var rebuffers = 0
    }

    /// Where the demux thread stands.
    struct DemuxMarks {
        /// The clock's serial of the newest seek carried out (``MasterClock/reset(to:)``).
        var clockSerial = 0
        /// The input ended (or `--length` was passed) for the current serial.
        var eof = false
        /// The newest seek the demux thread carried out (its serial and where it reads from):
        /// the audio-file thread repositions its demuxer there.
        var readSerial = 0
        var readFrom = 0.0
    }

    /// Frame steps (``Player/frameStep()``).
    struct Stepping {
        var requests = 0
        /// A frame step moved the picture away from the audio: re-align on resume.
        var whilePaused = false
    }

    /// Gapless: the device passing from one item to the next.
    struct Handoff {
        /// A prepared next item: its sound is decoded and waits to be written until the item
        /// before hands it the device (``PlaybackSession/handOverSink()``).
        var held = false
        /// This item's sound is all written and the device belongs to the next item.
        var handedOver = false
    }

    /// How the session ended.
    struct Ending {
        /// Nothing could be played after all (every stream failed to decode): the session errs.
        fileprivate(set) var failure: PlayerError?
        /// Monotonic seconds when the session reached `.ended`.
        fileprivate(set) var host: Double?
        /// Why the input ended short (a read error, a truncated file).
        var earlyMessage: String?
    }

    /// How far demuxing and presenting got: written through ``ControlBox/note(_:)``, which
    /// wakes nobody (several times a frame), so no wait's condition may read it.
    struct Progress {
        var demuxedUntil = 0.0
        var lastPresentedPTS: Double?
    }

    /// What moves ``PlayerState``.
    enum StateEvent {
        /// A seek (or the load's positioning) was asked for.
        case seekRequested
        /// The current serial's first picture is up (or, without video, its first sound).
        case landed
        /// ``userPaused`` changed.
        case pauseChanged
        /// Every active stream has played out, at host time `at`.
        case ended(at: Double)
        /// Nothing is left to play.
        case failed(PlayerError)
    }

    /// What a host shows of this state: a change wakes it (``ChangeNotifier``).
    struct Shown: Equatable {
        var state: PlayerState
        var userPaused: Bool
        var buffering: Bool
        var failed: Bool
    }
}

extension SessionControl {
    var serial: Int { seek.serial }
    var pendingSeek: PendingSeek? { seek.pending }
    var landed: Double? { seek.landed }
    var demuxedUntil: Double { progress.demuxedUntil }
    var lastPresentedPTS: Double? { progress.lastPresentedPTS }
    var shown: Shown { Shown(state: state, userPaused: userPaused, buffering: cache.buffering, failed: ending.failure != nil) }

    /// Marks the session ended once every active stream has played out (`hasVideo`: the
    /// session has a video decoder; `now`: the host time).
    mutating func endIfPlayedOut(hasVideo: Bool, now: Double) {
        guard pendingSeek == nil, state != .error, state != .seeking || landed != nil else { return }
        let videoDone = !hasVideo || seek.videoEnded || streams.videoDisabled
        let audioDone = streams.audio == nil || seek.audioEnded
        if videoDone && audioDone { apply(.ended(at: now)) }
    }

    /// The user pauses or plays (``Player/pause()``, ``Player/play()``): playing an ended item
    /// does nothing; a cache underrun keeps the threads paused. True when frame steps moved the
    /// picture away from the audio and playing must realign them.
    mutating func setUserPaused(_ pause: Bool) -> Bool {
        guard state != .ended || pause else { return false }
        userPaused = pause
        paused = pause || cache.buffering
        apply(.pauseChanged)
        defer { if !pause { step.whilePaused = false } }
        return !pause && step.whilePaused
    }

    /// The audio stream `index` plays from now on (nil: none); false when it already does.
    mutating func selectAudio(_ index: Int?) -> Bool {
        guard streams.audio != index else { return false }
        streams.audio = index
        return true
    }

    /// The one place ``state`` changes.
    mutating func apply(_ event: StateEvent) {
        switch event {
        case .seekRequested:
            if state != .error { state = .seeking }
        case .landed:
            if state == .seeking || state == .loading { state = userPaused ? .paused : .playing }
        case .pauseChanged:
            if state == .playing || state == .paused { state = userPaused ? .paused : .playing }
        case .ended(let now):
            guard state != .ended, state != .error else { return }
            state = .ended
            paused = true
            cache.buffering = false
            ending.host = now
        case .failed(let error):
            guard ending.failure == nil else { return }
            ending.failure = error
            state = .error
        }
    }
}

/// The session's control state behind one condition: every change wakes the threads waiting
/// for one (`wait(until:for:)`), so no thread polls with sleeps.
final class ControlBox: Sendable {
    private let state = GuardedCondition(SessionControl())
    /// Told when what a host shows changes (state, pause, buffering, a failure).
    let changes: ChangeNotifier

    init(changes: ChangeNotifier = ChangeNotifier()) { self.changes = changes }

    /// Runs `body` with the state locked, then wakes every waiter (they re-check their
    /// condition) and, when what a host shows changed, the host (``ChangeNotifier``). For
    /// changes; a look at the state is ``read(_:)``.
    func withLock<R>(_ body: (inout SessionControl) throws -> R) rethrows -> R {
        let (result, shownChanged) = try state.update { value in
            let before = value.shown
            let result = try body(&value)
            return (result, value.shown != before)
        }
        if shownChanged { changes.notify() }
        return result
    }

    /// Runs `body` on the state, locked, and wakes nobody: it cannot change anything. The
    /// threads look at the state several times a frame; when every look woke every waiter,
    /// the futex calls of that cost more CPU than the half-block renderer (26,000 calls in 11 s
    /// of half-block playback; 9,500 on the present thread alone).
    func read<R>(_ body: (SessionControl) throws -> R) rethrows -> R {
        try state.withLock { try body($0) }
    }

    /// Records progress (``SessionControl/Progress``), locked, waking nobody.
    func note<R>(_ body: (inout SessionControl.Progress) throws -> R) rethrows -> R {
        try state.withLock { try body(&$0.progress) }
    }

    /// Waits up to `seconds`, returning early when `done` holds, and returns the state as it
    /// then is.
    @discardableResult
    func wait(seconds: Double, for done: (SessionControl) -> Bool) -> SessionControl {
        state.withLock(when: done, timeout: seconds) { value, _ in value }
    }
}

/// Starts the session's threads and joins them: the one owner of every thread a session runs.
final class SessionThreads: Sendable {
    private struct Running {
        var names: Set<String> = []
        /// Threads started since the last join.
        var unjoined = 0
        /// Threads ended, and ends a join has counted, since the session began.
        var ended = 0
        var counted = 0
    }
    private let state = GuardedCondition(Running())

    /// Starts `body` on a new thread named `name`. The closure keeps what it captures alive
    /// until the thread ends, so a thread that outlives `join` never touches freed state.
    func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        state.withLock {
            $0.names.insert(name)
            $0.unjoined += 1
        }
        let onStart = EngineThreads.startHook
        OSThread.start(name: name) { [self] in
            onStart?()
            body()
            state.update {
                _ = $0.names.remove(name)
                $0.ended += 1
            }
        }
    }

    /// Waits until every started thread has ended, at most `timeout` seconds; returns the
    /// names of those still running (empty when all joined).
    func join(timeout: Double) -> [String] {
        let target = state.withLock { s in
            defer { s.unjoined = 0 }
            return s.counted + s.unjoined
        }
        return state.withLock(when: { $0.ended >= target }, timeout: timeout) { s, joined in
            s.counted = min(s.ended, target)
            return joined ? [] : s.names.sorted()
        }
    }
}

/// Wakes a host when the player's state changes (a seek landed, playback ended, buffering began),
/// so that its loop can wait on events instead of polling. The handler runs on the thread that
/// made the change, outside every lock: it must only signal (write to a pipe, post a semaphore).
public final class ChangeNotifier: Sendable {
    private let handler = Guarded<(@Sendable () -> Void)?>(nil)

    public init() {}

    /// Sets (or clears) the handler.
    public func set(_ body: (@Sendable () -> Void)?) { handler.withLock { $0 = body } }

    public func notify() { handler.current?() }
}
