import CFFmpeg

/// Reads what a source contains, like `ffprobe`: opens it, copies the stream facts out as values,
/// and looks at the first packets for what only the bitstream says (HDR10+ metadata, Atmos).
public enum MediaProbe {
    /// Packets read after the header to find HDR10+ and Atmos signalling.
    static let packetBudget = 400

    public static func probe(_ format: FormatContext) throws(FFmpegError) -> MediaInfo {
        let ctx = format.pointer
        let bitstream = try BitstreamScan(format: format)
        var info = MediaInfo(
            url: TextSanitizer.clean(format.url),
            container: string(ctx.pointee.iformat?.pointee.name) ?? "unknown",
            containerLongName: string(ctx.pointee.iformat?.pointee.long_name) ?? "unknown",
            title: tag(ctx.pointee.metadata, "title"),
            startTime: format.timeline.origin,
            duration: duration(ctx),
            bitRate: ctx.pointee.bit_rate > 0 ? Int(ctx.pointee.bit_rate) : nil,
            chapters: chapters(ctx, format.timeline), video: [], audio: [], subtitles: [], attachments: [])
        info.titles = (format.disc?.titles ?? []).map {
            DiscTitleInfo(number: $0.number, duration: $0.duration, chapters: $0.chapters.count, playing: $0 == format.disc?.title,
                          playlist: $0.playlist.map { TextSanitizer.clean($0) })
        }

        for index in 0..<format.streamCount {
            guard let stream = format.stream(index), let par = stream.pointee.codecpar else { continue }
            let disposition = stream.pointee.disposition
            switch par.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO where disposition & AV_DISPOSITION_ATTACHED_PIC != 0:
                info.attachments.append(AttachmentInfo(
                    index: index, kind: "cover art", filename: tag(stream.pointee.metadata, "filename"),
                    mimeType: tag(stream.pointee.metadata, "mimetype"),
                    size: Int(stream.pointee.attached_pic.size)))
            case AVMEDIA_TYPE_VIDEO:
                info.video.append(video(stream, index: index, scan: bitstream))
            case AVMEDIA_TYPE_AUDIO:
                info.audio.append(audio(stream, index: index, scan: bitstream))
            case AVMEDIA_TYPE_SUBTITLE:
                let props = avcodec_descriptor_get(par.pointee.codec_id)?.pointee.props ?? 0
                info.subtitles.append(SubtitleStreamInfo(
                    index: index, codec: codecName(par), codecLongName: codecLongName(par),
                    kind: props & AV_CODEC_PROP_BITMAP_SUB != 0 ? .bitmap : .text, tags: tags(stream)))
            case AVMEDIA_TYPE_ATTACHMENT:
                let mime = tag(stream.pointee.metadata, "mimetype")
                let isFont = mime.map { $0.contains("font") } ?? false
                    || [AV_CODEC_ID_TTF, AV_CODEC_ID_OTF].contains(par.pointee.codec_id)
                info.attachments.append(AttachmentInfo(
                    index: index, kind: isFont ? "font" : (mime?.hasPrefix("image/") == true ? "cover art" : "other"),
                    filename: tag(stream.pointee.metadata, "filename"), mimeType: mime,
                    size: Int(par.pointee.extradata_size)))
            default:
                continue
            }
        }
        // A music file's only stream may carry the file's tags (Ogg); in a file with video or
        // several audio tracks a stream's title names the track, not the work.
        let musicStream = info.video.isEmpty && info.audio.count == 1 ? format.stream(info.audio[0].index) : nil
        info.tags = MediaTags.read(ctx.pointee.metadata, fallback: musicStream?.pointee.metadata)
        // Loudness tags: the container's, else the first audio stream's (Ogg, Matroska tracks).
        info.replayGain = ReplayGainTags.read(ctx.pointee.metadata, fallback: info.audio.first.flatMap { format.stream($0.index) }?.pointee.metadata)
        return info
    }

    // MARK: streams

    private static func video(_ stream: UnsafeMutablePointer<AVStream>, index: Int, scan: BitstreamScan) -> VideoStreamInfo {
        let par = stream.pointee.codecpar!
        let p = par.pointee
        let pixFmt = AVPixelFormat(p.format)
        let descriptor = av_pix_fmt_desc_get(pixFmt)
        var sar = p.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = stream.pointee.sample_aspect_ratio }
        let sarValue = (sar.num > 0 && sar.den > 0) ? Double(sar.num) / Double(sar.den) : 1
        let dar = p.height > 0 ? Double(p.width) * sarValue / Double(p.height) : 0
        let transfer = p.color_trc == AVCOL_TRC_UNSPECIFIED ? nil : string(av_color_transfer_name(p.color_trc))
        let dovi = dolbyVision(stream)
        let format = VideoFormatClassifier.classify(
            transfer: transfer, hasDolbyVisionConfig: dovi != nil,
            hasHDR10PlusMetadata: scan.hdr10PlusStreams.contains(index))
        return VideoStreamInfo(
            index: index, codec: codecName(par), codecLongName: codecLongName(par),
            profile: profileName(par),
            width: Int(p.width), height: Int(p.height), displayAspect: dar,
            frameRate: frameRate(stream),
            fieldOrder: fieldOrderName(p.field_order),
            colour: VideoStreamInfo.Colour(
                pixelFormat: p.format < 0 ? nil : string(av_get_pix_fmt_name(pixFmt)),
                bitDepth: descriptor.map { Int($0.pointee.comp.0.depth) },
                primaries: p.color_primaries == AVCOL_PRI_UNSPECIFIED ? nil : string(av_color_primaries_name(p.color_primaries)),
                transfer: transfer,
                matrix: p.color_space == AVCOL_SPC_UNSPECIFIED ? nil : string(av_color_space_name(p.color_space))),
            format: format, dolbyVision: dovi, tags: tags(stream), rotation: StillGeometry.rotation(of: stream))
    }

    private static func audio(_ stream: UnsafeMutablePointer<AVStream>, index: Int, scan: BitstreamScan) -> AudioStreamInfo {
        let par = stream.pointee.codecpar!
        var layout = par.pointee.ch_layout
        let channels = Int(layout.nb_channels)
        var lfe = 0
        if layout.order != AV_CHANNEL_ORDER_UNSPEC {
            lfe = (av_channel_layout_index_from_channel(&layout, AV_CHAN_LOW_FREQUENCY) >= 0 ? 1 : 0)
                + (av_channel_layout_index_from_channel(&layout, AV_CHAN_LOW_FREQUENCY_2) >= 0 ? 1 : 0)
        }
        var description = layout.order == AV_CHANNEL_ORDER_UNSPEC ? "" : ChannelLayoutName.describe(&layout)
        if description.isEmpty { description = "\(channels) channels" }
        return AudioStreamInfo(
            index: index, codec: codecName(par), codecLongName: codecLongName(par), profile: profileName(par),
            sampleRate: Int(par.pointee.sample_rate), channels: channels, layout: description,
            layoutShort: ChannelLayoutName.short(channels: channels, lfe: lfe),
            isAtmos: scan.atmosStreams.contains(index),
            bitRate: par.pointee.bit_rate > 0 ? Int(par.pointee.bit_rate) : nil, tags: tags(stream))
    }

    private static func dolbyVision(_ stream: UnsafeMutablePointer<AVStream>) -> DolbyVisionInfo? {
        var size: Int = 0
        guard let raw = aether_stream_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size),
              size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size else { return nil }
        let record = UnsafeRawPointer(raw).loadUnaligned(as: AVDOVIDecoderConfigurationRecord.self)
        return DolbyVisionInfo(profile: Int(record.dv_profile), level: Int(record.dv_level),
                               hasRPU: record.rpu_present_flag != 0, hasEnhancementLayer: record.el_present_flag != 0,
                               hasBaseLayer: record.bl_present_flag != 0,
                               compatibilityID: Int(record.dv_bl_signal_compatibility_id))
    }

    private static func frameRate(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            let value = Double(rate.num) / Double(rate.den)
            if value < 1000 { return FrameRate.snapped(value) }
        }
        return nil
    }

    /// Longest plausible media: a container claiming more (a damaged header) is taken as unknown.
    static let maxDuration = 1e8

    /// The container's duration in seconds, nil when unknown or out of all reason.
    private static func duration(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Double? {
        guard ctx.pointee.duration > 0, ctx.pointee.duration != aether_AV_NOPTS_VALUE() else { return nil }
        return (Double(ctx.pointee.duration) / Double(AV_TIME_BASE)).sane(in: 0.000_001...maxDuration)
    }

    /// Chapters on the media timeline, in start order; ones that start outside the media (a
    /// chapter at 9e18 s) or have no usable time are left out, ends are clamped to the next start.
    private static func chapters(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ timeline: Timeline) -> [Chapter] {
        let limit = duration(ctx) ?? maxDuration
        var list: [Chapter] = (0..<Int(ctx.pointee.nb_chapters)).compactMap { i in
            guard let c = ctx.pointee.chapters[i],
                  let start = timeline.seconds(c.pointee.start, c.pointee.time_base)?.sane(in: -1...limit) else { return nil }
            let end = timeline.seconds(c.pointee.end, c.pointee.time_base)?.sane(in: start...limit) ?? limit
            return Chapter(title: tag(c.pointee.metadata, "title"), start: max(0, start), end: end)
        }
        list.sort { $0.start < $1.start }
        return list
    }

    // MARK: helpers

    static func fieldOrderName(_ order: AVFieldOrder) -> String {
        switch order {
        case AV_FIELD_PROGRESSIVE: return "progressive"
        case AV_FIELD_TT: return "tt"
        case AV_FIELD_BB: return "bb"
        case AV_FIELD_TB: return "tb"
        case AV_FIELD_BT: return "bt"
        default: return "unknown"
        }
    }

    private static func tags(_ stream: UnsafeMutablePointer<AVStream>) -> StreamTags {
        let language = tag(stream.pointee.metadata, "language")
        return StreamTags(language: language == "und" ? nil : language,
                          title: tag(stream.pointee.metadata, "title"),
                          isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0,
                          isForced: stream.pointee.disposition & AV_DISPOSITION_FORCED != 0)
    }

    package static func codecName(_ par: UnsafeMutablePointer<AVCodecParameters>) -> String {
        string(avcodec_get_name(par.pointee.codec_id)) ?? "unknown"
    }

    static func codecLongName(_ par: UnsafeMutablePointer<AVCodecParameters>) -> String {
        string(avcodec_descriptor_get(par.pointee.codec_id)?.pointee.long_name) ?? codecName(par)
    }

    private static func profileName(_ par: UnsafeMutablePointer<AVCodecParameters>) -> String? {
        guard par.pointee.profile != aether_profile_unknown() else { return nil }
        return string(avcodec_profile_name(par.pointee.codec_id, par.pointee.profile))
    }

    /// A metadata tag's value, sanitised; nil when absent or empty.
    static func tag(_ dict: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dict, key, nil, 0), let value = entry.pointee.value else { return nil }
        let cleaned = TextSanitizer.clean(String(cString: value))
        return cleaned.isEmpty ? nil : cleaned
    }

    /// The first of `dicts` that has `key` (any key it begins, with `prefix`): its value as
    /// written, not sanitised (for values a strict reader checks, or text with newlines).
    package static func rawTag(_ dicts: [OpaquePointer?], _ key: String, prefix: Bool = false) -> String? {
        for dict in dicts {
            if let entry = av_dict_get(dict, key, nil, prefix ? AV_DICT_IGNORE_SUFFIX : 0), let value = entry.pointee.value {
                return String(cString: value)
            }
        }
        return nil
    }

    package static func string(_ p: UnsafePointer<CChar>?) -> String? {
        p.map { TextSanitizer.clean(String(cString: $0)) }
    }
}

