import CFFmpeg

/// A decoded picture, converted to packed RGB24 at the size the host asked for.
public struct VideoFrame: Sendable {
    /// Presentation time in media seconds.
    public let pts: Double
    /// Nominal display duration (one frame interval).
    public let duration: Double
    public let width: Int
    public let height: Int
    /// RGB24, `width * 3` bytes per row; empty when the host asked for no pixels (`--vo=null`).
    public let pixels: [UInt8]
    /// Seek generation this frame belongs to.
    let serial: Int
    public var hasPixels: Bool { !pixels.isEmpty }
}

/// Pixel dimensions the host wants frames scaled to.
public struct PixelSize: Sendable, Equatable, Hashable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Decodes one video stream and converts frames for the host: deinterlaces from the first
/// interlaced frame (bwdif, yadif fallback), tone-maps PQ/HLG to SDR BT.709 (zscale + tonemap),
/// scales with libswscale. Used by the video thread only.
final class VideoDecoder {
    let codec: CodecContext
    let streamIndex: Int
    let timeBase: AVRational
    let frameInterval: Double
    let transfer: AVColorTransferCharacteristic
    private var deinterlacer: FilterGraph?
    private var deinterlaceFailed = false
    private var toneMapper: (graph: FilterGraph, size: PixelSize)?
    private let scaler = Scaler()
    private let frame: Frame
    private let filtered: Frame
    private let mapped: Frame
    public private(set) var isDeinterlacing = false

    var isHDR: Bool { transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67 }

    init(stream: UnsafeMutablePointer<AVStream>, index: Int, threads: Int) throws(FFmpegError) {
        guard let par = stream.pointee.codecpar else {
            throw FFmpegError(function: "avcodec_parameters", message: "stream \(index) has no parameters")
        }
        codec = try CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: threads)
        streamIndex = index
        timeBase = stream.pointee.time_base
        transfer = par.pointee.color_trc
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        frameInterval = rate.num > 0 && rate.den > 0 ? min(1, Double(rate.den) / Double(rate.num)) : 1.0 / 25
        frame = try Frame()
        filtered = try Frame()
        mapped = try Frame()
    }

    /// Drops decoder and filter state (after a seek).
    func flush() {
        codec.flush()
        if deinterlacer != nil { deinterlacer = nil }  // rebuilt on the next interlaced frame
        toneMapper = nil
    }

    /// Sends `packet` (nil = drain) and calls `emit` with each finished frame and its pts in seconds.
    func decode(_ packet: Packet?, emit: (Frame, Double) throws -> Void) throws {
        var pending = true
        while pending {
            pending = try codec.send(packet) == .full
            while try codec.receive(into: frame) {
                defer { frame.unref() }
                try deliver(frame, emit: emit)
            }
        }
        if packet == nil, let deinterlacer {
            try? deinterlacer.push(nil)
            while try deinterlacer.pull(into: filtered) {
                defer { filtered.unref() }
                if let pts = seconds(filtered.pts, deinterlacer.outputTimeBase) { try emit(filtered, pts) }
            }
        }
    }

    private func deliver(_ decoded: Frame, emit: (Frame, Double) throws -> Void) throws {
        if decoded.isInterlaced, deinterlacer == nil, !deinterlaceFailed {
            deinterlacer = (try? FilterGraph(video: "bwdif=mode=send_frame:parity=auto:deint=interlaced", like: decoded, timeBase: timeBase))
                ?? (try? FilterGraph(video: "yadif=mode=send_frame:parity=auto:deint=interlaced", like: decoded, timeBase: timeBase))
            deinterlaceFailed = deinterlacer == nil
            isDeinterlacing = deinterlacer != nil
            if let d = deinterlacer { FFmpegLog.write("vd", "deinterlacing with \(d.description)") }
        }
        guard let deinterlacer else {
            if let pts = seconds(decoded.pts, timeBase) { try emit(decoded, pts) }
            return
        }
        try deinterlacer.push(decoded)
        while try deinterlacer.pull(into: filtered) {
            defer { filtered.unref() }
            // Untimestamped output fields are dropped (as AetherEngine does).
            if let pts = seconds(filtered.pts, deinterlacer.outputTimeBase) { try emit(filtered, pts) }
        }
    }

    /// Converts `decoded` to RGB24 at `size`, tone-mapping HDR sources first.
    func render(_ decoded: Frame, size: PixelSize, into pixels: inout [UInt8]) throws(FFmpegError) {
        pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
        if isHDR {
            if toneMapper == nil || toneMapper?.size != size {
                let npl = transfer == AVCOL_TRC_ARIB_STD_B67 ? 1000 : 100
                let chain = "scale=w=\(size.width):h=\(size.height):flags=bilinear,"
                    + "zscale=t=linear:npl=\(npl),format=gbrpf32le,zscale=p=bt709,"
                    + "tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=rgb24"
                toneMapper = (try FilterGraph(video: chain, like: decoded, timeBase: timeBase), size)
            }
            if let graph = toneMapper?.graph {
                try graph.push(decoded)
                if try graph.pull(into: mapped) {
                    defer { mapped.unref() }
                    copyPacked(mapped, size: size, into: &pixels)
                    return
                }
            }
        }
        try pixels.withUnsafeMutableBufferPointer { buf throws(FFmpegError) in
            guard let base = buf.baseAddress else { return }
            try scaler.scale(decoded, width: size.width, height: size.height, format: AV_PIX_FMT_RGB24,
                             into: base, stride: size.width * 3)
        }
    }

    private func copyPacked(_ f: Frame, size: PixelSize, into pixels: inout [UInt8]) {
        let src = f.pointer.pointee
        guard let data = src.data.0, src.width == size.width, src.height == size.height else { return }
        let rowBytes = size.width * 3
        pixels.withUnsafeMutableBytes { dst in
            for y in 0..<size.height {
                (dst.baseAddress! + y * rowBytes).copyMemory(from: data + y * Int(src.linesize.0), byteCount: rowBytes)
            }
        }
    }

    private func seconds(_ pts: Int64?, _ tb: AVRational) -> Double? {
        guard let pts, tb.den > 0 else { return nil }
        return Double(pts) * Double(tb.num) / Double(tb.den)
    }
}
