import Foundation

/// Decodes sixel streams (ours and libsixel's) back to RGB for PSNR. Kept separate from the
/// test suite's decoder on purpose: the tests' one is the independent verifier of the encoder,
/// this one is a measuring tool that must also read other encoders' output.
enum SixelStreamDecoder {
    /// Splits a stream into DCS … ST images.
    static func images(in stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var i = 0
        while i + 1 < stream.count {
            if stream[i] == 0x1B && stream[i + 1] == UInt8(ascii: "P") {
                var j = i + 2
                while j + 1 < stream.count && !(stream[j] == 0x1B && stream[j + 1] == UInt8(ascii: "\\")) { j += 1 }
                result.append(stream[i..<min(stream.count, j + 2)])
                i = j + 2
            } else {
                i += 1
            }
        }
        return result
    }

    /// RGB24 of one image (`width × height` from its raster attributes), or nil if malformed.
    static func decode(_ image: ArraySlice<UInt8>) -> (pixels: [UInt8], width: Int, height: Int)? {
        let b = Array(image)
        guard let q = b.firstIndex(of: UInt8(ascii: "q")) else { return nil }
        var i = q + 1
        func number() -> Int {
            var n = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { n = min(1 << 20, n * 10 + Int(b[i] - 0x30)); i += 1 }
            return n
        }
        func numbers() -> [Int] {
            var r = [number()]
            while i < b.count, b[i] == UInt8(ascii: ";") { i += 1; r.append(number()) }
            return r
        }
        var width = 0, height = 0
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            i += 1
            let r = numbers()
            if r.count >= 4 { width = r[2]; height = r[3] }
        }
        guard width > 0, height > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var palette = [(UInt8, UInt8, UInt8)](repeating: (0, 0, 0), count: 256)
        var color = (UInt8(0), UInt8(0), UInt8(0))
        var x = 0, band = 0
        func put(_ ch: UInt8, _ n: Int) {
            let bits = Int(ch) - 63
            if bits > 0 {
                for r in 0..<6 where bits & (1 << r) != 0 {
                    let y = band * 6 + r
                    guard y < height else { continue }
                    for k in 0..<n where x + k < width {
                        let o = (y * width + x + k) * 3
                        pixels[o] = color.0; pixels[o + 1] = color.1; pixels[o + 2] = color.2
                    }
                }
            }
            x += n
        }
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x1B: i = b.count
            case UInt8(ascii: "#"):
                i += 1
                let n = numbers()
                let reg = min(255, n[0])
                if n.count >= 5, n[1] == 2 {
                    func s(_ p: Int) -> UInt8 { UInt8((min(100, p) * 255 + 50) / 100) }
                    palette[reg] = (s(n[2]), s(n[3]), s(n[4]))
                }
                color = palette[reg]
            case UInt8(ascii: "!"):
                i += 1
                let n = number()
                if i < b.count { put(b[i], n); i += 1 }
            case UInt8(ascii: "$"): x = 0; i += 1
            case UInt8(ascii: "-"): x = 0; band += 1; i += 1
            case 63...126: put(c, 1); i += 1
            default: i += 1
            }
        }
        return (pixels, width, height)
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var se = 0.0
        for k in 0..<a.count {
            let d = Double(a[k]) - Double(b[k])
            se += d * d
        }
        let mse = se / Double(a.count)
        return mse == 0 ? 99 : 10 * (255 * 255 / mse).log10
    }
}

private extension Double {
    var log10: Double { Foundation.log10(self) }
}
