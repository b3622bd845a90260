import Foundation
import TerminalGraphics

/// Generated pictures for the TerminalGraphics tests and the real-terminal tests (nothing is committed as a binary).
public enum TestImages {
    /// A deterministic pseudo-random generator (tests must not depend on the system RNG).
    public struct LCG {
        public var state: UInt64
        public init(state: UInt64) { self.state = state }
        public mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    }

    /// RGB24 bytes from a per-pixel function.
    public static func make(width: Int, height: Int, format: PixelFormat = .rgb24,
                     _ f: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
        let bpp = format.bytesPerPixel
        var bytes = [UInt8](repeating: 255, count: width * height * bpp)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = f(x, y)
                let o = (y * width + x) * bpp
                bytes[o] = r
                bytes[o + 1] = g
                bytes[o + 2] = b
            }
        }
        return bytes
    }

    public static func image(width: Int, height: Int, format: PixelFormat = .rgb24,
                      _ f: (Int, Int) -> (UInt8, UInt8, UInt8)) throws -> PixelImage {
        try PixelImage(width: width, height: height, format: format,
                       pixels: make(width: width, height: height, format: format, f))
    }

    /// Uniform random colours (worst case for the half-block renderer).
    public static func noise(width: Int, height: Int, seed: UInt64 = 1) throws -> PixelImage {
        var rng = LCG(state: seed)
        return try image(width: width, height: height) { _, _ in (rng.byte(), rng.byte(), rng.byte()) }
    }

    /// A "natural-looking" picture: a sky-like vertical gradient, soft hills, a few blurred
    /// discs in saturated colours, and mild sensor-like noise.
    public static func natural(width: Int, height: Int, seed: UInt64 = 7) throws -> PixelImage {
        var rng = LCG(state: seed)
        let discs: [(x: Double, y: Double, r: Double, c: (Double, Double, Double))] = [
            (0.25, 0.35, 0.12, (230, 80, 40)), (0.7, 0.3, 0.09, (250, 220, 90)),
            (0.55, 0.7, 0.15, (60, 140, 200)), (0.85, 0.75, 0.08, (180, 60, 160)),
        ]
        return try image(width: width, height: height) { x, y in
            let u = Double(x) / Double(width), v = Double(y) / Double(height)
            var r = 90 + 80 * (1 - v), g = 140 + 60 * (1 - v), b = 200 + 40 * (1 - v)
            let hill = 0.6 + 0.08 * sin(u * 9) + 0.05 * sin(u * 23 + 1)
            if v > hill {
                let t = min(1, (v - hill) * 4)
                r = r * (1 - t) + (70 + 40 * sin(u * 40)) * t
                g = g * (1 - t) + (120 + 30 * cos(u * 31 + v * 20)) * t
                b = b * (1 - t) + 50 * t
            }
            for d in discs {
                let dx = (u - d.x) * Double(width) / Double(height), dy = v - d.y
                let dist = (dx * dx + dy * dy).squareRoot()
                let a = max(0, min(1, (d.r - dist) / (d.r * 0.35)))
                r = r * (1 - a) + d.c.0 * a * (0.8 + 0.2 * cos(dist * 40))
                g = g * (1 - a) + d.c.1 * a * (0.8 + 0.2 * cos(dist * 40))
                b = b * (1 - a) + d.c.2 * a * (0.8 + 0.2 * cos(dist * 40))
            }
            let n = Double(Int(rng.next() % 7) - 3)
            func c(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v + n).rounded()))) }
            return (c(r), c(g), c(b))
        }
    }

    /// Peak signal-to-noise ratio over RGB, in dB.
    public static func psnr(_ a: PixelImage, _ b: [UInt8], width: Int, height: Int) -> Double {
        var se = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let p = a.pixel(x: x, y: y)
                let o = (y * width + x) * 3
                let dr = Double(p.r) - Double(b[o]), dg = Double(p.g) - Double(b[o + 1]), db = Double(p.b) - Double(b[o + 2])
                se += dr * dr + dg * dg + db * db
            }
        }
        let mse = se / Double(width * height * 3)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}
