import AetherMedia
import CFFmpeg

/// One decoded frame, as `avcodec_receive_frame` returned it: the pixels (or samples) stage.
/// Times are in the stream's time base (`pts` …) and in source seconds (`…Time`).
public struct FrameRecord: Codable, Sendable, Equatable {
    public var stream: Int
    public var kind: StreamKind
    /// `I`, `P`, `B`, `S` (S-VOP), `i`/`p`/`b` (switching), `?` unknown; absent for audio.
    /// The corresponding C function is `av_get_picture_type_char`.
    public var pictureType: String?
    /// `AVFrame.key_frame`.
    public var isKey: Bool
    public var pts: Int64?
    public var ptsTime: Double?
    /// `best_effort_timestamp`: the pts libavcodec guesses when the stream's are missing or wrong.
    public var bestEffort: Int64?
    public var bestEffortTime: Double?
    /// The dts of the packet that produced the frame.
    public var packetDts: Int64?
    public var packetDtsTime: Double?
    /// `pkt_duration`, absent when 0.
    public var duration: Int64?
    public var durationTime: Double?
    /// Byte offset and size of the packet that produced the frame (`pkt_pos`, `pkt_size`).
    public var packetPosition: Int64?
    public var packetSize: Int?
    public var width: Int?
    public var height: Int?
    public var sampleCount: Int?
    public var sampleRate: Int?
    public var channels: Int?
    /// FFmpeg's description of the channel layout, e.g. `stereo`, `5.1(side)`.
    public var channelLayout: String?
    /// Pixel format (`yuv420p`) or sample format (`fltp`).
    public var format: String?
    public var isInterlaced: Bool
    public var topFieldFirst: Bool
    /// `repeat_pict`: extra fields to show (soft telecine).
    public var repeatPict: Int
    /// The raw `decode_error_flags`.
    public var decodeErrorFlags: Int
    /// `decode_error_flags` by name (`invalid-bitstream`, `missing-reference`, `concealment-active`,
    /// `decode-slices`), then `corrupt` for `AV_FRAME_FLAG_CORRUPT`.
    public var decodeErrors: [String]

    /// The decoder says this frame is damaged.
    public var isDamaged: Bool { !decodeErrors.isEmpty }

    init(_ f: UnsafePointer<AVFrame>, stream: InspectedStream) {
        let raw = f.pointee
        let tb = stream.timeBase
        self.stream = stream.index
        kind = stream.kind
        isKey = aether_frame_is_key(f) != 0
        pts = InspectionMath.timestamp(raw.pts)
        ptsTime = tb.seconds(pts)
        bestEffort = InspectionMath.timestamp(raw.best_effort_timestamp)
        bestEffortTime = tb.seconds(bestEffort)
        packetDts = InspectionMath.timestamp(raw.pkt_dts)
        packetDtsTime = tb.seconds(packetDts)
        let frameDuration = aether_frame_duration(f)
        duration = frameDuration == 0 ? nil : InspectionMath.timestamp(frameDuration)
        durationTime = tb.seconds(duration)
        let origin = aether_frame_packet_origin(f)
        packetPosition = origin.pos >= 0 ? origin.pos : nil
        packetSize = origin.size >= 0 ? Int(origin.size) : nil
        isInterlaced = aether_frame_is_interlaced(f) != 0
        topFieldFirst = aether_frame_top_field_first(f) != 0
        repeatPict = Int(raw.repeat_pict)
        decodeErrorFlags = Int(raw.decode_error_flags)
        var errors = FrameRecord.errorNames(raw.decode_error_flags)
        if raw.flags & AV_FRAME_FLAG_CORRUPT != 0 { errors.append("corrupt") }
        decodeErrors = errors

        if stream.kind == .audio {
            pictureType = nil
            sampleCount = Int(raw.nb_samples)
            sampleRate = Int(raw.sample_rate)
            channels = Int(raw.ch_layout.nb_channels)
            var layout = raw.ch_layout
            let described = raw.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC ? "" : ChannelLayoutName.describe(&layout)
            channelLayout = described.isEmpty ? nil : TextSanitizer.clean(described)
            format = raw.format < 0 ? nil : MediaProbe.string(av_get_sample_fmt_name(AVSampleFormat(raw.format)))
        } else {
            pictureType = String(UnicodeScalar(UInt8(bitPattern: av_get_picture_type_char(raw.pict_type))))
            width = Int(raw.width)
            height = Int(raw.height)
            format = raw.format < 0 ? nil : MediaProbe.string(av_get_pix_fmt_name(AVPixelFormat(raw.format)))
        }
    }

    /// Names of the `FF_DECODE_ERROR_*` bits; unknown bits as hex.
    static func errorNames(_ flags: Int32) -> [String] {
        let known: [(Int32, String)] = [
            (FF_DECODE_ERROR_INVALID_BITSTREAM, "invalid-bitstream"),
            (FF_DECODE_ERROR_MISSING_REFERENCE, "missing-reference"),
            (FF_DECODE_ERROR_CONCEALMENT_ACTIVE, "concealment-active"),
            (FF_DECODE_ERROR_DECODE_SLICES, "decode-slices"),
        ]
        var names = known.filter { flags & $0.0 != 0 }.map(\.1)
        let rest = known.reduce(flags) { $0 & ~$1.0 }
        if rest != 0 { names.append("0x" + String(UInt32(bitPattern: rest), radix: 16)) }
        return names
    }
}

/// A failed `avcodec_send_packet` or `avcodec_receive_frame`. Decoding goes on after it.
public struct DecodeErrorRecord: Codable, Sendable, Equatable {
    public var stream: Int
    public var kind: StreamKind
    /// The C function that failed.
    public var function: String
    /// FFmpeg's words (`av_strerror`), e.g. `Invalid data found when processing input`.
    public var message: String
    /// The negative AVERROR code.
    public var code: Int32
    /// The packet being decoded (for a receive error, the last one sent); absent while draining
    /// the decoder at the end.
    public var packet: PacketRecord?
}

/// A selected stream that `--frames` does not decode, and why (no decoder, encrypted, not audio
/// or video).
public struct SkippedStream: Codable, Sendable, Equatable {
    public var stream: Int
    public var kind: StreamKind
    public var codec: String
    public var reason: String
}
