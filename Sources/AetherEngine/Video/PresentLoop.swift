import Foundation

extension PlaybackSession {
    /// A frame further than this from the clock (either way) is a timestamp discontinuity (a
    /// damaged or spliced stream), not a frame to wait for or drop: it is shown at the nominal
    /// frame rate without sync (ffplay's AV_NOSYNC_THRESHOLD), so a jump in the timestamps can
    /// neither stall the picture nor drop the rest of the film.
    static let noSyncSeconds = 10.0

    /// The present thread: shows each frame when the clock reaches its pts, drops frames more
    /// than `policy.lateDropIntervals` behind (counted late) when a newer one is waiting, shows
    /// the first frame after a load or seek at once (even paused), and carries out frame steps.
    /// Each frame goes to the host's ``FrameSink`` with the subtitle cues showing at its pts;
    /// while paused, the frame on screen is handed over again when those cues change (another
    /// track chosen, the delay changed). The gap is measured when `present` returns, unless the
    /// sink paints on its own thread and reports when the frame reached the screen
    /// (``Player/report(_:)``).
    /// Every wait is a condition wait with a deadline: a new frame, a seek, pause, stop or a
    /// rate change wakes it.
    func presentLoop() {
        var shownSerial = -1
        var unarmedSince: Double? = nil
        var lastShowHost = 0.0
        var handOver = HandOver()
        while !isStopped {
            guard let item = frameQueue.peek() else {
                let (paused, serial) = control.withLock { ($0.paused, $0.serial) }
                if paused { handOver.refreshCues(self, serial: serial) }
                _ = frameQueue.waitForItem(timeout: 0.25)
                continue
            }
            let c = control.withLock { $0 }
            guard item.serial == c.serial else { _ = frameQueue.pop(timeout: 0); continue }
            guard case .item(let frame, _) = item else {
                // Paused on the last picture (a one-frame file opened with --pause, a seek to
                // the end while paused): the time does not move, so the end is not reached
                // until playback goes on or a frame step asks for more.
                if c.paused, shownSerial == c.serial, c.stepRequests == 0 {
                    handOver.refreshCues(self, serial: c.serial)
                    control.wait(seconds: 0.25) { !$0.paused || $0.stepRequests > 0 || $0.serial != c.serial || $0.stopped }
                    continue
                }
                _ = frameQueue.pop(timeout: 0)
                if shownSerial != c.serial { land(serial: c.serial) }
                control.withLock { $0.seek.end(.video, serial: c.serial) }
                checkEnded()
                continue
            }
            if shownSerial != c.serial {
                FFmpegLog.write("present", "first frame of serial \(c.serial) at \(String(format: "%.3f", frame.pts)) s (\(frame.hasPixels ? "\(frame.width)x\(frame.height)" : "no pixels"))")
                _ = frameQueue.pop(timeout: 0)
                handOver.show(frame, c, self)
                telemetry.presented(gap: nil)
                shownSerial = c.serial
                unarmedSince = nil
                land(serial: c.serial)
                continue
            }
            if c.paused {
                if c.stepRequests > 0 {
                    _ = frameQueue.pop(timeout: 0)
                    handOver.show(frame, c, self)
                    telemetry.presented(gap: nil)
                    clock.set(media: frame.pts)
                    control.withLock { $0.stepRequests -= 1; $0.steppedWhilePaused = true }
                } else {
                    handOver.refreshCues(self, serial: c.serial)
                    control.wait(seconds: 0.25) { !$0.paused || $0.stepRequests > 0 || $0.serial != c.serial || $0.stopped }
                }
                continue
            }
            if !clock.isArmed {
                let now = MonotonicClock.seconds()
                let audioWillArm = c.audioStreamIndex != nil && !c.seek.audioEnded
                if !audioWillArm || now - (unarmedSince ?? now) > 1.0 {
                    // No audio (or it never came): the host clock runs from this frame.
                    clock.arm(at: frame.pts, source: .system, serial: c.clockSerial)
                } else {
                    if unarmedSince == nil { unarmedSince = now }
                    // The audio thread arms the clock; look again shortly (or on any change).
                    control.wait(seconds: 0.005) { $0.serial != c.serial || $0.stopped || $0.paused }
                    continue
                }
            }
            let now = clock.time + c.audioDelay
            let rate = max(0.01, clock.rate)
            if abs(frame.pts - now) >= PlaybackSession.noSyncSeconds {
                let due = lastShowHost + frame.duration / rate
                let left = due - MonotonicClock.seconds()
                if left > 0.001 {
                    let serial = c.serial
                    control.wait(seconds: min(left, policy.maxWaitSeconds)) { $0.serial != serial || $0.paused || $0.stopped }
                    continue
                }
                _ = frameQueue.pop(timeout: 0)
                handOver.show(frame, c, self)
                lastShowHost = MonotonicClock.seconds()
                telemetry.presented(gap: nil)
                continue
            }
            // A host that paints for a while gets the frame that much early (at most a frame).
            let lead = min(feedback.presentationLead, frame.duration / rate)
            let wait = (frame.pts - now) / rate - lead
            if wait > 0.001 {
                let serial = c.serial, oldRate = c.rate
                control.wait(seconds: min(wait, policy.maxWaitSeconds)) {
                    $0.serial != serial || $0.paused || $0.stopped || $0.rate != oldRate
                }
                continue
            }
            let inGrace = (clock.secondsSinceArmed ?? 0) < policy.startGraceSeconds
            if !inGrace, now > frame.pts + frame.duration * policy.lateDropIntervals, frameQueue.count > 1 {
                _ = frameQueue.pop(timeout: 0)
                telemetry.droppedLate()
                continue
            }
            _ = frameQueue.pop(timeout: 0)
            let reports = handOver.show(frame, c, self, due: (frame.pts - now) / rate)
            lastShowHost = MonotonicClock.seconds()
            telemetry.presented(gap: reports ? nil : frame.pts - clock.time - c.audioDelay)
        }
    }

