import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

@Suite struct SixelEncoderTests {
    func encode(_ image: PixelImage, _ options: SixelEncoder.Options = .init()) throws -> (SixelDecoder, SixelEncoder.FrameReport, [UInt8]) {
        let encoder = SixelEncoder(options: options)
        let out = ByteBuffer()
        let report = try encoder.encode(image, into: out)
        return (try SixelDecoder.decode(out.bytes), report, out.bytes)
    }

    @Test(arguments: SixelDither.allCases)
    func naturalImageAt256ColoursReaches30dB(dither: SixelDither) throws {
        let image = try TestImages.natural(width: 320, height: 240)
        let (decoded, report, bytes) = try encode(image, .init(colors: 256, dither: dither))
        let psnr = TestImages.psnr(image, decoded.pixels, width: 320, height: 240)
        print("sixel \(dither): PSNR \(psnr) dB, \(bytes.count) bytes, \(report.colorsUsed) colours")
        #expect(psnr >= 30)
        #expect(report.colorsUsed <= 256)
    }

    @Test func geometryAndRasterAttributes() throws {
        let image = try TestImages.natural(width: 123, height: 66)
        let (decoded, _, bytes) = try encode(image)
        #expect(decoded.raster == [1, 1, 123, 66])
        #expect(decoded.width == 123 && decoded.height == 66)
        #expect(Array(bytes.prefix(8)) == Array("\u{1B}P0;1;0q".utf8))
        #expect(Array(bytes.suffix(2)) == [0x1B, UInt8(ascii: "\\")])
        // 66 rows = 11 bands → 10 graphics new lines.
        #expect(bytes.filter { $0 == UInt8(ascii: "-") }.count == 10)
        let odd = try TestImages.natural(width: 40, height: 40)
        #expect(throws: RenderError.heightNotMultipleOfSix(40)) { try SixelEncoder().encode(odd, into: ByteBuffer()) }
    }

    @Test func onlyColoursPresentInABandAreSelected() throws {
        // Top half red/green stripes, bottom half blue: bands of the bottom half must select only blue.
        let image = try TestImages.image(width: 60, height: 36) { x, y in
            y < 18 ? (x % 2 == 0 ? (255, 0, 0) : (0, 255, 0)) : (0, 0, 255)
        }
        let (decoded, _, _) = try encode(image, .init(colors: 16, dither: .none))
        #expect(decoded.selectionsPerBand.count == 6)
        for band in 0..<6 {
            let selections = decoded.selectionsPerBand[band]
            #expect(Set(selections).count == selections.count, "a colour is selected once per band")
            #expect(selections.count == (band < 3 ? 2 : 1))
        }
        #expect(TestImages.psnr(image, decoded.pixels, width: 60, height: 36) > 45)
    }

    @Test func runLengthEncodesFlatAreas() throws {
        let image = try TestImages.image(width: 600, height: 60) { _, _ in (30, 60, 90) }
        let (decoded, _, bytes) = try encode(image)
        #expect(bytes.count < 200)
        #expect(String(decoding: bytes, as: UTF8.self).contains("!600~"))
        #expect(TestImages.psnr(image, decoded.pixels, width: 600, height: 60) > 40)
    }

    /// Every run the table spells is what `!n` and the character (or the character n times
    /// below 4) reads; runs past the table (1,200 here) are written by the decimal writer.
    @Test func runsAreSpelledAsSixelReadsThem() throws {
        for n in 0..<RunCodes.count {
            for ch in [UInt8(63), 126] {
                let code = RunCodes.table[n]
                let v = UInt64(code.prefix) | UInt64(UInt32(ch) &* code.repeats) << UInt64(code.shift)
                let bytes = (0..<Int(code.length)).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
                let expected = n < 4 ? [UInt8](repeating: ch, count: n) : Array("!\(n)".utf8) + [ch]
                #expect(bytes == expected, "a run of \(n)")
            }
        }
        let image = try TestImages.image(width: 1200, height: 6) { _, _ in (30, 60, 90) }
        let (decoded, _, bytes) = try encode(image)
        #expect(String(decoding: bytes, as: UTF8.self).contains("!1200~"))
        #expect(TestImages.psnr(image, decoded.pixels, width: 1200, height: 6) > 40)
    }

    @Test func colourCountIsHonoured() throws {
        let image = try TestImages.natural(width: 120, height: 96)
        for colors in [2, 16, 64] {
            let (decoded, report, _) = try encode(image, .init(colors: colors, dither: .errorDiffusion))
            #expect(report.colorsUsed <= colors)
            #expect(decoded.definedRegisters.allSatisfy { $0 < colors })
        }
    }

    @Test func identicalFrameIsNotReencoded() throws {
        let image = try TestImages.natural(width: 120, height: 96)
        let encoder = SixelEncoder()
        let first = ByteBuffer()
        #expect(try encoder.encode(image, into: first).outcome == .encoded)
        let second = ByteBuffer()
        let report = try encoder.encode(image, into: second)
        #expect(report.outcome == .identical)
        #expect(second.isEmpty)
        let repeated = ByteBuffer()
        _ = try encoder.encode(image, into: repeated, repeatIdentical: true)
        #expect(repeated.bytes == first.bytes)
        #expect(encoder.statistics.framesEncoded == 1 && encoder.statistics.framesIdentical == 2)
    }

