import AetherMedia
import CFFmpeg

/// Rewrites one fMP4 or WebM media segment (its init section in front) in memory, for the HLS
/// demuxer that plays a translated DASH manifest (``DASHPlaylists``): as MPEG-TS where MPEG-TS
/// carries the codecs, else as Matroska clusters after one Matroska header of our own.
///
/// Why not the segments as they come: libavformat's HLS demuxer reads every segment of a
/// playlist through one demuxer, and after a seek it hands that demuxer the bytes of another
/// segment without resetting it. The mov demuxer then reads its pending samples at offsets of
/// the old bytes (garbage: "Invalid NAL unit size"; a VP9 fMP4 stream shows 1 frame after a
/// seek). An MPEG-TS demuxer resynchronises on any packet, and the HLS demuxer resets it on a
/// seek. As MPEG-TS, each segment also carries its parameter sets in band (the muxer's
/// automatic `h264_mp4toannexb`/`hevc_mp4toannexb`), so a segment of another representation
/// decodes after this one: bit-rate switching needs no init section.
///
/// MPEG-TS in libavformat 5.1 carries no VP8, VP9, AV1, Vorbis or FLAC. Those go as Matroska:
/// the playlist names our header (``header(_:)``, from the init section alone) as its
/// `EXT-X-MAP`, and each segment is served as the clusters of its own remux (``transmux(_:to:)``
/// with the header cut off). WebM is that already (its init section is a header, its segments
/// clusters) and is served as it comes. The Matroska demuxer reads clusters after a seek as a
/// stream of them, and those codecs carry their frame size in band, so a segment of another
/// representation of the same codec plays after this one.
///
/// Timestamps are kept as the segment has them (`mpegts_copyts`, no shift to zero), so the
/// segments of a representation form one timeline; each MPEG-TS segment is a TS of its own
/// whose first packets are marked discontinuous (`initial_discontinuity`): the demuxer accepts
/// the continuity counters starting again.
package enum SegmentTransmuxer {
    /// A transmuxed segment may be at most this large (bytes out).
    static let limit = 256 << 20

    /// A Matroska Cluster element of size 0.
    static let emptyCluster: [UInt8] = [0x1F, 0x43, 0xB6, 0x75, 0x80]

    /// The bytes the demuxer is given for `segment` (fetched, with its init section
    /// `initialization`) of a representation served as `carrier`.
    /// `shift`: seconds added to every timestamp (a later period's media on the one timeline;
    /// WebM is then remuxed too).
    static func served(_ segment: [UInt8], initialization: [UInt8], as carrier: DASHPlaylists.Carrier, clock: TimeSource,
                       shift: Double = 0) throws(FFmpegError) -> [UInt8] {
        switch carrier {
        case .mpegts: return try transmux(initialization + segment, to: carrier, shift: shift, clock: clock)
        case .webm where shift == 0: return unknownSizeClusters(segment)
        case .matroska, .webm: return unknownSizeClusters(try transmux(initialization + segment, to: .matroska, shift: shift, clock: clock))
        }
    }

    /// `clusters` with each top-level Cluster's size made "unknown". The HLS demuxer hands the
    /// Matroska demuxer another segment's bytes after a seek without resetting it; a cluster of
    /// known size leaves the end of the one it was in on the demuxer's stack ("Element at 0x0
    /// ending at … exceeds containing master element": nothing plays after the seek), while an
    /// unknown-size cluster simply ends at the next Cluster. Stops rewriting at anything it
    /// cannot read (the rest as it is).
    package static func unknownSizeClusters(_ clusters: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(clusters.count + 64)
        var at = 0
        while at < clusters.count {
            guard case let .element(id, size?, headerSize) = EBMLHeader.parse(clusters, at: at),
                  UInt64(clusters.count - at) - UInt64(headerSize) >= size else { break }
            let end = at + Int(headerSize) + Int(size)
            if id == EBMLHeader.clusterID {
                out += clusters[at..<at + 4]
                out += [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
                out += clusters[(at + Int(headerSize))..<end]
            } else {
                out += clusters[at..<end]
            }
            at = end
        }
        out += clusters[at...]
        return out
    }

    /// The `EXT-X-MAP` of a representation served as Matroska, from its init section.
    static func header(_ initialization: [UInt8], as carrier: DASHPlaylists.Carrier, clock: TimeSource) throws(FFmpegError) -> [UInt8] {
        carrier == .webm ? initialization : try header(initialization, clock: clock)
    }

    static func transmux(_ bytes: [UInt8], to carrier: DASHPlaylists.Carrier = .mpegts, shift: Double = 0,
                         clock: TimeSource) throws(FFmpegError) -> [UInt8] {
        let input = try FormatContext(bytes: bytes, clock: clock)
        let output = try SegmentMuxer(carrier)
        let map = try output.addStreams(of: input, what: "the segment")
        let header = try output.writeHeader()
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard let index = map[packet.pointer.pointee.stream_index], let from = input.stream(Int(packet.pointer.pointee.stream_index)) else { continue }
            try output.write(packet, from: from.pointee.time_base, to: index, shift: shift)
            guard output.written <= limit else { throw NetworkSession.tooLarge(limit) }
        }
        let all = try output.finish()
        guard carrier.isMatroska else { return all }
        // Matroska: the clusters only (the playlist's EXT-X-MAP is the header), which start
        // right after it.
        guard all.count == header || all[header...].starts(with: emptyCluster.prefix(4)) else {
            throw FFmpegError(function: "transmux", message: "the Matroska muxer wrote no cluster after its header", code: aether_AVERROR(EINVAL))
        }
        return Array(all.dropFirst(header))
    }

    /// An MPEG-TS segment of a spliced HLS playlist (``HLSSplice``) as MPEG-TS again: one PID a
    /// codec (the ad's PIDs are the programme's), every timestamp moved by `shift(first)` seconds,
    /// where `first` is the segment's earliest presentation time.
    static func retimed(_ bytes: [UInt8], clock: TimeSource, shift: (Double) -> Double) throws(FFmpegError) -> [UInt8] {
        let input = try FormatContext(bytes: bytes, clock: clock)
        let output = try SegmentMuxer(.mpegts)
        let map = try output.addStreams(of: input, what: "the segment")
        _ = try output.writeHeader()
        var packets: [Packet] = []
        var first = Double.infinity
        while true {
            let packet = try Packet()
            guard try input.read(into: packet) else { break }
            let p = packet.pointer.pointee
            guard map[p.stream_index] != nil, let from = input.stream(Int(p.stream_index)) else { continue }
            if p.pts != aether_AV_NOPTS_VALUE() { first = min(first, Double(p.pts) * av_q2d(from.pointee.time_base)) }
            packets.append(packet)
            guard packets.count <= limit >> 10 else { throw NetworkSession.tooLarge(limit) }
        }
        var seconds = first.isFinite ? shift(first) : 0
        // A shift past MPEG-TS's 33-bit clock (a hostile playlist's times) is not made.
        if !seconds.isFinite || abs(seconds) > 95_000 { seconds = 0 }
        for packet in packets {
            let index = packet.pointer.pointee.stream_index
            guard let to = map[index], let from = input.stream(Int(index)) else { continue }
            try output.write(packet, from: from.pointee.time_base, to: to, shift: seconds)
            guard output.written <= limit else { throw NetworkSession.tooLarge(limit) }
        }
        return try output.finish()
    }

    /// The Matroska header (EBML, Segment of unknown size, Info, Tracks) of the segments
    /// ``transmux(_:to:)`` makes as Matroska with the init section `initialization`: the same
    /// bytes for each of them (bit-exact, no dates or random UIDs).
    static func header(_ initialization: [UInt8], clock: TimeSource) throws(FFmpegError) -> [UInt8] {
        // The Matroska demuxer reads a header up to its first cluster: a WebM init section (EBML
        // magic) is given an empty one; an fMP4 init section opens as it is.
        let webM = initialization.starts(with: [0x1A, 0x45, 0xDF, 0xA3])
        let input = try FormatContext(bytes: webM ? initialization + emptyCluster : initialization, clock: clock)
        let output = try SegmentMuxer(.matroska)
        _ = try output.addStreams(of: input, what: "the init section")
        let length = try output.writeHeader()
        return Array(try output.finish().prefix(length))
    }
}

