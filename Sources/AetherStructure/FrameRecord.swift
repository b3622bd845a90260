import AetherMedia
import CFFmpeg

/// One decoded frame, as `avcodec_receive_frame` returned it: the pixels (or samples) stage.
/// Times are in the stream's time base (`pts` …) and in source seconds (`…Time`).
///
/// Its facts are grouped by what they describe (``Times``, ``PacketOrigin``, ``Picture``,
/// ``Samples``, ``Damage``); the JSON form (`probe --frames --json`) is flat, one key per fact.
public struct FrameRecord: Codable, Sendable, Equatable {
    public var stream: Int
    public var kind: StreamKind
    /// `AVFrame.key_frame`.
    public var isKey: Bool
    /// Pixel format (`yuv420p`) or sample format (`fltp`).
    public var format: String?
    public var times: Times
    /// The packet that produced the frame.
    public var origin: PacketOrigin
    public var picture: Picture
    public var samples: Samples
    public var damage: Damage

    /// The frame's times, in the stream's time base and in source seconds.
    public struct Times: Codable, Sendable, Equatable {
        public var pts: Int64?
        public var ptsTime: Double?
        /// `best_effort_timestamp`: the pts libavcodec guesses when the stream's are missing or wrong.
        public var bestEffort: Int64?
        public var bestEffortTime: Double?
        /// `pkt_duration`, absent when 0.
        public var duration: Int64?
        public var durationTime: Double?
    }

    /// The packet that produced the frame: its dts, byte offset and size (`pkt_dts`, `pkt_pos`,
    /// `pkt_size`).
    public struct PacketOrigin: Codable, Sendable, Equatable {
        public var dts: Int64?
        public var dtsTime: Double?
        public var position: Int64?
        public var size: Int?

        enum CodingKeys: String, CodingKey {
            case dts = "packetDts", dtsTime = "packetDtsTime", position = "packetPosition", size = "packetSize"
        }
    }

    /// A video frame's picture; the field facts are false and 0 for audio.
    public struct Picture: Codable, Sendable, Equatable {
        /// `I`, `P`, `B`, `S` (S-VOP), `i`/`p`/`b` (switching), `?` unknown; absent for audio.
        /// The corresponding C function is `av_get_picture_type_char`.
        public var pictureType: String?
        public var width: Int?
        public var height: Int?
        public var isInterlaced: Bool
        public var topFieldFirst: Bool
        /// `repeat_pict`: extra fields to show (soft telecine).
        public var repeatPict: Int
    }

    /// An audio frame's samples; absent for video.
    public struct Samples: Codable, Sendable, Equatable {
        public var sampleCount: Int?
        public var sampleRate: Int?
        public var channels: Int?
        /// FFmpeg's description of the channel layout, e.g. `stereo`, `5.1(side)`.
        public var channelLayout: String?
    }

    /// What the decoder says went wrong with the frame.
    public struct Damage: Codable, Sendable, Equatable {
        /// The raw `decode_error_flags`.
        public var decodeErrorFlags: Int
        /// `decode_error_flags` by name (`invalid-bitstream`, `missing-reference`,
        /// `concealment-active`, `decode-slices`), then `corrupt` for `AV_FRAME_FLAG_CORRUPT`.
        public var decodeErrors: [String]
    }

    /// The decoder says this frame is damaged.
    public var isDamaged: Bool { !damage.decodeErrors.isEmpty }

    init(_ f: UnsafePointer<AVFrame>, stream: InspectedStream) {
        let raw = f.pointee
        let tb = stream.timeBase
        self.stream = stream.index
        kind = stream.kind
        isKey = aether_frame_is_key(f) != 0
        let pts = InspectionMath.timestamp(raw.pts), bestEffort = InspectionMath.timestamp(raw.best_effort_timestamp)
        let frameDuration = aether_frame_duration(f)
        let duration = frameDuration == 0 ? nil : InspectionMath.timestamp(frameDuration)
        times = Times(pts: pts, ptsTime: tb.seconds(pts), bestEffort: bestEffort, bestEffortTime: tb.seconds(bestEffort),
                      duration: duration, durationTime: tb.seconds(duration))
        let dts = InspectionMath.timestamp(raw.pkt_dts)
        let packet = aether_frame_packet_origin(f)
        origin = PacketOrigin(dts: dts, dtsTime: tb.seconds(dts), position: packet.pos >= 0 ? packet.pos : nil,
                              size: packet.size >= 0 ? Int(packet.size) : nil)
        picture = Picture(pictureType: nil, width: nil, height: nil, isInterlaced: aether_frame_is_interlaced(f) != 0,
                          topFieldFirst: aether_frame_top_field_first(f) != 0, repeatPict: Int(raw.repeat_pict))
        var errors = FrameRecord.errorNames(raw.decode_error_flags)
        if raw.flags & AV_FRAME_FLAG_CORRUPT != 0 { errors.append("corrupt") }
        damage = Damage(decodeErrorFlags: Int(raw.decode_error_flags), decodeErrors: errors)
        samples = Samples()

        if stream.kind == .audio {
            samples.sampleCount = Int(raw.nb_samples)
            samples.sampleRate = Int(raw.sample_rate)
            samples.channels = Int(raw.ch_layout.nb_channels)
            var layout = raw.ch_layout
            let described = raw.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC ? "" : ChannelLayoutName.describe(&layout)
            samples.channelLayout = described.isEmpty ? nil : TextSanitizer.clean(described)
            format = raw.format < 0 ? nil : MediaProbe.string(av_get_sample_fmt_name(AVSampleFormat(raw.format)))
        } else {
            picture.pictureType = String(UnicodeScalar(UInt8(bitPattern: av_get_picture_type_char(raw.pict_type))))
            picture.width = Int(raw.width)
            picture.height = Int(raw.height)
            format = raw.format < 0 ? nil : MediaProbe.string(av_get_pix_fmt_name(AVPixelFormat(raw.format)))
        }
    }

    // The JSON form is flat: each group reads and writes its keys beside these.
    private enum CodingKeys: String, CodingKey { case stream, kind, isKey, format }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stream = try c.decode(Int.self, forKey: .stream)
        kind = try c.decode(StreamKind.self, forKey: .kind)
        isKey = try c.decode(Bool.self, forKey: .isKey)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        times = try Times(from: decoder)
        origin = try PacketOrigin(from: decoder)
        picture = try Picture(from: decoder)
        samples = try Samples(from: decoder)
        damage = try Damage(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stream, forKey: .stream)
        try c.encode(kind, forKey: .kind)
        try c.encode(isKey, forKey: .isKey)
        try c.encodeIfPresent(format, forKey: .format)
        try times.encode(to: encoder)
        try origin.encode(to: encoder)
        try picture.encode(to: encoder)
        try samples.encode(to: encoder)
        try damage.encode(to: encoder)
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
