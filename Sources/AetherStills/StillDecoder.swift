import AetherMedia
import AetherStreaming
import CFFmpeg

/// One opened source for stills: its own demuxer, a cheap keyframe decoder for thumbnails and
/// (opened on the first snapshot) an exact decoder, and the conversion to a still
/// (``StillConverter``: an accurate scaler and, for PQ/HLG, a tone mapper).
/// Confined to the extractor's thread; every FFmpeg object here is owned by one of the owner
/// types (FormatContext, CodecContext, Frame, Packet, StillConverter) and freed with it.
final class StillDecoder {
    /// What a request asks for.
    enum Request {
        case thumbnail(maxWidth: Int)
        case snapshot(maxWidth: Int?, maxHeight: Int?)
    }

    let source: FormatContext
    let streamIndex: Int
    let timeBase: AVRational
    let timeline: Timeline
    /// The media's length (nil when unknown) and frame interval.
    let timing: SourceTiming
    var frameInterval: Double { timing.frameInterval }
    /// Seconds a request's reads may block (a stalled network source).
    let readTimeout: Double
    private let parameters: UnsafeMutablePointer<AVCodecParameters>
    private let threads: Int
    private let thumbnailCodec: CodecContext
    private var snapshotCodec: CodecContext?
    private let converter: StillConverter
    private let packet: Packet
    private let frame: Frame
    private let held: Frame

    /// The source's demuxer. A remote DASH manifest through our reader, as playback reads it
    /// (libavformat's dash demuxer would fetch over its own HTTP, which is on no whitelist): its
    /// highest representation, as libavformat's best stream was.
    /// Every blocking read polls `interrupt`, one after the other (the manifest's fetch, then
    /// the demuxer's reads), each under its own deadline on the token's clock.
    private static func open(url: String, options: [String: String], network: NetworkSettings?, readTimeout: Double,
                             interrupt: InterruptToken) throws -> FormatContext {
        guard let network, NetworkSettings.isNetwork(url), StreamVariants.isDASH(url) else {
            return try FormatContext(url: url, options: options, timeout: readTimeout, interrupt: interrupt, network: network)
        }
        let bytes = try SmallFetch.bytes(url, options: options, settings: network, interrupt: interrupt, timeout: readTimeout,
                                         limit: Int(NetworkSession.manifestBudget))
        let dash = try DASHSource.remote(url: url, bytes: bytes, choice: DASHSource.Choice(preference: .max, range: .auto, audioLanguages: []),
                                         openOptions: options, settings: network, timeout: readTimeout, cookies: nil, clock: interrupt.clock)
        return try FormatContext(dash: dash, options: options, timeout: readTimeout, interrupt: interrupt, network: network)
    }

    init(url: String, options: [String: String], network: NetworkSettings? = nil, threads: Int, readTimeout: Double,
         interrupt: InterruptToken) throws {
        source = try Self.open(url: url, options: options, network: network, readTimeout: readTimeout, interrupt: interrupt)
        let index = av_find_best_stream(source.pointer, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = source.stream(Int(index)), let par = stream.pointee.codecpar else {
            throw FrameExtractorError.noVideo
        }
        streamIndex = Int(index)
        parameters = par
        timeBase = stream.pointee.time_base
        timeline = source.timeline
        self.threads = max(1, min(2, threads))
        self.readTimeout = readTimeout
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        timing = SourceTiming(duration: Self.duration(source.pointer, stream: stream, timeline: source.timeline),
                              frameInterval: rate.num > 0 && rate.den > 0 ? min(1, Double(rate.den) / Double(rate.num)) : 1.0 / 25)
        // Thumbnails: one keyframe, fast. Slice threads only (frame threads would hold the first
        // picture back until more packets came), low delay (libdav1d), no loop filter.
        thumbnailCodec = try CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: max(1, min(2, threads))) { ctx in
            ctx.pointee.thread_type = FF_THREAD_SLICE
            ctx.pointee.flags |= AV_CODEC_FLAG_LOW_DELAY
            ctx.pointee.flags2 |= AV_CODEC_FLAG2_FAST
            ctx.pointee.skip_loop_filter = AVDISCARD_ALL
        }
        converter = try StillConverter(stream: stream, parameters: par)
        packet = try Packet()
        frame = try Frame()
        held = try Frame()
    }

    /// The container's duration, else the stream's, in media seconds.
    private static func duration(_ ctx: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>,
                                 timeline: Timeline) -> Double? {
        if ctx.pointee.duration > 0, ctx.pointee.duration != aether_AV_NOPTS_VALUE() {
            let containerStart = ctx.pointee.start_time == aether_AV_NOPTS_VALUE() ? 0 : Double(ctx.pointee.start_time) / Double(AV_TIME_BASE)
            // The container's duration runs from its own start, which is the timeline's origin.
            return (Double(ctx.pointee.duration) / Double(AV_TIME_BASE) + containerStart - timeline.origin).sane(in: 0...1e9)
        }
        let start = timeline.seconds(stream.pointee.start_time, stream.pointee.time_base) ?? 0
        return Timeline.sourceSeconds(stream.pointee.duration, stream.pointee.time_base).flatMap { ($0 + start).sane(in: 0...1e9) }
    }

