import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `--stream-record` (mpv's): the packets the demuxer reads of the streams playing, as
/// received (not decoded, not encoded again), remuxed into a file whose extension names the
/// muxer (`.mkv`, `.mka`, `.mp3`, `.ogg`, `.ts`, …): from the first video keyframe (or the first
/// packet of sound alone), its timestamps starting at 0. A radio station's songs are chapters
/// where the muxer keeps chapters added while it writes (Matroska); elsewhere they are left out
/// (one log line). The file is overwritten.
///
/// Written from the demux thread; the session holds it behind a lock, started and finished
/// from the host's thread. A write that fails ends the recording (one log line) and playback
/// goes on.
final class StreamRecorder {
    let path: String
    private let output: MuxerOutput
    /// Input stream → output stream, and the input's time base.
    private let map: [Int: (index: Int32, timeBase: AVRational)]
    /// The video stream a recording waits for a keyframe of (nil: sound alone).
    private let video: Int?
    /// Seconds of the first packet written (the output's 0).
    private var origin: Double?
    /// The muxer keeps chapters added while it writes: the station's titles are asked for.
    let keepsChapters: Bool
    private var title: String?
    private var chapters = 0
    /// The latest end written, in seconds from the origin (chapters end there).
    private var end = 0.0
    private(set) var packets = 0
    private(set) var failure: String?

    /// Chapters are kept in these muxers (they write chapters added after the header).
    static let chapterMuxers: Set<String> = ["matroska"]

    /// Records `streams` of `source` (input stream indices; the first video among them waits for a keyframe).
    init(path: String, source: UnsafeMutablePointer<AVFormatContext>, streams: [Int]) throws(MuxerOutput.Failure) {
        self.path = path
        output = try MuxerOutput(path: path, container: nil)
        var map: [Int: (Int32, AVRational)] = [:]
        var video: Int?
        for index in streams where index >= 0 && index < Int(source.pointee.nb_streams) {
            guard let stream = source.pointee.streams[index] else { continue }
            let out = try output.addStream(copying: stream)
            if let language = av_dict_get(stream.pointee.metadata, "language", nil, 0) {
                av_dict_set(&out.pointee.metadata, "language", language.pointee.value, 0)
            }
            if video == nil, stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO { video = index }
            map[index] = (out.pointee.index, stream.pointee.time_base)
        }
        guard !map.isEmpty else { throw MuxerOutput.Failure(message: "nothing to record (no stream plays)") }
        self.map = map
        self.video = video
        keepsChapters = Self.chapterMuxers.contains(output.muxerName)
        try output.writeHeader()
        AppLog.write("record", "recording to '\(TextSanitizer.clean(path))' (\(output.muxerName))\(keepsChapters ? "" : "; titles are not kept as chapters in this format")")
    }

    /// Writes `packet` if its stream is recorded; `title`: the station's song now (a change
    /// begins a chapter).
    func write(_ packet: Packet, title: String?) {
        guard failure == nil, let (index, timeBase) = map[packet.streamIndex] else { return }
        let stamp = packet.dts ?? packet.pts
        guard let stamp else { return }
        let seconds = Double(stamp) * av_q2d(timeBase)
        if origin == nil {
            // A picture can be decoded from a keyframe on; sound alone from any packet.
            if let video, packet.streamIndex != video || !packet.isKeyframe { return }
            origin = seconds
        }
        guard let origin, seconds >= origin - 10 else { return }
        let at = seconds - origin
        if keepsChapters, title != self.title, let title {
            chapter(title, at: max(0, at))
        }
        self.title = title
        guard let copy = av_packet_clone(packet.pointer) else {
            fail("out of memory (av_packet_clone)")
            return
        }
        var owned: UnsafeMutablePointer<AVPacket>? = copy
        defer { av_packet_free(&owned) }
        let shift = Int64((origin / av_q2d(timeBase)).rounded())
        if copy.pointee.pts != aether_AV_NOPTS_VALUE() { copy.pointee.pts -= shift }
        if copy.pointee.dts != aether_AV_NOPTS_VALUE() { copy.pointee.dts -= shift }
        copy.pointee.stream_index = index
        copy.pointee.pos = -1
        let outBase = output.format.pointee.streams[Int(index)]!.pointee.time_base
        av_packet_rescale_ts(copy, timeBase, outBase)
        end = max(end, at + Double(max(0, packet.duration)) * av_q2d(timeBase))
        let written = av_interleaved_write_frame(output.format, copy)
        guard written >= 0 else {
            fail(FFmpegError(code: written, function: "av_interleaved_write_frame").message)
            return
        }
        packets += 1
    }

    /// Ends the last chapter and writes the trailer; nil, or why the recording failed.
    func finish() -> String? {
        if chapters > 0 { aether_format_end_last_chapter(output.format, Int64((end * 1000).rounded())) }
        do { try output.finish() } catch { fail(error.message) }
        AppLog.write("record", "'\(TextSanitizer.clean(path))': \(packets) packets, \(chapters) chapter(s)\(failure.map { "; \($0)" } ?? "")")
        return failure
    }

    private func chapter(_ title: String, at seconds: Double) {
        let ms = Int64((seconds * 1000).rounded())
        if chapters > 0 { aether_format_end_last_chapter(output.format, ms) }
        guard aether_format_add_chapter(output.format, Int64(chapters + 1), AVRational(num: 1, den: 1000), ms, ms, title) >= 0 else { return }
        chapters += 1
    }

    private func fail(_ why: String) {
        failure = why
        AppLog.write("record", "'\(TextSanitizer.clean(path))': recording stopped: \(why)")
    }
}
