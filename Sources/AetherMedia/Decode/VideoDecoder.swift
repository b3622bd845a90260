import AetherBase
import CFFmpeg

/// A decoded picture, converted to packed RGB24 at the size the host asked for.
public struct VideoFrame: Sendable {
    /// Presentation time in media seconds.
    public let pts: Double
    /// Nominal display duration (one frame interval).
    public let duration: Double
    public let width: Int
    public let height: Int
    /// The decoded picture's own size before scaling (the stream's storage size, which libass
    /// lays out against): travels with the frame, so a host never reads it from the engine.
    public let source: PixelSize
    /// RGB24, `width * 3` bytes per row, from the session's pool; nil when the host asked for no
    /// pixels (`--vo=null`).
    public let pixels: PixelBuffer?
    /// Seek generation this frame belongs to.
    package let serial: Int
    /// Handed over by clock pacing (not the first frame after a seek, nor a step): its A/V gap
    /// counts. Set by the presenter.
    public package(set) var paced = false
    public var hasPixels: Bool { pixels != nil }

    package init(pts: Double, duration: Double, width: Int, height: Int, source: PixelSize? = nil, pixels: PixelBuffer?,
                 serial: Int, paced: Bool = false) {
        self.pts = pts
        self.source = source ?? PixelSize(width: width, height: height)
        self.duration = duration
        self.width = width
        self.height = height
        self.pixels = pixels
        self.serial = serial
        self.paced = paced
    }
}

