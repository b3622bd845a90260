import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tracks that go on in the stream of the one before (``DownloadTrack/continues``: a later DASH
/// period with an init section of its own) and how their streams join it.
extension Remuxer {
    /// How a later part's stream can go on in the output stream its first part made.
    enum Continuation: Equatable {
        /// As it is: the same codec and configuration.
        case same
        /// H.264 or H.265 whose parameter sets differ: every part's go into the stream, before
        /// each keyframe (`*_mp4toannexb`), so that a player seeking into any part decodes it.
        case parameterSets
        /// Not at all, and why (the part is left out, a note).
        case refused(String)
    }

    /// Whether a stream of `part` can go on in the output stream made from `head`.
    static func continuation(of head: UnsafePointer<AVCodecParameters>, by part: UnsafePointer<AVCodecParameters>) -> Continuation {
        let a = head.pointee, b = part.pointee
        func name(_ id: AVCodecID) -> String { String(cString: avcodec_get_name(id)) }
        guard a.codec_type == b.codec_type, a.codec_id == b.codec_id else {
            return .refused("its codec (\(name(b.codec_id))) cannot go on in the \(name(a.codec_id)) stream before it")
        }
        if a.codec_type == AVMEDIA_TYPE_AUDIO, a.sample_rate != b.sample_rate || a.ch_layout.nb_channels != b.ch_layout.nb_channels {
            return .refused("its sound (\(b.sample_rate) Hz, \(b.ch_layout.nb_channels) channels) cannot go on in the stream before it "
                            + "(\(a.sample_rate) Hz, \(a.ch_layout.nb_channels) channels)")
        }
        let same = a.extradata_size == b.extradata_size
            && (a.extradata_size <= 0 || memcmp(a.extradata, b.extradata, Int(a.extradata_size)) == 0)
        if same { return .same }
        if a.codec_id == AV_CODEC_ID_H264 || a.codec_id == AV_CODEC_ID_HEVC { return .parameterSets }
        return .refused("its \(name(b.codec_id)) configuration is not the stream's before it")
    }

    /// The bitstream filter that writes a stream's parameter sets before its keyframes.
    static func parameterSetFilter(_ stream: UnsafeMutablePointer<AVStream>) throws(DownloadError) -> BitstreamFilter {
        let par = UnsafePointer(stream.pointee.codecpar!)
        let name = par.pointee.codec_id == AV_CODEC_ID_HEVC ? "hevc_mp4toannexb" : "h264_mp4toannexb"
        let made: BitstreamFilter?
        do { made = try BitstreamFilter(name: name, parameters: par, timeBase: stream.pointee.time_base) } catch {
            throw DownloadError("cannot set up \(name): \(error.message)")
        }
        guard let made else { throw DownloadError("FFmpeg has no \(name) filter") }
        return made
    }

    /// Joins each continuing input's streams to the output streams of the first part of its
    /// chain (`map` gains them), and sets up the parameter-set filters where parts differ.
    /// Returns a note for each part left out (marked in `leftOut`).
    static func joinContinuations(_ inputs: [RemuxInput], output: UnsafeMutablePointer<AVFormatContext>, map: inout [[Int: Int]],
                                  filters: inout [[Int: BitstreamFilter]], leftOut: inout [Bool]) throws(DownloadError) -> [String] {
        var notes: [String] = []
        var head = Array(inputs.indices)
        // Where each part starts in its chain (seconds of the parts before it), for the notes.
        var from = Array(repeating: 0.0, count: inputs.count)
        var filtered = Set<Int>()  // output streams whose parts all go through a filter
        for n in inputs.indices where n > 0 && inputs[n].track.continues && inputs[n - 1].track.kind == inputs[n].track.kind {
            head[n] = head[n - 1]
            from[n] = from[n - 1] + inputs[n - 1].track.duration
            let h = head[n]
            let mine = inputs[n].wanted, theirs = inputs[h].wanted
            var joins: [(Int, Int, Continuation)] = []
            for (k, index) in mine.enumerated() where k < theirs.count {
                let a = inputs[h].format.pointee.streams[theirs[k]]!.pointee.codecpar!
                let b = inputs[n].format.pointee.streams[index]!.pointee.codecpar!
                joins.append((index, theirs[k], continuation(of: a, by: b)))
            }
            // A stream that cannot go on is left out of the part (a note), not the part: an
            // inserted ad's mono sound after stereo, its picture kept.
            let at = "from \((from[n] * 1000).rounded() / 1000) s"
            if mine.count > theirs.count {
                notes.append("\(inputs[n].track.kind.rawValue) \(at): \(mine.count - theirs.count) stream(s) more than the part before left out")
            }
            for (index, headIndex, how) in joins {
                if case .refused(let why) = how {
                    let type = inputs[n].format.pointee.streams[index]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? "audio" : "video"
                    notes.append("\(type == inputs[n].track.kind.rawValue ? type : "\(inputs[n].track.kind.rawValue)'s \(type)") \(at) left out: \(why)")
                    continue
                }
                guard let out = map[h][headIndex] else { continue }
                map[n][index] = out
                if how == .parameterSets { filtered.insert(out) }
            }
            if map[n].isEmpty { leftOut[n] = true }
        }
        // Every part of a filtered stream through a filter of its own; the output stream takes the
        // first part's parameters as they come out of it.
        for n in inputs.indices where !leftOut[n] {
            for (index, out) in map[n] where filtered.contains(out) {
                let filter = try parameterSetFilter(inputs[n].format.pointee.streams[index]!)
                if head[n] == n {
                    let target = output.pointee.streams[out]!
                    guard avcodec_parameters_copy(target.pointee.codecpar, filter.output) >= 0 else {
                        throw DownloadError("out of memory (avcodec_parameters_copy)")
                    }
                    target.pointee.codecpar.pointee.codec_tag = 0
                }
                filters[n][index] = filter
            }
        }
        return notes
    }
}
