import AetherMedia
import CFFmpeg

/// WebVTT cues to MP4's text subtitles (`mov_text`, tx3g): MP4 cannot carry WebVTT, so for an
/// `.mp4` output each cue is decoded by libavcodec's WebVTT decoder and encoded by its mov_text
/// encoder (text only: nothing of the picture or sound is re-encoded). Owns both codec contexts
/// and frees each once.
final class SubtitleConverter {
    private let decoder: UnsafeMutablePointer<AVCodecContext>
    private let encoder: UnsafeMutablePointer<AVCodecContext>
    /// The encoder's time base (milliseconds), which the output stream takes.
    let timeBase = AVRational(num: 1, den: 1000)

    init(source: UnsafeMutablePointer<AVStream>) throws(DownloadError) {
        guard let decoding = avcodec_find_decoder(source.pointee.codecpar.pointee.codec_id),
              let encoding = avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT) else {
            throw DownloadError("no WebVTT decoder or mov_text encoder in this FFmpeg")
        }
        guard let d = avcodec_alloc_context3(decoding) else { throw DownloadError("out of memory (avcodec_alloc_context3)") }
        guard let e = avcodec_alloc_context3(encoding) else {
            var doomed: UnsafeMutablePointer<AVCodecContext>? = d
            avcodec_free_context(&doomed)
            throw DownloadError("out of memory (avcodec_alloc_context3)")
        }
        decoder = d
        encoder = e
        avcodec_parameters_to_context(decoder, source.pointee.codecpar)
        decoder.pointee.pkt_timebase = source.pointee.time_base
        guard avcodec_open2(decoder, decoding, nil) >= 0 else { throw DownloadError("cannot open the WebVTT decoder") }
        encoder.pointee.time_base = timeBase
        // mov_text takes its styles from the ASS header the decoder made.
        if let header = decoder.pointee.subtitle_header, decoder.pointee.subtitle_header_size > 0 {
            let size = Int(decoder.pointee.subtitle_header_size)
            guard let copy = av_mallocz(size + 1) else { throw DownloadError("out of memory (av_mallocz)") }
            copy.copyMemory(from: header, byteCount: size)
            encoder.pointee.subtitle_header = copy.assumingMemoryBound(to: UInt8.self)
            encoder.pointee.subtitle_header_size = Int32(size)
        }
        let opened = avcodec_open2(encoder, encoding, nil)
        guard opened >= 0 else { throw DownloadError("cannot open the mov_text encoder: \(FFmpegError(code: opened, function: "avcodec_open2").message)") }
    }

    deinit {
        var d: UnsafeMutablePointer<AVCodecContext>? = decoder
        avcodec_free_context(&d)
        var e: UnsafeMutablePointer<AVCodecContext>? = encoder
        avcodec_free_context(&e)
    }

    /// Copies the encoder's parameters to the output stream.
    func configure(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        stream.pointee.time_base = timeBase
        return avcodec_parameters_from_context(stream.pointee.codecpar, encoder) >= 0
    }

    /// Converts one WebVTT packet (timestamps in `source` units) into `out` (in milliseconds);
    /// false when it holds no cue.
    func convert(_ packet: UnsafeMutablePointer<AVPacket>, source: AVRational, into out: Packet) throws(DownloadError) -> Bool {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        guard avcodec_decode_subtitle2(decoder, &subtitle, &got, packet) >= 0, got != 0 else { return false }
        defer { avsubtitle_free(&subtitle) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let size = avcodec_encode_subtitle(encoder, &buffer, Int32(buffer.count), &subtitle)
        guard size > 0 else { return false }
        av_packet_unref(out.pointer)
        guard av_new_packet(out.pointer, size) >= 0 else { throw DownloadError("out of memory (av_new_packet)") }
        out.pointer.pointee.data.update(from: buffer, count: Int(size))
        let ms = AVRational(num: 1, den: 1000)
        let pts = packet.pointee.pts != aether_AV_NOPTS_VALUE() ? packet.pointee.pts : packet.pointee.dts
        out.pointer.pointee.pts = av_rescale_q(pts, source, ms)
        out.pointer.pointee.dts = out.pointer.pointee.pts
        out.pointer.pointee.duration = packet.pointee.duration > 0 ? av_rescale_q(packet.pointee.duration, source, ms)
            : Int64(subtitle.end_display_time) - Int64(subtitle.start_display_time)
        return true
    }
}
