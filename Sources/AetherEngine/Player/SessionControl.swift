import Foundation
import Synchronization

/// Control state shared by the session's threads; only touched inside `ControlBox.withLock`.
struct SessionControl {
    var serial = 0
    var clockSerial = 0
    var pendingSeek: (target: Double, mode: SeekMode)?
    /// A seek the demux thread has taken but not yet carried out (the clock still shows the old
    /// position): ``Player/currentTime`` reports its target meanwhile.
    var seekInFlight: Double?
    var state = PlayerState.loading
    /// Effective pause (the threads stop): the user's pause or a cache underrun.
    var paused = true
    /// What the user asked for (``Player/pause()``/``Player/play()``).
    var userPaused = true
    /// A network source ran dry: paused until the demuxer cache holds enough again.
    var buffering = false
    /// Times playback stopped to refill the cache (not counting the fill right after a load or
    /// seek, which is the start, not an interruption).
    var rebuffers = 0
    /// Media time the current serial started from (the load's or the seek's target).
    var serialStart = 0.0
    var stopped = false
    var demuxEOF = false
    var rate = 1.0
    var volume = 100.0
    var muted = false
    /// Seconds the sound is late against the picture (mpv's `--audio-delay`): frames are shown
    /// when the audio clock reaches their pts minus this.
    var audioDelay = 0.0
    var audioStreamIndex: Int?
    /// The video stream could not be decoded at all: it is left out, the other streams play.
    var videoDisabled = false
    /// Exact seek that landed after its target (MPEG-TS timestamp searches can overshoot a
    /// keyframe): the demuxer goes this many seconds further back, and how often it has.
    var seekPreroll = 0.0
    var seekRetries = 0
    /// The current serial's video thread has let a frame through (no more exact-seek retries).
    var firstFrameSeen = false
    /// Exact seek: frames ending before this are skipped by the video thread.
    var skipVideoUntil: Double?
    /// Where the current serial's playback begins; nil until the first video frame after a
    /// keyframe seek says where the keyframe is.
    var landed: Double?
    /// The newest serial whose picture the host reported on screen (hosts that paint on their
    /// own thread): the sound of a load or seek starts with its first picture.
    var displayedSerial = -1
    var videoEnded = false
    var audioEnded = false
    var stepRequests = 0
    /// A frame step moved the picture away from the audio: re-align on resume.
    var steppedWhilePaused = false
    var resumeAfterSeek = false
    var endedEarlyMessage: String?
    /// Nothing could be played after all (every stream failed to decode): the session errs.
    var failure: String?
    var demuxedUntil = 0.0
    var lastPresentedPTS: Double?
    /// Monotonic seconds when the session reached `.ended`.
    var endedHost: Double?
}

/// The session's control state behind one condition: every change wakes the threads waiting
/// for one (`wait(until:for:)`), so no thread polls with sleeps.
final class ControlBox: @unchecked Sendable {  // `value` is only touched with `condition` held
    private var value = SessionControl()
    private let condition = NSCondition()

    /// Runs `body` with the state locked, then wakes every waiter (they re-check their condition).
    func withLock<R>(_ body: (inout SessionControl) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Waits until `done` holds for the state, or until monotonic time `deadline`, and returns
    /// the state as it then is.
    @discardableResult
    func wait(until deadline: Double, for done: (SessionControl) -> Bool) -> SessionControl {
        condition.lock()
        defer { condition.unlock() }
        while !done(value) {
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left))
        }
        return value
    }

    /// Waits up to `seconds`, returning early when `done` holds.
    @discardableResult
    func wait(seconds: Double, for done: (SessionControl) -> Bool) -> SessionControl {
        wait(until: MonotonicClock.seconds() + seconds, for: done)
    }
}

/// Hooks a host runs on each of the engine's own threads as it starts.
public enum EngineThreads {
    private static let hook = Guarded<(@Sendable () -> Void)?>(nil)

    /// Runs `body` first thing on every engine thread started from now on (the TUI installs an
    /// alternate signal stack there, so a stack overflow on any thread can still restore the
    /// terminal). Set it once, before loading.
    public static func setStartHook(_ body: (@Sendable () -> Void)?) { hook.withLock { $0 = body } }

    static var startHook: (@Sendable () -> Void)? { hook.withLock { $0 } }
}

/// Starts the session's threads and joins them: the one owner of every thread a session runs.
final class SessionThreads: @unchecked Sendable {  // `running` and `started` are guarded by `lock`
    private let lock = NSLock()
    private var running: Set<String> = []
    private var started = 0
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread named `name`. The closure keeps what it captures alive
    /// until the thread ends, so a thread that outlives `join` never touches freed state.
    func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        lock.withLock {
            running.insert(name)
            started += 1
        }
        let onStart = EngineThreads.startHook
        let t = Thread { [self] in
            onStart?()
            body()
            lock.withLock { _ = running.remove(name) }
            finished.signal()
        }
        t.name = name
        t.qualityOfService = .userInteractive
        t.start()
    }

    /// Waits until every started thread has ended, at most `timeout` seconds; returns the
    /// names of those still running (empty when all joined).
    func join(timeout: Double) -> [String] {
        let deadline = DispatchTime.now() + timeout
        let n = lock.withLock { () -> Int in defer { started = 0 }; return started }
        for _ in 0..<n where finished.wait(timeout: deadline) == .timedOut {
            return lock.withLock { running.sorted() }
        }
        return []
    }
}
