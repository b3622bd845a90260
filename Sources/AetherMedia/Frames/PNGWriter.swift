import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writes ``StillImage``s as PNG files with libavcodec's `png` encoder (RGB24, lossless).
public enum PNGWriter {
    /// The PNG file's bytes. The corresponding C functions are `avcodec_send_frame` and
    /// `avcodec_receive_packet` on the `png` encoder.
    public static func encode(_ image: StillImage) throws -> [UInt8] {
        guard image.width > 0, image.height > 0, image.pixels.count == image.width * image.height * 3 else {
            throw FFmpegError(function: "PNGWriter.encode",
                              message: "\(image.pixels.count) bytes for a \(image.width)x\(image.height) RGB24 picture")
        }
        let encoder = try ImageEncoder(codec: AV_CODEC_ID_PNG, width: image.width, height: image.height, format: AV_PIX_FMT_RGB24)
        return try encoder.encode(image)
    }

    /// Encodes `image` and writes it to `path` (replacing the file).
    public static func write(_ image: StillImage, to path: String) throws {
        let bytes = try encode(image)
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// Owns an `AVCodecContext` opened as a picture encoder; freed exactly once.
final class ImageEncoder {
    private let pointer: UnsafeMutablePointer<AVCodecContext>

    init(codec id: AVCodecID, width: Int, height: Int, format: AVPixelFormat) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder(id) else {
            throw FFmpegError(function: "avcodec_find_encoder", message: "no \(String(cString: avcodec_get_name(id))) encoder",
                              code: aether_AVERROR(ENOSYS))
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw .outOfMemory("avcodec_alloc_context3") }
        pointer = ctx
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pix_fmt = format
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&doomed)
    }

    /// One picture in, the encoded bytes out.
    func encode(_ image: StillImage) throws(FFmpegError) -> [UInt8] {
        let frame = try image.rgbFrame()
        try check(avcodec_send_frame(pointer, frame.pointer), "avcodec_send_frame")
        try check(avcodec_send_frame(pointer, nil), "avcodec_send_frame")
        let packet = try Packet()
        var bytes: [UInt8] = []
        while true {
            let r = avcodec_receive_packet(pointer, packet.pointer)
            if r == aether_AVERROR_EOF() || r == aether_AVERROR_EAGAIN() { break }
            try check(r, "avcodec_receive_packet")
            if let p = packet.pointer.pointee.data { bytes += UnsafeBufferPointer(start: p, count: packet.size) }
            packet.unref()
        }
        guard !bytes.isEmpty else { throw FFmpegError(function: "avcodec_receive_packet", message: "the encoder produced nothing") }
        return bytes
    }
}
