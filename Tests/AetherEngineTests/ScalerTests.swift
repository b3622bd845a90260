import AetherEngine
@testable import AetherMedia
import CFFmpeg
import Testing

/// The scaler writes into tightly packed RGB24 pictures; libswscale's vectorised converters
/// write past a row's end in whole pixel groups. These pin down that whatever it writes past
/// the picture stays inside the slack ``PixelBuffer`` allocates (a heap overrun here corrupted
/// malloc's bookkeeping and aborted the player on small pictures).
@Suite struct ScalerTests {
    private static let sentinel: UInt8 = 0xA5

    /// Bytes written past `width * height * 3` when converting a `source`-sized picture.
    private static func overrun(source: (Int, Int), to size: (Int, Int), format: AVPixelFormat) throws -> Int {
        let frame = try Frame()
        frame.pointer.pointee.width = Int32(source.0)
        frame.pointer.pointee.height = Int32(source.1)
        frame.pointer.pointee.format = format.rawValue
        #expect(av_frame_get_buffer(frame.pointer, 0) == 0)
        let count = size.0 * size.1 * 3
        let guardBytes = 1024
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: count + guardBytes)
        defer { memory.deallocate() }
        memory.initialize(repeating: sentinel, count: count + guardBytes)
        try Scaler().scale(frame, width: size.0, height: size.1, format: AV_PIX_FMT_RGB24,
                           into: memory, stride: size.0 * 3)
        var last = 0
        for i in 0..<guardBytes where memory[count + i] != sentinel { last = i + 1 }
        return last
    }

    @Test(arguments: [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_NV12,
                      AV_PIX_FMT_YUV420P10LE])
    func writesPastThePictureStayInsideTheSlack(format: AVPixelFormat) throws {
        var worst = 0
        for width in stride(from: 2, through: 130, by: 1) {
            for height in [2, 3, 6, 54] {
                // Same size (libswscale's unscaled converter), and the two-pass downscale.
                worst = max(worst, try Self.overrun(source: (width, height), to: (width, height), format: format))
                worst = max(worst, try Self.overrun(source: (width * 2 + 2, height * 2), to: (width, height),
                                                     format: format))
            }
        }
        #expect(worst <= PixelBuffer.slack, "libswscale wrote \(worst) bytes past the picture")
    }
}

