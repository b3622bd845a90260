import Foundation
import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

/// kitty output is read back by ``KittyStream`` (the tests' own APC parser and base64 decoder):
/// the terminal must receive exactly the frame rendered.
@Suite struct KittyEncoderTests {
    static func rgb(_ image: PixelImage) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                out += [p.r, p.g, p.b]
            }
        }
        return out
    }

    @Test func rgbFrameComesBackPixelForPixel() throws {
        let image = try TestImages.natural(width: 97, height: 53)
        let encoder = KittyEncoder(imageID: 77, placementID: 3, clock: .monotonic)
        let out = ByteBuffer()
        let report = encoder.encode(image, columns: 12, rows: 4, into: out)
        #expect(report.outcome == .encoded && report.format == 24 && report.bytes == out.count)
        let parsed = try KittyStream.parse(out.bytes)
        let t = try #require(parsed.transmissions.first)
        #expect(parsed.transmissions.count == 1 && parsed.other.isEmpty)
        #expect(t.keys["a"] == "T" && t.keys["f"] == "24" && t.int("s") == 97 && t.int("v") == 53)
        #expect(t.int("i") == 77 && t.int("p") == 3 && t.keys["q"] == "2" && t.keys["C"] == "1")
        #expect(t.int("c") == 12 && t.int("r") == 4)
        #expect(t.pixels == Self.rgb(image), "the decoded frame differs from the one rendered")
        #expect(report.chunks == t.chunks.count)
    }

    @Test func rgbaInputWithPaddedRowsIsSentAsItsRGB() throws {
        // 5×3 RGBA with 4 bytes of padding per row: alpha is ignored, padding skipped.
        let width = 5, height = 3, stride = width * 4 + 4
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let px: [UInt8] = [UInt8(x * 40), UInt8(y * 70), UInt8(x + y), UInt8(x * 10)]
                bytes.replaceSubrange((y * stride + x * 4)..<(y * stride + x * 4 + 4), with: px)
                expected += px.prefix(3)
            }
        }
        let image = try PixelImage(width: width, height: height, format: .rgba32, stride: stride, pixels: bytes)
        let out = ByteBuffer()
        _ = KittyEncoder(clock: .monotonic).encode(image, columns: 1, rows: 1, into: out)
        let t = try #require(try KittyStream.parse(out.bytes).transmissions.first)
        #expect(t.format == 24 && t.pixels == expected)
    }

    @Test func largeFrameIsChunkedWithMOnAllButTheLast() throws {
        // 200×120 RGB = 72 000 bytes = 96 000 base64 characters: 24 chunks.
        let image = try TestImages.noise(width: 200, height: 120)
        let out = ByteBuffer()
        let report = KittyEncoder(clock: .monotonic).encode(image, columns: 40, rows: 12, into: out)
        let parsed = try KittyStream.parse(out.bytes)   // checks ≤ 4096 per chunk, keys, m rules
        let t = try #require(parsed.transmissions.first)
        #expect(t.chunks.count == 24 && report.chunks == 24)
        #expect(t.chunks.dropLast().allSatisfy { $0.keys["m"] == "1" && $0.payload.utf8.count == 4096 })
        #expect(t.chunks.last?.keys["m"] == "0")
        #expect(t.chunks.dropFirst().allSatisfy { Set($0.keys.keys) == ["m", "q"] && $0.keys["q"] == "2" },
                "continuation chunks carry only m (and q)")
        #expect(t.pixels == Self.rgb(image))
    }

    @Test func smallFrameIsOneChunkWithM0() throws {
        let image = try TestImages.image(width: 2, height: 2) { x, y in (UInt8(x * 200), UInt8(y * 200), 7) }
        let out = ByteBuffer()
        _ = KittyEncoder(clock: .monotonic).encode(image, columns: 1, rows: 1, into: out)
        let t = try #require(try KittyStream.parse(out.bytes).transmissions.first)
        #expect(t.chunks.count == 1 && t.keys["m"] == "0")
        #expect(t.pixels == Self.rgb(image))
    }

    @Test func identicalFrameIsUnchangedAndWritesNothing() throws {
        let image = try TestImages.natural(width: 64, height: 36)
        let encoder = KittyEncoder(clock: .monotonic)
        let out = ByteBuffer()
        #expect(encoder.encode(image, columns: 8, rows: 2, into: out).outcome == .encoded)
        let first = out.count
        let again = encoder.encode(image, columns: 8, rows: 2, into: out)
        #expect(again.outcome == .identical && again.bytes == 0 && out.count == first)
        // Other cells for the same pixels are another picture.
        #expect(encoder.encode(image, columns: 9, rows: 2, into: out).outcome == .encoded)
        // One changed pixel is a new frame.
        var pixels = Self.rgb(image)
        pixels[100] ^= 1
        let changed = try PixelImage(width: 64, height: 36, pixels: pixels)
        #expect(encoder.encode(changed, columns: 9, rows: 2, into: out).outcome == .encoded)
        // After invalidate the same frame is sent again.
        encoder.invalidate()
        #expect(encoder.encode(changed, columns: 9, rows: 2, into: out).outcome == .encoded)
    }

    @Test func base64MatchesFoundationForEveryTailLength() {
        var rng = TestImages.LCG(state: 3)
        for count in 0..<40 {
            let input = (0..<count).map { _ in rng.byte() }
            let padded = input + [0]   // never empty, so the buffer has an address
            let out = ByteBuffer()
            Base64.pairs.withUnsafeBufferPointer { table in
                padded.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress, let pairs = table.baseAddress else { return }
                    out.write(maxBytes: Base64.encodedCount(count) + 4) { w in
                        Base64.encode(base, count: count, pairs: pairs, into: &w)
                    }
                }
            }
            #expect(String(decoding: out.bytes, as: UTF8.self) == Data(input).base64EncodedString(), "\(count) bytes")
        }
    }

    // MARK: driver

    static let geometry = TerminalGeometry(columns: 80, rows: 24, cellSize: CellSize(width: 10, height: 20))

    @Test func driverPlacesTheCursorAndStretchesOverTheCells() throws {
        let driver = KittyDriver(clock: .monotonic)
        #expect(driver.name == "kitty" && driver.drawsAboveText && driver.rowsBelowPicture == 2 && driver.qualityRungs == KittyDriver.qualityRungs)
        let area = CellRect(column: 0, row: 0, width: 80, height: 20)
        let full = driver.placement(for: area, displayAspect: 16.0 / 9, geometry: Self.geometry, scale: 1)
        let small = driver.placement(for: area, displayAspect: 16.0 / 9, geometry: Self.geometry, scale: 0.5)
        #expect(small.rect == full.rect, "a smaller picture is stretched over the same cells")
        #expect(small.pictureSize.width < full.pictureSize.width)
        let image = try TestImages.natural(width: small.pictureSize.width, height: small.pictureSize.height)
        let out = ByteBuffer()
        let report = try driver.render(image, placement: small, mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(!report.unchanged && report.bytes == out.count)
        let parsed = try KittyStream.parse(out.bytes)
        #expect(parsed.other == Escape.cursorPosition(column: small.rect.column, row: small.rect.row))
        let t = try #require(parsed.transmissions.first)
        #expect(t.int("c") == small.rect.width && t.int("r") == small.rect.height)
        #expect(t.pixels == Self.rgb(image))
    }

    /// An overlay over the whole picture (the inspector over the video): the image is deleted
    /// once, nothing is sent while it stays, and the picture comes back whole after it. The
    /// sixel driver sends nothing either.
    @Test func aWhollyCoveredPictureIsTakenDownNotSentTransparent() throws {
        let driver = KittyDriver(clock: .monotonic)
        let placement = Placement(rect: CellRect(column: 3, row: 2, width: 10, height: 5),
                                  pictureSize: PixelSize(width: 97, height: 53), cellSize: CellSize(width: 10, height: 20))
        let image = try TestImages.natural(width: 97, height: 53)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: placement, mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(try KittyStream.parse(out.bytes).transmissions.count == 1)
        var all = CellMask(columns: 80, rows: 24)
        all.cover(CellRect(column: 0, row: 1, width: 80, height: 20))
        #expect(all.coversAll(placement.rect) && !CellMask(columns: 80, rows: 24).coversAll(placement.rect))
        #expect(!all.coversAll(CellRect(column: 0, row: 0, width: 80, height: 2)) && !all.coversAll(CellRect(column: 0, row: 0, width: 0, height: 0)))
        out.removeAll()
        let first = try driver.render(image, placement: placement, mask: all, into: out)
        let parsed = try KittyStream.parse(out.bytes)
        #expect(parsed.transmissions.isEmpty && parsed.deletes.count == 1 && first.bytes == out.count, "\(parsed.deletes)")
        out.removeAll()
        let second = try driver.render(image, placement: placement, mask: all, into: out)
        #expect(second.unchanged && out.count == 0)
        let back = try driver.render(image, placement: placement, mask: CellMask(columns: 80, rows: 24), into: out)
        let whole = try #require(try KittyStream.parse(out.bytes).transmissions.first)
        #expect(!back.unchanged && whole.format == 24 && whole.pixels == Self.rgb(image))

        let sixel = SixelDriver(colors: 256, dither: .none)
        let sixelPlacement = sixel.placement(for: CellRect(column: 0, row: 0, width: 80, height: 20), displayAspect: 97.0 / 53,
                                             geometry: Self.geometry, scale: 1)
        let sixelImage = try TestImages.natural(width: sixelPlacement.pictureSize.width, height: sixelPlacement.pictureSize.height)
        var cover = CellMask(columns: 80, rows: 24)
        cover.cover(CellRect(column: 0, row: 0, width: 80, height: 24))
        out.removeAll()
        let covered = try sixel.render(sixelImage, placement: sixelPlacement, mask: cover, into: out)
        #expect(covered.unchanged && out.count == 0)
        let shown = try sixel.render(sixelImage, placement: sixelPlacement, mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(!shown.unchanged && out.count > 1000)
    }

    @Test func maskedCellsAreTransparentExactly() throws {
        let driver = KittyDriver(clock: .monotonic)
        // 97×53 pixels stretched over 10×5 cells: cells are fractional pixel rectangles.
        let placement = Placement(rect: CellRect(column: 3, row: 2, width: 10, height: 5),
                                  pictureSize: PixelSize(width: 97, height: 53), cellSize: CellSize(width: 10, height: 20))
        var mask = CellMask(columns: 80, rows: 24)
        mask.cover(CellRect(column: 5, row: 3, width: 3, height: 2))     // inside
        mask.cover(CellRect(column: 12, row: 6, width: 20, height: 5))   // over the bottom-right corner and beyond
        mask.cover(CellRect(column: 0, row: 0, width: 80, height: 1))    // outside the picture
        let image = try TestImages.natural(width: 97, height: 53)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: placement, mask: mask, into: out)
        let t = try #require(try KittyStream.parse(out.bytes).transmissions.first)
        #expect(t.format == 32)
        let r = placement.rect
        var wrong = 0
        for y in 0..<53 {
            for x in 0..<97 {
                // The cells this pixel touches, in the terminal's stretch of 97×53 over 10×5.
                let c0 = x * r.width / 97, c1 = ((x + 1) * r.width + 96) / 97 - 1
                let r0 = y * r.height / 53, r1 = ((y + 1) * r.height + 52) / 53 - 1
                var covered = false
                for row in r0...r1 { for column in c0...c1 where mask.isCovered(column: r.column + column, row: r.row + row) { covered = true } }
                let o = (y * 97 + x) * 4
                let p = image.pixel(x: x, y: y)
                let got = Array(t.pixels[o..<(o + 4)])
                if covered ? got != [0, 0, 0, 0] : got != [p.r, p.g, p.b, 255] { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels with the wrong alpha or colour")
        // The overlay goes: RGB again, and the same picture as before the mask is sent whole.
        out.removeAll()
        _ = try driver.render(image, placement: placement, mask: CellMask(columns: 80, rows: 24), into: out)
        let plain = try #require(try KittyStream.parse(out.bytes).transmissions.first)
        #expect(plain.format == 24 && plain.pixels == Self.rgb(image))
    }

    @Test func driverSkipsAnIdenticalFrameAndResendsAfterAMove() throws {
        let driver = KittyDriver(clock: .monotonic)
        let placement = Placement(rect: CellRect(column: 1, row: 1, width: 8, height: 3),
                                  pictureSize: PixelSize(width: 40, height: 30), cellSize: CellSize(width: 10, height: 20))
        let image = try TestImages.natural(width: 40, height: 30)
        let mask = CellMask(columns: 80, rows: 24)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: placement, mask: mask, into: out)
        let before = out.count
        let second = try driver.render(image, placement: placement, mask: mask, into: out)
        #expect(second.unchanged && second.bytes == 0 && out.count == before, "an identical frame wrote bytes")
        var moved = placement
        moved.rect.column = 5
        let third = try driver.render(image, placement: moved, mask: mask, into: out)
        #expect(!third.unchanged && third.bytes > 0)
        driver.invalidate()
        #expect(try !driver.render(image, placement: moved, mask: mask, into: out).unchanged)
    }

    @Test func teardownDeletesTheImage() throws {
        let driver = KittyDriver(imageID: 4242, clock: .monotonic)
        let out = ByteBuffer()
        driver.teardown(into: out)
        let parsed = try KittyStream.parse(out.bytes)
        #expect(parsed.deletes == [["a": "d", "d": "I", "i": "4242", "q": "2"]])
        #expect(parsed.transmissions.isEmpty && parsed.other.isEmpty)
    }

    // MARK: tmux

    @Test func tmuxWrapDoublesEveryEscape() throws {
        let sequence: [UInt8] = [0x1B] + Array("_Gi=31;AAAA".utf8) + [0x1B, UInt8(ascii: "\\")]
        let wrapped = TmuxPassthrough.wrap(sequence)
        #expect(wrapped == Array("\u{1B}Ptmux;\u{1B}\u{1B}_Gi=31;AAAA\u{1B}\u{1B}\\\u{1B}\\".utf8))
        #expect(try KittyStream.unwrapTmux(wrapped) == sequence)
        #expect(TmuxPassthrough.wrap([]) == Array("\u{1B}Ptmux;\u{1B}\\".utf8))
        let out = ByteBuffer()
        sequence.withUnsafeBytes { TmuxPassthrough.wrap($0, into: out) }
        #expect(out.bytes == wrapped)
    }

    @Test func kittyInTmuxIsWrappedAndPlacedFromThePaneOrigin() throws {
        let driver = KittyDriver(passthrough: TmuxPassthrough(paneTop: 3, paneLeft: 40), clock: .monotonic)
        let placement = Placement(rect: CellRect(column: 2, row: 1, width: 20, height: 6),
                                  pictureSize: PixelSize(width: 120, height: 80), cellSize: CellSize(width: 10, height: 20))
        let image = try TestImages.noise(width: 120, height: 80)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: placement, mask: CellMask(columns: 80, rows: 24), into: out)
        let bytes = out.bytes
        #expect(bytes.starts(with: Array("\u{1B}Ptmux;".utf8)), "nothing may reach tmux unwrapped")
        let inner = try KittyStream.unwrapTmux(bytes)
        let parsed = try KittyStream.parse(inner)
        let t = try #require(parsed.transmissions.first)
        #expect(t.chunks.count > 1)
        #expect(t.pixels == Self.rgb(image))
        // Every chunk is its own wrap, placed at the pane's origin + the picture's cell (1-based CUP).
        let move = Escape.saveCursor + Array("\u{1B}[5;43H".utf8)
        let wraps = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\u{1B}Ptmux;").dropFirst()
        #expect(wraps.count == t.chunks.count)
        #expect(parsed.other.count == t.chunks.count * (move.count + Escape.restoreCursor.count))
        #expect(Array(inner.prefix(move.count)) == move)
        let teardown = ByteBuffer()
        driver.teardown(into: teardown)
        #expect(teardown.bytes.starts(with: TmuxPassthrough.opening))
        #expect(try KittyStream.parse(KittyStream.unwrapTmux(teardown.bytes)).deletes.count == 1)
    }

    @Test func sixelThroughTmuxIsWrappedWhole() throws {
        let driver = SixelDriver(colors: 64, dither: .none, passthrough: TmuxPassthrough(paneTop: 1, paneLeft: 0))
        let placement = Placement(rect: CellRect(column: 4, row: 2, width: 6, height: 3),
                                  pictureSize: PixelSize(width: 60, height: 48), cellSize: CellSize(width: 10, height: 16))
        let image = try TestImages.natural(width: 60, height: 48)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: placement, mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(out.bytes.starts(with: Array("\u{1B}Ptmux;\u{1B}\u{1B}7\u{1B}\u{1B}[4;5H\u{1B}\u{1B}P".utf8)))
        let inner = try KittyStream.unwrapTmux(out.bytes)
        let move = Escape.saveCursor + Array("\u{1B}[4;5H".utf8)
        #expect(Array(inner.prefix(move.count)) == move && Array(inner.suffix(2)) == Escape.restoreCursor)
        let decoded = try SixelDecoder.decode(Array(inner.dropFirst(move.count).dropLast(2)))
        #expect(TestImages.psnr(image, decoded.pixels, width: 60, height: 48) > 28)
        // Identical frame: nothing at all, not even an empty wrap.
        out.removeAll()
        #expect(try driver.render(image, placement: placement, mask: CellMask(columns: 80, rows: 24), into: out).unchanged)
        #expect(out.isEmpty)
    }

    /// Which outputs get pictures whose chroma is interpolated to every pixel (the engine's
    /// planar RGB staging of 8-bit sources): those without a palette or cells (unit tier).
    @Test func onlyAnOutputShowingEveryPixelsColourWantsInterpolatedChroma() {
        #expect(KittyDriver(clock: .monotonic).showsEveryPixelsColour)
        #expect(KittyDriver(placeholders: true, clock: .monotonic).showsEveryPixelsColour)
        #expect(!SixelDriver(colors: 256, dither: .none).showsEveryPixelsColour)
        #expect(!CellDriver(symbols: .half, colorMode: .truecolor).showsEveryPixelsColour)
        #expect(!CellDriver(symbols: .octant, colorMode: .truecolor).showsEveryPixelsColour)
    }
}
