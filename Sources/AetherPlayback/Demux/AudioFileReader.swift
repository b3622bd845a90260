import AetherBase
import AetherMedia
import FoundationEssentials

/// Reads the `--audio-file`s of a session on a thread of their own (`aether.audiofile`): each
/// file's demuxer is this thread's alone, and its state the thread's locals.
struct AudioFileReader {
    /// Its audio files (``OpenedSource/externals``), `--length` and whether it has video.
    let source: OpenedSource
    let context: SessionContext
    /// The session's audio packet queue, which the demux thread leaves to this one meanwhile.
    let queue: BoundedQueue<QueueItem<Packet>>
    let warn: @Sendable (String) -> Void

    /// The audio-file thread: while a track of an audio file is selected, reads
    /// that file's demuxer into the audio queue under the demux thread's serial, repositioning it
    /// wherever the demux thread's seeks go (the serial and position it published), and sends the
    /// audio's end item at the file's end. The main demux loop leaves audio alone meanwhile (its
    /// audio streams never match an audio file's index). It waits on conditions, never polls.
    func run() {
        guard let packet = try? Packet() else { return }
        var mySerial = 0
        var finished = true
        var readErrors = 0
        var file: ExternalAudio?
        var local = 0
        let control = context.control, files = source.externals, endTime = source.reading.endTime
        // The source's own video says how far demuxing got.
        let hasOwnVideo = source.video.decoder != nil
        while true {
            let c = control.read { $0 }
            if c.stopped { break }
            if c.demux.readSerial != mySerial {
                // A seek (or a track switch, which comes as one): reposition and read on.
                mySerial = c.demux.readSerial
                readErrors = 0
                file = c.streams.audio.flatMap { index in files.first { $0.owns(index) } }
                finished = file == nil
                if let file, let index = c.streams.audio, let l = file.local(index) {
                    local = l
                    file.select(local: l)
                    do { try file.format.seek(toSeconds: c.demux.readFrom) } catch {
                        warn("audio file: seek to \(String(cFormat: "%.2f", c.demux.readFrom)) s failed: \(error.message)")
                    }
                }
                continue
            }
            guard !finished, c.pendingSeek == nil, c.serial == mySerial, let file else {
                control.wait(seconds: 0.5) { $0.demux.readSerial != mySerial || $0.stopped }
                continue
            }
            var got = false
            do {
                got = try file.format.read(into: packet)
                readErrors = 0
            } catch {
                if control.read({ $0.stopped }) { break }
                if error.isTryAgain {
                    control.wait(seconds: 0.01) { $0.demux.readSerial != mySerial || $0.stopped }
                    continue
                }
                readErrors += 1
                AppLog.write("demux", "audio file: read error \(readErrors): \(error.message)")
                let fmt = file.format
                guard fmt.ioFailed || fmt.atEndOfInput || readErrors >= DemuxLoop.maxConsecutiveReadErrors else { continue }
                if !(fmt.atEndOfInput && !fmt.ioFailed) { warn("audio file: read error: \(fmt.readFailure(error))") }
            }
            if !got {
                finished = true
                queue.push(.end(serial: mySerial), interrupted: { moved(mySerial) })
                continue
            }
            guard packet.streamIndex == local, let stream = file.format.stream(local) else {
                packet.unref()
                continue
            }
            context.telemetry.addBytes(packet.size)
            if let seconds = file.format.timeline.seconds(packet.pts ?? packet.dts, stream.pointee.time_base),
               seconds.sane(in: -1e9...1e9) != nil {
                if !hasOwnVideo { control.note { $0.demuxedUntil = max($0.demuxedUntil, seconds) } }
                if let endTime, seconds > endTime + 0.5 {
                    packet.unref()
                    finished = true
                    queue.push(.end(serial: mySerial), interrupted: { moved(mySerial) })
                    continue
                }
            }
            if let p = try? packet.take() {
                queue.push(.item(p, serial: mySerial), interrupted: { moved(mySerial) })
            }
        }
    }

    /// A push of `serial`'s gives up when a seek is waiting, the session stops, or the demux
    /// thread carried out a newer seek.
    private func moved(_ serial: Int) -> Bool {
        context.control.read { $0.pendingSeek != nil || $0.stopped || $0.demux.readSerial != serial }
    }
}
