import AetherEngine
import ArgumentParser
import Foundation
import TerminalGraphics

/// `aether-bench scaling`: how playback's scaler stages a resized 8-bit source (``Scaler/Staging``)
/// shows in the picture. Frames are decoded and scaled as playback does (`DecodePass.pictures`)
/// with each staging; each is compared with the most accurate conversion at the same size, as
/// the scaled picture (what kitty shows) and as the sixel picture a terminal shows (the encoder's
/// images painted over each other, decoded back), with the scale's time and the sixel bytes.
struct ScalingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scaling",
        abstract: "8-bit sources staged in YUV or planar RGB: PSNR of the scaled and the sixel picture against the accurate conversion, ms and bytes per frame.")

    @Option(help: "The clip: grainy, film (made once, see `cells`), or a path.") var clip = "grainy"
    @Option(help: "Picture width.") var width = 1280
    @Option(help: "Picture height.") var height = 720
    @Option(help: "Frames measured.") var frames = 48
    @Option(help: "Frames skipped first.") var skip = 24
    @Option(help: "Sixel palette size.") var colors = 256
    @Option(help: "Scratch directory.") var workDir = "/tmp/aether-bench-graphics"
    @Option(help: "The sixel encoder's noise threshold (default: the encoder's own).") var noiseThreshold: Int?

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let path = try FrameSet.clip(named: clip, directory: workDir)
        print("aether-bench scaling: \(path), \(width)x\(height), \(frames) frames after \(skip); playback's scaler (bilinear), "
              + "one thread; PSNR against libswscale's most accurate conversion at that size (bicubic, chroma at every pixel)")
        print("staging  scale ms (median)  scaled PSNR (kitty)  sixel PSNR (against its input)  sixel bytes/frame")
        for staging in Scaler.Staging.allCases {
            var options = SixelEncoder.Options(colors: colors, dither: .none)
            if let noiseThreshold { options.noiseThreshold = noiseThreshold }
            let encoder = SixelEncoder(options: options)
            let out = ByteBuffer(capacity: 4 << 20)
            var screen = [UInt8](repeating: 0, count: width * height * 3)
            var scaled: [Double] = [], shown: [Double] = [], own: [Double] = [], ms: [Double] = []
            var bytes = 0
            try DecodePass.pictures(url: path, size: PixelSize(width: width, height: height), referenceScaled: true,
                                    eightBitStaging: staging, first: skip, clock: .monotonic) { p in
                guard let reference = p.referenceScaled else { return false }
                ms.append(p.scaleSeconds * 1000)
                scaled.append(SixelStreamDecoder.psnr(p.scaled, reference))
                // Sixel pictures are whole bands of six rows (kitty's need not be).
                guard height % 6 == 0 else { return scaled.count < frames }
                out.removeAll()
                try encoder.encode(try PixelImage(width: width, height: height, pixels: p.scaled), into: out)
                bytes += out.count
                for image in SixelStreamDecoder.images(in: out.bytes) {
                    SixelStreamDecoder.paint(image, onto: &screen, width: width, height: height)
                }
                shown.append(SixelStreamDecoder.psnr(screen, reference))
                own.append(SixelStreamDecoder.psnr(screen, p.scaled))
                return scaled.count < frames
            }
            let n = Double(max(1, scaled.count))
            let sixel = shown.isEmpty ? "- (not a whole number of sixel bands)"
                : "\(Stats.fmt(shown.reduce(0, +) / n)) dB (\(Stats.fmt(own.reduce(0, +) / n)) dB)          \(Int(Double(bytes) / n))"
            print("\(staging.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(Stats.fmt(Stats.median(ms)).padding(toLength: 17, withPad: " ", startingAt: 0))  "
                  + "\(Stats.fmt(scaled.reduce(0, +) / n)) dB             \(sixel)"
                  + (staging == .rgb ? "   (playback's for kitty)" : "   (playback's for sixel and cells)"))
        }
    }
}