/// Every column of a scaled picture is drawn: a uniform grey source scaled to any width comes out
/// grey to its last column (xterm's half-block and foot's sixel showed the picture's last
/// columns black at widths that were not a multiple of 16).
@Suite struct ScalerCoverageTests {
    /// The columns, from the right edge, whose pixels are far from the source's grey.
    static func undrawnColumns(source: (Int, Int), to size: (Int, Int), scaler: Scaler) throws -> Int {
        let frame = try Frame()
        frame.pointer.pointee.width = Int32(source.0)
        frame.pointer.pointee.height = Int32(source.1)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        #expect(av_frame_get_buffer(frame.pointer, 0) == 0)
        // Y 126, Cb = Cr = 128: a mid grey.
        for plane in 0..<3 {
            let lines = plane == 0 ? source.1 : (source.1 + 1) / 2
            let stride = Int(withUnsafePointer(to: &frame.pointer.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[plane] } })
            let base = withUnsafePointer(to: &frame.pointer.pointee.data) { $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[plane] } }!
            base.update(repeating: plane == 0 ? 126 : 128, count: stride * lines)
        }
        let buffer = PixelBuffer(count: size.0 * size.1 * 3)
        buffer.mutableBytes.initializeMemory(as: UInt8.self, repeating: 0)
        try scaler.scale(frame, width: size.0, height: size.1, format: AV_PIX_FMT_RGB24, into: buffer.base, stride: size.0 * 3)
        var undrawn = 0
        buffer.withUnsafeBytes { p in
            for x in stride(from: size.0 - 1, through: 0, by: -1) {
                let bad = (0..<size.1).contains { y in abs(Int(p[(y * size.0 + x) * 3 + 1]) - 128) > 12 }
                if !bad { break }
                undrawn += 1
            }
        }
        return undrawn
    }

    @Test func everyColumnIsDrawnAtAnyWidth() throws {
        var failures: [String] = []
        for (source, widths) in [((1280, 720), Array(90...112) + [160, 200, 1008, 1015, 1016, 1023, 1272, 1427, 1917]),
                                 ((1920, 1080), Array(150...170) + [1015, 1223])] {
            for width in widths {
                let height = max(2, width * source.1 / source.0 / 2 * 2)
                for (name, scaler) in [("playback", Scaler()), ("bicubic", Scaler(flags: Scaler.bicubic)), ("still", Scaler(flags: Scaler.accurateFlags))] {
                    let n = try Self.undrawnColumns(source: source, to: (width, height), scaler: scaler)
                    if n > 0 { failures.append("\(name) \(source.0)x\(source.1) → \(width)x\(height): \(n) columns") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}

/// A 10-bit source (HEVC Main10, AV1) is scaled through planar 8-bit RGB: its colours as the
/// most accurate conversion draws them, where one pass to packed RGB lost its chroma.
@Suite struct DeepSourceScalerTests {
    /// A 4:2:0 picture (10-bit, or 8-bit with `deep` false): a luma ramp under colour stripes
    /// four chroma samples wide.
    static func stripes(width: Int, height: Int, deep: Bool = true) throws -> Frame {
        let frame = try Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = (deep ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P).rawValue
        frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        frame.pointer.pointee.colorspace = AVCOL_SPC_BT709
        #expect(av_frame_get_buffer(frame.pointer, 0) == 0)
        for plane in 0..<3 {
            let (w, h) = plane == 0 ? (width, height) : (width / 2, height / 2)
            let bytes = Int(withUnsafePointer(to: &frame.pointer.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[plane] } })
            let base = withUnsafePointer(to: &frame.pointer.pointee.data) { $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[plane] } }!
            for y in 0..<h {
                for x in 0..<w {
                    let band = (x / 4 + y / 4) % 3
                    let value = switch plane {
                    case 0: 64 + (876 * (x + y)) / (w + h)
                    case 1: [200, 512, 824][band]
                    default: [824, 300, 512][band]
                    }
                    if deep {
                        base.withMemoryRebound(to: UInt16.self, capacity: bytes / 2 * h) { $0[y * bytes / 2 + x] = UInt16(value) }
                    } else {
                        base[y * bytes + x] = UInt8(value >> 2)
                    }
                }
            }
        }
        return frame
    }

    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var sum = 0.0
        a.withUnsafeBytes { p in b.withUnsafeBytes { q in
            for i in 0..<a.count { let d = Double(p[i]) - Double(q[i]); sum += d * d }
        } }
        return 10 * log10(255 * 255 / max(1e-9, sum / Double(a.count)))
    }

    /// At 160×90 (a small picture, averaged over its area) the filter differs from the
    /// reference's bicubic too: the floor is lower there. One pass made 24.4 and 15.3 dB.
    @Test(arguments: [((384, 216), 40.0), ((160, 90), 25.0)])
    func aDeepSourceKeepsItsColours(size: (Int, Int), floor: Double) throws {
        let frame = try Self.stripes(width: 768, height: 432)
        func scaled(_ scaler: Scaler) throws -> PixelBuffer {
            let buffer = PixelBuffer(count: size.0 * size.1 * 3)
            try scaler.scale(frame, width: size.0, height: size.1, format: AV_PIX_FMT_RGB24, into: buffer.base, stride: size.0 * 3)
            return buffer
        }
        let reference = try scaled(Scaler.reference())
        let playback = Self.psnr(try scaled(Scaler()), reference)
        let onePass = Self.psnr(try scaled(Scaler(flags: Scaler.bilinear, twoPass: false)), reference)
        print("10-bit stripes → \(size.0)x\(size.1): playback \(playback) dB, one pass \(onePass) dB against the accurate conversion")
        #expect(playback >= floor && playback > onePass + 10, "playback \(playback) dB, one pass \(onePass) dB")
    }

    /// An 8-bit source staged in planar RGB (what kitty gets) keeps its chroma to every pixel;
    /// staged in YUV (sixel, cells) each 2×2 block shares one (unit tier).
    @Test func anEightBitSourceStagedInRGBKeepsItsChroma() throws {
        let frame = try Self.stripes(width: 768, height: 432, deep: false)
        func scaled(_ scaler: Scaler) throws -> PixelBuffer {
            let buffer = PixelBuffer(count: 384 * 216 * 3)
            try scaler.scale(frame, width: 384, height: 216, format: AV_PIX_FMT_RGB24, into: buffer.base, stride: 384 * 3)
            return buffer
        }
        let reference = try scaled(Scaler.reference())
        let rgb = Self.psnr(try scaled(Scaler(eightBitStaging: .rgb)), reference)
        let yuv = Self.psnr(try scaled(Scaler(eightBitStaging: .yuv)), reference)
        print("8-bit stripes → 384x216: staged in RGB \(rgb) dB, in YUV \(yuv) dB against the accurate conversion")
        #expect(rgb >= 35 && rgb > yuv + 4, "RGB \(rgb) dB, YUV \(yuv) dB")
        #expect(Scaler.staging(from: AV_PIX_FMT_YUV420P, to: AV_PIX_FMT_RGB24, eightBit: .rgb) == .rgb)
        #expect(Scaler.staging(from: AV_PIX_FMT_YUV420P, to: AV_PIX_FMT_RGB24, eightBit: .yuv) == .yuv)
        // Planar RGB staging is for packed 8-bit RGB only.
        #expect(Scaler.staging(from: AV_PIX_FMT_YUV420P, to: AV_PIX_FMT_RGBA, eightBit: .rgb) == .yuv)
    }
}
