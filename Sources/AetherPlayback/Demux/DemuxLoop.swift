import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The reading side of a session: the demux thread (``run()``) and, live with timeshift, the
/// capture thread (``capture()``). What it needs of the session it asks through ``Hooks``; what
/// it decides it writes to the session's ``SessionControl`` (`demux`, the seek's transitions).
final class DemuxLoop: @unchecked Sendable {  // its state is its threads' locals; shared state is in `context.control`
    /// Consecutive failed reads (damaged data the demuxer cannot resync past) that end the input.
    static let maxConsecutiveReadErrors = 200

    let source: OpenedSource
    private let context: SessionContext
    private let queues: SessionQueues
    /// The session's `--stream-record` file (nil: none), which every packet read goes to.
    private let recording: Guarded<StreamRecorder?>
    private let hooks: Hooks

    /// What the demux side asks of its session.
    struct Hooks {
        /// A stream that cannot be played (encrypted): the session leaves it out.
        let disable: @Sendable (Int, String) -> Void
        let warn: @Sendable (String) -> Void
    }

    init(source: OpenedSource, context: SessionContext, queues: SessionQueues, recording: Guarded<StreamRecorder?>, hooks: Hooks) {
        self.source = source
        self.context = context
        self.queues = queues
        self.recording = recording
        self.hooks = hooks
    }

