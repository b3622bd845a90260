import CFFmpeg

/// Owns the `SwsContext`s (one per pass, each freed exactly once by its ``Pass``) converting
/// frames to packed RGB at a requested size; rebuilt when the source or destination geometry
/// changes.
public final class Scaler {
    public let flags: Int32

    /// libswscale's flags, the same type on every FFmpeg (an enum from FFmpeg 8 on: CFFmpeg).
    public static let bilinear = aether_sws_bilinear()
    public static let bicubic = aether_sws_bicubic()
    public static let area = aether_sws_area()
    static let fullChromaInterpolation = aether_sws_full_chroma_interpolation()
    static let fullChromaInput = aether_sws_full_chroma_input()
    static let accurateRounding = aether_sws_accurate_rounding()

    public init(flags: Int32 = Scaler.bilinear, eightBitStaging: Staging = Scaler.standardEightBit) {
        self.flags = flags
        twoPass = true
        self.eightBitStaging = eightBitStaging
    }

    /// The most accurate conversion libswscale makes (bicubic, chroma interpolated to every
    /// pixel, exact rounding), in one pass: for stills and as the reference pictures are
    /// measured against.
    public static func reference() -> Scaler { Scaler(flags: accurateFlags, twoPass: false) }

    /// Bicubic, chroma interpolated to every pixel, exact rounding: stills and the reference.
    public static let accurateFlags: Int32 = bicubic | fullChromaInterpolation | fullChromaInput | accurateRounding

    /// Whether subsampled YUV is scaled in its own format first (fast; see ``scale(_:width:height:format:into:stride:)``).
    private let twoPass: Bool

    public init(flags: Int32, twoPass: Bool) {
        self.flags = flags
        self.twoPass = twoPass
        eightBitStaging = Scaler.standardEightBit
    }

    /// How a resized 8-bit subsampled source is staged (``Staging``).
    public let eightBitStaging: Staging

    /// Uses the frame's own matrix and range for YUV→RGB (libswscale defaults to BT.601 limited,
    /// which tints HD sources). The corresponding C function is `sws_setColorspaceDetails`.
    private static func applyColorspace(_ context: UnsafeMutableRawPointer, from frame: UnsafeMutablePointer<AVFrame>) {
        var space = frame.pointee.colorspace
        if space == AVCOL_SPC_UNSPECIFIED || space == AVCOL_SPC_RGB {
            space = frame.pointee.height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        }
        let fullRange: Int32 = frame.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        guard let coefficients = sws_getCoefficients(Int32(space.rawValue)) else { return }
        let table = sws_getCoefficients(Int32(SWS_CS_DEFAULT))
        aether_sws_set_colorspace_details(context, coefficients, fullRange, table, 1, 0, 1 << 16, 1 << 16)
    }

