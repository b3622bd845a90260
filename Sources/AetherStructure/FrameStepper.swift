import AetherBase
import AetherMedia
import AetherStreaming
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One decoded video frame as the inspector's frames tab shows it: the record (`probe --frames`'
/// fields), the picture, what it cost, and what went wrong on the way to it.
public struct SteppedFrame: Sendable {
    public let record: FrameRecord
    /// The picture, upright RGB24, at most the size asked for (tone-mapped for PQ/HLG, as stills are).
    public let still: StillImage
    /// Milliseconds spent decoding from the keyframe (or the previous frame) to this one.
    public let decodeMilliseconds: Double
    /// Packets sent to the decoder to get this frame (1 when stepping on within a GOP).
    public let packetsDecoded: Int
    /// Frame side data present (`av_frame_side_data_name`): HDR10+, Dolby Vision RPU, A53
    /// captions, motion vectors, mastering display…
    public let sideData: [String]
    /// Colour properties and the like, as name/value pairs.
    public let properties: [StructureField]
    /// Decode errors met on the way to this frame (function: message, at which packet).
    public let errors: [String]
}

/// Decodes chosen video frames of one stream for the inspector: the frame of a packet, then the
/// next or the previous one in presentation order. Its own demuxer and decoder (never the
/// player's); one thread drives it. Seeking to a packet lands on the keyframe at or before it and
/// decodes forward, so any frame can be reached; stepping back decodes its GOP again.
public final class FrameStepper {
    public let streamIndex: Int
    private let source: FormatContext
    private let stream: InspectedStream
    private let codec: CodecContext
    /// The picture as stills are made (``StillConverter``: tone-mapped for PQ/HLG).
    private let converter: StillConverter
    private let packet: Packet
    private let frame: Frame
    private let maxSize: PixelSize
    /// The decoder is positioned after `current` (frames come in order from here).
    private var current: Int64?
    /// The demuxer has no more packets of the stream: the decoder is being drained.
    private var ended = false
    /// The drain (a flush packet) was refused while frames were waiting: sent again after one.
    private var flushPending = false
    /// The drained decoder gave its last frame.
    private var drained = false
    /// `packet` was read but the decoder was full: it is sent after the next frame comes out.
    private var holding = false
    private var pendingErrors: [String] = []
    /// The open's and the reads' deadlines, and what a step's decode cost is measured on.
    private let clock: TimeSource
    /// Reads one step may make before it gives up (a damaged file with no frame of that stream).
    static let packetBudget = 20_000
    static let readTimeout = 10.0

    public init(url: String, stream index: Int, maxSize: PixelSize, options: [String: String] = [:],
                network: NetworkSettings, clock: TimeSource) throws(InspectionError) {
        self.clock = clock
        do {
            source = try FormatContext(url: url, options: options, timeout: Self.readTimeout, interrupt: InterruptToken(clock: clock),
                                       network: network)
        } catch { throw .cannotOpen(error) }
        guard let avStream = source.stream(index), let par = avStream.pointee.codecpar,
              par.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { throw .noSuchStream("\(index) (not a video stream)") }
        streamIndex = index
        stream = InspectedStream(avStream, index: index)
        self.maxSize = PixelSize(width: max(16, maxSize.width), height: max(16, maxSize.height))
        do {
            codec = try CodecContext(parameters: par, timeBase: avStream.pointee.time_base, threads: 1, keepPacketOrigin: true) { ctx in
                // Motion vectors travel as side data when asked for (H.264, MPEG-2/4): shown if present.
                ctx.pointee.flags2 |= AV_CODEC_FLAG2_EXPORT_MVS
            }
            converter = try StillConverter(stream: avStream, parameters: par)
            packet = try Packet()
            frame = try Frame()
        } catch { throw .ffmpeg(error) }
    }

    /// The frame whose pts is `pts` (stream ticks), or the first one after it when none has
    /// exactly that time (a packet with no pts: give its dts).
    public func frame(at pts: Int64) -> Result<SteppedFrame, InspectionError> {
        reposition(before: pts, inclusive: true)
        return decodeUntil { $0 >= pts }
    }

    /// The frame after the one shown last.
    public func next() -> Result<SteppedFrame, InspectionError> {
        guard let current else { return .failure(InspectionError("no frame shown yet")) }
        if drained { return .failure(InspectionError("the stream ends here")) }
        return decodeUntil { $0 > current }
    }

