import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

@Suite struct HalfBlockRendererTests {
    let rect = CellRect(column: 3, row: 2, width: 40, height: 12)

    func screen() -> VTScreen { VTScreen(columns: 50, rows: 16) }

    func render(_ renderer: CellRenderer, _ image: PixelImage, mask: CellMask? = nil,
                into screen: inout VTScreen) throws -> (bytes: [UInt8], stats: CellRenderer.FrameStatistics) {
        let out = ByteBuffer()
        let stats = try renderer.render(image, into: rect, mask: mask, output: out)
        try screen.feed(out.bytes)
        return (out.bytes, stats)
    }

    /// Every cell inside `rect` shows the source pixels exactly (truecolor).
    func assertMatches(_ screen: VTScreen, _ image: PixelImage, skipping mask: CellMask? = nil) {
        var mismatches = 0
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                if mask?.isCovered(column: rect.column + x, row: rect.row + y) == true { continue }
                let halves = screen[rect.column + x, rect.row + y].halves
                let t = image.pixel(x: x, y: 2 * y), b = image.pixel(x: x, y: 2 * y + 1)
                if halves.top != .rgb(t.r, t.g, t.b) || halves.bottom != .rgb(b.r, b.g, b.b) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func truecolorCellsEqualSourcePixels() throws {
        for image in [try TestImages.natural(width: 40, height: 24), try TestImages.noise(width: 40, height: 24)] {
            var vt = screen()
            let renderer = CellRenderer()
            let (_, stats) = try render(renderer, image, into: &vt)
            #expect(stats.cellsDrawn == rect.cellCount)
            assertMatches(vt, image)
            // Nothing outside the rectangle was written.
            for row in 0..<vt.rows {
                for column in 0..<vt.columns where !rect.contains(column: column, row: row) {
                    #expect(vt[column, row].writes == 0)
                }
            }
        }
    }

    @Test func uniformAreasUseOneColour() throws {
        let image = try TestImages.image(width: 40, height: 24) { x, _ in x < 20 ? (10, 20, 30) : (200, 100, 0) }
        var vt = screen()
        let (bytes, stats) = try render(CellRenderer(), image, into: &vt)
        assertMatches(vt, image)
        // Two colours per row at most, one SGR each.
        #expect(stats.colorChanges <= 2 * rect.height)
        #expect(bytes.count < rect.cellCount * 4)
    }

    @Test func palette256PicksNearestColour() throws {
        let image = try TestImages.noise(width: 40, height: 24, seed: 99)
        var vt = screen()
        let renderer = CellRenderer(colorMode: .palette256)
        _ = try render(renderer, image, into: &vt)
        func distance(_ i: Int, _ p: (r: UInt8, g: UInt8, b: UInt8)) -> Int {
            let c = XtermPalette.rgb(index: i)
            let dr = Int(c.r) - Int(p.r), dg = Int(c.g) - Int(p.g), db = Int(c.b) - Int(p.b)
            return dr * dr + dg * dg + db * db
        }
        var wrong = 0
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let halves = vt[rect.column + x, rect.row + y].halves
                for (color, p) in [(halves.top, image.pixel(x: x, y: 2 * y)), (halves.bottom, image.pixel(x: x, y: 2 * y + 1))] {
                    guard case .index(let i) = color, (16...255).contains(i) else {
                        wrong += 1
                        continue
                    }
                    let best = (16...255).map { distance($0, p) }.min() ?? 0
                    if distance(i, p) != best { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0)
    }

    @Test func identicalFrameWritesNothing() throws {
        let image = try TestImages.natural(width: 40, height: 24)
        var vt = screen()
        let renderer = CellRenderer()
        _ = try render(renderer, image, into: &vt)
        let (bytes, stats) = try render(renderer, image, into: &vt)
        #expect(bytes.isEmpty)
        #expect(stats.cellsDrawn == 0)
        #expect(stats.cellsSkipped == rect.cellCount)
    }

    @Test func oneChangedPixelRewritesOneCell() throws {
        var pixels = TestImages.make(width: 40, height: 24) { x, y in (UInt8(x * 6), UInt8(y * 10), 128) }
        var vt = screen()
        let renderer = CellRenderer()
        _ = try render(renderer, try PixelImage(width: 40, height: 24, pixels: pixels), into: &vt)
        // Pixel (17, 9) is the lower half of cell (17, 4).
        let o = (9 * 40 + 17) * 3
        pixels[o] = 255; pixels[o + 1] = 0; pixels[o + 2] = 0
        let changed = try PixelImage(width: 40, height: 24, pixels: pixels)
        let (bytes, stats) = try render(renderer, changed, into: &vt)
        #expect(stats.cellsDrawn == 1)
        #expect(bytes.count < 64)
        assertMatches(vt, changed)
        let rewritten = vt.cells.indices.filter { vt.cells[$0].writes == 2 }
        #expect(rewritten == [(rect.row + 4) * vt.columns + rect.column + 17])
    }

    @Test func maskedCellsAreNotTouchedAndRepaintWhenUncovered() throws {
        let first = try TestImages.natural(width: 40, height: 24)
        let second = try TestImages.noise(width: 40, height: 24, seed: 5)
        var mask = CellMask(columns: 50, rows: 16)
        let overlay = CellRect(column: 10, row: 4, width: 12, height: 3)
        mask.cover(overlay)
        var vt = screen()
        let renderer = CellRenderer()
        let (_, s1) = try render(renderer, first, mask: mask, into: &vt)
        let (_, s2) = try render(renderer, second, mask: mask, into: &vt)
        #expect(s1.cellsMasked == overlay.cellCount && s2.cellsMasked == overlay.cellCount)
        for row in overlay.row..<overlay.endRow {
            for column in overlay.column..<overlay.endColumn { #expect(vt[column, row].writes == 0) }
        }
        assertMatches(vt, second, skipping: mask)
        // Overlay removed: exactly the cells it covered are painted, and the picture is whole.
        let (_, s3) = try render(renderer, second, into: &vt)
        #expect(s3.cellsDrawn == overlay.cellCount)
        assertMatches(vt, second)
    }

    @Test func invalidateRepaintsEverything() throws {
        let image = try TestImages.natural(width: 40, height: 24)
        var vt = screen()
        let renderer = CellRenderer()
        _ = try render(renderer, image, into: &vt)
        renderer.invalidate()
        let (_, stats) = try render(renderer, image, into: &vt)
        #expect(stats.cellsDrawn == rect.cellCount)
    }

    @Test func rgbaAndPaddedStride() throws {
        let source = try TestImages.natural(width: 40, height: 24)
        var padded = [UInt8](repeating: 7, count: 24 * 200)
        for y in 0..<24 {
            for x in 0..<40 {
                let p = source.pixel(x: x, y: y)
                padded[y * 200 + x * 4] = p.r
                padded[y * 200 + x * 4 + 1] = p.g
                padded[y * 200 + x * 4 + 2] = p.b
            }
        }
        let image = try PixelImage(width: 40, height: 24, format: .rgba32, stride: 200, pixels: padded)
        var vt = screen()
        _ = try render(CellRenderer(), image, into: &vt)
        assertMatches(vt, source)
    }

    @Test func wrongSizeIsAnErrorNotATrap() throws {
        let image = try TestImages.natural(width: 40, height: 23)
        #expect(throws: RenderError.self) { try CellRenderer().render(image, into: rect, output: ByteBuffer()) }
        #expect(throws: PixelImageError.self) { try PixelImage(width: 10, height: 10, pixels: [1, 2, 3]) }
    }
}
