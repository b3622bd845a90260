import AetherBase
import AetherMedia
import AetherSubtitles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The presenter: owns the present thread, the host's ``FrameSink`` and what the host reports
/// back. It takes decoded frames off the frame queue, waits until the clock reaches each one
/// (less the presentation lead), and hands it to the sink together with the subtitle cues
/// showing at its pts; the host answers with ``FrameReport``s (``receive(_:)``), from which it
/// measures the A/V gap and computes the lead. Nothing on the host's side calls anything else
/// of the engine on the frame path.
///
/// Who touches what: `sink` is set by ``Player/setFrameSink(_:)`` (any thread) and read here;
/// `feedback` is written by ``receive(_:)`` (the host's reporting thread) and read by the
/// present and audio threads; `handed` is the present thread's alone.
final class Presenter: Sendable {
    /// A frame further than this from the clock (either way) is a timestamp discontinuity (a
    /// damaged or spliced stream), not a frame to wait for or drop: it is shown at the nominal
    /// frame rate without sync (ffplay's AV_NOSYNC_THRESHOLD), so a jump in the timestamps can
    /// neither stall the picture nor drop the rest of the film.
    static let noSyncSeconds = 10.0

    /// Where due frames go; set by the host.
    let sink = Guarded<(any FrameSink)?>(nil)
    /// What the host's reports say (newest serial on screen, presentation lead).
    let feedback = PresentationFeedback()
    /// Seconds subtitles come later than their timestamps: the player's, shared by its sessions.
    let subtitleDelay: Guarded<Double>
    /// Decoded frames, from the video thread.
    let frames: BoundedQueue<QueueItem<VideoFrame>>
    private let control: ControlBox
    private let clock: MasterClock
    private let telemetry: Telemetry
    private let policy: SyncPolicy
    private let subtitles: SubtitleStore
    /// Every how many frames the host paints (``Player/setFrameDivisor(_:)``).
    private let frameDivisor: Guarded<Int>
    /// The session's end check, once the video of the current serial has played out.
    private let videoEnded: @Sendable () -> Void
    // Present thread only:
    /// The last frame handed to the sink, and its sequence number: the present thread's (its
    /// lock is never contended).
    private let handed = Guarded<(sequence: Int, last: PresentedFrame?)>((0, nil))

    init(frames: BoundedQueue<QueueItem<VideoFrame>>, control: ControlBox, clock: MasterClock, telemetry: Telemetry,
         policy: SyncPolicy, subtitles: SubtitleStore, subtitleDelay: Guarded<Double>, frameDivisor: Guarded<Int> = Guarded(1),
         videoEnded: @escaping @Sendable () -> Void) {
        self.frames = frames
        self.frameDivisor = frameDivisor
        self.control = control
        self.clock = clock
        self.telemetry = telemetry
        self.policy = policy
        self.subtitles = subtitles
        self.subtitleDelay = subtitleDelay
        self.videoEnded = videoEnded
    }

    /// Whether the sink paints on its own thread and reports (the sound of a seek then waits
    /// for its first picture).
    var sinkReportsDisplay: Bool { sink.withLock { $0?.reportsDisplay ?? false } }

    /// The decoded size of the frame last handed to the sink (nil before the first): what is
    /// on screen, a bit-rate switch's new size from its first frame shown.
    var presentedSource: PixelSize? { handed.withLock { $0.last?.frame.source } }

