@testable import AetherEngine
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