    /// The demux thread: reads packets, routes them by stream into the bounded queues (blocking
    /// when they are full), taps the selected subtitle track's packets into the store, carries
    /// out seeks, and at the end of input sends an end item down both queues. Damaged data is
    /// skipped (the demuxer resyncs), as ffplay does; only the end of the input or an I/O error
    /// ends it. Waits are condition waits: it sleeps at the end of input until a seek or stop.
    func run() {
        guard let packet = try? Packet() else { return }
        var readErrors = 0
        var lastAny = 0.0          // latest packet end of any stream (subtitles too), media seconds
        var checked = Set<Int>()   // streams whose first packet was checked for encryption
        var followed = FollowedStreams(source: source)
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
                followed.seeked()
                lastAny = seek.target
                readErrors = 0
                continue
            }
            if c.demux.eof {
                control.wait(seconds: 0.5) { $0.pendingSeek != nil || $0.stopped }
                continue
            }
            // The demuxer cache is full: wait for the playhead to move on. While a load or seek
            // lands, the playhead is its target (the clock waits for the first frame): a
            // `--cache-secs` holds from the start (#62 item 9: 24 s were read in the first second
            // of an HLS VOD with `--cache-secs=4`); a second at least, which a decoder's
            // reordering delay and an audio track muxed a little late always fit in.
            let landing = c.state == .loading || c.state == .seeking
            let ahead = c.demuxedUntil - (landing ? c.seek.start : clock.time)
            if source.reading.cacheSeconds > 0, ahead > (landing ? max(1, source.reading.cacheSeconds) : source.reading.cacheSeconds) {
                control.wait(seconds: 0.1) { $0.pendingSeek != nil || $0.stopped }
                continue
            }
            // Without a cache, a second ahead of the clock is enough (mpv's read-ahead).
            if source.reading.cacheSeconds == 0, source.reading.timeshift == nil, isReadAheadFull(c) {
                control.wait(seconds: policy.readAheadPollSeconds) { $0.pendingSeek != nil || $0.stopped }
                continue
            }
            let got: Bool
            let readStart = clock.host.seconds
            if let timeshift = source.reading.timeshift {
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
                    if control.read({ $0.stopped }) { break }
                    if error.isTryAgain {
                        control.wait(seconds: 0.01) { $0.pendingSeek != nil || $0.stopped }
                        continue
                    }
                    readErrors += 1
                    telemetry.readError()
                    AppLog.write("demux", "read error \(readErrors): \(error.message)")
                    if format.ioFailed || format.atEndOfInput || readErrors >= Self.maxConsecutiveReadErrors {
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
            let (serial, audioIndex, videoOff) = control.read { ($0.serial, $0.streams.audio, $0.streams.videoDisabled) }
            guard followed.admit(packet, audioIndex: audioIndex) else {
                // A frame that can no longer be decoded in its place: counted as dropped.
                if packet.streamIndex == source.video.index { telemetry.droppedEarly() }
                packet.unref()
                continue
            }
            let index = packet.streamIndex
            let isVideo = index == source.video.index && !videoOff && source.video.decoder != nil
            let isAudio = index == audioIndex
            if (isVideo || isAudio), !checked.contains(index) {
                checked.insert(index)
                if let scheme = packet.encryptionScheme {
                    packet.unref()
                    let codec = format.stream(index).map { MediaProbe.codecName($0.pointee.codecpar) } ?? "?"
                    hooks.disable(index, "stream #\(index) (\(codec)) is encrypted (\(scheme)); cannot play it")
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
                    if let endTime = source.reading.endTime, seconds > endTime + 0.5 {
                        packet.unref()
                        finishDemux(readError: nil, lastAny: lastAny)
                        continue
                    }
                }
            }
            if isVideo, let p = try? packet.take() {
                queues.video.push(.item(p, serial: serial), interrupted: seekPendingOrStopped)
            } else if isAudio, let p = try? packet.take() {
                queues.audio.push(.item(p, serial: serial), interrupted: seekPendingOrStopped)
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
        guard !c.demux.eof else { return false }
        let videoActive = source.video.index != nil && !c.streams.videoDisabled && source.video.decoder != nil && !c.seek.videoEnded
        let audioActive = c.streams.audio != nil && !c.seek.audioEnded
        return ReadAhead(policy: policy).isFull(lead: c.demuxedUntil - clock.time, rate: c.settings.rate,
                                                videoPackets: videoActive ? queues.video.count : nil,
                                                audioPackets: audioActive ? queues.audio.count : nil)
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
    /// picture and sound does not make an intact file look truncated), said at the time of the
    /// last audio or video packet (a subtitle event that reaches past the cut is not where
    /// the picture and sound stop).
    private func finishDemux(readError: String?, lastAny: Double) {
        let (serial, audioFile) = control.withLock { c -> (Int, Bool) in
            c.demux.eof = true
            let reached = max(c.demuxedUntil, lastAny)
            let short = (source.info.duration ?? 0) - reached
            if let readError {
                c.ending.earlyMessage = "read error at \(String(cFormat: "%.2f", c.demuxedUntil)) s: \(readError)"
            } else if source.reading.endTime == nil, short > 1.0 {
                // A network source whose transfers gave up ends short for that reason (a
                // segmented demuxer skips what it cannot fetch, and then ends).
                // A playlist of segments read to its end, none of them lost, is whole: its length
                // is the sum of what it declares, which may be more than its media.
                let stopped = String(cFormat: "%.2f s of %.2f s", c.demuxedUntil, source.info.duration ?? 0)
                if let why = format.network?.failure {
                    c.ending.earlyMessage = "stopped at \(stopped): \(why)"
                } else if source.adaptive.discardsUnplayed {
                    AppLog.write("demux", "every segment read: the media ends at \(stopped) declared")
                } else {
                    c.ending.earlyMessage = "file ends at \(stopped) (truncated?)"
                }
            }
            return (c.serial, ExternalAudio.isExternal(c.streams.audio))
        }
        queues.video.push(.end(serial: serial), interrupted: seekPendingOrStopped)
        // An audio file's end is the audio-file thread's to send.
        if !audioFile { queues.audio.push(.end(serial: serial), interrupted: seekPendingOrStopped) }
    }

    /// Flushes every queue under a new serial, repositions the demuxer, and re-anchors the clock.
    /// `forward` (a keyframe seek forward): the demuxer goes to the first keyframe at or after
    /// the target; where there is none (the last GOP, one keyframe in the file) the seek is
    /// made exact at the target instead of landing behind it.
    private func perform(seek target: Double, mode requested: SeekMode, forward requestedForward: Bool = false) {
        var mode = requested
        var forward = requestedForward  // only ever set with .keyframe (SeekGeneration.request)
        let serial = control.withLock { $0.seek.begin() }
        queues.flush()
        let (preroll, audio) = control.read { ($0.seek.preroll, $0.streams.audio) }
        // An audio track switch comes as a seek: its stream may have been discarded (live: the
        // capture thread, which owns the demuxer, does it).
        if source.reading.timeshift == nil { source.discardUnplayed(audio: audio) }
        // The load's seek to the start: the demuxer is there already (libavformat keeps what
        // probing read). Seeking would lose what comes before 0: a pipe's or live stream's first
        // second, HLS's first segment (it refuses a timestamp before its first packet's), and an
        // MP4's AAC priming packet, without which the decoder's first 20 ms are silent.
        let atStartAlready = serial == 1 && target <= 0
        do {
            if let timeshift = source.reading.timeshift {
                timeshift.seek(to: max(0, target - (mode == .exact ? preroll : 0)))
            } else if !atStartAlready {
                // Later periods in another codec: libavformat's HLS demuxer, seeking by the video,
                // drops every packet until one of the first codec's stream comes, which in such a
                // period is never. By the audio rendition (its own playlist) the video's playlist
                // is placed by time instead.
                let stream = source.adaptive.changesCodec ? audio : nil
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
            hooks.warn("seek to \(String(cFormat: "%.2f", target)) s failed: \(error.message)")
        }
        let clockSerial = clock.reset(to: target)
        let hasVideo = source.video.decoder != nil
        control.withLock { c in
            // The audio-file thread follows: same serial, same position.
            c.demux.readSerial = serial
            c.demux.readFrom = max(0, target - (mode == .exact ? preroll : 0))
            guard c.seek.started(serial: serial, at: target, mode: mode, forward: forward, landsAtTarget: mode == .exact || !hasVideo) else { return }
            c.demux.clockSerial = clockSerial
            c.demux.eof = false
            c.progress.demuxedUntil = target
            c.step.requests = 0
            c.step.whilePaused = false
            if c.state != .ended { c.ending.earlyMessage = nil }
        }
        source.subtitles.seeked(to: target)
        AppLog.write("demux", "seek to \(String(cFormat: "%.3f", target)) s (\(mode.rawValue)\(forward ? ", forward" : "")\(preroll > 0 ? ", from \(preroll) s before" : "")), serial \(serial)")
    }

    /// The capture thread (live with timeshift): reads the stream into the kept window, whatever
    /// the playhead does (paused, rewound), until it ends or the session stops. Owns the
    /// demuxer's reads.
    func capture() {
        guard let timeshift = source.reading.timeshift, let packet = try? Packet() else { return }
        var audio = control.read { $0.streams.audio }
        var errors = 0
        let hasVideo = source.video.index != nil && source.video.decoder != nil
        while !control.read({ $0.stopped }) {
            let wanted = control.read { $0.streams.audio }
            if wanted != audio {
                source.discardUnplayed(audio: wanted)
                audio = wanted
            }
            do {
                guard try format.read(into: packet) else {
                    timeshift.finish(error: nil)
                    return
                }
                errors = 0
            } catch {
                if control.read({ $0.stopped }) { break }
                if error.isTryAgain {
                    control.wait(seconds: 0.01) { $0.stopped }
                    continue
                }
                errors += 1
                AppLog.write("live", "read error \(errors): \(error.message)")
                if format.ioFailed || format.atEndOfInput || errors >= Self.maxConsecutiveReadErrors {
                    timeshift.finish(error: format.atEndOfInput && !format.ioFailed ? nil : format.readFailure(error))
                    return
                }
                continue
            }
            let index = packet.streamIndex
            timeshift.append(packet, time: ptsSeconds(packet, index),
                             videoKeyframe: index == source.video.index && packet.isKeyframe, hasVideo: hasVideo,
                             paces: hasVideo ? index == source.video.index : index == audio)
            packet.unref()
        }
        timeshift.finish(error: nil)
    }

    /// Hands a packet just read to the recording, if there is one.
    private func record(_ packet: Packet) {
        recording.withLock { recorder in
            guard let recorder else { return }
            recorder.write(packet, title: recorder.keepsChapters ? format.networkStatus?.station?.title : nil)
        }
    }
}

extension DemuxLoop {
    private var format: FormatContext { source.format }
    private var control: ControlBox { context.control }
    private var clock: MasterClock { context.clock }
    private var telemetry: Telemetry { context.telemetry }
    private var policy: SyncPolicy { context.policy }
}
