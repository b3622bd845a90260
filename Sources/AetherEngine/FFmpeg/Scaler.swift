import CFFmpeg

/// Owns a `SwsContext` converting frames to packed RGB at a requested size; rebuilt when the
/// source or destination geometry changes. Freed exactly once.
public final class Scaler {
    private var context: OpaquePointer?
    private var key: (Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, -1, 0, 0, -1)
    public let flags: Int32

    public init(flags: Int32 = SWS_BILINEAR) { self.flags = flags }

    deinit { sws_freeContext(context) }

    /// Uses the frame's own matrix and range for YUV→RGB (libswscale defaults to BT.601 limited,
    /// which tints HD sources). The corresponding C function is `sws_setColorspaceDetails`.
    private static func applyColorspace(_ context: OpaquePointer, from frame: UnsafeMutablePointer<AVFrame>) {
        var space = frame.pointee.colorspace
        if space == AVCOL_SPC_UNSPECIFIED || space == AVCOL_SPC_RGB {
            space = frame.pointee.height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        }
        let fullRange: Int32 = frame.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        guard let coefficients = sws_getCoefficients(Int32(space.rawValue)) else { return }
        let table = sws_getCoefficients(Int32(SWS_CS_DEFAULT))
        sws_setColorspaceDetails(context, coefficients, fullRange, table, 1, 0, 1 << 16, 1 << 16)
    }

    /// Scales `frame` into `destination` (tightly packed, `bytesPerPixel` × width × height).
    /// The corresponding C functions are `sws_getCachedContext` and `sws_scale`.
    public func scale(_ frame: Frame, width: Int, height: Int, format: AVPixelFormat,
                      into destination: UnsafeMutablePointer<UInt8>, stride: Int) throws(FFmpegError) {
        let src = frame.pointer
        let newKey = (src.pointee.width, src.pointee.height, src.pointee.format,
                      Int32(width), Int32(height), format.rawValue)
        if context == nil || newKey != key {
            context = sws_getCachedContext(context, src.pointee.width, src.pointee.height,
                                           AVPixelFormat(src.pointee.format), Int32(width), Int32(height),
                                           format, flags, nil, nil, nil)
            key = newKey
            if let context { Scaler.applyColorspace(context, from: src) }
        }
        guard let context else {
            throw FFmpegError(function: "sws_getCachedContext", message: "unsupported conversion")
        }
        var dstData: [UnsafeMutablePointer<UInt8>?] = [destination, nil, nil, nil]
        var dstStride: [Int32] = [Int32(stride), 0, 0, 0]
        let srcData = withUnsafePointer(to: &src.pointee.data) {
            $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { Array(UnsafeBufferPointer(start: $0, count: 8)) }
        }
        let srcStride = withUnsafePointer(to: &src.pointee.linesize) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { Array(UnsafeBufferPointer(start: $0, count: 8)) }
        }
        let rows = sws_scale(context, srcData, srcStride, 0, src.pointee.height, &dstData, &dstStride)
        if rows <= 0 { throw FFmpegError(code: rows < 0 ? rows : aether_AVERROR(EINVAL), function: "sws_scale") }
    }
}
