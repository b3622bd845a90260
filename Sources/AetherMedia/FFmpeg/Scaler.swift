import CFFmpeg

/// Owns the `SwsContext`s (one per pass, each freed exactly once by its ``Pass``) converting
/// frames to packed RGB at a requested size; rebuilt when the source or destination geometry
/// changes.
public final class Scaler {
    public let flags: Int32

    public init(flags: Int32 = SWS_BILINEAR) {
        self.flags = flags
        twoPass = true
    }

    /// The most accurate conversion libswscale makes (bicubic, chroma interpolated to every
    /// pixel, exact rounding), in one pass: for stills and as the reference pictures are
    /// measured against.
    public static func reference() -> Scaler { Scaler(flags: accurateFlags, twoPass: false) }

    /// Bicubic, chroma interpolated to every pixel, exact rounding: stills and the reference.
    public static let accurateFlags: Int32 = SWS_BICUBIC | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP | SWS_ACCURATE_RND

    /// Whether subsampled YUV is scaled in its own format first (fast; see ``scale(_:width:height:format:into:stride:)``).
    private let twoPass: Bool

    public init(flags: Int32, twoPass: Bool) {
        self.flags = flags
        self.twoPass = twoPass
    }

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
    ///
    /// A subsampled YUV source that changes size on its way to RGB goes in two passes: scaled
    /// in its own format (libswscale's vectorised YUV scalers), then converted at the new size
    /// (its vectorised unscaled YUV→RGB path). Scaling straight to packed RGB takes libswscale's
    /// generic output path: on 1080p grain → 1280×720 RGB24 the two passes cost 4.6 ms per
    /// frame against 11.7 ms in one (ffmpeg -benchmark, one thread, same filters).
    public func scale(_ frame: Frame, width: Int, height: Int, format: AVPixelFormat,
                      into destination: UnsafeMutablePointer<UInt8>, stride: Int) throws(FFmpegError) {
        let src = frame.pointer
        let sourceFormat = AVPixelFormat(src.pointee.format)
        if twoPass, Self.scalesInTwoPasses(from: sourceFormat, to: format),
           src.pointee.width != Int32(width) || src.pointee.height != Int32(height) {
            // A picture no larger than the source's chroma planes (the cell outputs' small
            // pictures) is scaled to 4:4:4, every pixel its own chroma, averaged over its area:
            // staged in 4:2:0 its chroma would be half its resolution again and every pair of
            // rows would share one (3.3 dB lost on grain at 160×96). Larger pictures keep the
            // source's subsampling and the filter asked for.
            let small = Self.isSmall(width: width, height: height, source: src)
            let stagedFormat = small ? AV_PIX_FMT_YUV444P : sourceFormat
            let staged = try stage(width: width, height: height, format: stagedFormat)
            try resize.run(src, to: staged.pointer, width: width, height: height, format: stagedFormat,
                           flags: small ? SWS_AREA : flags, colorspaceFrom: nil)
            staged.pointer.pointee.colorspace = src.pointee.colorspace
            staged.pointer.pointee.color_range = src.pointee.color_range
            try convert.run(staged.pointer, to: destination, stride: stride, width: width, height: height,
                            format: format, flags: Self.convertFlags(flags, width: width), colorspaceFrom: src)
            return
        }
        try convert.run(src, to: destination, stride: stride, width: width, height: height, format: format,
                        flags: Self.convertFlags(flags, width: width), colorspaceFrom: src)
    }

    /// libswscale's vectorised YUV → RGB output draws whole groups of 8 pixels and leaves a row's
    /// last `width % 8` pixels unwritten (black in the player: seen at 1015 and 1223 px, sixel
    /// pictures in foot and xterm; full chroma interpolation alone still left them). Other widths
    /// take the exact C path, which draws every pixel (and interpolates chroma).
    static func convertFlags(_ flags: Int32, width: Int) -> Int32 {
        width % 8 == 0 ? flags : flags | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND
    }

    private let resize = Pass()
    private let convert = Pass()
    /// The intermediate picture of a two-pass scale (reallocated when its size or format changes).
    private var staging: Frame?

