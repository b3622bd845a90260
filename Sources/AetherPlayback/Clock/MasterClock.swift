import AetherBase
import AetherMedia
import Synchronization

/// The playback timebase (an `AVSampleBufferRenderSynchronizer` over ALSA): media time advancing
/// at `rate` from an anchor, re-anchored by the audio thread from the device delay, frozen while
/// paused, falling back to the host's monotonic clock when there is no audio.
///
/// Thread-safe: the audio thread anchors it, the presenter and UI read it.
public final class MasterClock: Sendable {
    public enum Source: String, Sendable { case audio, system }

    struct State {
        var media = 0.0         // media seconds at `host`
        var host = 0.0          // monotonic seconds of the anchor
        var rate = 1.0
        var paused = true
        var armed = false
        var source = Source.system
        var serial = 0
        var firstArmedHost: Double?
        var armedHost = 0.0
        /// The clock never runs past the end of the audio written so far (an underrun or a
        /// device that has not started holds it, instead of letting video race ahead).
        var limit = Double.infinity

        /// Where a running clock stands at host time `t`: never past the limit.
        func running(at t: Double) -> Double { min(media + (t - host) * rate, max(media, limit)) }
    }

    private let state = Guarded(State())
    /// The host's time, which the clock runs over: the session's one ``TimeSource``, read by
    /// every thread that paces or measures against this clock.
    public let host: TimeSource
    public let policy: SyncPolicy

    /// - Parameter timeSource: the host's monotonic time; tests pass a ``ManualTimeSource``'s.
    public init(policy: SyncPolicy = .standard, timeSource: TimeSource) {
        self.policy = policy
        self.host = timeSource
    }

    private func now() -> Double { host.seconds }

    /// Current media time (seconds). Before arming: the last anchor (seek target or start).
    public var time: Double {
        let t = now()
        return state.withLock { s in
            guard s.armed, !s.paused else { return s.media }
            return s.running(at: t)
        }
    }

    /// Monotonic seconds at which the clock first started running (playback really began).
    public var firstArmedHost: Double? { state.withLock { $0.firstArmedHost } }

    /// Seconds since the clock was last armed (start, seek), or nil while unarmed.
    public var secondsSinceArmed: Double? {
        let t = now()
        return state.withLock { $0.armed ? t - $0.armedHost : nil }
    }

    public var isArmed: Bool { state.withLock { $0.armed } }
    public var isPaused: Bool { state.withLock { $0.paused } }
    public var rate: Double { state.withLock { $0.rate } }
    public var source: Source { state.withLock { $0.source } }
    /// Bumped by every `reset`; audio readings taken under an older serial are ignored.
    public var serial: Int { state.withLock { $0.serial } }

    /// Forgets the anchor (seek, load): the clock holds `media` until armed again.
    @discardableResult
    public func reset(to media: Double) -> Int {
        state.withLock { s in
            s.media = media
            s.armed = false
            s.limit = .infinity
            s.serial += 1
            return s.serial
        }
    }

    /// Starts the clock at `media` now (first audio written, or first frame without audio).
    public func arm(at media: Double, source: Source, serial: Int? = nil) {
        let t = now()
        state.withLock { s in
            if let serial, serial != s.serial { return }
            s.media = media
            s.host = t
            s.armed = true
            s.source = source
            if s.firstArmedHost == nil { s.firstArmedHost = t }
            s.armedHost = t
        }
    }

    /// Caps the clock at `media` (the end of the audio written under `serial`).
    public func limit(to media: Double?, serial: Int) {
        state.withLock { s in
            guard serial == s.serial else { return }
            s.limit = media ?? .infinity
        }
    }

    /// Lifts the cap (audio ended or was switched off: the host clock carries on alone).
    public func removeLimit() { state.withLock { $0.limit = .infinity } }

    /// Folds a device reading (`media` is being heard now) into the clock: slewed when close,
    /// re-anchored when further than `policy.hardResyncSeconds`.
    public func correct(heard media: Double, serial: Int) {
        let t = now()
        state.withLock { s in
            guard s.armed, serial == s.serial, !s.paused else { return }
            let predicted = s.running(at: t)
            let error = media - predicted
            s.media = abs(error) > policy.hardResyncSeconds ? media : predicted + error * policy.slewFactor
            s.host = t
            // Armed by the first frame while the sound was still priming: the device drives it now.
            s.source = .audio
        }
    }

    /// Freezes (`true`) or resumes the clock where it stands.
    public func setPaused(_ paused: Bool) {
        let t = now()
        state.withLock { s in
            guard paused != s.paused else { return }
            if paused, s.armed { s.media = s.running(at: t) }
            s.host = t
            s.paused = paused
        }
    }

    /// Changes speed from now on, keeping the current time continuous.
    public func setRate(_ rate: Double) {
        let t = now()
        state.withLock { s in
            if s.armed, !s.paused { s.media = s.running(at: t) }
            s.host = t
            s.rate = rate
        }
    }

    /// Sets the clock's time (frame step, seek while paused; the device's position as the sound
    /// resumes). With a `serial`, only if no reset came since.
    public func set(media: Double, serial: Int? = nil) {
        let t = now()
        state.withLock { s in
            if let serial, serial != s.serial { return }
            s.media = media
            s.host = t
        }
    }
}
