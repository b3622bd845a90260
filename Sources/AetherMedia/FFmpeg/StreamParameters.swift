import CFFmpeg

/// Owns a copy of a stream's codec parameters (`avcodec_parameters_alloc`,
/// freed exactly once): what a decoder is opened again with when the stream its packets come
/// from changes (a DASH period of another codec), handed from the demux thread to a decoder's
/// thread with the first packet of the new stream.
package final class StreamParameters: @unchecked Sendable {  // immutable after init; one owner at a time
    package let pointer: UnsafeMutablePointer<AVCodecParameters>
    /// The stream the parameters were copied from (its index in the format context).
    package let sourceIndex: Int

    package init(copying stream: UnsafeMutablePointer<AVStream>, index: Int) throws(FFmpegError) {
        guard let made = avcodec_parameters_alloc() else { throw .outOfMemory("avcodec_parameters_alloc") }
        pointer = made
        sourceIndex = index
        if let par = stream.pointee.codecpar {
            let result = avcodec_parameters_copy(made, par)
            if result < 0 {
                var doomed: UnsafeMutablePointer<AVCodecParameters>? = made
                avcodec_parameters_free(&doomed)
                throw FFmpegError(code: result, function: "avcodec_parameters_copy")
            }
        }
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&doomed)
    }
}