    /// The present thread: shows each frame when the clock reaches its pts, drops frames more
    /// than `policy.lateDropIntervals` behind (counted late) when a newer one is waiting, shows
    /// the first frame after a load or seek at once (even paused), and carries out frame steps.
    /// Each frame goes to the sink with the subtitle cues showing at its pts; while paused, the
    /// frame on screen is handed over again when those cues change (another track chosen, the
    /// delay changed). The gap is measured when `present` returns, unless the sink paints on
    /// its own thread and reports when the frame reached the screen (``Player/report(_:)``).
    /// Every wait is a condition wait with a deadline: a new frame, a seek, pause, stop or a
    /// rate change wakes it.
    func run() {
        var shownSerial = -1
        var unarmedSince: Double? = nil
        var lastShowHost = 0.0
        while !control.read({ $0.stopped }) {
            guard let item = frames.peek() else {
                let (paused, serial) = control.read { ($0.paused, $0.serial) }
                if paused { refreshCues(serial: serial) }
                _ = frames.waitForItem(timeout: 0.25)
                continue
            }
            let c = control.read { $0 }
            guard item.serial == c.serial else { _ = frames.pop(timeout: 0); continue }
            guard case .item(let frame, _) = item else {
                // Paused on the last picture (a one-frame file opened with --pause, a seek to
                // the end while paused): the time does not move, so the end is not reached
                // until playback goes on or a frame step asks for more.
                if c.paused, shownSerial == c.serial, c.step.requests == 0 {
                    refreshCues(serial: c.serial)
                    control.wait(seconds: 0.25) { !$0.paused || $0.step.requests > 0 || $0.serial != c.serial || $0.stopped }
                    continue
                }
                _ = frames.pop(timeout: 0)
                if shownSerial != c.serial { land(serial: c.serial) }
                control.withLock { $0.seek.end(.video, serial: c.serial) }
                videoEnded()
                continue
            }
            if shownSerial != c.serial {
                AppLog.write("present", "first frame of serial \(c.serial) at \(String(cFormat: "%.3f", frame.pts)) s (\(frame.hasPixels ? "\(frame.width)x\(frame.height)" : "no pixels"))")
                _ = frames.pop(timeout: 0)
                show(frame, c)
                telemetry.presented(gap: nil)
                shownSerial = c.serial
                unarmedSince = nil
                land(serial: c.serial)
                continue
            }
            if c.paused {
                if c.step.requests > 0 {
                    _ = frames.pop(timeout: 0)
                    show(frame, c)
                    telemetry.presented(gap: nil)
                    clock.set(media: frame.pts)
                    control.withLock { $0.step.requests -= 1; $0.step.whilePaused = true }
                } else {
                    refreshCues(serial: c.serial)
                    control.wait(seconds: 0.25) { !$0.paused || $0.step.requests > 0 || $0.serial != c.serial || $0.stopped }
                }
                continue
            }
            if !clock.isArmed {
                let now = clock.host.seconds
                let audioWillArm = c.streams.audio != nil && !c.seek.audioEnded
                if !audioWillArm || now - (unarmedSince ?? now) > 1.0 {
                    // No audio (or it never came): the host clock runs from this frame.
                    clock.arm(at: frame.pts, source: .system, serial: c.demux.clockSerial)
                } else {
                    if unarmedSince == nil { unarmedSince = now }
                    // The audio thread arms the clock; look again shortly (or on any change).
                    control.wait(seconds: 0.005) { $0.serial != c.serial || $0.stopped || $0.paused }
                    continue
                }
            }
            let now = clock.time + c.settings.audioDelay
            let rate = max(0.01, clock.rate)
            if abs(frame.pts - now) >= Presenter.noSyncSeconds {
                let due = lastShowHost + frame.duration / rate
                let left = due - clock.host.seconds
                if left > 0.001 {
                    let serial = c.serial
                    control.wait(seconds: min(left, policy.maxWaitSeconds)) { $0.serial != serial || $0.paused || $0.stopped }
                    continue
                }
                _ = frames.pop(timeout: 0)
                show(frame, c)
                lastShowHost = clock.host.seconds
                telemetry.presented(gap: nil)
                continue
            }
            // A host that paints for a while gets the frame that much early (at most the time
            // since the frame it painted before: one frame, or n when it paints every n-th).
            let lead = min(feedback.presentationLead, frame.duration * Double(frameDivisor.withLock { $0 }) / rate)
            let inGrace = (clock.secondsSinceArmed ?? 0) < policy.startGraceSeconds
            switch PresentRule.action(pts: frame.pts, duration: frame.duration, now: now, rate: rate, lead: lead,
                                      inGrace: inGrace, queued: frames.count, policy: policy) {
            case .wait(let seconds):
                let serial = c.serial, oldRate = c.settings.rate
                control.wait(seconds: seconds) { $0.serial != serial || $0.paused || $0.stopped || $0.settings.rate != oldRate }
            case .drop:
                _ = frames.pop(timeout: 0)
                telemetry.droppedLate()
            case .show(let due):
                _ = frames.pop(timeout: 0)
                let reports = show(frame, c, due: due)
                lastShowHost = clock.host.seconds
                telemetry.presented(gap: reports ? nil : frame.pts - clock.time - c.settings.audioDelay)
            }
        }
    }

    /// Hands `frame` to the sink with its cues; `due`: seconds until it is due on screen
    /// (paced frames only). Returns whether the sink reports display itself.
    @discardableResult
    private func show(_ frame: VideoFrame, _ c: SessionControl, due: Double? = nil) -> Bool {
        let sink = self.sink.withLock { $0 }
        let start = clock.host.seconds
        var frame = frame
        frame.paced = due != nil
        let moment = cues(at: frame.pts)
        let presented = handed.withLock { h in
            h.sequence += 1
            let presented = PresentedFrame(
                frame: frame, cues: moment.shown, cueTime: moment.time, typesetCues: moment.typeset,
                id: FrameID(serial: frame.serial, sequence: h.sequence, pts: frame.pts, paced: frame.paced),
                handedAt: start, dueAt: due.map { start + $0 }, rate: c.settings.rate)
            h.last = presented
            return presented
        }
        sink?.present(presented)
        telemetry.add(.present, seconds: clock.host.seconds - start)
        control.note { $0.lastPresentedPTS = frame.pts }
        return sink?.reportsDisplay ?? false
    }