    /// Scales `frame` into `destination` (tightly packed, `bytesPerPixel` × width × height).
    /// The corresponding C functions are `sws_getCachedContext` and `sws_scale`.
    ///
    /// A subsampled YUV source that changes size on its way to RGB goes in two passes. An 8-bit
    /// one is scaled in its own format (libswscale's vectorised YUV scalers), then converted at
    /// the new size (its vectorised unscaled YUV→RGB path). Scaling straight to packed RGB takes
    /// libswscale's generic output path: on 1080p grain → 1280×720 RGB24 the two passes cost
    /// 4.6 ms per frame against 11.7 ms in one (ffmpeg -benchmark, one thread, same filters).
    /// A deeper one (10-bit HEVC, AV1) is scaled and converted into planar 8-bit RGB, then
    /// packed: 4K Main10 → 1280×720 (area, as a small picture), 5.6 ms against 9.8 ms in one
    /// pass, and 46.1 dB against the most accurate conversion where one pass made 31.5 dB (its
    /// chroma; 30 frames of the 4K60 fixture, ffmpeg's filters, one thread).
    public func scale(_ frame: Frame, width: Int, height: Int, format: AVPixelFormat,
                      into destination: UnsafeMutablePointer<UInt8>, stride: Int) throws(FFmpegError) {
        let src = frame.pointer
        let sourceFormat = AVPixelFormat(src.pointee.format)
        if twoPass, src.pointee.width != Int32(width) || src.pointee.height != Int32(height),
           let staging = Self.staging(from: sourceFormat, to: format, eightBit: eightBitStaging) {
            // A picture no larger than the source's chroma planes (the cell outputs' small
            // pictures) is averaged over its area; from 8-bit YUV it is staged in 4:4:4, every
            // pixel its own chroma: staged in 4:2:0 its chroma would be half its resolution
            // again and every pair of rows would share one (3.3 dB lost on grain at 160×96).
            // Larger pictures keep the source's subsampling and the filter asked for.
            let small = Self.isSmall(width: width, height: height, source: src)
            let stagedFormat = switch staging {
            case .yuv: small ? AV_PIX_FMT_YUV444P : sourceFormat
            case .rgb: AV_PIX_FMT_GBRP
            }
            let staged = try stage(width: width, height: height, format: stagedFormat)
            // The YUV → RGB matrix is applied once: by the first pass into planar RGB, by the
            // second from staged YUV.
            try resize.run(src, to: staged.pointer, width: width, height: height, format: stagedFormat,
                           flags: small ? Scaler.area : flags, colorspaceFrom: staging == .rgb ? src : nil)
            staged.pointer.pointee.colorspace = src.pointee.colorspace
            staged.pointer.pointee.color_range = src.pointee.color_range
            try convert.run(staged.pointer, to: destination, stride: stride, width: width, height: height,
                            format: format, flags: Self.convertFlags(flags, width: width), colorspaceFrom: staging == .yuv ? src : nil)
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
        width % 8 == 0 ? flags : flags | Scaler.fullChromaInterpolation | Scaler.accurateRounding
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

    /// How a two-pass scale stages the picture: in YUV, its own subsampling kept (the fastest
    /// for 8-bit sources: libswscale's vectorised YUV scaler, then its unscaled YUV → RGB, which
    /// gives each 2×2 block one chroma sample), or in planar 8-bit RGB (chroma interpolated to
    /// every pixel as it is resized; always for deeper sources).
    public enum Staging: String, Sendable, CaseIterable { case yuv, rgb }

    /// The 8-bit staging playback uses (``Staging``).
    public static let standardEightBit = Staging.yuv

    /// Subsampled planar YUV (4:2:0, 4:2:2, 4:1:1) to packed RGB: staged as `eightBit` says from
    /// 8 bits, in planar RGB from more (to RGB without alpha); nil: one pass.
    static func staging(from source: AVPixelFormat, to destination: AVPixelFormat,
                        eightBit: Staging = standardEightBit) -> Staging? {
        guard let s = av_pix_fmt_desc_get(source), let d = av_pix_fmt_desc_get(destination) else { return nil }
        let rgb = UInt64(AV_PIX_FMT_FLAG_RGB)
        guard s.pointee.flags & rgb == 0, d.pointee.flags & rgb != 0,
              s.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0,
              s.pointee.log2_chroma_w > 0 || s.pointee.log2_chroma_h > 0 else { return nil }
        let packed8 = d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) == 0 && d.pointee.comp.0.depth == 8
            && d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) == 0
        if s.pointee.comp.0.depth == 8 { return eightBit == .rgb && !packed8 ? .yuv : eightBit }
        return packed8 ? .rgb : nil
    }

    /// One `SwsContext`, rebuilt when either side's geometry changes.
    private final class Pass {
        private var context: UnsafeMutableRawPointer?
        private var key: (Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, -1, 0, 0, -1)

        deinit { aether_sws_free_context(context) }

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
                context = aether_sws_get_cached_context(context, src.pointee.width, src.pointee.height,
                                                        AVPixelFormat(src.pointee.format), Int32(width), Int32(height),
                                                        format, flags)
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
            let rows = aether_sws_scale(context, srcData, srcStride, 0, src.pointee.height, &dstData, &dstStride)
            if rows <= 0 { throw FFmpegError(code: rows < 0 ? rows : aether_AVERROR(EINVAL), function: "sws_scale") }
        }
    }
}
