import Foundation

extension PlaybackSession {
    /// Decode failures in a row, with no frame ever decoded, after which the video stream is
    /// declared undecodable and left out (the audio plays on).
    static let undecodableAfterErrors = 24

    /// The video thread: decodes packets of the current serial, skips frames before an exact
    /// seek target, drops frames already behind the clock (counted early), converts the rest to
    /// RGB at the host's size and queues them for the presenter. A packet the decoder rejects
    /// costs that frame only (counted as a decode error); a stream that never yields a frame is
    /// reported and left out. The end item is passed on once the decoder is drained.
    func videoLoop() {
        guard let decoder = videoDecoder else { return }
        var mySerial = -1
        var endedSerial = -1         // serial whose end was passed on: its leftovers are dropped
        var framesEver = 0
        var failuresInARow = 0
        var lastError = ""
        while !isStopped {
            guard let item = videoQueue.pop(timeout: 0.25) else { continue }
            let (serial, disabled) = control.withLock { ($0.serial, $0.videoDisabled) }
            guard item.serial == serial, serial != endedSerial, !disabled else { continue }
            if case .item(let packet, _) = item { telemetry.addPlayedBytes(packet.size) }
            if serial != mySerial {
                decoder.flush()
                mySerial = serial
            }
            var busy = 0.0
            var frames = 0
            var segmentStart = MonotonicClock.seconds()
            var reachedEnd = false
            let emit: (Frame, Double) throws -> Void = { [self] frame, pts in
                frames += 1
                guard !reachedEnd else { return }
                let c = control.withLock { c -> SessionControl in
                    if c.seek.land(at: pts, serial: serial) { clock.set(media: pts) }
                    return c
                }
                guard c.serial == serial else { return }
                if let skip = c.seek.skipVideoUntil, pts + decoder.frameInterval <= skip + 0.0005 { return }
                // An exact seek whose first frame is well after the target overshot the keyframe.
                if let skip = c.seek.skipVideoUntil, !c.seek.firstFrameSeen,
                   pts > skip + 2 * decoder.frameInterval + 0.05, retryExactSeek(serial: serial) {
                    reachedEnd = true  // drop the rest of this serial's frames
                    return
                }
                let first = control.withLock { $0.seek.sawFirstFrame(serial: serial) }
                if first { FFmpegLog.write("vd", "first frame of serial \(serial) decoded at \(String(format: "%.3f", pts)) s") }
                if let end = endTime, pts >= end { reachedEnd = true; return }
                if clock.isArmed, !c.paused, c.stepRequests == 0, case let behind = clock.time - pts,
                   behind > policy.earlyDropSeconds, behind < PlaybackSession.noSyncSeconds {
                    telemetry.droppedEarly()
                    return
                }
                let size = renderSize.withLock { $0 }
                decoder.chooseLoopFilter(for: size, forced: skipLoopFilter)
                var pixels: PixelBuffer?
                if let size, size.width > 0, size.height > 0 {
                    let buffer = pixelPool.take(count: size.width * size.height * 3)
                    try decoder.render(frame, size: size, into: buffer)
                    pixels = buffer
                }
                let out = VideoFrame(pts: pts, duration: decoder.frameInterval, width: size?.width ?? frame.width,
                                     height: size?.height ?? frame.height, pixels: pixels, serial: serial)
                busy += MonotonicClock.seconds() - segmentStart
                frameQueue.push(.item(out, serial: serial)) { [self] in
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
                if frames > 0 { failuresInARow = 0 }
            } catch {
                // A damaged packet costs a frame, not the session (logged, counted, as ffplay does).
                telemetry.decodeError()
                failuresInARow += 1
                lastError = (error as? FFmpegError)?.message ?? "\(error)"
                FFmpegLog.write("vd", "decode error: \(error)")
                if case .end = item { reachedEnd = true }
            }
            framesEver += frames
            if framesEver == 0, failuresInARow >= PlaybackSession.undecodableAfterErrors {
                let codec = info.primaryVideo?.codec ?? "video"
                disable(streamIndex: decoder.streamIndex,
                        because: "cannot decode video stream #\(decoder.streamIndex) (\(codec)): \(lastError)")
                frameQueue.push(.end(serial: serial)) { [self] in
                    control.withLock { $0.serial != serial || $0.stopped }
                }
                return
            }
            busy += MonotonicClock.seconds() - segmentStart
            if frames > 0 { telemetry.decoded(frames: frames, seconds: busy) }
            if decoder.filterSeconds > 0 { telemetry.add(.filter, seconds: decoder.filterSeconds, count: max(1, frames)) }
            if decoder.scaleSeconds > 0 { telemetry.add(.scale, seconds: decoder.scaleSeconds, count: max(1, frames)) }
            decoder.filterSeconds = 0
            decoder.scaleSeconds = 0
            if decoder.isDeinterlacing { decoderNames.withLock { $0.deinterlacing = true } }
            let skip = decoder.loopFilterSkip == .default ? "" : decoder.loopFilterSkip.rawValue
            decoderNames.withLock { $0.loopFilterSkip = skip }
            if reachedEnd {
                frameQueue.push(.end(serial: serial)) { [self] in
                    control.withLock { $0.serial != serial || $0.stopped }
                }
                // Everything after the end (of the file or of a --length window) is irrelevant
                // until a seek starts a new serial.
                endedSerial = serial
            }
        }
    }
}