    private func stage(width: Int, height: Int, format: AVPixelFormat) throws(FFmpegError) -> Frame {
        if let staging, staging.width == width, staging.height == height,
           staging.pointer.pointee.format == format.rawValue {
            return staging
        }
        let f = try Frame()
        f.pointer.pointee.width = Int32(width)
        f.pointer.pointee.height = Int32(height)
        f.pointer.pointee.format = format.rawValue
        let rc = av_frame_get_buffer(f.pointer, 0)
        if rc < 0 { throw FFmpegError(code: rc, function: "av_frame_get_buffer") }
        staging = f
        return f
    }

    /// At most the size of the source's chroma planes (half the luma size each way for 4:2:0).
    static func isSmall(width: Int, height: Int, source: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard let d = av_pix_fmt_desc_get(AVPixelFormat(source.pointee.format)) else { return false }
        let chromaWidth = Int(source.pointee.width) >> Int(d.pointee.log2_chroma_w)
        let chromaHeight = Int(source.pointee.height) >> Int(d.pointee.log2_chroma_h)
        return width <= chromaWidth && height <= chromaHeight
    }

    /// 8-bit subsampled YUV (4:2:0, 4:2:2, 4:1:1) to RGB.
    static func scalesInTwoPasses(from source: AVPixelFormat, to destination: AVPixelFormat) -> Bool {
        guard let s = av_pix_fmt_desc_get(source), let d = av_pix_fmt_desc_get(destination) else { return false }
        let rgb = UInt64(AV_PIX_FMT_FLAG_RGB)
        return s.pointee.flags & rgb == 0 && d.pointee.flags & rgb != 0
            && s.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0
            && (s.pointee.log2_chroma_w > 0 || s.pointee.log2_chroma_h > 0)
            && s.pointee.comp.0.depth == 8
    }

    /// One `SwsContext`, rebuilt when either side's geometry changes.
    private final class Pass {
        private var context: OpaquePointer?
        private var key: (Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, -1, 0, 0, -1)

        deinit { sws_freeContext(context) }

        /// Into a frame's planes.
        func run(_ src: UnsafeMutablePointer<AVFrame>, to dst: UnsafeMutablePointer<AVFrame>, width: Int, height: Int,
                 format: AVPixelFormat, flags: Int32, colorspaceFrom: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
            var dstData = withUnsafePointer(to: &dst.pointee.data) {
                $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { Array(UnsafeBufferPointer(start: $0, count: 4)) }
            }
            var dstStride = withUnsafePointer(to: &dst.pointee.linesize) {
                $0.withMemoryRebound(to: Int32.self, capacity: 8) { Array(UnsafeBufferPointer(start: $0, count: 4)) }
            }
            try run(src, dstData: &dstData, dstStride: &dstStride, width: width, height: height, format: format,
                    flags: flags, colorspaceFrom: colorspaceFrom)
        }

        /// Into packed pixels.
        func run(_ src: UnsafeMutablePointer<AVFrame>, to destination: UnsafeMutablePointer<UInt8>, stride: Int,
                 width: Int, height: Int, format: AVPixelFormat, flags: Int32,
                 colorspaceFrom: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
            var dstData: [UnsafeMutablePointer<UInt8>?] = [destination, nil, nil, nil]
            var dstStride: [Int32] = [Int32(stride), 0, 0, 0]
            try run(src, dstData: &dstData, dstStride: &dstStride, width: width, height: height, format: format,
                    flags: flags, colorspaceFrom: colorspaceFrom)
        }

        private func run(_ src: UnsafeMutablePointer<AVFrame>, dstData: inout [UnsafeMutablePointer<UInt8>?],
                         dstStride: inout [Int32], width: Int, height: Int, format: AVPixelFormat, flags: Int32,
                         colorspaceFrom: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
            let newKey = (src.pointee.width, src.pointee.height, src.pointee.format,
                          Int32(width), Int32(height), format.rawValue)
            if context == nil || newKey != key {
                context = sws_getCachedContext(context, src.pointee.width, src.pointee.height,
                                               AVPixelFormat(src.pointee.format), Int32(width), Int32(height),
                                               format, flags, nil, nil, nil)
                key = newKey
                if let context, let colorspaceFrom { Scaler.applyColorspace(context, from: colorspaceFrom) }
            }
            guard let context else {
                throw FFmpegError(function: "sws_getCachedContext", message: "unsupported conversion")
            }
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
}
