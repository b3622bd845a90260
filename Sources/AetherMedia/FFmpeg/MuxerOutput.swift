import AetherBase
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A file being written by a libavformat muxer: a download's remux, a `--stream-record`.
/// Owns the muxer's format context and its `AVIOContext` (opened with the `file` protocol
/// only); writes the trailer at most once, closes the file and frees the context once.
package final class MuxerOutput {
    package let format: UnsafeMutablePointer<AVFormatContext>
    private var headerWritten = false
    private var finished = false

    /// Why the output could not be made or written (one line).
    package struct Failure: Error, Sendable {
        package let message: String
        package init(message: String) { self.message = message }
    }

    /// `container`: a muxer by name; nil: the one the path's extension names (`.mkv`,
    /// `.mp3`, `.ogg`, …). `bitExact`: no random UIDs, dates or encoder string (the same input
    /// gives the same bytes).
    package init(path: String, container: String?, bitExact: Bool = false) throws(Failure) {
        var made: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_alloc_output_context2(&made, nil, container, path)
        guard result >= 0, let made else {
            let what = container.map { "a \($0) muxer" } ?? "a muxer for '\(TextSanitizer.clean(Paths.lastComponent(path)))' (its extension names none)"
            throw Failure(message: "cannot make \(what): \(FFmpegError(code: result < 0 ? result : aether_AVERROR(EINVAL), function: "avformat_alloc_output_context2").message)")
        }
        if bitExact { made.pointee.flags |= AVFMT_FLAG_BITEXACT }
        var dict: OpaquePointer?
        av_dict_set(&dict, "protocol_whitelist", "file", 0)
        defer { av_dict_free(&dict) }
        let opened = avio_open2(&made.pointee.pb, path, AVIO_FLAG_WRITE, nil, &dict)
        guard opened >= 0 else {
            // Freed here: the instance (and its deinit) never owned it.
            avformat_free_context(made)
            throw Failure(message: "cannot write '\(TextSanitizer.clean(path))': \(FFmpegError(code: opened, function: "avio_open2").message)")
        }
        format = made
    }

    deinit {
        avio_closep(&format.pointee.pb)
        avformat_free_context(format)
    }

    /// A new stream of this output carrying `source`'s packets as they are: its codec parameters
    /// (the tag cleared: the muxer picks its own) and time base.
    package func addStream(copying source: UnsafeMutablePointer<AVStream>) throws(Failure) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(format, nil) else { throw Failure(message: "out of memory (avformat_new_stream)") }
        guard avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar) >= 0 else {
            throw Failure(message: "out of memory (avcodec_parameters_copy)")
        }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        // The frame rates, as `ffmpeg -c copy` carries them: Matroska writes DefaultDuration from
        // the average (without it a reader estimates one from millisecond timestamps: 293/12
        // for a 24 fps HLS download).
        stream.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = source.pointee.r_frame_rate
        return stream
    }

    /// The muxer's name (`matroska`, `mp3`).
    package var muxerName: String { format.pointee.oformat.map { String(cString: $0.pointee.name) } ?? "" }

    package func writeHeader() throws(Failure) {
        let result = avformat_write_header(format, nil)
        guard result >= 0 else { throw Failure(message: "cannot write the output: \(FFmpegError(code: result, function: "avformat_write_header").message)") }
        headerWritten = true
    }

    /// Writes the trailer (once; nothing when the header never was).
    package func finish() throws(Failure) {
        guard headerWritten, !finished else { return }
        finished = true
        let result = av_write_trailer(format)
        guard result >= 0 else { throw Failure(message: "cannot finish the output: \(FFmpegError(code: result, function: "av_write_trailer").message)") }
    }
}
