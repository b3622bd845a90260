import CFFmpeg

/// Owns an `AVBSFContext` (`av_bsf_alloc`, freed exactly once): a bitstream filter that gives
/// one packet for each it is sent, such as `h264_mp4toannexb` (a download writing parameter
/// sets into the stream, before each keyframe, where its parts' differ).
package final class BitstreamFilter {
    private let context: UnsafeMutablePointer<AVBSFContext>

    /// The filter `name` for a stream of `parameters` in `timeBase`; nil when FFmpeg has no
    /// such filter.
    package init?(name: String, parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws(FFmpegError) {
        guard let filter = av_bsf_get_by_name(name) else { return nil }
        var made: UnsafeMutablePointer<AVBSFContext>?
        try check(av_bsf_alloc(filter, &made), "av_bsf_alloc")
        guard let made else { throw .outOfMemory("av_bsf_alloc") }
        context = made
        try check(avcodec_parameters_copy(made.pointee.par_in, parameters), "avcodec_parameters_copy")
        made.pointee.time_base_in = timeBase
        try check(av_bsf_init(made), "av_bsf_init")
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVBSFContext>? = context
        av_bsf_free(&doomed)
    }

    /// The parameters of what comes out (for `*_mp4toannexb`: the parameter sets as start-code
    /// NAL units).
    package var output: UnsafePointer<AVCodecParameters> { UnsafePointer(context.pointee.par_out) }

    /// Filters `packet` in place: its payload goes in and what comes out replaces it. False
    /// when nothing came out (the packet is then empty).
    package func apply(_ packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Bool {
        try check(av_bsf_send_packet(context, packet), "av_bsf_send_packet")
        let received = av_bsf_receive_packet(context, packet)
        if received == aether_AVERROR_EAGAIN() || received == aether_AVERROR_EOF() { return false }
        try check(received, "av_bsf_receive_packet")
        return true
    }
}
