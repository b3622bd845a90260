import CFFmpeg
import Foundation
import Synchronization

/// What moves between the demux, decode and present threads: a payload or an end marker,
/// tagged with the seek generation (`serial`) it was produced under (ffplay's serial model).
enum QueueItem<Payload> {
    case item(Payload, serial: Int)
    case end(serial: Int)

    var serial: Int {
        switch self {
        case .item(_, let s), .end(let s): return s
        }
    }
}

/// Control state shared by the session's threads; only touched under `PlaybackSession.control`.
struct SessionControl {
    var serial = 0
    var clockSerial = 0
    var pendingSeek: (target: Double, mode: SeekMode)?
    var state = PlayerState.loading
    var paused = true
    var stopped = false
    var demuxEOF = false
    var rate = 1.0
    var volume = 100.0
    var muted = false
    var audioStreamIndex: Int?
    var subtitleStreamIndex: Int?
    /// Exact seek: frames ending before this are skipped by the video thread.
    var skipVideoUntil: Double?
    /// Where the current serial's playback begins; nil until the first video frame after a
    /// keyframe seek says where the keyframe is.
    var landed: Double?
    var videoEnded = false
    var audioEnded = false
    var stepRequests = 0
    /// A frame step moved the picture away from the audio: re-align on resume.
    var steppedWhilePaused = false
    var resumeAfterSeek = false
    var endedEarlyMessage: String?
    var demuxedUntil = 0.0
    var lastPresentedPTS: Double?
    /// Monotonic seconds when the session reached `.ended`.
    var endedHost: Double?
}

/// One loaded source: the demuxer, decoders, queues, audio sink and the four real-time threads
/// (demux, video decode, audio decode+write, present). Created by `Player.load`.
final class PlaybackSession: @unchecked Sendable {  // cross-thread state is in `control`, queues, atomics
    let format: FormatContext
    let info: MediaInfo
    let videoIndex: Int?
    let options: PlayerOptions
    let policy: SyncPolicy
    let clock: MasterClock
    let telemetry = Telemetry()
    let control = Mutex(SessionControl())
    let videoQueue: BoundedQueue<QueueItem<Packet>>
    let audioQueue: BoundedQueue<QueueItem<Packet>>
    let frameQueue: BoundedQueue<QueueItem<VideoFrame>>
    let sink: AudioSink?
    let renderSize = Mutex<PixelSize?>(nil)
    let onFrame = Mutex<(@Sendable (VideoFrame) -> Void)?>(nil)
    let subtitles: SubtitleStore
    let warnings = Mutex<[String]>([])
    let endTime: Double?
    private var threads: [Thread] = []
    let threadsDone = DispatchGroup()
    let decoderNames = Mutex<(video: String, audio: String, deinterlacing: Bool)>(("", "", false))
    /// Decoder for the current audio stream; owned by the audio thread after start.
    var audioDecoder: AudioDecoder?
    /// Owned by the video thread after start.
    var videoDecoder: VideoDecoder?

