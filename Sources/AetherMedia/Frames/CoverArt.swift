import AetherBase
import CFFmpeg

/// The picture a source carries as its cover (an `AV_DISPOSITION_ATTACHED_PIC` stream: ID3
/// `APIC`, FLAC `PICTURE`, MP4 `covr`, a Matroska image attachment), decoded once, on first use,
/// to an upright RGB24 ``StillImage`` no larger than ``maxEdge``.
///
/// Made when a source is opened (``take(from:)``), on the opening thread, before the session's
/// threads start: it copies a reference to the stream's `attached_pic` packet and the stream's
/// codec parameters, so decoding later touches neither the demuxer nor its streams. An attached
/// picture is never a playing video stream: ``MediaProbe`` lists it among the attachments, and
/// the demux thread drops the packet libavformat queues for it after the open and each seek.
package final class CoverArt: Sendable {
    /// Longest edge handed out (a 3000 px scan would cost 27 MB as RGB for a picture shown in a
    /// corner of a terminal); the host scales it to its cells.
    static let maxEdge = 1024

    /// The stream the picture came from.
    let streamIndex: Int
    /// The packet and codec parameters until the first decode (used only with the lock held),
    /// then the picture.
    private let state: Guarded<State>

    private enum State {
        case pending(packet: Packet, parameters: CodecParameters, timeBase: AVRational)
        case decoded(StillImage?)
    }

    private init(streamIndex: Int, packet: Packet, parameters: CodecParameters, timeBase: AVRational) {
        self.streamIndex = streamIndex
        state = Guarded(.pending(packet: packet, parameters: parameters, timeBase: timeBase))
    }

    /// The cover of `format`: the attached picture whose ID3/FLAC picture type says "front
    /// cover", else the first attached picture; nil when there is none (or it is empty).
    package static func take(from format: FormatContext) -> CoverArt? {
        var chosen: Int?
        for index in 0..<format.streamCount {
            guard let stream = format.stream(index), stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
                  stream.pointee.attached_pic.size > 0, stream.pointee.codecpar != nil else { continue }
            if chosen == nil { chosen = index }
            if MediaProbe.tag(stream.pointee.metadata, "comment")?.lowercased() == "cover (front)" {
                chosen = index
                break
            }
        }
        guard let index = chosen, let stream = format.stream(index), let par = stream.pointee.codecpar,
              let packet = try? Packet(), let parameters = try? CodecParameters(copying: par) else { return nil }
        // A new reference to the same buffer: the stream keeps its own, ours is freed with `packet`.
        guard av_packet_ref(packet.pointer, &stream.pointee.attached_pic) >= 0 else { return nil }
        return CoverArt(streamIndex: index, packet: packet, parameters: parameters, timeBase: stream.pointee.time_base)
    }

    /// The decoded picture; the first call decodes (a few milliseconds), later ones return it.
    /// Nil when it cannot be decoded (the reason goes to the log once).
    package var image: StillImage? {
        state.withLock { state in
            guard case .pending(let packet, let parameters, let timeBase) = state else {
                if case .decoded(let image) = state { return image }
                return nil
            }
            let image: StillImage?
            do { image = try Self.decode(packet, parameters, timeBase) } catch {
                AppLog.write("cover", "cannot decode the cover art (stream #\(streamIndex)): \(error)")
                image = nil
            }
            state = .decoded(image)
            return image
        }
    }

    private static func decode(_ packet: Packet, _ parameters: CodecParameters, _ timeBase: AVRational) throws -> StillImage? {
        let codec = try CodecContext(parameters: parameters.pointer, timeBase: timeBase, threads: 1)
        let frame = try Frame()
        _ = try codec.send(packet)
        _ = try codec.send(nil)
        guard try codec.receive(into: frame) else { return nil }
        let f = frame.pointer.pointee
        guard f.width > 0, f.height > 0 else { return nil }
        var sar = f.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = parameters.pointer.pointee.sample_aspect_ratio }
        let geometry = StillGeometry(codedWidth: Int(f.width), codedHeight: Int(f.height),
                                     sampleAspect: sar.num > 0 && sar.den > 0 ? Double(sar.num) / Double(sar.den) : 1,
                                     rotation: 0)
        let size = geometry.outputSize(maxWidth: Self.maxEdge, maxHeight: Self.maxEdge)
        let buffer = PixelBuffer(count: size.width * size.height * 3)
        try Scaler(flags: Scaler.area).scale(frame, width: size.width, height: size.height, format: AV_PIX_FMT_RGB24,
                                          into: buffer.base, stride: size.width * 3)
        return StillImage(width: size.width, height: size.height, pixels: buffer.copyBytes(), seconds: 0, isKeyframe: true)
    }
}

/// Owns a copy of an `AVCodecParameters`; freed exactly once.
/// The corresponding C functions are `avcodec_parameters_alloc`, `_copy` and `_free`.
package final class CodecParameters {
    package let pointer: UnsafeMutablePointer<AVCodecParameters>

    init(copying source: UnsafePointer<AVCodecParameters>) throws(FFmpegError) {
        guard let p = avcodec_parameters_alloc() else { throw .outOfMemory("avcodec_parameters_alloc") }
        pointer = p
        // From here on deinit frees the copy, whatever happens.
        try check(avcodec_parameters_copy(p, source), "avcodec_parameters_copy")
    }

    /// Empty parameters naming only the codec (the decoder reads the rest from the bitstream:
    /// a JPEG or PNG file).
    package init(codec: AVCodecID, type: AVMediaType) throws(FFmpegError) {
        guard let p = avcodec_parameters_alloc() else { throw .outOfMemory("avcodec_parameters_alloc") }
        pointer = p
        p.pointee.codec_type = type
        p.pointee.codec_id = codec
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&doomed)
    }
}
