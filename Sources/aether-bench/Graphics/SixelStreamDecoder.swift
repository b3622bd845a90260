import Foundation
import TerminalGraphics
import TerminalPictures

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
    /// Pixels the image does not set are black.
    static func decode(_ image: ArraySlice<UInt8>) -> (pixels: [UInt8], width: Int, height: Int)? {
        guard let size = rasterSize(image) else { return nil }
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 3)
        guard paint(image, onto: &pixels, width: size.width, height: size.height) else { return nil }
        return (pixels, size.width, size.height)
    }

    /// The raster attributes' width and height.
    static func rasterSize(_ image: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        var parser = Parser(image)
        guard parser.skipHeader(), parser.peek == UInt8(ascii: "\"") else { return nil }
        parser.i += 1
        let r = parser.numbers()
        guard r.count >= 4, r[2] > 0, r[3] > 0 else { return nil }
        return (r[2], r[3])
    }

    /// Draws one image at the top-left of a `width × height` RGB24 screen, as a terminal does:
    /// with `P2=1` the pixels the image does not set keep what the screen showed; otherwise the
    /// image's raster area is cleared to black first. False when the image is malformed.
    @discardableResult
    static func paint(_ image: ArraySlice<UInt8>, onto screen: inout [UInt8], width: Int, height: Int) -> Bool {
        var p = Parser(image)
        guard let params = p.header() else { return false }
        let transparent = params.count >= 2 && params[1] == 1
        var palette = [(UInt8, UInt8, UInt8)](repeating: (0, 0, 0), count: 256)
        var color = (UInt8(0), UInt8(0), UInt8(0))
        var x = 0, band = 0
        return screen.withUnsafeMutableBufferPointer { px -> Bool in
            func put(_ ch: UInt8, _ n: Int) {
                let bits = Int(ch) - 63
                if bits > 0 {
                    let end = min(width, x + n)
                    for r in 0..<6 where bits & (1 << r) != 0 {
                        let y = band * 6 + r
                        guard y < height, x < end else { continue }
                        var o = (y * width + x) * 3
                        for _ in x..<end {
                            px[o] = color.0
                            px[o + 1] = color.1
                            px[o + 2] = color.2
                            o += 3
                        }
                    }
                }
                x += n
            }
            while p.i < p.b.endIndex {
                let c = p.b[p.i]
                switch c {
                case 0x1B: p.i = p.b.endIndex
                case UInt8(ascii: "\""):
                    p.i += 1
                    let r = p.numbers()
                    if !transparent, r.count >= 4 {
                        for y in 0..<min(height, r[3]) {
                            let o = y * width * 3
                            for k in o..<(o + min(width, r[2]) * 3) { px[k] = 0 }
                        }
                    }
                case UInt8(ascii: "#"):
                    p.i += 1
                    let n = p.numbers()
                    let reg = min(255, n[0])
                    if n.count >= 5, n[1] == 2 {
                        func s(_ v: Int) -> UInt8 { UInt8((min(100, v) * 255 + 50) / 100) }
                        palette[reg] = (s(n[2]), s(n[3]), s(n[4]))
                    }
                    color = palette[reg]
                case UInt8(ascii: "!"):
                    p.i += 1
                    let n = p.number()
                    if p.i < p.b.endIndex { put(p.b[p.i], n); p.i += 1 }
                case UInt8(ascii: "$"):
                    x = 0
                    p.i += 1
                case UInt8(ascii: "-"):
                    x = 0
                    band += 1
                    p.i += 1
                case 63...126:
                    put(c, 1)
                    p.i += 1
                default: p.i += 1
                }
            }
            return true
        }
    }

    /// Mean squared error → dB (99 for identical pictures).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var se = 0
        for k in 0..<a.count {
            let d = Int(a[k]) - Int(b[k])
            se += d * d
        }
        return PictureQuality.psnr(Double(se) / Double(a.count))
    }

    /// Reads DCS parameters, numbers and the body of one image.
    private struct Parser {
        let b: ArraySlice<UInt8>
        var i: Int

        init(_ b: ArraySlice<UInt8>) {
            self.b = b
            i = b.startIndex
        }

        var peek: UInt8? { i < b.endIndex ? b[i] : nil }

        /// Skips `ESC P params q`; false when there is no `q`.
        mutating func skipHeader() -> Bool { header() != nil }

        /// The DCS parameters (P1;P2;P3), leaving `i` after the `q`.
        mutating func header() -> [Int]? {
            guard let q = b.firstIndex(of: UInt8(ascii: "q")) else { return nil }
            i = min(b.endIndex, b.startIndex + 2)
            var params: [Int] = []
            while i < q {
                params.append(number())
                if i < q, b[i] == UInt8(ascii: ";") { i += 1 } else { break }
            }
            i = q + 1
            return params
        }

        mutating func number() -> Int {
            var n = 0
            while i < b.endIndex, b[i] >= 0x30, b[i] <= 0x39 {
                n = min(1 << 20, n * 10 + Int(b[i] - 0x30))
                i += 1
            }
            return n
        }

        mutating func numbers() -> [Int] {
            var r = [number()]
            while i < b.endIndex, b[i] == UInt8(ascii: ";") { i += 1; r.append(number()) }
            return r
        }
    }
}