/// Decodes one video stream and converts frames for the host: deinterlaces from the first
/// interlaced frame (``Deinterlacer``: bwdif, yadif fallback), converts to RGB24 at the host's size
/// (``FrameRenderer``: PQ/HLG tone-mapped to SDR BT.709, libswscale, turned upright). It owns the
/// libavcodec decoder and how it runs: its threads (``DecoderThreads``, reopened with more) and
/// the loop filter level (``LoopFilterSkip``). Used by the video thread only.
package final class VideoDecoder {
    package private(set) var codec: CodecContext
    /// The stream's parameters (owned by the format context, which outlives the decoder) and
    /// time base, for reopening the decoder with more threads.
    private var parameters: UnsafeMutablePointer<AVCodecParameters>
    /// The parameters of a stream taken over mid-stream (``adopt(_:emit:)``), kept alive here.
    private var adopted: StreamParameters?
    /// The decoder's threads: as opened, and whether they may still rise.
    package private(set) var threadPlan: DecoderThreads
    package let streamIndex: Int
    let timeBase: AVRational
    let timeline: Timeline
    package let frameInterval: Double
    private let frame: Frame
    /// The last frame's time: a frame without any timestamp follows it by a frame interval.
    private var lastPTS: Double?
    private let deinterlacer: Deinterlacer
    private let renderer: FrameRenderer

    /// The loop filter level in use (H.264 and HEVC only; others decode in full).
    package private(set) var loopFilterSkip = LoopFilterSkip.default
    private var loopFilterSize: PixelSize?

    /// A deinterlacer was built for this stream.
    public var isDeinterlacing: Bool { deinterlacer.isDeinterlacing }

    /// Seconds spent in filter graphs since the caller last took them (measured on the `time`
    /// the decoder was made with, as ``scaleSeconds`` and the thread plan's busy time are).
    package var filterSeconds: Double {
        get { deinterlacer.seconds }
        set { deinterlacer.seconds = newValue }
    }

    /// Seconds spent in ``render(_:size:into:)`` (tone mapping, libswscale, turning) since the
    /// caller last took them.
    package var scaleSeconds: Double {
        get { renderer.seconds }
        set { renderer.seconds = newValue }
    }

    /// Lets the decoder skip the loop filter where it cannot show: `forced` if given, else the
    /// automatic choice for pictures shown at `size`. libavcodec reads the level per frame
    /// (frame threads take it from the user context with each packet), so it can change at
    /// any time.
    package func chooseLoopFilter(for size: PixelSize?, forced: LoopFilterSkip?) {
        let id = codec.pointer.pointee.codec_id
        guard id == AV_CODEC_ID_H264 || id == AV_CODEC_ID_HEVC, size != loopFilterSize || loopFilterSize == nil else { return }
        loopFilterSize = size
        let source = PixelSize(width: Int(codec.pointer.pointee.width), height: Int(codec.pointer.pointee.height))
        let level = forced ?? size.map { LoopFilterSkip.automatic(source: source, picture: $0) } ?? .default
        guard level != loopFilterSkip else { return }
        loopFilterSkip = level
        codec.pointer.pointee.skip_loop_filter = level.discard
        AppLog.write("vd", "loop filter: skip \(level.rawValue) (source \(source), picture \(size?.description ?? "none"))")
    }

    /// - Parameters:
    ///   - threads: decoder threads (0: one per core).
    ///   - automaticThreads: with `threads` 0, choose as ``DecoderThreads`` does (playback)
    ///     instead of leaving it to libavcodec (throughput measurements).
    ///   - time: what ``filterSeconds``, ``scaleSeconds`` and the thread plan's busy time are
    ///     measured on.
    package init(stream: UnsafeMutablePointer<AVStream>, index: Int, threads: Int, timeline: Timeline,
         automaticThreads: Bool = false, time: TimeSource) throws(FFmpegError) {
        guard let par = stream.pointee.codecpar else {
            throw FFmpegError(function: "avcodec_parameters", message: "stream \(index) has no parameters")
        }
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        let interval = rate.num > 0 && rate.den > 0 ? min(1, Double(rate.den) / Double(rate.num)) : 1.0 / 25
        threadPlan = automaticThreads && threads == 0
            ? DecoderThreads(asked: 0, width: Int(par.pointee.width), height: Int(par.pointee.height), frameInterval: interval)
            : .fixed(threads)
        codec = try CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: threadPlan.current)
        parameters = par
        streamIndex = index
        timeBase = stream.pointee.time_base
        self.timeline = timeline
        frameInterval = interval
        frame = try Frame()
        deinterlacer = try Deinterlacer(timeBase: stream.pointee.time_base, timeline: timeline, time: time)
        renderer = try FrameRenderer(stream: stream, parameters: par, time: time)
    }

    /// Hands the frames the decoder still holds to `emit` (through the deinterlacer, which
    /// keeps its state) and opens a new decoder with one thread per core. Called before a
    /// keyframe, so the new decoder needs nothing the old one had.
    package func reopenWithMoreThreads(emit: (Frame, Double) throws -> Void) throws {
        try drain(emit: emit)
        try openAgain(threads: 0)
        threadPlan.upgraded()
        AppLog.write("vd", "one decoder thread could not keep up: reopened with one thread per core")
    }

    /// Opens the decoder again, as it is, from the calling thread, before anything was decoded:
    /// libavcodec's worker threads start from the thread that opens it and take its scheduling
    /// priority, so the video thread opens its own (see ``DecoderThreads``). Nothing to do for
    /// a one-thread decoder, which decodes on the caller.
    package func reopenOnThisThread() throws(FFmpegError) {
        guard threadPlan.current != 1 else { return }
        try openAgain(threads: threadPlan.current)
    }

    /// Replaces the decoder with a new one for the same stream, keeping the loop filter skipped.
    private func openAgain(threads: Int) throws(FFmpegError) {
        let fresh = try CodecContext(parameters: parameters, timeBase: timeBase, threads: threads)
        fresh.pointer.pointee.skip_loop_filter = loopFilterSkip.discard
        codec = fresh
    }

    /// Hands the frames the decoder still holds to `emit` and opens a decoder for `next`: the
    /// packets now come from another stream (a DASH period of another codec). The frames keep
    /// the timeline (the packets are stamped in the first stream's time base).
    package func adopt(_ next: StreamParameters, emit: (Frame, Double) throws -> Void) throws {
        try drain(emit: emit)
        let fresh = try CodecContext(parameters: next.pointer, timeBase: timeBase, threads: threadPlan.current)
        codec = fresh
        parameters = next.pointer
        adopted = next
        loopFilterSize = nil
        loopFilterSkip = .default
        deinterlacer.dropGraph()
        lastPTS = nil
        AppLog.write("vd", "the video goes on in another stream: \(fresh.decoderName) from stream #\(next.sourceIndex)")
    }

    /// Hands the frames the decoder still holds to `emit` (before it is replaced).
    private func drain(emit: (Frame, Double) throws -> Void) throws {
        _ = try? codec.send(nil)
        while (try? codec.receive(into: frame)) == true {
            defer { frame.unref() }
            try deliver(frame, emit: emit)
        }
    }

    /// The video thread's work on the frames of one packet, for ``DecoderThreads``.
    package func observe(frames: Int, busy: Double, rate: Double, busyShare: Double) {
        threadPlan.observe(frames: frames, busy: busy, frameInterval: frameInterval, rate: rate, busyShare: busyShare)
    }

    /// Drops decoder and filter state (after a seek).
    package func flush() {
        codec.flush()
        deinterlacer.reset()  // rebuilt on the next interlaced frame
        renderer.reset()
        lastPTS = nil
    }

    /// Sends `packet` (nil = drain) and calls `emit` with each finished frame and its pts in seconds.
    /// With `discardingUnreferenced` the decoder leaves the packet's frame out if no other frame
    /// refers to it (``FrameCadence``; libavcodec's frame threads take `skip_frame` from the
    /// user context with each packet). A deinterlacer needs every frame: it decodes them all.
    package func decode(_ packet: Packet?, discardingUnreferenced: Bool = false, emit: (Frame, Double) throws -> Void) throws {
        codec.pointer.pointee.skip_frame = discardingUnreferenced && !deinterlacer.isRunning ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        var pending = true
        while pending {
            pending = try codec.send(packet) == .full
            while try codec.receive(into: frame) {
                defer { frame.unref() }
                try deliver(frame, emit: emit)
            }
        }
        if packet == nil { try deinterlacer.drain(emit: emit) }
    }

    /// A decoded frame through the deinterlacer when one runs, else to `emit` as it is.
    private func deliver(_ decoded: Frame, emit: (Frame, Double) throws -> Void) throws {
        guard try !deinterlacer.deliver(decoded, emit: emit) else { return }
        // A frame without any timestamp follows the previous one by a frame interval.
        if let pts = timeline.seconds(decoded.pts, timeBase) ?? lastPTS.map({ $0 + frameInterval }) {
            lastPTS = pts
            try emit(decoded, pts)
        }
    }

    /// Converts `decoded` to RGB24 at `size` into `pixels` (`size.width * size.height * 3`
    /// bytes), tone-mapping HDR sources first (``FrameRenderer``).
    package func render(_ decoded: Frame, size: PixelSize, into pixels: PixelBuffer) throws(FFmpegError) {
        try renderer.render(decoded, size: size, into: pixels)
    }

    /// Stages resized 8-bit sources as `staging` says from now on (a new scaler when it changes).
    package func stageEightBit(_ staging: Scaler.Staging) { renderer.stageEightBit(staging) }

    /// A packet's presentation time in seconds, on the frames' timeline (nil: it has none).
    package func seconds(of packet: Packet) -> Double? { timeline.seconds(packet.pts, timeBase) }
}
