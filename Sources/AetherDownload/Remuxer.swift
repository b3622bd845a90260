import AetherMedia
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads a track's downloaded segment files one after another as one stream (an init section
/// first when there is one), behind an `AVIOContext` it owns: the segments are joined without a
/// second copy on disk. Files are opened with `O_NOFOLLOW`. Not seekable.
final class SegmentChainInput {
    let context: UnsafeMutablePointer<AVIOContext>
    private let files: [String]
    /// Where each file starts in the joined stream (bytes), and the seconds its timestamps move.
    private var starts: [Int64] = []
    private var offsets: [Double]
    private var next = 0
    private var fd: Int32 = -1
    /// A segment file that could not be opened or read (the output would be cut short).
    private(set) var failed: String?

    /// `offsets`: seconds added to the timestamps of each file's packets (none: 0 for all).
    init(files: [String], offsets: [Double] = []) throws(DownloadError) {
        self.files = files
        self.offsets = offsets
        var at: Int64 = 0
        for file in files {
            starts.append(at)
            var info = stat()
            if stat(file, &info) == 0 { at += Int64(info.st_size) }
        }
        let size: Int32 = 64 << 10
        guard let buffer = av_malloc(Int(size)) else { throw DownloadError("out of memory (av_malloc)") }
        guard let made = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), size, 0, nil,
            { opaque, out, wanted in
                Unmanaged<SegmentChainInput>.fromOpaque(opaque!).takeUnretainedValue().read(into: out, wanted: Int(wanted))
            }, nil, nil)
        else {
            av_free(buffer)
            throw DownloadError("out of memory (avio_alloc_context)")
        }
        context = made
        made.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Moves every file's packets by `seconds` (a part of a spliced HLS playlist placed on its timeline).
    func move(by seconds: Double) { offsets = Array(repeating: seconds, count: files.count) }

    /// The seconds a packet at byte `position` of the joined stream moves (its file's offset).
    func timeOffset(atByte position: Int64) -> Double {
        guard !offsets.isEmpty, position >= 0 else { return 0 }
        var low = 0, high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= position { low = mid + 1 } else { high = mid }
        }
        let k = low - 1
        return offsets.indices.contains(k) ? offsets[k] : 0
    }

    deinit {
        if fd >= 0 { close(fd) }
        var ctx: UnsafeMutablePointer<AVIOContext>? = context
        av_freep(&ctx!.pointee.buffer)
        avio_context_free(&ctx)
    }

    private func read(into out: UnsafeMutablePointer<UInt8>?, wanted: Int) -> Int32 {
        guard let out, wanted > 0 else { return 0 }
        while true {
            if fd < 0 {
                guard next < files.count else { return aether_AVERROR_EOF() }
                fd = open(files[next], O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                next += 1
                guard fd >= 0 else {
                    failed = files[next - 1]
                    return aether_AVERROR(EIO)
                }
            }
            let n = Glibc.read(fd, out, wanted)
            if n > 0 { return Int32(n) }
            if n < 0, errno == EINTR { continue }
            close(fd)
            fd = -1
            if n < 0 {
                failed = files[next - 1]
                return aether_AVERROR(EIO)
            }
        }
    }
}

/// One input of a remux: a demuxer over a ``SegmentChainInput`` or a ``MemoryInput`` (the
/// joined subtitles). Owns the format context and the reader behind it; closes each once.
final class RemuxInput {
    let format: UnsafeMutablePointer<AVFormatContext>
    private let reader: AnyObject
    let track: DownloadTrack

    /// Demuxers a downloaded segment may be read as (what HLS and DASH carry: MPEG-TS, fMP4,
    /// raw audio, WebVTT, and a DASH WebM init section with its segments); nothing else is probed.
    static let formats = "mpegts,mov,aac,mp3,ac3,eac3,webvtt,flac,matroska"