    /// The present thread's hand-overs to the sink: numbers them and keeps the last one, whose
    /// cues are checked again while paused.
    struct HandOver {
        private var sequence = 0
        private var last: PresentedFrame?

        /// Hands `frame` to the sink with its cues; `due`: seconds until it is due on screen
        /// (paced frames only). Returns whether the sink reports display itself.
        @discardableResult
        mutating func show(_ frame: VideoFrame, _ c: SessionControl, _ s: PlaybackSession, due: Double? = nil) -> Bool {
            let sink = s.frameSink.withLock { $0 }
            let start = MonotonicClock.seconds()
            var frame = frame
            frame.paced = due != nil
            sequence += 1
            let presented = PresentedFrame(
                frame: frame, cues: s.cues(at: frame.pts),
                id: FrameID(serial: frame.serial, sequence: sequence, pts: frame.pts, paced: frame.paced),
                handedAt: start, dueAt: due.map { start + $0 })
            last = presented
            sink?.present(presented)
            s.telemetry.add(.present, seconds: MonotonicClock.seconds() - start)
            s.control.withLock { $0.lastPresentedPTS = frame.pts }
            return sink?.reportsDisplay ?? false
        }

        /// Paused: the frame on screen goes to the sink again when the cues showing with it
        /// changed since it was handed over.
        mutating func refreshCues(_ s: PlaybackSession, serial: Int) {
            guard let shown = last, shown.id.serial == serial else { return }
            let cues = s.cues(at: shown.frame.pts)
            guard cues != shown.cues, let sink = s.frameSink.withLock({ $0 }) else { return }
            sequence += 1
            let again = shown.with(cues: cues, sequence: sequence, handedAt: MonotonicClock.seconds())
            last = again
            sink.present(again)
        }
    }

    /// The selected subtitle track's cues showing with a frame at `pts` (the delay applied).
    func cues(at pts: Double) -> [SubtitleCue] {
        subtitles.active(at: pts - subtitleDelay.withLock { $0 })
    }

    /// The first frame of a serial is up: the seek (or load) has landed.
    private func land(serial: Int) {
        control.withLock { c in
            guard c.serial == serial, c.pendingSeek == nil else { return }
            c.apply(.landed)
        }
    }
}
