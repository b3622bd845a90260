import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension PlaybackSession {
    /// Consecutive failed reads (damaged data the demuxer cannot resync past) that end the input.
    static let maxConsecutiveReadErrors = 200

    /// The demux thread: reads packets, routes them by stream into the bounded queues (blocking
    /// when they are full), taps the selected subtitle track's packets into the store, carries
    /// out seeks, and at the end of input sends an end item down both queues. Damaged data is
    /// skipped (the demuxer resyncs), as ffplay does; only the end of the input or an I/O error
    /// ends it. Waits are condition waits: it sleeps at the end of input until a seek or stop.
    func demuxLoop() {
        guard let packet = try? Packet() else { return }
        var readErrors = 0
        var lastAny = 0.0          // latest packet end of any stream (subtitles too), media seconds
        var checked = Set<Int>()   // streams whose first packet was checked for encryption
        var sources = FollowedSources()
        while true {
            // Until the clock is reset to it, the position is the seek's target (in flight).
            // (A look first: taking is a change, which wakes every waiter, and this runs per packet.)
            var c = control.read { $0 }
            var taken: PendingSeek?
            if c.pendingSeek != nil {
                (c, taken) = control.withLock { c -> (SessionControl, PendingSeek?) in
                    let seek = c.seek.take()
                    return (c, seek)
                }
            }
            if c.stopped { break }
            if let seek = taken {
                perform(seek: seek.target, mode: seek.mode, forward: seek.forward)
                sources.seeked()
                lastAny = seek.target
                readErrors = 0
                continue
            }
            if c.demuxEOF {
                control.wait(seconds: 0.5) { $0.pendingSeek != nil || $0.stopped }
                continue
            }
            // The demuxer cache is full: wait for the playhead to move on.
            if source.cacheSeconds > 0, c.state != .loading, c.state != .seeking, c.demuxedUntil - clock.time > source.cacheSeconds {
                control.wait(seconds: 0.1) { $0.pendingSeek != nil || $0.stopped }
                continue
            }
            // Without a cache, a second ahead of the clock is enough (mpv's read-ahead).
            if source.cacheSeconds == 0, source.timeshift == nil, isReadAheadFull(c) {
                control.wait(seconds: policy.readAheadPollSeconds) { $0.pendingSeek != nil || $0.stopped }
                continue
            }
            let got: Bool
            let readStart = clock.host.seconds
            if let timeshift = source.timeshift {
                // Live: the capture thread reads the network into the kept window; this reads it back.
                switch timeshift.read(into: packet, interrupted: seekPendingOrStopped) {
                case .interrupted: continue
                case .end(let failure):
                    finishDemux(readError: failure, lastAny: lastAny)
                    continue
                case .packet: got = true
                }
            } else {
                do {
                    got = try format.read(into: packet)
                    readErrors = 0
                } catch {
                    if isStopped { break }
                    if error.isTryAgain {
                        control.wait(seconds: 0.01) { $0.pendingSeek != nil || $0.stopped }
                        continue
                    }
                    readErrors += 1
                    telemetry.readError()
                    AppLog.write("demux", "read error \(readErrors): \(error.message)")
                    if format.ioFailed || format.atEndOfInput || readErrors >= PlaybackSession.maxConsecutiveReadErrors {
                        finishDemux(readError: format.atEndOfInput && !format.ioFailed ? nil : format.readFailure(error), lastAny: lastAny)
                    }
                    continue
                }
            }
            telemetry.add(.read, seconds: clock.host.seconds - readStart)
            if !got {
                finishDemux(readError: nil, lastAny: lastAny)
                continue
            }
            telemetry.addBytes(packet.size)
            record(packet)
            let (serial, audioIndex, videoOff) = control.read { ($0.serial, $0.audioStreamIndex, $0.videoDisabled) }
            guard followedStream(packet, audioIndex: audioIndex, sources: &sources) else {
                // A frame that can no longer be decoded in its place: counted as dropped.
                if packet.streamIndex == source.videoIndex { telemetry.droppedEarly() }
                packet.unref()
                continue
            }
            let index = packet.streamIndex
            let isVideo = index == source.videoIndex && !videoOff && videoDecoder != nil
            let isAudio = index == audioIndex
            if (isVideo || isAudio), !checked.contains(index) {
                checked.insert(index)
                if let scheme = packet.encryptionScheme {
                    packet.unref()
                    let codec = format.stream(index).map { MediaProbe.codecName($0.pointee.codecpar) } ?? "?"
                    disable(streamIndex: index, because: "stream #\(index) (\(codec)) is encrypted (\(scheme)); cannot play it")
                    continue
                }
            }
            let seconds = ptsSeconds(packet, index)
            if let seconds, seconds.sane(in: -1e9...1e9) != nil {
                let end = seconds + max(0, packetDuration(packet, index))
                lastAny = max(lastAny, min(end, seconds + 3600))
                if isVideo || isAudio {
                    telemetry.addSpanned(packet.size, at: seconds, duration: end - seconds)
                    control.note { $0.demuxedUntil = max($0.demuxedUntil, seconds) }
                    if let endTime = source.endTime, seconds > endTime + 0.5 {
                        packet.unref()
                        finishDemux(readError: nil, lastAny: lastAny)
                        continue
                    }
                }
            }
            if isVideo, let p = try? packet.take() {
                videoQueue.push(.item(p, serial: serial), interrupted: seekPendingOrStopped)
            } else if isAudio, let p = try? packet.take() {
                audioQueue.push(.item(p, serial: serial), interrupted: seekPendingOrStopped)
            } else if source.subtitles.handles(streamIndex: index) {
                source.subtitles.add(packet: packet, stream: format.stream(index), position: seconds)
                packet.unref()
            } else {
                packet.unref()
            }
        }
    }

    /// Whether the demuxer is far enough ahead to wait (``ReadAhead``).
    func isReadAheadFull(_ c: SessionControl) -> Bool {
        guard !c.demuxEOF else { return false }
        let videoActive = source.videoIndex != nil && !c.videoDisabled && videoDecoder != nil && !c.seek.videoEnded
        let audioActive = c.audioStreamIndex != nil && !c.seek.audioEnded
        return ReadAhead(policy: policy).isFull(lead: c.demuxedUntil - clock.time, rate: c.rate,
                                                videoPackets: videoActive ? videoQueue.count : nil,
                                                audioPackets: audioActive ? audioQueue.count : nil)
    }

    /// The stream each decoder was last given packets from, and from which it came.
    struct FollowedSources {
        struct Route {
            /// The stream the packets come from now (nil: its own; -1: not known, after a seek).
            var source: Int?
            /// The one before, and the time (the followed stream's time base) the change came at.
            var previous: Int?
            var changedAt: Int64?
        }
        var video = Route()
        var audio = Route()
        var followsAny: Bool { video.source != nil || audio.source != nil }

        /// After a seek the next packet says which stream the decoder needs.
        mutating func seeked() {
            if video.source != nil { video = Route(source: -1) }
            if audio.source != nil { audio = Route(source: -1) }
        }
    }

    /// A stream that appeared after the open stands for the video's or the audio's (a DASH
    /// period of another codec: our MPEG-TS gives each codec its own PID, so its packets come
    /// as a new stream). Its packets are stamped as the followed stream's (index and time
    /// base); the first packet from another stream than the last carries that stream's
    /// parameters, and the decoder opens again with them (back, too, after a seek). False: a
    /// packet of the stream left behind that comes after the change and belongs before it
    /// (the HLS demuxer's MPEG-TS reader parses H.264 and keeps each PID's last frame until the
    /// next one or the end of the input): left out, logged (a video frame counts as dropped).
    func followedStream(_ packet: Packet, audioIndex: Int?, sources: inout FollowedSources) -> Bool {
        let index = packet.streamIndex
        // The common case, a packet per call: nothing appeared, nothing followed.
        if index < streamCountAtOpen, !sources.followsAny { return true }
        let target: Int?
        let isVideo: Bool
        if index >= streamCountAtOpen, let par = format.stream(index)?.pointee.codecpar {
            switch par.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO: target = source.videoIndex; isVideo = true
            case AVMEDIA_TYPE_AUDIO: target = audioIndex; isVideo = false
            default: return true
            }
        } else if index == source.videoIndex || index == audioIndex {
            target = index
            isVideo = index == source.videoIndex
        } else {
            return true
        }
        guard let target, let to = format.stream(target), let from = format.stream(index) else { return true }
        var route = isVideo ? sources.video : sources.audio
        defer { if isVideo { sources.video = route } else { sources.audio = route } }
        let pts = av_rescale_q(packet.pts ?? packet.dts ?? 0, from.pointee.time_base, to.pointee.time_base)
        if index == route.previous, let at = route.changedAt, pts < at {
            AppLog.write("demux", "\(isVideo ? "video" : "audio") #\(target): a packet of stream #\(index) after the change to stream #\(route.source ?? target) (\(pts) < \(at)) left out")
            return false
        }
        if (route.source ?? target) != index {
            packet.newParameters = try? StreamParameters(copying: from, index: index)
            AppLog.write("demux", "\(isVideo ? "video" : "audio") #\(target) goes on from stream #\(index) (\(MediaProbe.codecName(from.pointee.codecpar)))")
            route = FollowedSources.Route(source: index, previous: route.source == -1 ? nil : (route.source ?? target), changedAt: pts)
        }
        guard index != target else { return true }
        av_packet_rescale_ts(packet.pointer, from.pointee.time_base, to.pointee.time_base)
        packet.pointer.pointee.stream_index = Int32(target)
        return true
    }

    /// A blocked push gives up when a seek is waiting or the session stops.
    private func seekPendingOrStopped() -> Bool {
        control.read { $0.pendingSeek != nil || $0.stopped }
    }

    func ptsSeconds(_ packet: Packet, _ index: Int) -> Double? {
        guard let stream = format.stream(index) else { return nil }
        return format.timeline.seconds(packet.pts ?? packet.dts, stream.pointee.time_base)
    }

    private func packetDuration(_ packet: Packet, _ index: Int) -> Double {
        guard let stream = format.stream(index), packet.duration > 0 else { return 0 }
        return Timeline.sourceSeconds(packet.duration, stream.pointee.time_base) ?? 0
    }

    /// End of input: tell both decoders, and note when a file stopped well short of its length
    /// (measured against the last packet of any stream, so a subtitle track that outlasts the
    /// picture and sound does not make an intact file look truncated).
    private func finishDemux(readError: String?, lastAny: Double) {
        let (serial, audioFile) = control.withLock { c -> (Int, Bool) in
            c.demuxEOF = true
            let reached = max(c.demuxedUntil, lastAny)
            let short = (info.duration ?? 0) - reached
            if let readError {
                c.endedEarlyMessage = "read error at \(String(cFormat: "%.2f", c.demuxedUntil)) s: \(readError)"
            } else if source.endTime == nil, short > 1.0 {
                c.endedEarlyMessage = String(cFormat: "file ends at %.2f s of %.2f s (truncated?)", reached, info.duration ?? 0)
            }
            return (c.serial, ExternalAudio.isExternal(c.audioStreamIndex))
        }
        videoQueue.push(.end(serial: serial), interrupted: seekPendingOrStopped)
        // An audio file's end is the audio-file thread's to send.
        if !audioFile { audioQueue.push(.end(serial: serial), interrupted: seekPendingOrStopped) }
    }

    /// Flushes every queue under a new serial, repositions the demuxer, and re-anchors the clock.
    /// `forward` (a keyframe seek forward): the demuxer goes to the first keyframe at or after
    /// the target; where there is none (the last GOP, one keyframe in the file) the seek is
    /// made exact at the target instead of landing behind it.
    private func perform(seek target: Double, mode requested: SeekMode, forward requestedForward: Bool = false) {
        var mode = requested
        var forward = requestedForward  // only ever set with .keyframe (SeekGeneration.request)
        let serial = control.withLock { $0.seek.begin() }
        videoQueue.flush()
        audioQueue.flush()
        frameQueue.flush()
        let (preroll, audio) = control.read { ($0.seek.preroll, $0.audioStreamIndex) }
        // An audio track switch comes as a seek: its stream may have been discarded (live: the
        // capture thread, which owns the demuxer, does it).
        if source.timeshift == nil { applyAdaptiveDiscard(audio: audio) }
        // The load's seek to the start: the demuxer is there already (libavformat keeps what
        // probing read). Seeking would lose what comes before 0: a pipe's or live stream's first
        // second, HLS's first segment (it refuses a timestamp before its first packet's), and an
        // MP4's AAC priming packet, without which the decoder's first 20 ms are silent.
        let atStartAlready = serial == 1 && target <= 0
        do {
            if let timeshift = source.timeshift {
                timeshift.seek(to: max(0, target - (mode == .exact ? preroll : 0)))
            } else if !atStartAlready {
                // Later periods in another codec: libavformat's HLS demuxer, seeking by the video,
                // drops every packet until one of the first codec's stream comes, which in such a
                // period is never. By the audio rendition (its own playlist) the video's playlist
                // is placed by time instead.
                let stream = source.changesCodec ? audio : nil
                if forward {
                    do throws(FFmpegError) {
                        try format.seek(toSeconds: target, stream: stream, direction: .atOrAfter)
                    } catch {
                        AppLog.write("demux", "no keyframe at or after \(String(cFormat: "%.3f", target)) s (\(error.message)): exact instead")
                        forward = false
                        mode = .exact
                        try format.seek(toSeconds: max(0, target - preroll), stream: stream)
                    }
                } else {
                    try format.seek(toSeconds: max(0, target - (mode == .exact ? preroll : 0)), stream: stream)
                }
            }
        } catch {
            warn("seek to \(String(cFormat: "%.2f", target)) s failed: \(error.message)")
        }
        let clockSerial = clock.reset(to: target)
        let hasVideo = videoDecoder != nil
        control.withLock { c in
            // The audio-file thread follows: same serial, same position.
            c.readSerial = serial
            c.readFrom = max(0, target - (mode == .exact ? preroll : 0))
            guard c.seek.started(serial: serial, at: target, mode: mode, forward: forward, landsAtTarget: mode == .exact || !hasVideo) else { return }
            c.clockSerial = clockSerial
            c.demuxEOF = false
            c.progress.demuxedUntil = target
            c.stepRequests = 0
            c.steppedWhilePaused = false
            if c.state != .ended { c.endedEarlyMessage = nil }
        }
        source.subtitles.seeked(to: target)
        AppLog.write("demux", "seek to \(String(cFormat: "%.3f", target)) s (\(mode.rawValue)\(forward ? ", forward" : "")\(preroll > 0 ? ", from \(preroll) s before" : "")), serial \(serial)")
    }
}