    init(url: String, options: PlayerOptions) throws {
        self.options = options
        policy = options.policy
        clock = MasterClock(policy: options.policy)
        var headers = ""
        for (k, v) in options.httpHeaders { headers += "\(k): \(v)\r\n" }
        let format: FormatContext
        do {
            format = try FormatContext(url: url, options: headers.isEmpty ? [:] : ["headers": headers],
                                       timeout: options.openTimeout)
        } catch {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(error.message)")
        }
        self.format = format
        do { info = try MediaProbe.probe(format) } catch {
            throw PlayerError("cannot read '\(TextSanitizer.clean(url))': \(error.message)")
        }
        videoIndex = info.primaryVideo?.index
        endTime = options.length.map { options.start + max(0, $0) }
        videoQueue = BoundedQueue(maxCount: 600, maxCost: options.policy.packetQueueBytes) { item in
            if case .item(let p, _) = item { return p.size }
            return 0
        }
        audioQueue = BoundedQueue(maxCount: 4000, maxCost: options.policy.packetQueueBytes / 2) { item in
            if case .item(let p, _) = item { return p.size }
            return 0
        }
        frameQueue = BoundedQueue(maxCount: options.policy.frameQueueCapacity)
        subtitles = SubtitleStore(info: info)

        // Video decoder.
        if let videoIndex, let stream = format.stream(videoIndex) {
            do {
                videoDecoder = try VideoDecoder(stream: stream, index: videoIndex, threads: options.decodeThreads)
            } catch {
                throw PlayerError("cannot decode video stream #\(videoIndex) of '\(TextSanitizer.clean(url))': \(error.message)")
            }
        }
        // Audio track and sink.
        var audioIndex: Int? = nil
        if options.audioEnabled, !info.audio.isEmpty {
            if let k = options.audioTrack, info.audio.indices.contains(k) {
                audioIndex = info.audio[k].index
            } else {
                let best = av_find_best_stream(format.pointer, AVMEDIA_TYPE_AUDIO, -1, Int32(videoIndex ?? -1), nil, 0)
                audioIndex = best >= 0 ? Int(best) : info.audio.first?.index
            }
        }
        var sink: AudioSink? = nil
        if let index = audioIndex, let stream = format.stream(index), let par = stream.pointee.codecpar {
            let wantRate = Int(par.pointee.sample_rate > 0 ? par.pointee.sample_rate : 48000)
            // Ask for stereo: we downmix ourselves (centre and surrounds kept), whatever the device.
            let wantChannels = min(2, max(1, Int(par.pointee.ch_layout.nb_channels)))
            switch options.audioOutput {
            case .null:
                sink = NullSink(format: AudioFormat(sampleRate: wantRate, channels: wantChannels))
            case .alsa(let device):
                do {
                    sink = try ALSASink(device: device, rate: wantRate, channels: wantChannels)
                } catch {
                    warnings.withLock { $0.append("audio device '\(device)' unavailable (\(error.message)); playing without sound") }
                    sink = NullSink(format: AudioFormat(sampleRate: wantRate, channels: wantChannels))
                }
            }
            if let sink {
                do {
                    audioDecoder = try AudioDecoder(stream: stream, index: index, output: sink.format)
                } catch {
                    warnings.withLock { $0.append("cannot decode audio stream #\(index) (\(error.message)); playing without sound") }
                    audioIndex = nil
                }
            }
        }
        self.sink = audioDecoder == nil ? nil : sink
        if audioDecoder == nil { audioIndex = nil }
        if videoDecoder == nil && audioDecoder == nil {
            throw PlayerError("nothing to play in '\(TextSanitizer.clean(url))': no decodable audio or video stream")
        }
        let initialSubtitle = subtitles.initialTrack(requested: options.subtitleTrack, enabled: options.subtitlesEnabled)
        for path in options.subtitleFiles { subtitles.addSidecar(path: path) }
        control.withLock { c in
            c.audioStreamIndex = audioIndex
            c.subtitleStreamIndex = initialSubtitle
            c.rate = min(4, max(0.25, options.speed))
            c.volume = min(130, max(0, options.volume))
            c.muted = options.muted
        }
        clock.setRate(min(4, max(0.25, options.speed)))
        audioDecoder?.setRate(min(4, max(0.25, options.speed)))
        decoderNames.withLock { $0 = (videoDecoder?.codec.decoderName ?? "", audioDecoder?.decoderName ?? "", false) }
        requestSeek(to: max(0, options.start), mode: .exact)
    }

    var hasAudio: Bool { control.withLock { $0.audioStreamIndex != nil } }
    var hasVideo: Bool { videoDecoder != nil }

    func start() {
        let loops: [(String, @Sendable () -> Void)] = [
            ("aether.demux", { [unowned self] in demuxLoop() }),
            ("aether.video", { [unowned self] in videoLoop() }),
            ("aether.audio", { [unowned self] in audioLoop() }),
            ("aether.present", { [unowned self] in presentLoop() }),
        ]
        for (name, body) in loops {
            threadsDone.enter()
            let t = Thread { [threadsDone] in
                body()
                threadsDone.leave()
            }
            t.name = name
            t.qualityOfService = .userInteractive
            threads.append(t)
            t.start()
        }
    }

    /// Stops every thread and waits for them (the session's C resources are freed when it is released).
    func stop() {
        control.withLock { $0.stopped = true }
        format.interrupt.cancel()
        videoQueue.close()
        audioQueue.close()
        frameQueue.close()
        threadsDone.wait()
    }

    var isStopped: Bool { control.withLock { $0.stopped } }

    func requestSeek(to target: Double, mode: SeekMode) {
        var t = max(0, target)
        if let d = info.duration { t = min(t, max(0, d - 0.05)) }
        let seekTarget = t
        control.withLock { c in
            if c.pendingSeek == nil { c.resumeAfterSeek = !c.paused }
            c.pendingSeek = (seekTarget, mode)
            c.state = .seeking
        }
        videoQueue.flush()   // unblock a demux push waiting on a full queue
        audioQueue.flush()
    }

    func warn(_ message: String) {
        warnings.withLock { $0.append(message) }
        FFmpegLog.write("player", message)
    }

    /// Marks the session ended once every active stream has finished.
    func checkEnded() {
        control.withLock { c in
            guard c.pendingSeek == nil, c.state != .seeking || c.landed != nil else { return }
            let videoDone = videoDecoder == nil || c.videoEnded
            let audioDone = c.audioStreamIndex == nil || c.audioEnded
            if videoDone && audioDone && c.state != .ended {
                c.state = .ended
                c.paused = true
                c.endedHost = MonotonicClock.seconds()
            }
        }
    }
}
