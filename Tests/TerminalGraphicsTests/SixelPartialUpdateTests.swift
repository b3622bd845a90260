import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

/// Partial updates and transparency: every image is decoded by the tests' own decoder and
/// painted over the previous ones, as a terminal does with `P2=1`, and the result is compared
/// with the frames.
@Suite struct SixelPartialUpdateTests {
    /// What the terminal shows: every image's painted pixels over the previous screen.
    struct Screen {
        let width: Int, height: Int
        var pixels: [UInt8]
        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            pixels = [UInt8](repeating: 0, count: width * height * 3)
        }

        /// Paints `bytes` (empty: nothing); returns the decoded image.
        @discardableResult
        mutating func paint(_ bytes: [UInt8]) throws -> SixelDecoder? {
            guard !bytes.isEmpty else { return nil }
            let d = try SixelDecoder.decode(bytes)
            #expect(d.parameters == [0, 1, 0], "P2=1: unset pixels keep what the screen shows")
            #expect(d.width == width && d.height == height)
            for i in 0..<(width * height) where d.painted[i] {
                for c in 0..<3 { pixels[i * 3 + c] = d.pixels[i * 3 + c] }
            }
            return d
        }
    }

    func encode(_ encoder: SixelEncoder, _ image: PixelImage, transparent: [PixelRect] = [],
                repeatIdentical: Bool = false) throws -> (SixelEncoder.FrameReport, [UInt8]) {
        let out = ByteBuffer()
        let report = try encoder.encode(image, into: out, repeatIdentical: repeatIdentical, transparent: transparent)
        return (report, out.bytes)
    }

    /// `base` with the box `x0..<x1, y0..<y1` painted orange, or (`mirrored`) with the
    /// picture's own colours mirrored left to right, which the palette already fits.
    func withBox(_ base: PixelImage, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, mirrored: Bool = true) throws -> PixelImage {
        try TestImages.image(width: base.width, height: base.height) { x, y in
            let inside = x >= x0 && x < x1 && y >= y0 && y < y1
            if inside && !mirrored { return (250, 140, 20) }
            let p = base.pixel(x: inside ? base.width - 1 - x : x, y: y)
            return (p.r, p.g, p.b)
        }
    }

    @Test(arguments: [SixelDither.none, .ordered])
    func onlyChangedColumnsOfChangedBandsArePainted(dither: SixelDither) throws {
        let a = try TestImages.natural(width: 160, height: 96)
        let b = try withBox(a, 50, 40, 70, 52)
        let encoder = SixelEncoder(options: .init(colors: 64, dither: dither, noiseThreshold: 0))
        var screen = Screen(width: 160, height: 96)
        let first = try encode(encoder, a)
        let full = try #require(try screen.paint(first.1))
        #expect(full.painted.allSatisfy { $0 }, "the first frame paints every pixel")
        let second = try encode(encoder, b)
        #expect(second.0.outcome == .encoded && !second.0.paletteRebuilt)
        let partial = try #require(try screen.paint(second.1))
        #expect(second.1.count < first.1.count / 8)
        var painted = 0
        for y in 0..<96 {
            for x in 0..<160 where partial.painted[y * 160 + x] {
                painted += 1
                // Bands 6…8 (rows 36…53) hold the box; only its columns are touched.
                #expect((36..<54).contains(y) && (50..<70).contains(x), "painted (\(x), \(y)) outside the box's bands")
            }
        }
        #expect(painted > 0)
        // The screen is exactly what a full repaint of the encoder's state shows…
        let repaint = try encode(encoder, b, repeatIdentical: true)
        #expect(repaint.0.outcome == .identical)
        let whole = try SixelDecoder.decode(repaint.1)
        #expect(whole.painted.allSatisfy { $0 })
        #expect(whole.pixels == screen.pixels)
        // …and that is the new frame, as well as 64 colours show it.
        #expect(TestImages.psnr(b, screen.pixels, width: 160, height: 96) >= (dither == .none ? 30 : 26))
    }

    @Test func grainWithinTheNoiseThresholdIsNotRepainted() throws {
        let a = try TestImages.natural(width: 160, height: 96)
        var rng = TestImages.LCG(state: 3)
        let grainy = try TestImages.image(width: 160, height: 96) { x, y in
            let p = a.pixel(x: x, y: y)
            func g(_ v: UInt8) -> UInt8 { UInt8(clamping: Int(v) + Int(rng.next() % 7) - 3) }
            return (g(p.r), g(p.g), g(p.b))
        }
        var bytes: [Int: Int] = [:]
        for threshold in [0, 12] {
            let encoder = SixelEncoder(options: .init(colors: 128, dither: .none, noiseThreshold: threshold))
            var screen = Screen(width: 160, height: 96)
            let full = try encode(encoder, a).1
            try screen.paint(full)
            let (report, out) = try encode(encoder, grainy)
            try screen.paint(out)
            bytes[threshold] = out.count
            #expect(TestImages.psnr(grainy, screen.pixels, width: 160, height: 96) >= 30, "threshold \(threshold)")
            #expect(report.outcome == .encoded && !report.paletteRebuilt)
            if threshold > 0 {
                #expect(out.count * 3 < full.count, "most of the grain is not repainted (\(out.count) vs \(full.count) bytes)")
            }
        }
        #expect((bytes[0] ?? 0) > (bytes[12] ?? 0))
    }

    @Test func transparentRectanglesAreNeverPaintedAndEverythingElseIs() throws {
        let image = try TestImages.natural(width: 120, height: 96)
        let holes = [PixelRect(x: 10, y: 7, width: 30, height: 20), PixelRect(x: 100, y: 90, width: 50, height: 50)]
        let encoder = SixelEncoder(options: .init(colors: 256, dither: .ordered))
        let (report, bytes) = try encode(encoder, image, transparent: holes)
        #expect(report.outcome == .encoded)
        let decoded = try SixelDecoder.decode(bytes)
        #expect(decoded.parameters == [0, 1, 0])
        for y in 0..<96 {
            for x in 0..<120 {
                let inside = holes.contains { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }
                #expect(decoded.painted[y * 120 + x] == !inside, "(\(x), \(y))")
            }
        }
        // The same picture without the overlay: not identical, and the holes get painted.
        let (again, rest) = try encode(encoder, image)
        #expect(again.outcome == .encoded)
        let filled = try SixelDecoder.decode(rest)
        for y in 0..<96 {
            for x in 0..<120 {
                let inside = holes.contains { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }
                if inside { #expect(filled.painted[y * 120 + x], "hole pixel (\(x), \(y)) not repainted") }
                // Only the holes' columns, in the bands they touch (rows 6…29 and 90…95), are painted.
                if filled.painted[y * 120 + x] {
                    #expect(((10..<40).contains(x) && (6..<30).contains(y)) || (x >= 100 && y >= 90), "(\(x), \(y))")
                }
            }
        }
    }

    @Test func sameFrameWithTheSameOverlayIsIdentical() throws {
        let image = try TestImages.natural(width: 60, height: 36)
        let encoder = SixelEncoder()
        let hole = [PixelRect(x: 0, y: 0, width: 10, height: 10)]
        #expect(try encode(encoder, image, transparent: hole).0.outcome == .encoded)
        let (report, bytes) = try encode(encoder, image, transparent: hole)
        #expect(report.outcome == .identical && bytes.isEmpty)
    }

    @Test func aNewColourOverASmallAreaRebuildsThePalette() throws {
        // 4% of the picture turns a colour the palette has nothing near: too little for the
        // histogram test, enough for the drift test.
        let a = try TestImages.natural(width: 160, height: 96)
        let encoder = SixelEncoder(options: .init(colors: 64, dither: .none))
        #expect(try encode(encoder, a).0.paletteRebuilt)
        #expect(try !encode(encoder, try withBox(a, 50, 40, 70, 52)).0.paletteRebuilt, "the picture's own colours fit")
        let (report, bytes) = try encode(encoder, try withBox(a, 50, 40, 80, 60, mirrored: false))
        #expect(report.paletteRebuilt)
        var screen = Screen(width: 160, height: 96)
        try screen.paint(bytes)
        let orange = try withBox(a, 50, 40, 80, 60, mirrored: false)
        #expect(TestImages.psnr(orange, screen.pixels, width: 160, height: 96) >= 30)
    }

    @Test func aPaletteRebuildRepaintsEveryPixel() throws {
        let encoder = SixelEncoder(options: .init(colors: 64))
        _ = try encode(encoder, try TestImages.natural(width: 96, height: 60))
        let (report, bytes) = try encode(encoder, try TestImages.noise(width: 96, height: 60))
        #expect(report.paletteRebuilt)
        #expect(try SixelDecoder.decode(bytes).painted.allSatisfy { $0 })
    }

    @Test func invalidateRepaintsEveryPixel() throws {
        let image = try TestImages.natural(width: 96, height: 60)
        let encoder = SixelEncoder()
        _ = try encode(encoder, image)
        encoder.invalidate()
        let (report, bytes) = try encode(encoder, image)
        #expect(report.outcome == .encoded)
        #expect(try SixelDecoder.decode(bytes).painted.allSatisfy { $0 })
    }

    /// `--vo-sixel-repaint=full`: once anything changed, every pixel outside the overlays is
    /// painted (an opaque image, which xterm draws in one step); grain within the noise
    /// threshold and identical frames still send nothing; the palette is kept.
    @Test func wholePicturesPaintEveryPixelOutsideTheOverlays() throws {
        let a = try TestImages.natural(width: 160, height: 96)
        let b = try withBox(a, 50, 40, 70, 52)
        let encoder = SixelEncoder(options: .init(colors: 64, repaint: .full))
        var screen = Screen(width: 160, height: 96)
        let first = try encode(encoder, a)
        #expect(try #require(try screen.paint(first.1)).painted.allSatisfy { $0 })
        #expect(try encode(encoder, a).0.outcome == .identical)
        let hole = PixelRect(x: 0, y: 0, width: 40, height: 30)
        let second = try encode(encoder, b, transparent: [hole])
        #expect(second.0.outcome == .encoded && !second.0.paletteRebuilt)
        let image = try #require(try screen.paint(second.1))
        for y in 0..<96 {
            for x in 0..<160 {
                #expect(image.painted[y * 160 + x] == !(x < 40 && y < 30), "pixel (\(x), \(y))")
            }
        }
        #expect(TestImages.psnr(b, screen.pixels, width: 160, height: 96) >= 30)
        // The same frame with the same overlay: nothing to send.
        #expect(try encode(encoder, b, transparent: [hole]).0.outcome == .identical)
        // With `changed` the same step paints only the box's bands: far fewer bytes.
        let partial = SixelEncoder(options: .init(colors: 64))
        _ = try encode(partial, a)
        #expect(try encode(partial, b, transparent: [hole]).1.count * 4 < second.1.count)
    }

    @Test func pixelRectIntersection() {
        let a = PixelRect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.intersection(PixelRect(x: 5, y: -5, width: 10, height: 10)) == PixelRect(x: 5, y: 0, width: 5, height: 5))
        #expect(a.intersection(PixelRect(x: 20, y: 0, width: 5, height: 5)).isEmpty)
        #expect(!a.isEmpty && PixelRect(x: 3, y: 3, width: 0, height: 4).isEmpty)
    }
}
