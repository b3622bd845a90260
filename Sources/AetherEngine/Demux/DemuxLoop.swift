import CFFmpeg
import Foundation

extension PlaybackSession {
    /// The demux thread: reads packets, routes them by stream into the bounded queues (blocking
    /// when they are full), taps subtitle packets into the store, and carries out seeks.
    func demuxLoop() {
        guard let packet = try? Packet() else { return }
        var lastReadError: String?
        while !isStopped {
            if let seek = control.withLock({ c -> (target: Double, mode: SeekMode)? in
                defer { c.pendingSeek = nil }
                return c.pendingSeek
            }) {
                perform(seek: seek.target, mode: seek.mode)
                continue
            }
            if control.withLock({ $0.demuxEOF }) {
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            let got: Bool
            do {
                got = try format.read(into: packet)
            } catch {
                if isStopped { break }
                lastReadError = error.message
                got = false
            }
            if !got {
                finishDemux(readError: lastReadError)
                lastReadError = nil
                continue
            }
            telemetry.addBytes(packet.size)
            let index = packet.streamIndex
            let (serial, audioIndex) = control.withLock { ($0.serial, $0.audioStreamIndex) }
            let seconds = ptsSeconds(packet, index)
            if let seconds, index == videoIndex || index == audioIndex {
                control.withLock { $0.demuxedUntil = max($0.demuxedUntil, seconds) }
                if let end = endTime, seconds > end + 0.5 {
                    packet.unref()
                    finishDemux(readError: nil)
                    continue
                }
            }
            if index == videoIndex, let p = try? packet.take() {
                videoQueue.push(.item(p, serial: serial), interrupted: seekPendingOrStopped)
            } else if index == audioIndex, let p = try? packet.take() {
                audioQueue.push(.item(p, serial: serial), interrupted: seekPendingOrStopped)
            } else if subtitles.handles(streamIndex: index) {
                subtitles.add(packet: packet, stream: format.stream(index))
                packet.unref()
            } else {
                packet.unref()
            }
        }
    }

    /// A blocked push gives up when a seek is waiting or the session stops.
    private func seekPendingOrStopped() -> Bool {
        control.withLock { $0.pendingSeek != nil || $0.stopped }
    }

    private func ptsSeconds(_ packet: Packet, _ index: Int) -> Double? {
        guard let stream = format.stream(index), let pts = packet.pts ?? packet.dts else { return nil }
        let tb = stream.pointee.time_base
        return Double(pts) * Double(tb.num) / Double(max(1, tb.den))
    }

    /// End of input: tell both decoders, and note when a file stopped well short of its length.
    private func finishDemux(readError: String?) {
        let serial = control.withLock { c -> Int in
            c.demuxEOF = true
            let short = (info.duration ?? 0) - c.demuxedUntil
            if let readError {
                c.endedEarlyMessage = "read error at \(String(format: "%.2f", c.demuxedUntil)) s: \(readError)"
            } else if endTime == nil, short > 1.0 {
                c.endedEarlyMessage = String(format: "file ends at %.2f s of %.2f s (truncated?)", c.demuxedUntil, info.duration ?? 0)
            }
            return c.serial
        }
        videoQueue.push(.end(serial: serial), interrupted: seekPendingOrStopped)
        audioQueue.push(.end(serial: serial), interrupted: seekPendingOrStopped)
    }

    /// Flushes every queue under a new serial, repositions the demuxer, and re-anchors the clock.
    private func perform(seek target: Double, mode: SeekMode) {
        let serial = control.withLock { c -> Int in
            c.serial += 1
            return c.serial
        }
        videoQueue.flush()
        audioQueue.flush()
        frameQueue.flush()
        do {
            try format.seek(toSeconds: target)
        } catch {
            warn("seek to \(String(format: "%.2f", target)) s failed: \(error.message)")
        }
        let clockSerial = clock.reset(to: target)
        let hasVideo = videoDecoder != nil
        control.withLock { c in
            guard c.serial == serial else { return }
            c.clockSerial = clockSerial
            c.skipVideoUntil = mode == .exact ? target : nil
            c.landed = (mode == .exact || !hasVideo) ? target : nil
            c.demuxEOF = false
            c.demuxedUntil = target
            c.videoEnded = false
            c.audioEnded = false
            c.stepRequests = 0
            c.steppedWhilePaused = false
            if c.state != .ended { c.endedEarlyMessage = nil }
        }
        subtitles.seeked(to: target)
        FFmpegLog.write("demux", "seek to \(String(format: "%.3f", target)) s (\(mode.rawValue)), serial \(serial)")
    }
}