    /// The frame before the one shown last: the GOP is decoded again up to it.
    public func previous() -> Result<SteppedFrame, InspectionError> {
        guard let target = current else { return .failure(InspectionError("no frame shown yet")) }
        // Frames of the keyframe's GOP before `target`: the last one wins. If the GOP starts at
        // `target`, the seek goes one more GOP back.
        var seekTo = target
        for _ in 0..<4 {
            reposition(before: seekTo, inclusive: false)
            var best: SteppedFrame?
            var bestPTS: Int64?
            let started = Stopwatch(clock: clock)
            var sent = 0
            while let got = decodeOne(sent: &sent), got.pts < target {
                if case .success(let f) = got.result { best = f; bestPTS = got.pts }
            }
            if let best, let bestPTS {
                // The decoder went past the chosen frame looking for the next one: put it back
                // just after the chosen frame, so that the next step is the one after it.
                reposition(before: bestPTS, inclusive: true)
                _ = skipUntil(bestPTS)
                current = bestPTS
                return .success(SteppedFrame(record: best.record, still: best.still,
                                             decodeMilliseconds: Double(started.nanoseconds) / 1e6,
                                             packetsDecoded: sent, sideData: best.sideData,
                                             properties: best.properties, errors: best.errors))
            }
            // Nothing before `target` in that GOP: one GOP further back.
            guard seekTo > Int64.min / 2 else { break }
            seekTo = max(Int64.min / 2, seekTo - max(1, ticks(seconds: 1)))
        }
        return .failure(InspectionError("this is the first frame"))
    }

    // MARK: decoding

    private func ticks(seconds: Double) -> Int64 {
        guard stream.timeBase.isUsable else { return 1 }
        return InspectionMath.int64(seconds * Double(stream.timeBase.den) / Double(stream.timeBase.num))
    }

    /// Seeks to the keyframe at or before `pts` (strictly before with `inclusive == false`).
    private func reposition(before pts: Int64, inclusive: Bool) {
        let target = inclusive ? pts : pts &- 1
        source.interrupt.arm(seconds: Self.readTimeout)
        defer { source.interrupt.arm(seconds: nil) }
        if avformat_seek_file(source.pointer, Int32(streamIndex), Int64.min, target, target, 0) < 0 {
            _ = avformat_seek_file(source.pointer, Int32(streamIndex), Int64.min, target, target, AVSEEK_FLAG_BACKWARD)
        }
        codec.flush()
        converter.reset()
        if holding { packet.unref(); holding = false }
        current = nil
        ended = false
        flushPending = false
        drained = false
    }

    /// Decodes until a frame with `accept(pts)` comes; that frame is converted and returned.
    private func decodeUntil(_ accept: (Int64) -> Bool) -> Result<SteppedFrame, InspectionError> {
        let started = Stopwatch(clock: clock)
        var sent = 0
        while let got = decodeOne(sent: &sent) {
            guard accept(got.pts) else { continue }
            current = got.pts
            switch got.result {
            case .success(let f):
                return .success(SteppedFrame(record: f.record, still: f.still,
                                             decodeMilliseconds: Double(started.nanoseconds) / 1e6,
                                             packetsDecoded: sent, sideData: f.sideData, properties: f.properties,
                                             errors: f.errors))
            case .failure(let e): return .failure(e)
            }
        }
        let errors = pendingErrors
        pendingErrors = []
        return .failure(InspectionError(errors.last.map { "no frame: \($0)" } ?? (ended ? "the stream ends here" : "no frame decoded")))
    }

    /// Decodes on to `pts` without converting pictures (after a step back).
    private func skipUntil(_ pts: Int64) -> Bool {
        var sent = 0
        while let got = decodeOne(sent: &sent, convert: false) { if got.pts >= pts { return true } }
        return false
    }