    /// A requested position inside the media: not before 0, not after the last frame.
    func clamp(_ seconds: Double) -> Double {
        let t = seconds.isFinite ? max(0, seconds) : 0
        guard let lastPosition = timing.lastPosition else { return t }
        return min(t, lastPosition)
    }

    /// Decodes the still for `seconds` (already clamped); nil when `cancelled` turned true
    /// (checked between packets and frames).
    func extract(at seconds: Double, _ request: Request, cancelled: () -> Bool) throws -> StillImage? {
        source.interrupt.arm(seconds: readTimeout)
        defer { source.interrupt.arm(seconds: nil) }
        try source.seek(toSeconds: seconds, timeout: readTimeout)
        converter.reset()
        switch request {
        case .thumbnail(let maxWidth):
            let codec = thumbnailCodec
            codec.flush()
            // The keyframe packet alone, drained: no decoder (reordering HEVC, frame threads)
            // waits for later packets before it hands the picture out.
            if let pts = try decode(codec, firstPacketOnly: true, cancelled: cancelled, accept: { _ in true }) {
                return try still(pts: pts, maxWidth: maxWidth, maxHeight: nil)
            }
            if cancelled() { return nil }
            // That packet gave no picture (the seek landed off a keyframe in a damaged file):
            // decode on from the same place to the first picture.
            try source.seek(toSeconds: seconds, timeout: readTimeout)
            codec.flush()
            guard let pts = try decode(codec, cancelled: cancelled, accept: { _ in true }) else {
                if cancelled() { return nil }
                throw FrameExtractorError.noFrame(seconds)
            }
            return try still(pts: pts, maxWidth: maxWidth, maxHeight: nil)
        case .snapshot(let maxWidth, let maxHeight):
            let codec = try exactCodec()
            codec.flush()
            // The frame shown at `seconds`: the last one starting at or before it. Half a
            // millisecond of slack absorbs time-base rounding (1/1000 s Matroska stamps).
            let target = seconds + 0.0005
            var heldPTS: Double?
            _ = try decode(codec, cancelled: cancelled) { pts in
                if pts > target, heldPTS != nil { return true }
                held.unref()
                av_frame_ref(held.pointer, frame.pointer)
                heldPTS = pts
                return pts > target
            }
            if cancelled() { return nil }
            guard let pts = heldPTS else { throw FrameExtractorError.noFrame(seconds) }
            defer { held.unref() }
            av_frame_unref(frame.pointer)
            av_frame_move_ref(frame.pointer, held.pointer)
            return try still(pts: pts, maxWidth: maxWidth, maxHeight: maxHeight)
        }
    }

    /// The exact decoder: every filter in, as many threads as allowed.
    private func exactCodec() throws(FFmpegError) -> CodecContext {
        if let snapshotCodec { return snapshotCodec }
        let codec = try CodecContext(parameters: parameters, timeBase: timeBase, threads: threads)
        snapshotCodec = codec
        return codec
    }

    /// Reads and decodes video packets, calling `accept` with each decoded frame's media time
    /// (the frame is in `frame`) until it returns true; that frame stays in `frame` and its time
    /// is returned. At the end of the file the decoder is drained, so the last GOP still gives
    /// pictures. nil when cancelled or when the stream ends with no frame accepted.
    /// With `firstPacketOnly`, the first video packet is sent and the decoder drained at once.
    private func decode(_ codec: CodecContext, firstPacketOnly: Bool = false, cancelled: () -> Bool,
                        accept: (Double) throws -> Bool) throws -> Double? {
        var lastPTS: Double?
        func take() throws -> Double? {
            while try codec.receive(into: frame) {
                let pts = timeline.seconds(frame.pts, timeBase) ?? lastPTS.map { $0 + frameInterval } ?? 0
                lastPTS = pts
                if try accept(pts) { return pts }
                frame.unref()
                if cancelled() { return nil }
            }
            return nil
        }
        while !cancelled() {
            defer { packet.unref() }
            guard try source.read(into: packet) else {
                _ = try codec.send(nil)
                return try take()
            }
            guard packet.streamIndex == streamIndex else { continue }
            var pending = true
            while pending {
                pending = try codec.send(packet) == .full
                if let pts = try take() { return pts }
                if cancelled() { return nil }
            }
            if firstPacketOnly {
                _ = try codec.send(nil)
                return try take()
            }
        }
        return nil
    }

    /// Converts the picture in `frame` (media time `pts`) to an upright RGB24 still.
    private func still(pts: Double, maxWidth: Int?, maxHeight: Int?) throws -> StillImage {
        defer { frame.unref() }
        return try converter.still(of: frame, seconds: pts, maxWidth: maxWidth, maxHeight: maxHeight)
    }
}
