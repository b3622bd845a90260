import AetherBase
import CFFmpeg

/// Decodes a source's primary video stream from start to end through the playback decoder
/// (`VideoDecoder`: the same decoder choice, threading and deinterlacing as the video thread)
/// and converts nothing: the decode-only cost playback pays per frame. For benchmarks.
public enum DecodePass {
    public struct Result: Sendable {
        /// Frames the decoder (and deinterlacer, when one was needed) put out.
        public let frames: Int
        /// The libavcodec decoder used (`h264`, `hevc`, `libdav1d`, …).
        public let decoderName: String
        /// The first frame's pixel format (`yuv420p`, `yuv420p10le`, …).
        public let pixelFormat: String
        /// The times of the frames a host painting every `divisor`-th frame would be given.
        public let shown: [Double]
    }

    /// - Parameters:
    ///   - threads: decoder threads, as `PlayerOptions.video.decodeThreads` (0 = as many as cores).
    ///   - divisor: decode for a host that paints every `divisor`-th frame, as the video
    ///     thread does (``FrameCadence``: frames off its grid that nothing refers to are not decoded).
    public static func run(url: String, threads: Int = 0, divisor: Int = 1, clock: TimeSource) throws -> Result {
        let (format, index, decoder) = try openVideo(url: url, threads: threads, clock: clock)
        let packet = try Packet()
        var frames = 0
        var pixelFormat: String?
        var cadence = FrameCadence(interval: decoder.frameInterval)
        cadence.divisor = max(1, divisor)
        var shown: [Double] = []
        let count: (Frame, Double) throws -> Void = { frame, pts in
            frames += 1
            if pixelFormat == nil {
                pixelFormat = av_get_pix_fmt_name(AVPixelFormat(frame.pointer.pointee.format)).map { String(cString: $0) }
            }
            if cadence.admits(frameAt: pts).shown { shown.append(pts) }
        }
        while try format.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            let discard = cadence.admits(packetAt: decoder.seconds(of: packet)).discard
            try decoder.decode(packet, discardingUnreferenced: discard, emit: count)
        }
        try decoder.decode(nil, emit: count)
        return Result(frames: frames, decoderName: decoder.codec.decoderName, pixelFormat: pixelFormat ?? "?", shown: shown)
    }

    /// The source, its primary video stream and the playback decoder for it.
    private static func openVideo(url: String, threads: Int, clock: TimeSource) throws -> (FormatContext, Int, VideoDecoder) {
        let format = try FormatContext(url: url, interrupt: InterruptToken(clock: clock))
        let info = try MediaProbe.probe(format)
        guard let index = info.primaryVideo?.index, let stream = format.stream(index) else {
            throw FFmpegError(function: "av_find_best_stream", message: "no video stream")
        }
        return (format, index, try VideoDecoder(stream: stream, index: index, threads: threads, timeline: format.timeline, time: clock))
    }

    /// One decoded frame as playback would draw it, with the source for comparison.
    public struct Picture {
        public let index: Int
        public let seconds: Double
        /// RGB24 at the requested size, through playback's scaler (`VideoDecoder.render`).
        public let scaled: [UInt8]
        /// RGB24 at the frame's own size, converted by ``Scaler/reference`` (nil unless asked).
        public let source: [UInt8]?
        public let sourceWidth: Int
        public let sourceHeight: Int
        /// RGB24 at the requested size, converted by ``Scaler/reference`` (nil unless asked).
        public let referenceScaled: [UInt8]?
        /// Seconds `scaled` took (playback's conversion of this frame).
        public let scaleSeconds: Double
    }

    /// Decodes the primary video stream through the playback decoder and hands each frame at
    /// index `every`-th (from `first`) to `body`, scaled to `size` as playback scales it, plus
    /// (with `reference`) the whole frame converted as accurately as libswscale can; `body`
    /// returns false to stop. For the benchmark and the picture-quality tests.
    /// `referenceScaled` adds the accurate conversion at `size`; `eightBitStaging` replaces
    /// playback's staging of 8-bit sources (``Scaler/Staging``).
    public static func pictures(url: String, size: PixelSize, reference: Bool = false, referenceScaled: Bool = false,
                                eightBitStaging: Scaler.Staging? = nil, first: Int = 0, every: Int = 1,
                                threads: Int = 1, clock: TimeSource, body: (Picture) throws -> Bool) throws {
        let (format, index, decoder) = try openVideo(url: url, threads: threads, clock: clock)
        if let eightBitStaging { decoder.stageEightBit(eightBitStaging) }
        let packet = try Packet()
        let pixels = PixelBuffer(count: size.width * size.height * 3)
        let accurate = Scaler.reference()
        var n = 0
        var going = true
        let emit: (Frame, Double) throws -> Void = { frame, pts in
            defer { n += 1 }
            guard going, n >= first, (n - first) % max(1, every) == 0 else { return }
            let before = decoder.scaleSeconds
            try decoder.render(frame, size: size, into: pixels)
            let scaleSeconds = decoder.scaleSeconds - before
            let scaled = pixels.withUnsafeBytes { Array($0.prefix(pixels.count)) }
            func accurately(_ width: Int, _ height: Int) throws(FFmpegError) -> [UInt8] {
                var out = [UInt8](repeating: 0, count: width * height * 3 + 64)
                try out.withUnsafeMutableBufferPointer { buffer throws(FFmpegError) in
                    try accurate.scale(frame, width: width, height: height, format: AV_PIX_FMT_RGB24,
                                       into: buffer.baseAddress!, stride: width * 3)
                }
                out.removeLast(64)   // the converter's slack past the last row
                return out
            }
            let source = reference ? try accurately(frame.width, frame.height) : nil
            let atSize = referenceScaled ? try accurately(size.width, size.height) : nil
            going = try body(Picture(index: n, seconds: pts, scaled: scaled, source: source,
                                     sourceWidth: frame.width, sourceHeight: frame.height,
                                     referenceScaled: atSize, scaleSeconds: scaleSeconds))
        }
        while going, try format.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            try decoder.decode(packet, emit: emit)
        }
        if going { try decoder.decode(nil, emit: emit) }
    }
}