    /// Paused: the frame on screen goes to the sink again when the cues showing with it
    /// changed since it was handed over.
    private func refreshCues(serial: Int) {
        guard let shown = handed.withLock({ $0.last }), shown.id.serial == serial else { return }
        let cues = cues(at: shown.frame.pts)
        guard cues.shown != shown.cues || cues.typeset != shown.typesetCues, let sink = self.sink.withLock({ $0 }) else { return }
        let again = handed.withLock { h in
            h.sequence += 1
            let again = shown.with(cues: cues, sequence: h.sequence, handedAt: clock.host.seconds)
            h.last = again
            return again
        }
        sink.present(again)
    }

    /// The selected subtitle track's cues showing with a frame at `pts` (the delay applied), and
    /// every cue on screen then for libass when one of them is typeset.
    private func cues(at pts: Double) -> SubtitleMoment {
        let time = pts - subtitleDelay.withLock { $0 }
        let shown = subtitles.active(at: time)
        let typeset = shown.contains { $0.ass != nil } ? subtitles.active(at: time, limit: PresentedFrame.typesetLimit) : []
        return SubtitleMoment(time: time, shown: shown, typeset: typeset)
    }

    /// The first frame of a serial is up: the seek (or load) has landed.
    private func land(serial: Int) {
        control.withLock { c in
            guard c.serial == serial, c.pendingSeek == nil else { return }
            c.apply(.landed)
        }
    }

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
                let (serial, paused, delay) = control.read { ($0.serial, $0.paused, $0.settings.audioDelay) }
                if frame.serial == serial, !paused {
                    telemetry.displayed(gap: frame.pts - clock.time - delay)
                    counts = true
                }
            }
            let isNew = feedback.displayed(serial: frame.serial, latency: counts ? latency : nil)
            if isNew { control.withLock { $0.displayedSerial = max($0.displayedSerial, frame.serial) } }
        }
    }
}

/// The presenter's pacing rule for the frame at the head of the queue once the clock runs, apart
/// from its thread, so it is tested on a manual clock to the millisecond (`PresentRuleTests`).
struct PresentRule {
    enum Action: Equatable {
        /// Not due yet: wait this long (at most ``SyncPolicy/maxWaitSeconds``), then look again.
        case wait(Double)
        /// Late by more than ``SyncPolicy/lateDropIntervals`` frame durations with a newer frame
        /// waiting: dropped (counted late).
        case drop
        /// Shown; `due`: seconds until its time (negative: late by that much).
        case show(due: Double)
    }

    /// `now`: the clock's media time (the audio delay applied); `rate`: the playback speed;
    /// `lead`: how early the host wants the frame (its painting time); `inGrace`: the clock
    /// armed less than ``SyncPolicy/startGraceSeconds`` ago (nothing is dropped then);
    /// `queued`: the frames waiting, this one included.
    static func action(pts: Double, duration: Double, now: Double, rate: Double, lead: Double, inGrace: Bool,
                       queued: Int, policy: SyncPolicy) -> Action {
        let rate = max(0.01, rate)
        let wait = (pts - now) / rate - lead
        if wait > 0.001 { return .wait(min(wait, policy.maxWaitSeconds)) }
        if !inGrace, now > pts + duration * policy.lateDropIntervals, queued > 1 { return .drop }
        return .show(due: (pts - now) / rate)
    }

    /// The video thread's rule for a decoded frame at `pts` (frames `interval` apart) before it
    /// is converted: dropped (counted early) when the clock, at media time `now`, is already
    /// more than ``SyncPolicy/earlyDropIntervals`` intervals past it at `rate`, outside the
    /// start grace (the presenter shows late frames then; so the video thread converts them)
    /// and short of a timestamp discontinuity (``Presenter/noSyncSeconds``).
    static func dropsEarly(pts: Double, interval: Double, now: Double, rate: Double, inGrace: Bool,
                           policy: SyncPolicy) -> Bool {
        let behind = now - pts
        return !inGrace && behind > policy.earlyDropIntervals * interval / max(0.01, rate) && behind < Presenter.noSyncSeconds
    }
}
