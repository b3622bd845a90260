import Foundation

extension PlaybackSession {
    /// The present thread: shows each frame when the clock reaches its pts, drops frames more
    /// than `policy.lateDropIntervals` behind (counted late) when a newer one is waiting, shows
    /// the first frame after a load or seek at once (even paused), and carries out frame steps.
    /// The host's `onFrame` runs on this thread; the gap is measured after it returns.
    func presentLoop() {
        var shownSerial = -1
        var unarmedSince: Double? = nil
        while !isStopped {
            guard let item = frameQueue.peek() else {
                Thread.sleep(forTimeInterval: 0.002)
                continue
            }
            let c = control.withLock { $0 }
            guard item.serial == c.serial else { _ = frameQueue.pop(timeout: 0); continue }
            guard case .item(let frame, _) = item else {
                _ = frameQueue.pop(timeout: 0)
                if shownSerial != c.serial { land(serial: c.serial) }
                control.withLock { if $0.serial == c.serial { $0.videoEnded = true } }
                checkEnded()
                continue
            }
            if shownSerial != c.serial {
                FFmpegLog.write("present", "first frame of serial \(c.serial) at \(String(format: "%.3f", frame.pts)) s (\(frame.hasPixels ? "\(frame.width)x\(frame.height)" : "no pixels"))")
                _ = frameQueue.pop(timeout: 0)
                show(frame)
                telemetry.presented(gap: nil)
                shownSerial = c.serial
                unarmedSince = nil
                land(serial: c.serial)
                continue
            }
            if c.paused {
                if c.stepRequests > 0 {
                    _ = frameQueue.pop(timeout: 0)
                    show(frame)
                    telemetry.presented(gap: nil)
                    clock.set(media: frame.pts)
                    control.withLock { $0.stepRequests -= 1; $0.steppedWhilePaused = true }
                } else {
                    Thread.sleep(forTimeInterval: 0.005)
                }
                continue
            }
            if !clock.isArmed {
                let now = MonotonicClock.seconds()
                let audioWillArm = c.audioStreamIndex != nil && !c.audioEnded
                if !audioWillArm || now - (unarmedSince ?? now) > 1.0 {
                    // No audio (or it never came): the host clock runs from this frame.
                    clock.arm(at: frame.pts, source: .system, serial: c.clockSerial)
                } else {
                    if unarmedSince == nil { unarmedSince = now }
                    Thread.sleep(forTimeInterval: 0.002)
                    continue
                }
            }
            let now = clock.time
            let rate = max(0.01, clock.rate)
            let wait = (frame.pts - now) / rate
            if wait > 0.001 {
                Thread.sleep(forTimeInterval: min(wait, policy.maxWaitSeconds))
                continue
            }
            let inGrace = (clock.secondsSinceArmed ?? 0) < policy.startGraceSeconds
            if !inGrace, now > frame.pts + frame.duration * policy.lateDropIntervals, frameQueue.count > 1 {
                _ = frameQueue.pop(timeout: 0)
                telemetry.droppedLate()
                continue
            }
            _ = frameQueue.pop(timeout: 0)
            show(frame)
            telemetry.presented(gap: frame.pts - clock.time)
        }
    }

    private func show(_ frame: VideoFrame) {
        let sink = onFrame.withLock { $0 }
        sink?(frame)
        control.withLock { $0.lastPresentedPTS = frame.pts }
    }

    /// The first frame of a serial is up: the seek (or load) has landed.
    private func land(serial: Int) {
        control.withLock { c in
            guard c.serial == serial, c.pendingSeek == nil else { return }
            if c.state == .seeking || c.state == .loading { c.state = c.paused ? .paused : .playing }
        }
    }
}