extension PlaybackSession {
    /// The audio-file thread (`--audio-file`): while a track of an audio file is selected, reads
    /// that file's demuxer into the audio queue under the demux thread's serial, repositioning it
    /// wherever the demux thread's seeks go (the serial and position it published), and sends the
    /// audio's end item at the file's end. The main demux loop leaves audio alone meanwhile (its
    /// audio streams never match an audio file's index). It waits on conditions, never polls.
    func audioFileLoop() {
        guard let packet = try? Packet() else { return }
        var mySerial = 0
        var finished = true
        var readErrors = 0
        var file: ExternalAudio?
        var local = 0
        let hasOwnVideo = videoDecoder != nil
        while true {
            let c = control.read { $0 }
            if c.stopped { break }
            if c.readSerial != mySerial {
                // A seek (or a track switch, which comes as one): reposition and read on.
                mySerial = c.readSerial
                readErrors = 0
                file = c.audioStreamIndex.flatMap { index in source.externals.first { $0.owns(index) } }
                finished = file == nil
                if let file, let index = c.audioStreamIndex, let l = file.local(index) {
                    local = l
                    file.select(local: l)
                    do { try file.format.seek(toSeconds: c.readFrom) } catch {
                        warn("audio file: seek to \(String(cFormat: "%.2f", c.readFrom)) s failed: \(error.message)")
                    }
                }
                continue
            }
            guard !finished, c.pendingSeek == nil, c.serial == mySerial, let file else {
                control.wait(seconds: 0.5) { $0.readSerial != mySerial || $0.stopped }
                continue
            }
            var got = false
            do {
                got = try file.format.read(into: packet)
                readErrors = 0
            } catch {
                if isStopped { break }
                if error.isTryAgain {
                    control.wait(seconds: 0.01) { $0.readSerial != mySerial || $0.stopped }
                    continue
                }
                readErrors += 1
                AppLog.write("demux", "audio file: read error \(readErrors): \(error.message)")
                let fmt = file.format
                guard fmt.ioFailed || fmt.atEndOfInput || readErrors >= PlaybackSession.maxConsecutiveReadErrors else { continue }
                if !(fmt.atEndOfInput && !fmt.ioFailed) { warn("audio file: read error: \(fmt.readFailure(error))") }
            }
            if !got {
                finished = true
                audioQueue.push(.end(serial: mySerial), interrupted: { [control] in
                    control.read { $0.pendingSeek != nil || $0.stopped || $0.readSerial != mySerial }
                })
                continue
            }
            guard packet.streamIndex == local, let stream = file.format.stream(local) else {
                packet.unref()
                continue
            }
            telemetry.addBytes(packet.size)
            if let seconds = file.format.timeline.seconds(packet.pts ?? packet.dts, stream.pointee.time_base),
               seconds.sane(in: -1e9...1e9) != nil {
                if !hasOwnVideo { control.note { $0.demuxedUntil = max($0.demuxedUntil, seconds) } }
                if let endTime = source.endTime, seconds > endTime + 0.5 {
                    packet.unref()
                    finished = true
                    audioQueue.push(.end(serial: mySerial), interrupted: { [control] in
                        control.read { $0.pendingSeek != nil || $0.stopped || $0.readSerial != mySerial }
                    })
                    continue
                }
            }
            if let p = try? packet.take() {
                audioQueue.push(.item(p, serial: mySerial), interrupted: { [control] in
                    control.read { $0.pendingSeek != nil || $0.stopped || $0.readSerial != mySerial }
                })
            }
        }
    }
}
