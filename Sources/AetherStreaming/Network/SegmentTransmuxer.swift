import AetherMedia
import CFFmpeg

/// Rewrites one fMP4 media segment (its init section in front) as MPEG-TS, in memory, for the
/// HLS demuxer that plays a translated DASH manifest (``DASHPlaylists``).
///
/// Why: libavformat's HLS demuxer reads every segment of a playlist through one mov demuxer when
/// the segments are fMP4, and after a seek it hands that demuxer the bytes of another segment
/// without resetting it: the mov demuxer reads its pending samples at offsets of the old bytes
/// (garbage: "Invalid NAL unit size"). An MPEG-TS demuxer resynchronises on any packet, and the
/// HLS demuxer resets it on a seek. As MPEG-TS, each segment also carries its parameter sets in
/// band (the muxer's automatic `h264_mp4toannexb`/`hevc_mp4toannexb`), so a segment of another
/// representation decodes after this one: bit-rate switching needs no init section.
///
/// Timestamps are kept as the segment has them (`mpegts_copyts`), so the segments of a
/// representation form one timeline; each segment is a TS of its own whose first packets are
/// marked discontinuous (`initial_discontinuity`): the demuxer accepts the continuity counters
/// starting again.
enum SegmentTransmuxer {
    /// A transmuxed segment may be at most this large (bytes out).
    static let limit = 256 << 20

    static func transmux(_ bytes: [UInt8]) throws(FFmpegError) -> [UInt8] {
        let input = try FormatContext(bytes: bytes)
        let output = try TSMuxer()
        var map: [Int32: Int32] = [:]
        for k in 0..<input.streamCount {
            guard let stream = input.stream(k), let par = stream.pointee.codecpar,
                  par.pointee.codec_type == AVMEDIA_TYPE_VIDEO || par.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            map[Int32(k)] = try output.addStream(copying: stream)
        }
        guard !map.isEmpty else { throw FFmpegError(function: "transmux", message: "no audio or video in the segment", code: aether_AVERROR(EINVAL)) }
        try output.writeHeader()
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard let index = map[packet.pointer.pointee.stream_index], let from = input.stream(Int(packet.pointer.pointee.stream_index)) else { continue }
            try output.write(packet, from: from.pointee.time_base, to: index)
            guard output.written <= limit else { throw NetworkSession.tooLarge(limit) }
        }
        return try output.finish()
    }
}

/// Owns an MPEG-TS muxer writing into a dynamic buffer (`avformat_alloc_output_context2`,
/// `avio_open_dyn_buf`); both freed exactly once.
final class TSMuxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private var buffer: UnsafeMutablePointer<AVIOContext>?
    private var headerWritten = false
    private(set) var written = 0

    init() throws(FFmpegError) {
        var made: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_alloc_output_context2(&made, nil, "mpegts", nil)
        guard result >= 0, let made else { throw FFmpegError(code: result < 0 ? result : aether_AVERROR(ENOMEM), function: "avformat_alloc_output_context2") }
        context = made
        var pb: UnsafeMutablePointer<AVIOContext>?
        let opened = avio_open_dyn_buf(&pb)
        guard opened >= 0, let pb else {
            avformat_free_context(made)
            throw FFmpegError(code: opened < 0 ? opened : aether_AVERROR(ENOMEM), function: "avio_open_dyn_buf")
        }
        buffer = pb
        made.pointee.pb = pb
    }

    deinit {
        if let buffer {
            var data: UnsafeMutablePointer<UInt8>?
            _ = avio_close_dyn_buf(buffer, &data)
            av_free(data)
        }
        context.pointee.pb = nil
        avformat_free_context(context)
    }

    /// A stream with `stream`'s parameters; returns its index.
    func addStream(copying stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) -> Int32 {
        guard let made = avformat_new_stream(context, nil) else { throw .outOfMemory("avformat_new_stream") }
        try check(avcodec_parameters_copy(made.pointee.codecpar, stream.pointee.codecpar), "avcodec_parameters_copy")
        made.pointee.codecpar.pointee.codec_tag = 0
        made.pointee.time_base = stream.pointee.time_base
        return made.pointee.index
    }

    func writeHeader() throws(FFmpegError) {
        var options: OpaquePointer?
        av_dict_set(&options, "mpegts_copyts", "1", 0)
        av_dict_set(&options, "mpegts_flags", "+initial_discontinuity", 0)
        defer { av_dict_free(&options) }
        context.pointee.avoid_negative_ts = -1  // AVFMT_AVOID_NEG_TS_DISABLED: the timeline as it is
        try check(avformat_write_header(context, &options), "avformat_write_header")
        headerWritten = true
    }

    func write(_ packet: Packet, from timeBase: AVRational, to index: Int32) throws(FFmpegError) {
        guard let stream = context.pointee.streams[Int(index)] else { return }
        packet.pointer.pointee.stream_index = index
        av_packet_rescale_ts(packet.pointer, timeBase, stream.pointee.time_base)
        packet.pointer.pointee.pos = -1
        written += Int(packet.pointer.pointee.size)
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
    }

    /// Writes the trailer and returns the bytes.
    func finish() throws(FFmpegError) -> [UInt8] {
        if headerWritten { try check(av_write_trailer(context), "av_write_trailer") }
        guard let pb = buffer else { return [] }
        buffer = nil
        context.pointee.pb = nil
        var data: UnsafeMutablePointer<UInt8>?
        let size = avio_close_dyn_buf(pb, &data)
        defer { av_free(data) }
        guard size > 0, let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(size)))
    }
}
