import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Owns an `AVCodecContext` opened as a decoder for one stream; freed exactly once.
public final class CodecContext {
    package let pointer: UnsafeMutablePointer<AVCodecContext>
    /// The decoder's name (`libdav1d`, `h264`, …).
    public let decoderName: String

    /// Each frame knows its packet's position and size (`aether_frame_packet_origin`): the inspector's.
    private let keepsPacketOrigin: Bool

    /// Opens a decoder for the stream's parameters. For AV1 the `libdav1d` decoder is preferred by name.
    /// `keepPacketOrigin`: each frame carries its packet's position and size (a small allocation
    /// a packet on FFmpeg 6 and later; the inspector's, not playback's).
    /// The corresponding C functions are `avcodec_parameters_to_context` and `avcodec_open2`.
    public init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational,
                threads: Int = 0, preferredDecoder: String? = nil, keepPacketOrigin: Bool = false,
                configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }) throws(FFmpegError) {
        keepsPacketOrigin = keepPacketOrigin
        var codec: UnsafePointer<AVCodec>? = nil
        if let preferredDecoder { codec = avcodec_find_decoder_by_name(preferredDecoder) }
        if codec == nil, parameters.pointee.codec_id == AV_CODEC_ID_AV1 {
            codec = avcodec_find_decoder_by_name("libdav1d")
        }
        if codec == nil { codec = avcodec_find_decoder(parameters.pointee.codec_id) }
        guard let codec else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw FFmpegError(function: "avcodec_find_decoder", message: "no decoder for \(name)",
                              code: aether_AVERROR(ENOSYS))
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw .outOfMemory("avcodec_alloc_context3") }
        pointer = ctx
        decoderName = String(cString: codec.pointee.name)
        // From here on deinit frees the context, whatever happens.
        try check(avcodec_parameters_to_context(ctx, parameters), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = timeBase
        ctx.pointee.thread_count = Int32(threads > 0 ? threads : Self.automaticThreads)
        ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        if keepPacketOrigin { aether_codec_keep_packet_origin(ctx) }
        configure(ctx)
        try check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    /// Threads for `threads: 0`: one per online core (at most 16). libavcodec's own choice is
    /// one more than the cores, and each frame thread holds a picture in flight: 25 MB more at
    /// 4K 10-bit for no frame gained (aether-bench, 4K60 HEVC Main10 on two cores: 339 MB
    /// peak with three threads, 300 MB with two, neither dropping a frame).
    static let automaticThreads: Int = {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return min(16, max(1, cores))
    }()

    /// What the subtitle layer parsed from this decoder's `subtitle_header`, made on first use
    /// and kept for the decoder's life (AetherSubtitles' `assScript` and `assHeader`).
    package var parsedSubtitleHeader: AnyObject?

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&doomed)
    }

    public enum SendResult { case accepted, full }

    /// Feeds a packet (nil = drain). `.full` means receive frames first and send again.
    /// The corresponding C function is `avcodec_send_packet`.
    public func send(_ packet: Packet?) throws(FFmpegError) -> SendResult {
        if keepsPacketOrigin, let packet { try check(aether_packet_keep_origin(packet.pointer), "av_buffer_allocz") }
        let result = avcodec_send_packet(pointer, packet?.pointer)
        if result == aether_AVERROR_EAGAIN() { return .full }
        if result == aether_AVERROR_EOF() { return .accepted }  // already draining
        try check(result, "avcodec_send_packet")
        return .accepted
    }

    /// Receives the next decoded frame into `frame`; false when the decoder needs input (or is drained).
    /// The corresponding C function is `avcodec_receive_frame`.
    public func receive(into frame: Frame) throws(FFmpegError) -> Bool {
        let result = avcodec_receive_frame(pointer, frame.pointer)
        if result == aether_AVERROR_EAGAIN() || result == aether_AVERROR_EOF() { return false }
        try check(result, "avcodec_receive_frame")
        return true
    }

    /// Drops buffered frames (after a seek). The corresponding C function is `avcodec_flush_buffers`.
    public func flush() { avcodec_flush_buffers(pointer) }
}
