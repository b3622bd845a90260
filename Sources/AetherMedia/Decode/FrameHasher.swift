import CFFmpeg

/// Decodes a source's primary video stream the way playback does (same decoder choice, same
/// threading) and hashes each frame's pixels exactly as `ffmpeg -f framemd5` does: MD5 over the
/// planes packed with alignment 1 (`av_image_copy_to_buffer`). Used to prove decoding is bit-exact.
public enum FrameHasher {
    public struct Hash: Sendable, Equatable {
        public let pts: Int64
        public let md5: String
        public let pixelFormat: String
    }

    /// `clock`: the open's deadline.
    public static func hashes(url: String, threads: Int = 0, clock: TimeSource) throws(FFmpegError) -> [Hash] {
        let format = try FormatContext(url: url, interrupt: InterruptToken(clock: clock))
        let info = try MediaProbe.probe(format)
        guard let index = info.primaryVideo?.index, let stream = format.stream(index), let par = stream.pointee.codecpar else {
            throw FFmpegError(function: "av_find_best_stream", message: "no video stream")
        }
        let codec = try CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: threads)
        let packet = try Packet()
        let frame = try Frame()
        var out: [Hash] = []
        var buffer: [UInt8] = []
        func drain() throws(FFmpegError) {
            while try codec.receive(into: frame) {
                out.append(hash(frame, &buffer))
                frame.unref()
            }
        }
        while try format.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            while try codec.send(packet) == .full { try drain() }
            try drain()
        }
        _ = try codec.send(nil)
        try drain()
        return out
    }

    private static func hash(_ frame: Frame, _ buffer: inout [UInt8]) -> Hash {
        let f = frame.pointer
        let format = AVPixelFormat(f.pointee.format)
        let size = Int(av_image_get_buffer_size(format, f.pointee.width, f.pointee.height, 1))
        if buffer.count < size { buffer = [UInt8](repeating: 0, count: max(0, size)) }
        var digest = [UInt8](repeating: 0, count: 16)
        buffer.withUnsafeMutableBufferPointer { buf in
            withUnsafePointer(to: &f.pointee.data) { data in
                withUnsafePointer(to: &f.pointee.linesize) { lines in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planes in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                            _ = av_image_copy_to_buffer(buf.baseAddress, Int32(size), planes, strides, format,
                                                        f.pointee.width, f.pointee.height, 1)
                        }
                    }
                }
            }
            av_md5_sum(&digest, buf.baseAddress, size)
        }
        let hex = digest.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "?"
        return Hash(pts: frame.pts ?? 0, md5: hex, pixelFormat: name)
    }
}
