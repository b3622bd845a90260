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
    }

    /// - Parameter threads: decoder threads, as `PlayerOptions.decodeThreads` (0 = as many as cores).
    public static func run(url: String, threads: Int = 0) throws -> Result {
        let format = try FormatContext(url: url)
        let info = try MediaProbe.probe(format)
        guard let index = info.primaryVideo?.index, let stream = format.stream(index) else {
            throw FFmpegError(function: "av_find_best_stream", message: "no video stream")
        }
        let decoder = try VideoDecoder(stream: stream, index: index, threads: threads, timeline: format.timeline)
        let packet = try Packet()
        var frames = 0
        var pixelFormat: String?
        let count: (Frame, Double) throws -> Void = { frame, _ in
            frames += 1
            if pixelFormat == nil {
                pixelFormat = av_get_pix_fmt_name(AVPixelFormat(frame.pointer.pointee.format)).map { String(cString: $0) }
            }
        }
        while try format.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            try decoder.decode(packet, emit: count)
        }
        try decoder.decode(nil, emit: count)
        return Result(frames: frames, decoderName: decoder.codec.decoderName, pixelFormat: pixelFormat ?? "?")
    }
}