/// Owns a segment's muxer (MPEG-TS, or Matroska in live mode) writing into a dynamic buffer
/// (`avformat_alloc_output_context2`, `avio_open_dyn_buf`); both freed exactly once.
final class SegmentMuxer {
    private let carrier: DASHPlaylists.Carrier
    private let context: UnsafeMutablePointer<AVFormatContext>
    private var buffer: UnsafeMutablePointer<AVIOContext>?
    private var headerWritten = false
    private(set) var written = 0

    init(_ carrier: DASHPlaylists.Carrier) throws(FFmpegError) {
        self.carrier = carrier
        var made: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_alloc_output_context2(&made, nil, carrier == .mpegts ? "mpegts" : "matroska", nil)
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

    /// A stream for each of `input`'s audio and video streams: input index → output index.
    /// Throws when there is none (`what`: the input, for the message).
    func addStreams(of input: FormatContext, what: String) throws(FFmpegError) -> [Int32: Int32] {
        var map: [Int32: Int32] = [:]
        for k in 0..<input.streamCount {
            guard let stream = input.stream(k), let par = stream.pointee.codecpar,
                  par.pointee.codec_type == AVMEDIA_TYPE_VIDEO || par.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            map[Int32(k)] = try addStream(copying: stream)
        }
        guard !map.isEmpty else { throw FFmpegError(function: "transmux", message: "no audio or video in \(what)", code: aether_AVERROR(EINVAL)) }
        return map
    }

    /// A stream with `stream`'s parameters; returns its index.
    func addStream(copying stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) -> Int32 {
        guard let made = avformat_new_stream(context, nil) else { throw .outOfMemory("avformat_new_stream") }
        try check(avcodec_parameters_copy(made.pointee.codecpar, stream.pointee.codecpar), "avcodec_parameters_copy")
        made.pointee.codecpar.pointee.codec_tag = 0
        // libavformat 5.1's Matroska muxer writes an Opus stream's pre-skip as CodecDelay, which
        // the demuxer takes off every timestamp, but does not add it to the blocks: the stream
        // would come back 6.5 ms early. Without it the timestamps come back as they went in.
        if carrier.isMatroska { made.pointee.codecpar.pointee.initial_padding = 0 }
        // MPEG-TS: a PID of the codec's own, the same in every segment. A DASH period of another
        // codec then comes as a stream of its own (libavformat's MPEG-TS demuxer keeps a PID's
        // first codec), which the player follows (``PlaybackSession``'s demux loop).
        if carrier == .mpegts {
            let pid = Self.pid(for: made.pointee.codecpar.pointee.codec_id)
            if !pids.contains(pid) { made.pointee.id = pid }
            pids.insert(pid)
        }
        made.pointee.time_base = stream.pointee.time_base
        return made.pointee.index
    }

    /// PIDs given so far (two streams of one codec: the second takes the muxer's own).
    private var pids = Set<Int32>()

    /// The MPEG-TS PID of a stream of `codec`: 0x100 up, by codec (PIDs 0x10–0x1FFE are free).
    static func pid(for codec: AVCodecID) -> Int32 {
        0x100 + Int32(truncatingIfNeeded: Int(codec.rawValue) % 0x1E00)
    }

    /// Writes the header; returns its length in bytes.
    func writeHeader() throws(FFmpegError) -> Int {
        var options: OpaquePointer?
        switch carrier {
        case .mpegts:
            av_dict_set(&options, "mpegts_copyts", "1", 0)
            av_dict_set(&options, "mpegts_flags", "+initial_discontinuity", 0)
            // Video PES lengths written (up to 64 KiB): the demuxer hands a frame on when it is
            // complete, not when the next one of its PID begins.
            av_dict_set(&options, "omit_video_pes_length", "0", 0)
        case .matroska, .webm:
            // Unknown sizes, no cues, no seek head: a header, then clusters as they come.
            av_dict_set(&options, "live", "1", 0)
            context.pointee.flags |= AVFMT_FLAG_BITEXACT
        }
        defer { av_dict_free(&options) }
        context.pointee.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED  // the timeline as it is (-1 is AUTO: it shifted a segment that starts below 0)
        try check(avformat_write_header(context, &options), "avformat_write_header")
        headerWritten = true
        guard let pb = buffer else { return 0 }
        avio_flush(pb)
        return Int(avio_tell(pb))
    }

    func write(_ packet: Packet, from timeBase: AVRational, to index: Int32, shift: Double = 0) throws(FFmpegError) {
        guard let stream = context.pointee.streams[Int(index)] else { return }
        packet.pointer.pointee.stream_index = index
        av_packet_rescale_ts(packet.pointer, timeBase, stream.pointee.time_base)
        packet.shift(seconds: shift, timeBase: stream.pointee.time_base)
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