    init(track: DownloadTrack, reader: AnyObject, io: UnsafeMutablePointer<AVIOContext>, formatName: String?) throws(DownloadError) {
        self.track = track
        self.reader = reader
        guard var ctx = avformat_alloc_context() else { throw DownloadError("out of memory (avformat_alloc_context)") }
        ctx.pointee.pb = io
        ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        var dict: OpaquePointer?
        av_dict_set(&dict, "format_whitelist", Self.formats, 0)
        av_dict_set(&dict, "protocol_whitelist", "none", 0)
        defer { av_dict_free(&dict) }
        let forced = formatName.flatMap { av_find_input_format($0) }
        var opened: UnsafeMutablePointer<AVFormatContext>? = ctx
        let result = avformat_open_input(&opened, nil, forced, &dict)
        guard result >= 0, let made = opened else {
            throw DownloadError("the downloaded \(track.kind.rawValue) cannot be read: \(FFmpegError(code: result, function: "avformat_open_input").message)")
        }
        ctx = made
        format = made
        let probed = avformat_find_stream_info(format, nil)
        guard probed >= 0 else {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = format
            avformat_close_input(&doomed)
            throw DownloadError("the downloaded \(track.kind.rawValue) cannot be read: \(FFmpegError(code: probed, function: "avformat_find_stream_info").message)")
        }
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFormatContext>? = format
        avformat_close_input(&doomed)
    }

    /// The segment files behind it, when it reads them (their timestamp offsets).
    var chain: SegmentChainInput? { reader as? SegmentChainInput }

    /// Its first timestamp in seconds (nil when unknown).
    var startSeconds: Double? {
        let start = format.pointee.start_time
        return start == aether_AV_NOPTS_VALUE() ? nil : Double(start) / Double(AV_TIME_BASE)
    }

    /// The stream indices this input gives the output: the first of its kind, and for a video
    /// track whose segments carry the sound, its first audio stream too.
    var wanted: [Int] {
        let type: AVMediaType = switch track.kind {
        case .video: AVMEDIA_TYPE_VIDEO
        case .audio: AVMEDIA_TYPE_AUDIO
        case .subtitle: AVMEDIA_TYPE_SUBTITLE
        }
        let streams = (0..<Int(format.pointee.nb_streams)).map { format.pointee.streams[$0]! }
        var picked: [Int] = []
        if let i = streams.firstIndex(where: { $0.pointee.codecpar.pointee.codec_type == type }) { picked.append(i) }
        if track.kind == .video, track.keepsMuxedAudio,
           let i = streams.firstIndex(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }) { picked.append(i) }
        return picked
    }
}

/// Remuxes the downloaded tracks into one file without re-encoding: packets are copied, the
/// tracks' timelines are shifted together so the earliest starts at 0, and each output stream
/// gets its rendition's language (ISO 639-2 where known), title (`NAME`) and default flag.
enum Remuxer {
    struct Result {
        var streams = 0
        var packets = 0
        /// Parts left out (a later period that cannot go on in its stream), one line each.
        var notes: [String] = []
    }

    /// `mp4` when the path ends in `.mp4` (case-insensitive), else `matroska`.
    static func container(for path: String) -> String {
        Paths.pathExtension(path).lowercased() == "mp4" ? "mp4" : "matroska"
    }

