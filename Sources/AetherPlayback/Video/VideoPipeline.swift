import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The video pipeline: owns the video decoder (its thread's alone once started), the size the
/// host wants pictures at, the picture memory and the decoder's status for telemetry. It
/// takes packets of the current serial off the video packet queue and puts converted frames
/// (and the end item) on the frame queue for the ``Presenter``.
///
/// Who touches what: `renderSize` and `eightBitStaging` are set by
/// ``Player/setRenderSize(_:eightBitStaging:)`` and read per frame here; `status` is written
/// here and read by telemetry; everything else is the video thread's. Seek state is read from,
/// and the first frame and landing written to, the session's ``SeekGeneration`` through
/// ``ControlBox``.
final class VideoPipeline: @unchecked Sendable {  // `renderSize`, `eightBitStaging`, `status` are guarded; the decoder is the video thread's
    let decoder: VideoDecoder
    /// The decoder's name for telemetry.
    let decoderName: String
    /// The size the host wants frames at (nil: no pixels, timing only).
    let renderSize = Guarded<PixelSize?>(nil)
    /// How the host wants resized 8-bit sources staged (``Player/setRenderSize(_:eightBitStaging:)``).
    let eightBitStaging = Guarded(Scaler.standardEightBit)
    /// Picture memory for the frames: the queue, the frame being presented, the host's mailbox
    /// and the one it is painting.
    let pixelPool: PixelBufferPool
    /// For telemetry: whether the deinterlacer engaged, the loop filter skipping in use, and
    /// the decoder's threads (0: one per core).
    let status = Guarded<(deinterlacing: Bool, loopFilterSkip: String, threads: Int)>((false, "", 0))
    private let packets: BoundedQueue<QueueItem<Packet>>
    private let frameQueue: BoundedQueue<QueueItem<VideoFrame>>
    private let context: SessionContext
    /// Every how many frames the host paints (``Player/setFrameDivisor(_:)``).
    private let frameDivisor: Guarded<Int>
    private let plan: Plan
    private let hooks: Hooks

    /// What the session tells the pipeline of its item, fixed for the session.
    struct Plan {
        /// `--vd-lavc-skiploopfilter` (nil: automatic).
        var skipLoopFilter: LoopFilterSkip?
        /// `--length`: frames from here on are not shown.
        var endTime: Double?
        var codecName: String
        /// Packets before the first keyframe after a seek are left out (a seek by the audio
        /// lands the video's playlist by time, mid-GOP: see ``OpenedSource/Adaptive/changesCodec``);
        /// and always after the decoder opened again for another stream.
        var keyframeAfterSeek = false
    }

    /// What the pipeline asks of its session.
    struct Hooks {
        /// An exact seek whose first frame overshot: ask again from further back (false: out of retries).
        let retryExactSeek: @Sendable (Int) -> Bool
        /// The stream is undecodable: the session leaves it out.
        let disable: @Sendable (Int, String) -> Void
    }

    init(decoder: VideoDecoder, packets: BoundedQueue<QueueItem<Packet>>, frames: BoundedQueue<QueueItem<VideoFrame>>,
         context: SessionContext, frameDivisor: Guarded<Int> = Guarded(1), plan: Plan, hooks: Hooks) {
        self.decoder = decoder
        decoderName = decoder.codec.decoderName
        self.packets = packets
        frameQueue = frames
        self.context = context
        self.frameDivisor = frameDivisor
        self.plan = plan
        self.hooks = hooks
        pixelPool = PixelBufferPool(limit: context.policy.frameQueueCapacity + 4)
    }

    /// The video thread: decodes packets of the current serial, skips frames before an exact
    /// seek target, drops frames already behind the clock (counted early), converts the rest to
    /// RGB at the host's size and queues them for the presenter. A packet the decoder rejects
    /// costs that frame only (counted as a decode error); a stream that never yields a frame is
    /// reported and left out. The end item is passed on once the decoder is drained.
    func run() {
        // Decoding yields the CPU to the sound, the presenter and the output: on a machine that
        // cannot do everything (4K60 HEVC in sixel on two cores), frames come late to the
        // presenter and are dropped and counted, instead of reaching the screen late. The
        // decoder's own threads are opened here, so they inherit it.
        _ = aether_nicer_this_thread(Int32(policy.decodeNiceness))
        try? decoder.reopenOnThisThread()
        var mySerial = -1
        var endedSerial = -1         // serial whose end was passed on: its leftovers are dropped
        var framesEver = 0
        var failuresInARow = 0
        var lastError = ""
        var awaitingKeyframe = false
        var cadence = FrameCadence(interval: decoder.frameInterval)   // the host's divisor
        var isBehind = false        // the last frame judged was dropped early
        while !control.read({ $0.stopped }) {
            guard let item = packets.pop(timeout: 0.25) else { continue }
            let (serial, disabled, rate, still) = control.read { ($0.serial, $0.streams.videoDisabled, $0.settings.rate, $0.paused || $0.step.requests > 0) }
            guard item.serial == serial, serial != endedSerial, !disabled else { continue }
            if case .item(let packet, _) = item { telemetry.addPlayedBytes(packet.size) }
            if serial != mySerial {
                decoder.flush()
                mySerial = serial
                awaitingKeyframe = plan.keyframeAfterSeek
                cadence.reset()
                isBehind = false
            }
            // Frames the host would leave out are not converted, and not decoded where no
            // other frame refers to them (the first of a serial, a step's and a paused one's
            // always are); nor are unreferenced frames while the video is behind the clock.
            cadence.divisor = still ? 1 : frameDivisor.withLock { $0 }
            if still { isBehind = false }
            var discard = false
            if case .item(let packet, _) = item {
                let verdict = cadence.admits(packetAt: decoder.seconds(of: packet), behind: isBehind)
                discard = verdict.discard
                if verdict.countNow { telemetry.skipped() }
            }
            var busy = 0.0
            var frames = 0
            var segmentStart = clock.host.seconds
            var reachedEnd = false
            let emit: (Frame, Double) throws -> Void = { [self] frame, pts in
                frames += 1
                guard !reachedEnd else { return }
                // (Landing is a change, which wakes every waiter: only the first frame of a
                // serial takes the lock to change anything; the rest look.)
                // A forward seek lands on its first frame not skipped: the demuxer may have
                // gone to a keyframe before the target after all.
                var c = control.read { $0 }
                guard c.serial == serial else { return }
                if let skip = c.seek.skipVideoUntil, pts + decoder.frameInterval <= skip + 0.0005 { return }
                if c.landed == nil {
                    c = control.withLock { c -> SessionControl in
                        if c.seek.land(at: pts, serial: serial) { clock.set(media: pts) }
                        return c
                    }
                    guard c.serial == serial else { return }
                }
                // An exact seek whose first frame is well after the target overshot the keyframe
                // (a forward seek's keyframe after the target is where it lands, no overshoot).
                if let skip = c.seek.skipVideoUntil, !c.seek.forward, !c.seek.firstFrameSeen,
                   pts > skip + 2 * decoder.frameInterval + 0.05, hooks.retryExactSeek(serial) {
                    reachedEnd = true  // drop the rest of this serial's frames
                    return
                }
                let first = !c.seek.firstFrameSeen && control.withLock { $0.seek.sawFirstFrame(serial: serial) }
                if first { AppLog.write("vd", "first frame of serial \(serial) decoded at \(String(cFormat: "%.3f", pts)) s") }
                if let end = plan.endTime, pts >= end { reachedEnd = true; return }
                let verdict = cadence.admits(frameAt: pts)
                if verdict.droppedBehind > 0 { telemetry.droppedEarly(verdict.droppedBehind) }
                if !verdict.shown {
                    if verdict.countNow { telemetry.skipped() }
                    return
                }
                if clock.isArmed, !c.paused, c.step.requests == 0,
                   PresentRule.dropsEarly(pts: pts, interval: decoder.frameInterval, now: clock.time, rate: c.settings.rate,
                                          inGrace: (clock.secondsSinceArmed ?? 0) < policy.startGraceSeconds, policy: policy) {
                    telemetry.droppedEarly()
                    isBehind = true
                    return
                }
                isBehind = false
                // Converted once the queue has room: a picture made first and held while the
                // queue is full is one more in memory (2.8 MB at 1280×720).
                busy += clock.host.seconds - segmentStart
                guard frameQueue.waitForRoom(interrupted: { [self] in control.read { $0.serial != serial || $0.stopped } }) else { return }
                segmentStart = clock.host.seconds
                let size = renderSize.withLock { $0 }
                decoder.chooseLoopFilter(for: size, forced: plan.skipLoopFilter)
                var pixels: PixelBuffer?
                if let size, size.width > 0, size.height > 0 {
                    let buffer = pixelPool.take(count: size.width * size.height * 3)
                    decoder.stageEightBit(eightBitStaging.withLock { $0 })
                    try decoder.render(frame, size: size, into: buffer)
                    pixels = buffer
                }
                let out = VideoFrame(pts: pts, duration: decoder.frameInterval, width: size?.width ?? frame.width,
                                     height: size?.height ?? frame.height, source: PixelSize(width: frame.width, height: frame.height),
                                     pixels: pixels, serial: serial)
                busy += clock.host.seconds - segmentStart
                frameQueue.push(.item(out, serial: serial)) { [self] in
                    control.read { $0.serial != serial || $0.stopped }
                }
                segmentStart = clock.host.seconds
            }
            do {
                switch item {
                case .item(let packet, _):
                    if let next = packet.newParameters {
                        try decoder.adopt(next, emit: emit)
                        awaitingKeyframe = true
                    }
                    if awaitingKeyframe, packet.isKeyframe { awaitingKeyframe = false }
                    if !awaitingKeyframe {
                        if decoder.threadPlan.upgradeWanted, packet.isKeyframe { try decoder.reopenWithMoreThreads(emit: emit) }
                        try decoder.decode(packet, discardingUnreferenced: discard, emit: emit)
                    }
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
                AppLog.write("vd", "decode error: \(error)")
                if case .end = item { reachedEnd = true }
            }
            framesEver += frames
            if framesEver == 0, failuresInARow >= PlaybackSession.undecodableAfterErrors {
                hooks.disable(decoder.streamIndex, "cannot decode video stream #\(decoder.streamIndex) (\(plan.codecName)): \(lastError)")
                frameQueue.push(.end(serial: serial)) { [self] in
                    control.read { $0.serial != serial || $0.stopped }
                }
                return
            }
            busy += clock.host.seconds - segmentStart
            if frames > 0 {
                telemetry.decoded(frames: frames, seconds: busy)
                decoder.observe(frames: frames, busy: busy, rate: rate, busyShare: policy.oneThreadBusyShare)
            }
            if decoder.filterSeconds > 0 { telemetry.add(.filter, seconds: decoder.filterSeconds, count: max(1, frames)) }
            if decoder.scaleSeconds > 0 { telemetry.add(.scale, seconds: decoder.scaleSeconds, count: max(1, frames)) }
            decoder.filterSeconds = 0
            decoder.scaleSeconds = 0
            let skip = decoder.loopFilterSkip == .default ? "" : decoder.loopFilterSkip.rawValue
            status.withLock { s in
                if decoder.isDeinterlacing { s.deinterlacing = true }
                s.loopFilterSkip = skip
                s.threads = decoder.threadPlan.current
            }
            if reachedEnd {
                frameQueue.push(.end(serial: serial)) { [self] in
                    control.read { $0.serial != serial || $0.stopped }
                }
                // Everything after the end (of the file or of a --length window) is irrelevant
                // until a seek starts a new serial.
                endedSerial = serial
            }
        }
    }
}

extension VideoPipeline {
    private var control: ControlBox { context.control }
    private var clock: MasterClock { context.clock }
    private var telemetry: Telemetry { context.telemetry }
    private var policy: SyncPolicy { context.policy }
}