    @Test func paletteIsKeptWithinASceneAndRebuiltOnACut() throws {
        let encoder = SixelEncoder()
        let out = ByteBuffer()
        func frame(_ shift: Int) throws -> PixelImage {
            try TestImages.image(width: 160, height: 96) { x, y in
                let inBox = (x - shift) >= 40 && (x - shift) < 70 && y >= 30 && y < 60
                return inBox ? (240, 200, 20) : (UInt8(x), UInt8(y * 2), 120)
            }
        }
        var rebuilds: [Bool] = []
        for shift in 0..<5 { rebuilds.append(try encoder.encode(try frame(shift * 3), into: out).paletteRebuilt) }
        #expect(rebuilds == [true, false, false, false, false])
        let cut = try TestImages.noise(width: 160, height: 96)
        #expect(try encoder.encode(cut, into: out).paletteRebuilt)
    }

    @Test func pixelPlacementKeepsMultiplesOfSixAndAvoidsScrolling() {
        let cell = CellSize(width: 10, height: 21)
        let wide = 800.0 / 210
        let g = TerminalGeometry(columns: 80, rows: 24, cellSize: cell)
        let p = PictureGeometry.pixelPlacement(area: CellRect(column: 0, row: 0, width: 80, height: 10), displayAspect: wide,
                                               geometry: g, reservedRows: 0, heightMultiple: 6)
        #expect(p.pictureSize == PixelSize(width: 800, height: 210))
        #expect(p.rect == CellRect(column: 0, row: 0, width: 80, height: 10))
        // Reaching the bottom row: one text row short.
        let bottom = PictureGeometry.pixelPlacement(area: CellRect(column: 0, row: 14, width: 80, height: 10), displayAspect: wide,
                                                    geometry: g, reservedRows: 0, heightMultiple: 6)
        #expect(bottom.pictureSize.height == 9 * 21 / 6 * 6)
        #expect(bottom.rect.endRow <= 23)
        let clamped = PictureGeometry.pixelPlacement(
            area: CellRect(column: 0, row: 0, width: 300, height: 100), displayAspect: 1,
            geometry: TerminalGeometry(columns: 300, rows: 200, cellSize: cell, maxPicture: PixelSize(width: 1000, height: 1000)),
            reservedRows: 0, heightMultiple: 6)
        #expect(clamped.pictureSize == PixelSize(width: 996, height: 996))
        #expect(PictureGeometry.fitted(aspect: 16.0 / 9, in: PixelSize(width: 1280, height: 1000), heightMultiple: 6)
                == PixelSize(width: 1280, height: 720))
        // The governor's scale: a smaller picture over fewer cells, still a multiple of 6, centred.
        let scaled = PictureGeometry.pixelPlacement(area: CellRect(column: 0, row: 0, width: 80, height: 10), displayAspect: wide,
                                                    geometry: g, reservedRows: 0, scale: 0.75, heightMultiple: 6)
        #expect(scaled.pictureSize.height % 6 == 0 && scaled.pictureSize.height <= 158)
        #expect(scaled.rect.width < 80 && scaled.rect.column > 0)
    }

    @Test func ditherOptionNames() {
        #expect(SixelDither(option: "fs") == .errorDiffusion)
        #expect(SixelDither(option: "ordered") == .ordered)
        #expect(SixelDither(option: "none") == SixelDither.none)
        #expect(SixelDither(option: "bogus") == nil)
    }

    /// The column pass sixteen columns at a time writes the same bytes as one column at a time,
    /// on indices like grain's (a few colours per column, some as shown, some transparent), on
    /// whole stretches unchanged, and at widths that leave a tail of fewer than sixteen.
    @Test(arguments: [16, 37, 1280 + 7])
    func sixteenColumnsAtOnceWriteWhatOneAtATimeWrites(width: Int) {
        let height = 24
        var random = SystemRandomNumberGenerator()
        var indices = [UInt8](repeating: 0, count: width * height)
        var shown = [UInt8](repeating: 0, count: width * height)
        for i in indices.indices {
            let x = i % width
            let kind = Int.random(in: 0..<10, using: &random)
            indices[i] = UInt8.random(in: 0..<6, using: &random) &+ UInt8(x / 50)
            shown[i] = kind < 3 ? indices[i] : (kind == 3 ? ColorLookup.none : UInt8.random(in: 0..<8, using: &random))
            if kind == 4 { indices[i] = ColorLookup.none }
            if (x / 40) % 3 == 2 { shown[i] = indices[i] }   // columns where nothing changed
        }
        let colours: [(r: UInt8, g: UInt8, b: UInt8)] = (0..<40).map { (i: Int) in
            (UInt8(i * 6), UInt8(255 - i * 6), UInt8(i * 3))
        }
        let palette = SixelPalette(colors: colours)
        var outputs: [[UInt8]] = []
        var registers: [Int] = []
        for atOnce in [true, false] {
            let rasterizer = SixelRasterizer()
            rasterizer.sixteenColumnsAtOnce = atOnce
            let out = ByteBuffer()
            registers.append(rasterizer.write(indices: indices, previous: shown, width: width, height: height,
                                              palette: palette, output: out))
            outputs.append(out.bytes)
        }
        #expect(outputs[0].count > 100)
        #expect(outputs[0] == outputs[1])
        #expect(registers[0] == registers[1])
    }
}