    /// Writes `inputs` (subtitle inputs already on the shifted timeline: `subtitleShift` is not
    /// applied to them) to `path`. `shift` seconds are taken off every audio and video timestamp.
    static func run(_ inputs: [RemuxInput], shift: Double, to path: String, container: String,
                    interrupt: InterruptToken) throws(DownloadError) -> Result {
        // No random UIDs, dates or encoder string: the same download gives the same bytes
        // (an interrupted and resumed one included).
        let output: MuxerOutput
        do { output = try MuxerOutput(path: path, container: container, bitExact: true) } catch { throw DownloadError(error.message) }
        // (input, input stream) → output stream
        var map: [[Int: Int]] = Array(repeating: [:], count: inputs.count)
        // WebVTT streams going into MP4, converted to mov_text.
        var converters: [[Int: SubtitleConverter]] = Array(repeating: [:], count: inputs.count)
        var defaultTaken = Set<Int32>()
        var result = Result()
        // A part that goes on in the stream of the one before (its streams join that one's).
        let continues = inputs.indices.map { $0 > 0 && inputs[$0].track.continues && inputs[$0 - 1].track.kind == inputs[$0].track.kind }
        // Which rendition of each kind is the default: the one marked so, else the first.
        var firstOfKind: [DownloadTrack.Kind: Int] = [:]
        for (n, input) in inputs.enumerated() where !continues[n] && input.track.isDefault && firstOfKind[input.track.kind] == nil { firstOfKind[input.track.kind] = n }
        for (n, input) in inputs.enumerated() where !continues[n] && firstOfKind[input.track.kind] == nil { firstOfKind[input.track.kind] = n }

        for (n, input) in inputs.enumerated() where !continues[n] {
            for index in input.wanted {
                let source = input.format.pointee.streams[index]!
                let par = source.pointee.codecpar!
                let stream: UnsafeMutablePointer<AVStream>
                if container == "mp4", par.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE {
                    // MP4 carries text subtitles as mov_text only.
                    guard let made = avformat_new_stream(output.format, nil) else { throw DownloadError("out of memory (avformat_new_stream)") }
                    stream = made
                    let converter = try SubtitleConverter(source: source)
                    guard converter.configure(stream) else { throw DownloadError("cannot set up the mov_text stream") }
                    converters[n][index] = converter
                } else {
                    do { stream = try output.addStream(copying: source) } catch { throw DownloadError(error.message) }
                }
                let type = par.pointee.codec_type
                // The variant's own sound (no rendition): no tags of its own, default.
                let isRendition = !(input.track.kind == .video && type == AVMEDIA_TYPE_AUDIO)
                if isRendition {
                    if let language = input.track.language.map(outputLanguage), !language.isEmpty {
                        av_dict_set(&stream.pointee.metadata, "language", language, 0)
                    }
                    if let name = input.track.name.map({ TextSanitizer.clean($0) }), !name.isEmpty {
                        av_dict_set(&stream.pointee.metadata, "title", name, 0)
                        // MP4 names a track by its handler.
                        if container == "mp4" { av_dict_set(&stream.pointee.metadata, "handler_name", name, 0) }
                    }
                }
                let isDefault = isRendition ? firstOfKind[input.track.kind] == n : !defaultTaken.contains(type.rawValue)
                if isDefault, !defaultTaken.contains(type.rawValue) {
                    stream.pointee.disposition |= AV_DISPOSITION_DEFAULT
                    defaultTaken.insert(type.rawValue)
                } else {
                    stream.pointee.disposition &= ~AV_DISPOSITION_DEFAULT
                }
                map[n][index] = Int(stream.pointee.index)
                result.streams += 1
            }
        }
        // A separate audio rendition chosen as default wins over none; the variant's own sound
        // is only there when no rendition is.
        guard result.streams > 0 else { throw DownloadError("the download has no stream to write") }
        var filters: [[Int: BitstreamFilter]] = Array(repeating: [:], count: inputs.count)
        var leftOut = Array(repeating: false, count: inputs.count)
        result.notes = try joinContinuations(inputs, output: output.format, map: &map, filters: &filters, leftOut: &leftOut)
        do { try output.writeHeader() } catch { throw DownloadError(error.message) }

        // Packets in timestamp order over the inputs: one waiting per input, the earliest goes.
        var pending: [Packet] = []
        var ended = leftOut
        for _ in inputs {
            do { pending.append(try Packet()) } catch { throw DownloadError("out of memory (av_packet_alloc)") }
        }
        var loaded = Array(repeating: false, count: inputs.count)
        // The last timestamp written per output stream: where segments overlap (an audio
        // segment running a few ms past its period's end, a segment that straddles a period
        // boundary listed in both periods), what would go back is left out: a muxer refuses a
        // timestamp that goes back ("Invalid argument"), and the rest is still worth writing.
        var lastDTS: [Int: Int64] = [:]
        var overlapped = Set<Int>()
        let scratch: Packet
        do { scratch = try Packet() } catch { throw DownloadError("out of memory (av_packet_alloc)") }
        func load(_ n: Int) throws(DownloadError) {
            let packet = pending[n].pointer
            while true {
                let r = av_read_frame(inputs[n].format, packet)
                if r < 0 {
                    if r != aether_AVERROR_EOF() {
                        AppLog.write("download", "\(inputs[n].track.kind.rawValue): \(FFmpegError(code: r, function: "av_read_frame").message); the track ends there")
                    }
                    ended[n] = true
                    return
                }
                let index = Int(packet.pointee.stream_index)
                if map[n][index] != nil {
                    // A later DASH period's media, moved onto the one timeline (by the segment file
                    // the packet came from).
                    if let chain = inputs[n].chain {
                        pending[n].shift(seconds: chain.timeOffset(atByte: packet.pointee.pos),
                                         timeBase: inputs[n].format.pointee.streams[index]!.pointee.time_base)
                    }
                    if let filter = filters[n][index] {
                        let filtered: Bool
                        do { filtered = try filter.apply(packet) } catch {
                            throw DownloadError("\(inputs[n].track.kind.rawValue): \(error.message)")
                        }
                        guard filtered else { continue }
                    }
                    loaded[n] = true
                    return
                }
                av_packet_unref(packet)
            }
        }
        func seconds(_ n: Int) -> Double {
            let packet = pending[n].pointer
            let ts = packet.pointee.dts != aether_AV_NOPTS_VALUE() ? packet.pointee.dts : packet.pointee.pts
            guard ts != aether_AV_NOPTS_VALUE() else { return -.infinity }
            let tb = inputs[n].format.pointee.streams[Int(packet.pointee.stream_index)]!.pointee.time_base
            return Double(ts) * Double(tb.num) / Double(tb.den)
        }
        while true {
            if interrupt.shouldInterrupt { throw DownloadError("interrupted") }
            // A part that goes on in the stream before it starts when that one has ended.
            for n in inputs.indices where !loaded[n] && !ended[n] && !(continues[n] && !ended[n - 1]) { try load(n) }
            guard let n = inputs.indices.filter({ loaded[$0] }).min(by: { seconds($0) < seconds($1) }) else { break }
            let packet = pending[n].pointer
            let sourceStream = inputs[n].format.pointee.streams[Int(packet.pointee.stream_index)]!
            let out = map[n][Int(packet.pointee.stream_index)]!
            let target = output.format.pointee.streams[out]!
            if inputs[n].track.kind != .subtitle {
                let offset = Int64((shift * Double(sourceStream.pointee.time_base.den) / Double(sourceStream.pointee.time_base.num)).rounded())
                if packet.pointee.pts != aether_AV_NOPTS_VALUE() { packet.pointee.pts -= offset }
                if packet.pointee.dts != aether_AV_NOPTS_VALUE() { packet.pointee.dts -= offset }
            }
            var outgoing = packet
            if let converter = converters[n][Int(packet.pointee.stream_index)] {
                let converted = try converter.convert(packet, source: sourceStream.pointee.time_base, into: scratch)
                av_packet_unref(packet)
                loaded[n] = false
                guard converted else { continue }
                outgoing = scratch.pointer
                av_packet_rescale_ts(outgoing, converter.timeBase, target.pointee.time_base)
            } else {
                av_packet_rescale_ts(packet, sourceStream.pointee.time_base, target.pointee.time_base)
            }
            outgoing.pointee.stream_index = Int32(out)
            outgoing.pointee.pos = -1
            let dts = outgoing.pointee.dts
            if dts != aether_AV_NOPTS_VALUE(), let last = lastDTS[out], dts <= last, inputs[n].chain != nil {
                if overlapped.insert(out).inserted {
                    AppLog.write("download", "\(inputs[n].track.kind.rawValue): a packet overlapping the segment or period before left out (and any more)")
                }
                av_packet_unref(outgoing)
                loaded[n] = false
                continue
            }
            if dts != aether_AV_NOPTS_VALUE() { lastDTS[out] = dts }
            let written = av_interleaved_write_frame(output.format, outgoing)
            loaded[n] = false
            guard written >= 0 else {
                throw DownloadError("cannot write the output: \(FFmpegError(code: written, function: "av_interleaved_write_frame").message)")
            }
            result.packets += 1
        }
        do { try output.finish() } catch { throw DownloadError(error.message) }
        return result
    }

    /// The language tag a container gets: ISO 639-2 (`fra`) where the tag is a known language,
    /// else the tag as given if it is 2–8 ASCII letters (and hyphens), else none.
    static func outputLanguage(_ tag: String) -> String {
        let canonical = LanguagePreference.canonical(tag)
        if canonical.count == 3, canonical.allSatisfy({ $0.isASCII && $0.isLetter }) { return canonical }
        guard (2...8).contains(tag.count), tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else { return "" }
        return tag
    }
}
