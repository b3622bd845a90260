import AetherMedia
import CFFmpeg

/// One demuxed packet, as `av_read_frame` returned it: the bytes stage of the pipeline.
/// Timestamps are the stream's own ticks (`pts`, `dts`, `duration`) and the same in seconds
/// (`…Time`, source seconds as ffprobe prints them); absent when the container gave none.
public struct PacketRecord: Codable, Sendable, Equatable {
    public var stream: Int
    public var kind: StreamKind
    public var pts: Int64?
    public var ptsTime: Double?
    public var dts: Int64?
    public var dtsTime: Double?
    /// Absent when the container gave no duration (0).
    public var duration: Int64?
    public var durationTime: Double?
    /// Payload bytes.
    public var size: Int
    /// Byte offset in the source (`AVPacket.pos`); absent when unknown.
    public var position: Int64?
    /// `AV_PKT_FLAG_KEY`.
    public var isKey: Bool
    /// `AV_PKT_FLAG_DISCARD`: decode, but do not show (e.g. priming).
    public var isDiscard: Bool
    /// `AV_PKT_FLAG_CORRUPT`: the demuxer knows the payload is damaged.
    public var isCorrupt: Bool
    /// Names of attached side data (`av_packet_side_data_name`), e.g. `Encryption info`.
    public var sideData: [String]

    /// ffprobe-style flag letters: `K` key, `D` discard, `C` corrupt, `_` when unset.
    public var flags: String {
        (isKey ? "K" : "_") + (isDiscard ? "D" : "_") + (isCorrupt ? "C" : "_")
    }

    /// Side data kinds read from one packet at most (a hostile count cannot make a long loop).
    static let sideDataLimit = 32

    init(_ p: UnsafePointer<AVPacket>, stream: InspectedStream) {
        let raw = p.pointee
        let tb = stream.timeBase
        self.stream = stream.index
        kind = stream.kind
        pts = InspectionMath.timestamp(raw.pts)
        ptsTime = tb.seconds(pts)
        dts = InspectionMath.timestamp(raw.dts)
        dtsTime = tb.seconds(dts)
        duration = raw.duration == 0 ? nil : InspectionMath.timestamp(raw.duration)
        durationTime = tb.seconds(duration)
        size = Int(raw.size)
        position = raw.pos >= 0 ? raw.pos : nil
        isKey = raw.flags & AV_PKT_FLAG_KEY != 0
        isDiscard = raw.flags & AV_PKT_FLAG_DISCARD != 0
        isCorrupt = raw.flags & AV_PKT_FLAG_CORRUPT != 0
        var names: [String] = []
        if let side = raw.side_data, raw.side_data_elems > 0 {
            for i in 0..<min(Int(raw.side_data_elems), PacketRecord.sideDataLimit) {
                let name = av_packet_side_data_name(side[i].type).map { String(cString: $0) } ?? "unknown"
                names.append(TextSanitizer.clean(name))
            }
        }
        sideData = names
    }

    /// True when the packet carries `AV_PKT_DATA_ENCRYPTION_INFO` (CENC and the like).
    static func isEncrypted(_ p: UnsafePointer<AVPacket>) -> Bool {
        av_packet_get_side_data(p, AV_PKT_DATA_ENCRYPTION_INFO, nil) != nil
    }
}

/// What `PacketInspector.next()` returns: a packet, then, once, how the inspection ended.
public enum PacketEvent: Sendable, Equatable {
    case packet(PacketRecord)
    case end(InspectionEnd)
}

/// Lists the demuxed packets of a source (`probe --packets`), like `ffprobe -show_packets`, within
/// `InspectionLimits`. Pull with `next()` until it returns `.end`; one instance per pass.
///
/// Not thread-safe: one thread drives it. Reading has a deadline per read (`readTimeout`), so a
/// stalled network source ends the inspection with `.timedOut` instead of hanging it.
public final class PacketInspector {
    /// The selected streams (as they were when the source was opened), in index order.
    public let streams: [InspectedStream]
    private let reader: InspectionReader
    private let count: Int?
    private var returned = 0
    private var finished = false

    /// Opens `url` (libavformat `options` such as `headers`), checks `limits.streams` against the
    /// file, and seeks to `limits.start`.
    /// `clock`: the open's and the reads' deadlines.
    public init(url: String, options: [String: String] = [:], network: NetworkSettings,
                limits: InspectionLimits = InspectionLimits(), clock: TimeSource) throws(InspectionError) {
        reader = try InspectionReader(url: url, options: options, network: network, limits: limits, clock: clock)
        streams = reader.streams
        count = limits.count.map { max(0, $0) }
    }

    /// The next packet, then `.end` once, then nil.
    public func next() -> PacketEvent? {
        guard !finished else { return nil }
        switch reader.next() {
        case .packet(let stream):
            if let count, returned >= count { return end(.countLimit, nil) }
            returned += 1
            return .packet(PacketRecord(reader.packet.pointer, stream: stream))
        case .end(let reason, let error):
            return end(reason, error)
        }
    }

    private func end(_ reason: InspectionEnd.Reason, _ error: String?) -> PacketEvent {
        finished = true
        return .end(InspectionEnd(reason: reason, error: error, packets: returned, frames: 0,
                                  damagedFrames: 0, decodeErrors: 0))
    }
}