/// One pass over the first packets after the header: which PQ video streams carry HDR10+
/// (ST 2094-40) dynamic metadata, which E-AC-3 streams signal JOC (Atmos). Rewinds afterwards.
struct BitstreamScan {
    var hdr10PlusStreams: Set<Int> = []
    var atmosStreams: Set<Int> = []

    init(format: FormatContext) throws(FFmpegError) {
        var pqDecoders: [Int: CodecContext] = [:]
        var eac3Streams: Set<Int> = []
        var eac3Frames: [Int: Int] = [:]
        for index in 0..<format.streamCount {
            guard let stream = format.stream(index), let par = stream.pointee.codecpar else { continue }
            if par.pointee.codec_type == AVMEDIA_TYPE_VIDEO, par.pointee.color_trc == AVCOL_TRC_SMPTE2084,
               stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 {
                pqDecoders[index] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
            }
            if par.pointee.codec_id == AV_CODEC_ID_EAC3 { eac3Streams.insert(index) }
        }
        guard !pqDecoders.isEmpty || !eac3Streams.isEmpty else { return }
        defer { try? format.seek(toSeconds: 0) }
        let packet = try Packet()
        let frame = try Frame()
        var decodedFrames: [Int: Int] = [:]
        for _ in 0..<MediaProbe.packetBudget {
            guard (try? format.read(into: packet)) == true else { break }
            defer { packet.unref() }
            let index = packet.streamIndex
            if eac3Streams.contains(index), eac3Frames[index, default: 0] < 8, !atmosStreams.contains(index) {
                eac3Frames[index, default: 0] += 1
                let bytes = Array(UnsafeBufferPointer(start: packet.pointer.pointee.data, count: packet.size))
                if EAC3Atmos.frameSignalsJOC(bytes) { atmosStreams.insert(index) }
            }
            if let decoder = pqDecoders[index], !hdr10PlusStreams.contains(index), decodedFrames[index, default: 0] < 4 {
                _ = try? decoder.send(packet)
                while (try? decoder.receive(into: frame)) == true {
                    decodedFrames[index, default: 0] += 1
                    if frame.hasSideData(AV_FRAME_DATA_DYNAMIC_HDR_PLUS) { hdr10PlusStreams.insert(index) }
                    frame.unref()
                }
            }
            let videoDone = pqDecoders.keys.allSatisfy { hdr10PlusStreams.contains($0) || decodedFrames[$0, default: 0] >= 4 }
            let audioDone = eac3Streams.allSatisfy { atmosStreams.contains($0) || eac3Frames[$0, default: 0] >= 8 }
            if videoDone && audioDone { break }
        }
    }
}
