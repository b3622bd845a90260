import Foundation

extension PlaybackSession {
    /// The video thread: decodes packets of the current serial, skips frames before an exact
    /// seek target, drops frames already behind the clock (counted early), converts the rest to
    /// RGB at the host's size and queues them for the presenter.
    func videoLoop() {
        guard let decoder = videoDecoder else { return }
        var mySerial = -1
        var pixels: [UInt8] = []
        while !isStopped {
            guard let item = videoQueue.pop(timeout: 0.1) else { continue }
            let serial = control.withLock { $0.serial }
            guard item.serial == serial else { continue }
            if serial != mySerial {
                decoder.flush()
                mySerial = serial
            }
            var busy = 0.0
            var frames = 0
            var segmentStart = MonotonicClock.seconds()
            var reachedEnd = false
            let emit: (Frame, Double) throws -> Void = { [unowned self] frame, pts in
                frames += 1
                guard !reachedEnd else { return }
                let c = control.withLock { c -> SessionControl in
                    if c.landed == nil, c.serial == serial { c.landed = pts; clock.set(media: pts) }
                    return c
                }
                guard c.serial == serial else { return }
                if let skip = c.skipVideoUntil, pts + decoder.frameInterval <= skip + 0.0005 { return }
                if let end = endTime, pts >= end { reachedEnd = true; return }
                if clock.isArmed, !c.paused, c.stepRequests == 0,
                   pts + policy.earlyDropSeconds < clock.time {
                    telemetry.droppedEarly()
                    return
                }
                let size = renderSize.withLock { $0 }
                if let size, size.width > 0, size.height > 0 {
                    try decoder.render(frame, size: size, into: &pixels)
                } else {
                    pixels = []
                }
                let out = VideoFrame(pts: pts, duration: decoder.frameInterval, width: size?.width ?? frame.width,
                                     height: size?.height ?? frame.height, pixels: pixels, serial: serial)
                busy += MonotonicClock.seconds() - segmentStart
                frameQueue.push(.item(out, serial: serial)) { [unowned self] in
                    control.withLock { $0.serial != serial || $0.stopped }
                }
                segmentStart = MonotonicClock.seconds()
            }
            do {
                switch item {
                case .item(let packet, _):
                    try decoder.decode(packet, emit: emit)
                case .end:
                    try decoder.decode(nil, emit: emit)
                    reachedEnd = true
                }
            } catch {
                // A corrupt packet costs a frame, not the session (logged, as ffplay does).
                FFmpegLog.write("vd", "decode error: \(error)")
            }
            busy += MonotonicClock.seconds() - segmentStart
            if frames > 0 { telemetry.decoded(frames: frames, seconds: busy) }
            if decoder.isDeinterlacing { decoderNames.withLock { $0.deinterlacing = true } }
            if reachedEnd {
                frameQueue.push(.end(serial: serial)) { [unowned self] in
                    control.withLock { $0.serial != serial || $0.stopped }
                }
                // Everything after the end of a --length window is irrelevant until a seek.
                while !isStopped, control.withLock({ $0.serial == serial }) {
                    if case .some = videoQueue.pop(if: { $0.serial == serial }) { continue }
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
        }
    }
}
