import Foundation

/// Reference pictures from the ffmpeg CLI and the measures the still tests compare with.
public enum StillReference {
    /// The frame `ffmpeg -ss SECONDS -i FILE -frames:v 1` decodes (its autorotation included),
    /// after `filter` when given, as packed RGB24; nil when ffmpeg fails.
    public static func ffmpegFrame(_ file: String, at seconds: Double, filter: String? = nil) -> [UInt8]? {
        var argv = ["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-ss", String(format: "%.6f", seconds), "-i", file,
                    "-frames:v", "1"]
        if let filter { argv += ["-vf", filter] }
        argv += ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        return rawOutput(argv)
    }

    /// A picture file (PNG) decoded by ffmpeg to packed RGB24.
    public static func decodeImage(_ path: String) -> [UInt8]? {
        rawOutput(["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    }

    /// A picture file (JPEG, PNG) decoded by ffmpeg, after `filter` (`crop=…`), as packed RGB24.
    public static func ffmpegImage(_ path: String, filter: String) -> [UInt8]? {
        rawOutput(["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-frames:v", "1", "-vf", filter,
                   "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    }

    private static func rawOutput(_ argv: [String]) -> [UInt8]? {
        let path = NSTemporaryDirectory() + "aether-still-\(UUID().uuidString).rgb"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = Process.run(["/bin/sh", "-c", "exec \"$@\" > '\(path)'", "sh"] + argv, timeout: 60)
        guard r.status == 0, let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
        return [UInt8](data)
    }

    /// Peak signal-to-noise ratio of two equal-sized 8-bit pictures, in dB (infinity when equal,
    /// 0 when the sizes differ).
    public static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for i in 0..<a.count {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The number a `frames-numbered` picture shows: eight stripes of `stripe` pixels across, bit
    /// k white in stripe k, read along row `row` of an RGB24 picture `width` wide.
    public static func frameNumber(_ rgb: [UInt8], width: Int, stripe: Int = 40, row: Int = 120) -> Int? {
        var n = 0
        for k in 0..<8 {
            let i = (row * width + k * stripe + stripe / 2) * 3 + 1
            guard i < rgb.count else { return nil }
            if rgb[i] > 128 { n |= 1 << k }
        }
        return n
    }
}