    /// The next frame out of the decoder (reading and sending packets as needed), with its pts
    /// (best effort, else the packet's dts) and the converted frame; nil at the end or when the
    /// read budget is spent.
    private func decodeOne(sent: inout Int, convert: Bool = true) -> (pts: Int64, result: Result<SteppedFrame, InspectionError>)? {
        var reads = 0
        while reads < Self.packetBudget {
            do {
                if try codec.receive(into: frame) {
                    defer { frame.unref() }
                    let raw = frame.pointer.pointee
                    let pts = InspectionMath.timestamp(raw.best_effort_timestamp) ?? InspectionMath.timestamp(raw.pkt_dts)
                        ?? (current.map { $0 &+ 1 } ?? 0)
                    return (pts, convert ? convertFrame() : .failure(InspectionError("skipped")))
                }
            } catch {
                note("\(error.function): \(TextSanitizer.clean(error.message))")
            }
            if holding {
                // The decoder was full when this packet came: it goes in now that a frame is out.
                holding = false
                defer { packet.unref() }
                do {
                    if try codec.send(packet) == .full { note("the decoder takes no packet and gives no frame") }
                } catch { note("\(error.function): \(TextSanitizer.clean(error.message))\(packetPlace)") }
                continue
            }
            if ended {
                // The decoder holds frames it reorders (B frames): a flush packet refused while
                // they waited goes in now; once it is in, no frame means the last one was out.
                if flushPending, (try? codec.send(nil)) != .full { flushPending = false; continue }
                if !flushPending { drained = true }
                return nil
            }
            reads += 1
            source.interrupt.arm(seconds: Self.readTimeout)
            let more: Bool
            do { more = try source.read(into: packet) } catch {
                note("read: \(TextSanitizer.clean(error.message))")
                more = false
            }
            source.interrupt.arm(seconds: nil)
            guard more else {
                ended = true
                flushPending = (try? codec.send(nil)) == .full
                continue
            }
            guard packet.streamIndex == streamIndex else { packet.unref(); continue }
            sent += 1
            do {
                if try codec.send(packet) == .full { holding = true; continue }
            } catch { note("\(error.function): \(TextSanitizer.clean(error.message))\(packetPlace)") }
            packet.unref()
        }
        note("no frame of stream \(streamIndex) within \(Self.packetBudget) packets")
        return nil
    }

    /// A decode error, kept for the frame it happened on the way to (the last 64).
    private func note(_ error: String) {
        pendingErrors.append(error)
        if pendingErrors.count > 64 { pendingErrors.removeFirst() }
    }

    private var packetPlace: String {
        packet.pointer.pointee.pos >= 0 ? " (packet at byte \(packet.pointer.pointee.pos))" : ""
    }

    /// The frame in `frame` as a stepped frame.
    private func convertFrame() -> Result<SteppedFrame, InspectionError> {
        let record = FrameRecord(frame.pointer, stream: stream)
        let f = frame.pointer.pointee
        guard f.width > 0, f.height > 0, f.width <= 16384, f.height <= 16384 else {
            return .failure(InspectionError("the frame's size \(f.width)×\(f.height) cannot be shown"))
        }
        let still: StillImage
        do {
            still = try converter.still(of: frame, seconds: record.times.ptsTime ?? 0, maxWidth: maxSize.width, maxHeight: maxSize.height)
        } catch {
            return .failure(InspectionError("cannot convert the frame: \(error)"))
        }
        var sar = f.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = converter.parameters.pointee.sample_aspect_ratio }
        var side: [String] = []
        if let data = f.side_data, f.nb_side_data > 0 {
            for i in 0..<min(Int(f.nb_side_data), 32) {
                guard let entry = data[i] else { continue }
                side.append(TextSanitizer.clean(av_frame_side_data_name(entry.pointee.type).map { String(cString: $0) } ?? "unknown"))
            }
        }
        func name(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "unknown" }
        let properties = [
            StructureField("size", "\(f.width)×\(f.height)"),
            StructureField("sample aspect", "\(sar.num):\(sar.den)"),
            StructureField("primaries", name(av_color_primaries_name(f.color_primaries))),
            StructureField("transfer", name(av_color_transfer_name(f.color_trc))),
            StructureField("matrix", name(av_color_space_name(f.colorspace))),
            StructureField("range", name(av_color_range_name(f.color_range))),
            StructureField("chroma location", name(av_chroma_location_name(f.chroma_location))),
        ]
        let errors = pendingErrors
        pendingErrors = []
        return .success(SteppedFrame(record: record, still: still, decodeMilliseconds: 0, packetsDecoded: 0,
                                     sideData: side, properties: properties, errors: errors))
    }
}
