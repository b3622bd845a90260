import AetherMedia
import CFFmpeg

/// What `FrameInspector.next()` returns.
public enum FrameEvent: Sendable, Equatable {
    case frame(FrameRecord)
    /// A send or receive failure; the inspector carries on with the next packet.
    case decodeError(DecodeErrorRecord)
    /// A selected stream that will not be decoded (reported once, when first met).
    case skipped(SkippedStream)
    /// Once, last.
    case end(InspectionEnd)
}

/// Decodes a source's audio and video (`probe --frames`) and reports every decoded frame and
/// every decode failure, with the packet it happened on, within `InspectionLimits` (`count`
/// bounds frames plus decode errors). Made to diagnose damaged files: a packet the decoder
/// rejects is reported and decoding continues with the next one, to the end.
///
/// Decoders run single-threaded, so an error is reported against the packet that caused it
/// rather than one a frame-thread delay later. Packets that carry encryption side data (CENC)
/// are never fed to a decoder. Pull with `next()` until it returns `.end`; not thread-safe.
public final class FrameInspector {
    /// The selected streams (as they were when the source was opened), in index order.
    public let streams: [InspectedStream]

    /// Consecutive failures of one receive loop before it gives up on the packet, so that a
    /// decoder that keeps failing cannot keep the inspector busy.
    static let receiveFailureLimit = 8
    /// `EAGAIN` answers to one packet (after draining each time) before it is dropped.
    static let resendLimit = 8

    private let reader: InspectionReader
    private let frame: Frame
    private let count: Int?
    private var decoders: [Int: CodecContext] = [:]
    private var unusable: Set<Int> = []
    /// The last packet sent to each decoder, for receive errors.
    private var lastPacket: [Int: PacketRecord] = [:]
    private var pending: [FrameEvent] = []
    private var pendingIndex = 0
    private var readerEnd: (InspectionEnd.Reason, String?)? = nil
    private var finished = false
    private var rows = 0
    private var frames = 0
    private var damaged = 0
    private var errors = 0

    /// Opens `url`, checks `limits.streams` against the file and seeks to `limits.start`. Without
    /// an explicit selection every audio and video stream is decoded.
    /// `clock`: the open's and the reads' deadlines.
    public init(url: String, options: [String: String] = [:], network: NetworkSettings,
                limits: InspectionLimits = InspectionLimits(), clock: TimeSource) throws(InspectionError) {
        reader = try InspectionReader(url: url, options: options, network: network, limits: limits, defaultKinds: [.video, .audio],
                                      clock: clock)
        do { frame = try Frame() } catch { throw .ffmpeg(error) }
        streams = reader.streams
        count = limits.count.map { max(0, $0) }
        for stream in streams where stream.kind != .video && stream.kind != .audio {
            skip(stream, "\(stream.kind.rawValue) streams are not decoded by --frames")
        }
    }

    /// The next frame, decode error or skipped stream, then `.end` once, then nil.
    public func next() -> FrameEvent? {
        while !finished {
            if pendingIndex < pending.count {
                let event = pending[pendingIndex]
                pendingIndex += 1
                if pendingIndex == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    pendingIndex = 0
                }
                switch event {
                case .frame, .decodeError:
                    if let count, rows >= count { return end(.countLimit, nil) }
                    rows += 1
                    if case .frame(let f) = event {
                        frames += 1
                        if f.isDamaged { damaged += 1 }
                    } else {
                        errors += 1
                    }
                default: break
                }
                return event
            }
            if let readerEnd { return end(readerEnd.0, readerEnd.1) }
            switch reader.next() {
            case .packet(let stream):
                decode(stream)
            case .end(let reason, let error):
                readerEnd = (reason, error)
                drainAll()
            }
        }
        return nil
    }

    private func end(_ reason: InspectionEnd.Reason, _ error: String?) -> FrameEvent {
        finished = true
        pending.removeAll()
        return .end(InspectionEnd(reason: reason, error: error, packets: reader.packetsRead, frames: frames,
                                  damagedFrames: damaged, decodeErrors: errors))
    }

    private func skip(_ stream: InspectedStream, _ reason: String) {
        unusable.insert(stream.index)
        pending.append(.skipped(SkippedStream(stream: stream.index, kind: stream.kind, codec: stream.codec,
                                              reason: reason)))
    }

    /// The decoder of `stream`, opened on its first packet; nil (reported once) when it cannot be.
    private func decoder(for stream: InspectedStream) -> CodecContext? {
        if let decoder = decoders[stream.index] { return decoder }
        if unusable.contains(stream.index) { return nil }
        guard stream.kind == .video || stream.kind == .audio else {
            unusable.insert(stream.index)  // named explicitly: reported when the inspector started
            return nil
        }
        guard let avStream = reader.format.stream(stream.index), let par = avStream.pointee.codecpar else {
            skip(stream, "the stream has no codec parameters")
            return nil
        }
        if aether_stream_side_data(avStream, AV_PKT_DATA_ENCRYPTION_INIT_INFO, nil) != nil {
            skip(stream, "the stream is encrypted (CENC or similar); not decoded")
            return nil
        }
        do {
            let decoder = try CodecContext(parameters: par, timeBase: avStream.pointee.time_base, threads: 1, keepPacketOrigin: true)
            decoders[stream.index] = decoder
            return decoder
        } catch {
            skip(stream, "cannot decode \(stream.codec): \(TextSanitizer.clean(error.message))")
            return nil
        }
    }

    /// Sends the reader's current packet and queues what comes out.
    private func decode(_ stream: InspectedStream) {
        guard let decoder = decoder(for: stream) else { return }
        let packet = reader.packet
        let record = PacketRecord(packet.pointer, stream: stream)
        if PacketRecord.isEncrypted(packet.pointer) {
            decoders[stream.index] = nil
            skip(stream, "the packets are encrypted (CENC or similar); not decoded")
            return
        }
        lastPacket[stream.index] = record
        var answers = 0
        while true {
            let result: CodecContext.SendResult
            do {
                result = try decoder.send(packet)
            } catch {
                failure(stream, error, record)
                receiveAll(decoder, stream)
                return
            }
            receiveAll(decoder, stream)
            if result == .accepted { return }
            answers += 1
            if answers >= FrameInspector.resendLimit {
                failure(stream, FFmpegError(code: aether_AVERROR_EAGAIN(), function: "avcodec_send_packet"), record)
                return
            }
        }
    }

    /// Receives every frame the decoder has ready.
    private func receiveAll(_ decoder: CodecContext, _ stream: InspectedStream) {
        var failures = 0
        while true {
            do {
                guard try decoder.receive(into: frame) else { return }
                pending.append(.frame(FrameRecord(frame.pointer, stream: stream)))
                frame.unref()
            } catch {
                failure(stream, error, lastPacket[stream.index])
                failures += 1
                if failures >= FrameInspector.receiveFailureLimit { return }
            }
        }
    }

    /// At the end of reading: flushes each decoder (a null packet) for its delayed frames.
    private func drainAll() {
        for index in decoders.keys.sorted() {
            guard let decoder = decoders[index], let stream = reader.streamInfo(index) else { continue }
            lastPacket[index] = nil
            do {
                _ = try decoder.send(nil)
            } catch {
                failure(stream, error, nil)
            }
            receiveAll(decoder, stream)
        }
    }

    private func failure(_ stream: InspectedStream, _ error: FFmpegError, _ packet: PacketRecord?) {
        pending.append(.decodeError(DecodeErrorRecord(
            stream: stream.index, kind: stream.kind, function: error.function,
            message: TextSanitizer.clean(error.message), code: error.code, packet: packet)))
    }
}
