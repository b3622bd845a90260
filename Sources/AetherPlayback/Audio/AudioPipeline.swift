import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The audio pipeline: owns the audio decoder (its thread's alone; it changes with the track),
/// the device (``AudioSink``) and the tap of what it plays. It takes packets of the current
/// serial off the audio packet queue, trims them to the seek's landing and the `--length` end,
/// writes them to the device, and anchors the ``MasterClock`` on what the device has played.
///
/// Who touches what: `decoder` is the audio thread's; `decoderName` and `runningEqualizer` are
/// written here and read by telemetry; the device is interrupted by `stop()` from another thread (its one
/// cross-thread call). Seek state comes from the session's ``SeekGeneration``: the audio
/// thread may decide a landing (`land`) and ends the audio (`end(.audio)`).
final class AudioPipeline: @unchecked Sendable {  // `decoder` is the audio thread's; `decoderName` guarded
    let sink: AudioSink
    /// The samples written to the device, for visualisation.
    let tap: AudioTap
    /// The decoder's name for telemetry.
    let decoderName: Guarded<String>
    /// The equalizer as the decoder's filter chain runs it, for telemetry (its preamp is the one
    /// the stream's decoded rate gave).
    let runningEqualizer = Guarded(EqualizerCurve.flat)
    /// The last value written to `runningEqualizer` (the audio thread's).
    private var publishedEqualizer = EqualizerCurve.flat
    /// The item before's running equalizer, handed over with the device (gapless), for this
    /// pipeline's first samples.
    private let inheritedEqualizer = Guarded<EqualizerStage?>(nil)
    private var decoder: AudioDecoder
    private let packets: BoundedQueue<QueueItem<Packet>>
    private let context: SessionContext
    private let streams: AudioStreams
    /// Codec names of the audio streams, by stream index (for messages).
    private let codecNames: [Int: String]
    private let plan: Plan
    private let hooks: Hooks

    /// What the session tells the pipeline of its item, fixed for the session.
    struct Plan {
        /// The encoder's delay (``EncoderGap``): samples before are not played.
        var startTime: Double?
        /// `--length`, the encoder's padding: samples from here on are not played.
        var endTime: Double?
        /// The file's loudness gain (``ReplayGainSettings``), a factor applied with the volume.
        var replayGain = 1.0
        /// Whether the session has video (else the audio decides the landing of each serial).
        var hasVideo: Bool
        /// The device holds the item before's last samples (gapless): the first serial does not
        /// reset it, and its first write waits until that item hands it over.
        var continuesSink = false
    }

    /// What the pipeline asks of its session.
    struct Hooks {
        /// At the end: hands the device to a prepared next item; the seconds until the last
        /// sample is heard, or nil (no next item: the device drains).
        var handOver: @Sendable () -> Double? = { nil }
        /// Before a serial's first samples: waits for its first picture (sinks that report).
        let waitForFirstPicture: @Sendable (Int) -> Void
        /// The stream cannot be played: the session leaves it out.
        let disable: @Sendable (Int, String) -> Void
        let warn: @Sendable (String) -> Void
    }

    init(decoder: AudioDecoder, sink: AudioSink, packets: BoundedQueue<QueueItem<Packet>>, context: SessionContext,
         streams: AudioStreams, info: MediaInfo, plan: Plan, hooks: Hooks) {
        self.decoder = decoder
        self.sink = sink
        tap = AudioTap(sampleRate: sink.format.sampleRate)
        decoderName = Guarded(decoder.decoderName)
        self.packets = packets
        self.context = context
        self.streams = streams
        var plan = plan
        plan.replayGain = plan.replayGain.isFinite && plan.replayGain >= 0 ? plan.replayGain : 1
        self.plan = plan
        self.hooks = hooks
        codecNames = Dictionary(info.audio.map { ($0.index, $0.codec) }, uniquingKeysWith: { a, _ in a })
    }

    /// Before the threads start: the speed of the session's start.
    func setRate(_ rate: Double) { decoder.setRate(rate) }

    /// The equalizer's running filters, for the item that continues the device. Called on this
    /// pipeline's audio thread, after its last samples are written.
    func releaseEqualizer() -> EqualizerStage? { decoder.releaseEqualizer() }

    /// The item before's running equalizer (``releaseEqualizer()``), taken before this
    /// pipeline's first decode.
    func inheritEqualizer(_ stage: EqualizerStage?) { inheritedEqualizer.withLock { $0 = stage } }

    /// The audio thread: decodes, trims to the seek landing point and the --length end, applies
    /// volume, writes to the sink (which paces this thread in real time), and after each write
    /// re-anchors the master clock from the device: heard = written end − delay. A damaged
    /// packet costs its samples only (counted as a decode error); a stream that never decodes is
    /// reported and left out, and the clock falls back to the system clock.
    func run() {
        // The sound is the master clock and a gap in it is heard, while a late video frame is
        // dropped and counted: where the system allows it (root, or an RLIMIT_NICE that does),
        // this thread runs 5 steps less nice than the rest, so a loaded machine starves the
        // picture first. Elsewhere the call fails and the thread stays as it was.
        _ = aether_nicer_this_thread(-5)
        var mySerial = -1
        var sinkPaused = false
        var writtenEnd: Double? = nil
        var framesWritten = 0
        var chunksEver = 0
        var failuresInARow = 0
        var pictureWaitSerial = -1
        // Gapless: the device still plays the item before; nothing resets it, nothing is written
        // before it is handed over.
        var keepsDevice = plan.continuesSink
        while !control.read({ $0.stopped }) {
            let c = control.read { $0 }
            guard c.streams.audio != nil else {
                control.wait(seconds: 0.25) { $0.streams.audio != nil || $0.stopped }
                continue
            }
            if c.paused {
                // Nothing is written while paused, seeking or not: audio written now would move
                // the clock when the sink pauses. An audio-only seek lands at its target at once.
                if !plan.hasVideo, c.state == .seeking || c.state == .loading, c.pendingSeek == nil, c.landed != nil {
                    markLanded(serial: c.serial)
                }
                if !sinkPaused, c.serial == mySerial {
                    sink.setPaused(true)
                    sinkPaused = true
                }
                control.wait(seconds: 0.25) {
                    !$0.paused || $0.serial != c.serial || $0.stopped || $0.landed != c.landed || $0.state != c.state
                }
                continue
            }
            if sinkPaused {
                // The clock froze where the picture stopped, the device a little apart from it
                // (slewing never closes the gap): the sound resumes from what was heard, so the
                // clock does too. Not at the pause: a paused position does not move.
                if let writtenEnd, c.serial == mySerial, clock.isArmed {
                    clock.set(media: heard(writtenEnd, sink, c.settings.rate), serial: c.demux.clockSerial)
                }
                sink.setPaused(false)
                sinkPaused = false
            }
            if decoder.rate != c.settings.rate {
                decoder.setRate(c.settings.rate)
                sink.reset()
                tap.reset()
                writtenEnd = nil
            }
            // Only what is queued ahead of an item matters: compare it with the serial as it is
            // now, not as it was before the wait (an item of a seek made during the wait is
            // current, and dropping it could drop the stream's end).
            guard let item = packets.peek() ?? (packets.waitForItem(timeout: 0.1) ? packets.peek() : nil) else { continue }
            let current = control.read { $0.serial }
            if item.serial != current {
                _ = packets.pop(if: { $0.serial == item.serial })
                continue
            }
            if current != c.serial || control.read({ $0.paused }) { continue }  // look at the state again first
            guard let item = packets.pop(if: { $0.serial == current }) else { continue }
            if item.serial != mySerial {
                mySerial = item.serial
                if !keepsDevice { sink.reset() }
                tap.reset()
                writtenEnd = nil
                framesWritten = 0
                if let wanted = c.streams.audio, decoder.streamIndex != wanted {
                    switchDecoder(to: wanted)
                }
                decoder.flush()
            }
            if keepsDevice {
                // Demuxed ahead; decoded once the item before has written its last samples, so
                // that its equalizer's filters carry on into this item's first (no click at the
                // joint).
                while control.read({ $0.handoff.held && !$0.stopped }) {
                    _ = control.wait(seconds: 0.25) { !$0.handoff.held || $0.stopped }
                }
                keepsDevice = false
                if control.read({ $0.stopped }) { break }
                if let stage = inheritedEqualizer.withLock({ s in defer { s = nil }; return s }) {
                    decoder.inheritEqualizer(stage)
                }
            }
            // The equalizer as set now (the hand-over above may have brought the item before's).
            let equalizer = control.read { $0.settings.equalizer.curve }
            if decoder.equalizer != equalizer { decoder.setEqualizer(equalizer) }
            let chunks: [AudioChunk]
            var isEnd = false
            do {
                switch item {
                case .item(let packet, _):
                    telemetry.addPlayedBytes(packet.size)
                    if let next = packet.newParameters { adopt(next) }
                    chunks = try decoder.decode(packet)
                case .end:
                    chunks = (try? decoder.decode(nil)) ?? []
                    isEnd = true
                }
            } catch {
                telemetry.decodeError()
                failuresInARow += 1
                AppLog.write("ad", "decode error: \(error)")
                if chunksEver == 0, failuresInARow >= PlaybackSession.undecodableAfterErrors {
                    let codec = codecNames[decoder.streamIndex] ?? "audio"
                    hooks.disable(decoder.streamIndex,
                            "cannot decode audio stream #\(decoder.streamIndex) (\(codec)): \((error as? FFmpegError)?.message ?? "\(error)")")
                }
                continue
            }
            if !chunks.isEmpty { chunksEver += chunks.count; failuresInARow = 0 }
            if decoder.runningEqualizer != publishedEqualizer {
                publishedEqualizer = decoder.runningEqualizer
                runningEqualizer.withLock { [running = publishedEqualizer] in $0 = running }
            }
            for var chunk in chunks {
                // Keyframe seek with video: wait until the video says where playback lands
                // (at most 2 s: if no video frame comes, the audio decides). Without video the
                // audio decides at once (a live stream's start is no seek: nothing else lands it).
                let serial = mySerial
                let waited = plan.hasVideo ? control.wait(seconds: 2) { $0.serial != serial || $0.stopped || $0.landed != nil }
                                           : control.read { $0 }
                if waited.serial == serial, !waited.stopped, waited.landed == nil {
                    _ = control.withLock { $0.seek.land(at: chunk.pts, serial: serial) }
                }
                // Once per serial: chunks trimmed before the landing point do not wait again.
                if framesWritten == 0, pictureWaitSerial != mySerial {
                    pictureWaitSerial = mySerial
                    hooks.waitForFirstPicture(mySerial)
                }
                guard let start = control.read({ $0.serial == mySerial ? $0.landed : nil }) else { break }
                guard trim(&chunk, from: max(start, plan.startTime ?? start), to: plan.endTime, channels: sink.format.channels, rate: sink.format.sampleRate) else { continue }
                let (volume, muted, clockSerial) = control.read { ($0.settings.volume, $0.settings.muted, $0.demux.clockSerial) }
                // What plays, before the volume: a visualisation shows the music, muted or not.
                chunk.samples.withUnsafeBufferPointer {
                    tap.append($0, channels: sink.format.channels, pts: chunk.pts, mediaDuration: chunk.mediaDuration)
                }
                applyVolume(&chunk.samples, volume: muted ? 0 : volume * plan.replayGain)
                do {
                    try chunk.samples.withUnsafeBufferPointer { try sink.write($0) }
                } catch {
                    hooks.warn("audio output failed (\(error)); continuing without sound")
                    control.withLock { $0.streams.audio = nil }
                    clock.removeLimit()
                    return
                }
                writtenEnd = chunk.pts + chunk.mediaDuration
                framesWritten += chunk.samples.count / sink.format.channels
                clock.limit(to: writtenEnd, serial: clockSerial)
                let heardNow = heard(writtenEnd ?? chunk.pts, sink, decoder.rate)
                // Arm only once the device had to make room: before that its delay can be a
                // promise (PulseAudio reports progress before its stream really starts).
                let primed = framesWritten > sink.bufferFrames
                if !clock.isArmed {
                    guard primed else { continue }
                    clock.arm(at: heardNow, source: sink.isClockSource ? .audio : .system, serial: clockSerial)
                    if !plan.hasVideo { markLanded(serial: mySerial) }
                } else {
                    clock.correct(heard: heardNow, serial: clockSerial)
                }
            }
            if isEnd, control.read({ $0.serial == mySerial }) {
                if !clock.isArmed, let writtenEnd {  // shorter than the device buffer
                    clock.arm(at: heard(writtenEnd, sink, decoder.rate), source: .audio,
                              serial: control.read { $0.demux.clockSerial })
                    if !plan.hasVideo { markLanded(serial: mySerial) }
                }
                if let left = hooks.handOver() {
                    // The next item writes on; this one ends when its last sample is heard.
                    _ = control.wait(seconds: left) { $0.stopped }  // device seconds: real time
                    control.withLock { $0.seek.end(.audio, serial: mySerial) }
                    control.withLock { $0.endIfPlayedOut(hasVideo: plan.hasVideo, now: clock.host.seconds) }
                    return
                }
                sink.drain()
                clock.removeLimit()
                control.withLock { $0.seek.end(.audio, serial: mySerial) }
                control.withLock { $0.endIfPlayedOut(hasVideo: plan.hasVideo, now: clock.host.seconds) }
            }
        }
    }

    /// Media time being heard now: what was written, less what the device still holds.
    private func heard(_ writtenEnd: Double, _ sink: AudioSink, _ rate: Double) -> Double {
        writtenEnd - Double(sink.delayFrames()) / Double(sink.format.sampleRate) * rate
    }

    /// Audio-only sources land when their first samples are written.
    private func markLanded(serial: Int) {
        control.withLock { c in
            if c.serial == serial { c.apply(.landed) }
        }
    }

    /// The packets now come from another stream (a DASH period of another codec): a decoder
    /// for it, on the same timeline.
    private func adopt(_ next: StreamParameters) {
        do {
            let fresh = try AudioDecoder(adopting: next, timeBase: decoder.timeBase, index: decoder.streamIndex,
                                         output: sink.format, timeline: decoder.timeline, filters: decoder.filters,
                                         equalizer: decoder.equalizer)
            fresh.setRate(decoder.rate)
            decoder = fresh
            decoderName.withLock { $0 = fresh.decoderName }
        } catch {
            hooks.warn("cannot decode audio stream #\(next.sourceIndex): \(error.message)")
        }
    }

    private func switchDecoder(to index: Int) {
        guard let (stream, timeline) = streams.stream(index).map({ ($0.0, $0.1) }) else { return }
        do {
            let decoder = try AudioDecoder(stream: stream, index: index, output: sink.format, timeline: timeline,
                                           filters: self.decoder.filters, equalizer: self.decoder.equalizer)
            decoder.setRate(control.read { $0.settings.rate })
            self.decoder = decoder
            decoderName.withLock { $0 = decoder.decoderName }
        } catch {
            hooks.warn("cannot decode audio stream #\(index): \(error.message)")
        }
    }

    /// Drops samples before `start` and after `end`; false when nothing is left.
    private func trim(_ chunk: inout AudioChunk, from start: Double, to end: Double?, channels: Int, rate: Int) -> Bool {
        let secondsPerFrame = chunk.mediaDuration / Double(max(1, chunk.samples.count / channels))
        guard secondsPerFrame > 0 else { return false }
        if chunk.pts + chunk.mediaDuration <= start { return false }
        if chunk.pts < start {
            let drop = min(chunk.samples.count / channels, Int(saturating: ((start - chunk.pts) / secondsPerFrame).rounded()))
            chunk.samples.removeFirst(drop * channels)
            chunk.pts += Double(drop) * secondsPerFrame
            chunk.mediaDuration -= Double(drop) * secondsPerFrame
        }
        if let end, chunk.pts + chunk.mediaDuration > end {
            let keep = max(0, Int(saturating: ((end - chunk.pts) / secondsPerFrame).rounded()))
            chunk.samples.removeLast(chunk.samples.count - min(chunk.samples.count, keep * channels))
            chunk.mediaDuration = Double(keep) * secondsPerFrame
        }
        return !chunk.samples.isEmpty
    }

    /// Software volume in percent (0–130 % times the loudness gain), with clipping.
    func applyVolume(_ samples: inout [Int16], volume: Double) {
        guard volume != 100 else { return }
        let gain = Int64((min(volume, 1e6) / 100 * 4096).rounded())
        samples.withUnsafeMutableBufferPointer { buf in
            for i in buf.indices {
                let v = (Int64(buf[i]) * gain) >> 12
                buf[i] = Int16(clamping: v)
            }
        }
    }
}

extension AudioPipeline {
    private var control: ControlBox { context.control }
    private var clock: MasterClock { context.clock }
    private var telemetry: Telemetry { context.telemetry }
}
