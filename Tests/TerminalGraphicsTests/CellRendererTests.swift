import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics
import TerminalPictures

/// The finer cell modes (quadrant, sextant, octant) and what every mode shares, judged by
/// decoding the emitted bytes back into what a terminal shows (`CellStreamDecoder`).
@Suite struct CellRendererTests {
    let rect = CellRect(column: 2, row: 1, width: 40, height: 12)

    func render(_ renderer: CellRenderer, _ image: PixelImage, mask: CellMask? = nil,
                into decoder: inout CellStreamDecoder) throws -> (bytes: [UInt8], stats: CellRenderer.FrameStatistics) {
        let out = ByteBuffer()
        let stats = try renderer.render(image, into: rect, mask: mask, output: out)
        decoder.feed(out.bytes)
        return (out.bytes, stats)
    }

    /// The picture `rect` shows, on the 2 × `gridRows` grid per cell.
    func shown(_ decoder: CellStreamDecoder, gridRows: Int) -> [UInt8] { decoder.pixels(of: rect, gridRows: gridRows) }

    @Test func glyphTablesCoverEveryPatternOnceInTheirBlocks() {
        for symbols in CellSymbols.allCases {
            let scalars = (0...symbols.fullPattern).map { symbols.scalar(pattern: $0) }
            #expect(Set(scalars).count == scalars.count, "\(symbols): a character stands for two patterns")
            #expect(scalars.first == 0x20 && scalars.last == 0x2588, "\(symbols): empty is a space, full is █")
        }
        let octants = Set(CellGlyphTables.octants)
        #expect(octants.filter { (0x1CD00...0x1CDE5).contains($0) }.count == 230)
        #expect(Set(CellGlyphTables.sextants).filter { (0x1FB00...0x1FB3B).contains($0) }.count == 60)
        // Known characters: octant-3 (sub-cell 3 alone), ▀ (the top four), ▌ (the left column).
        #expect(CellSymbols.octant.scalar(pattern: 0b100) == 0x1CD00)
        #expect(CellSymbols.octant.scalar(pattern: 0b1111) == 0x2580)
        #expect(CellSymbols.octant.scalar(pattern: 0b0101_0101) == 0x258C)
        #expect(CellSymbols.sextant.scalar(pattern: 0b1) == 0x1FB00)
        #expect(CellSymbols.quadrant.scalar(pattern: 0b1001) == 0x259A)
        // A character shared by modes covers the same area whichever mode sent it.
        #expect(CellSymbols.coverage(of: 0x2580) == CellSymbols.octant.coverage(pattern: 0b1111))
        #expect(CellSymbols.coverage(of: 0x2580) == CellSymbols.half.coverage(pattern: 0b01))
        #expect(CellSymbols.coverage(of: 0x41) == nil)
    }

    /// Every cell shows its fitted pattern and colours: a picture made of exact two-colour
    /// cells comes back exactly, in every mode.
    @Test func twoColourCellsComeBackExactly() throws {
        for symbols in CellSymbols.allCases {
            let w = rect.width * symbols.columns, h = rect.height * symbols.rows
            var seed: UInt64 = 5
            var patterns: [Int] = []
            for _ in 0..<rect.cellCount {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                patterns.append(Int(seed >> 33) & symbols.fullPattern)
            }
            let image = try TestImages.image(width: w, height: h) { x, y in
                let cell = (y / symbols.rows) * rect.width + x / symbols.columns
                let sub = (y % symbols.rows) * symbols.columns + x % symbols.columns
                return patterns[cell] & (1 << sub) != 0 ? (UInt8(cell % 200), 30, 200) : (240, UInt8(cell % 250), 10)
            }
            var decoder = CellStreamDecoder(columns: 50, rows: 16)
            _ = try render(CellRenderer(symbols: symbols), image, into: &decoder)
            #expect(decoder.otherCharacters == 0, "\(symbols)")
            // On the mode's own grid (each grid row one sub-cell row) the pixels are the image's.
            let grid = shown(decoder, gridRows: symbols.rows)
            var wrong = 0
            for y in 0..<h {
                for x in 0..<rect.width * 2 {
                    let source = image.pixel(x: x * symbols.columns / 2, y: y)
                    let o = (y * rect.width * 2 + x) * 3
                    if grid[o] != source.r || grid[o + 1] != source.g || grid[o + 2] != source.b { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(symbols): \(wrong) grid pixels differ")
        }
    }

    /// On a natural picture each mode is within a dB of the best two-colour cells, and finer
    /// modes show more: octant > sextant > quadrant > half.
    @Test func fitsAreNearTheirIdealAndFinerModesShowMore() throws {
        let source = try TestImages.natural(width: rect.width * 2 * 6, height: rect.height * 12 * 2)
        var bytes = [UInt8](repeating: 0, count: source.width * source.height * 3)
        for y in 0..<source.height {
            for x in 0..<source.width {
                let p = source.pixel(x: x, y: y), o = (y * source.width + x) * 3
                bytes[o] = p.r; bytes[o + 1] = p.g; bytes[o + 2] = p.b
            }
        }
        let reference = PictureQuality.areaAverage(bytes, width: source.width, height: source.height,
                                                   toWidth: rect.width * 2, toHeight: rect.height * 12)
        var measured: [CellSymbols: Double] = [:]
        for symbols in CellSymbols.allCases {
            let size = PixelSize(width: rect.width * symbols.columns, height: rect.height * symbols.rows)
            let picture = PictureQuality.areaAverage(bytes, width: source.width, height: source.height,
                                                     toWidth: size.width, toHeight: size.height).map { UInt8(min(255, max(0, $0.rounded()))) }
            var decoder = CellStreamDecoder(columns: 50, rows: 16)
            _ = try render(CellRenderer(symbols: symbols), try PixelImage(width: size.width, height: size.height, pixels: picture), into: &decoder)
            let psnr = PictureQuality.psnr(shown(decoder, gridRows: 12), reference)
            let ideal = PictureQuality.psnr(PictureQuality.idealMSE(reference, cellColumns: rect.width, cellRows: rect.height,
                                                                    gridRows: 12, symbols: symbols))
            #expect(psnr > ideal - 1 && psnr <= ideal + 0.05, "\(symbols): \(psnr) dB, ideal \(ideal) dB")
            measured[symbols] = psnr
        }
        #expect(measured[.octant]! > measured[.sextant]! && measured[.sextant]! > measured[.quadrant]!
                && measured[.quadrant]! > measured[.half]!, "\(measured)")
    }

    /// The fast fit against trying every split, cell by cell, on noise (the hardest case).
    @Test func fastFitIsCloseToTheExhaustiveSplit() {
        var seed: UInt64 = 11
        var fast = 0, best = 0
        for _ in 0..<2000 {
            var p = CellFitting.Pixels()
            for i in 0..<8 {
                for c in 0..<3 {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    p[c, i] = Int(seed >> 56)
                }
            }
            let f = CellFitting.fit(p, count: 8)
            let e = CellFitting.exhaustive(p, count: 8)
            let a = (Int(f.first >> 16), Int(f.first >> 8 & 255), Int(f.first & 255))
            let b = (Int(f.second >> 16), Int(f.second >> 8 & 255), Int(f.second & 255))
            for i in 0..<8 {
                let m = f.pattern & (1 << i) != 0 ? a : b
                fast += (p[0, i] - m.0) * (p[0, i] - m.0) + (p[1, i] - m.1) * (p[1, i] - m.1) + (p[2, i] - m.2) * (p[2, i] - m.2)
            }
            best += e.error
        }
        // Within 10 % of the ideal squared error on random cells (about 0.4 dB).
        #expect(Double(fast) <= Double(best) * 1.10, "fast \(fast), exhaustive \(best)")
    }

    @Test func unchangedFramesWriteNothingAndMasksAreLeftAlone() throws {
        for symbols in [CellSymbols.quadrant, .sextant, .octant] {
            let image = try TestImages.natural(width: rect.width * symbols.columns, height: rect.height * symbols.rows)
            let renderer = CellRenderer(symbols: symbols)
            var decoder = CellStreamDecoder(columns: 50, rows: 16)
            var mask = CellMask(columns: 50, rows: 16)
            mask.cover(CellRect(column: 10, row: 3, width: 5, height: 2))
            let first = try render(renderer, image, mask: mask, into: &decoder)
            #expect(first.stats.cellsMasked == 10)
            for row in 3..<5 { for column in 10..<15 { #expect(decoder[column, row].writes == 0) } }
            let second = try render(renderer, image, mask: mask, into: &decoder)
            #expect(second.bytes.isEmpty && second.stats.cellsDrawn == 0, "\(symbols)")
            // Uncovered, the masked cells are drawn (and only they).
            let third = try render(renderer, image, into: &decoder)
            #expect(third.stats.cellsDrawn == 10, "\(symbols)")
        }
    }

    @Test func palette256UsesOnlyPaletteColoursAndFallsBackInOneColour() throws {
        let image = try TestImages.natural(width: rect.width * 2, height: rect.height * 4)
        var decoder = CellStreamDecoder(columns: 50, rows: 16)
        let (bytes, _) = try render(CellRenderer(symbols: .octant, colorMode: .palette256), image, into: &decoder)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("8;2;"))
        for row in rect.row..<rect.endRow {
            for column in rect.column..<rect.endColumn {
                let cell = decoder[column, row]
                if case .rgb = cell.fg { Issue.record("24-bit colour in 256-colour mode") }
                if case .rgb = cell.bg { Issue.record("24-bit colour in 256-colour mode") }
            }
        }
    }

    /// The tolerance leaves small changes alone and always draws large ones.
    @Test func toleranceSkipsSmallChangesOnly() throws {
        let base = try TestImages.natural(width: rect.width * 2, height: rect.height * 4)
        func shifted(_ d: Int) throws -> PixelImage {
            try TestImages.image(width: base.width, height: base.height) { x, y in
                let p = base.pixel(x: x, y: y)
                return (UInt8(clamping: Int(p.r) + d), UInt8(clamping: Int(p.g) + d), UInt8(clamping: Int(p.b) + d))
            }
        }
        let renderer = CellRenderer(symbols: .octant)
        renderer.tolerance = 12
        var decoder = CellStreamDecoder(columns: 50, rows: 16)
        _ = try render(renderer, base, into: &decoder)
        let small = try render(renderer, try shifted(3), into: &decoder)   // RMS ≈ 5 levels
        // (Cells drawn with the pen's colours already spent part of the tolerance: a few of them
        // go over it and are drawn again.)
        #expect(small.stats.cellsDrawn <= rect.cellCount / 10 && small.stats.cellsTolerated > rect.cellCount * 8 / 10, "\(small.stats)")
        let large = try render(renderer, try shifted(40), into: &decoder)
        #expect(large.stats.cellsDrawn > rect.cellCount * 9 / 10, "\(large.stats)")
        renderer.tolerance = .nan
        #expect(renderer.tolerance == 0)
        renderer.tolerance = 1e9
        #expect(renderer.tolerance == 64)
    }

    /// Within the tolerance a cell takes the colours already set: a row of cells each a level or
    /// two off its neighbour needs one SGR, and what the terminal shows (decoded from the
    /// bytes) is within the tolerance of the picture and is what the renderer keeps as shown.
    @Test func nearColoursReuseThePenWithinTheToleranceOnly() throws {
        let image = try TestImages.image(width: rect.width, height: rect.height * 2) { x, y in
            let v = UInt8(100 + (x * 7 + y * 3) % 5)   // 100…104: grain around one colour
            return (v, UInt8(50 + (x + y) % 3), 200)
        }
        for symbols in [CellSymbols.half] {
            var decoder = CellStreamDecoder(columns: 50, rows: 16)
            let exact = try render(CellRenderer(symbols: symbols), image, into: &decoder)
            let renderer = CellRenderer(symbols: symbols)
            renderer.tolerance = 4
            var tolerant = CellStreamDecoder(columns: 50, rows: 16)
            let reused = try render(renderer, image, into: &tolerant)
            #expect(reused.stats.cellsPenReused > rect.cellCount / 2, "\(reused.stats)")
            #expect(reused.stats.colorChanges <= rect.height * 2, "\(reused.stats)")
            #expect(reused.bytes.count * 3 < exact.bytes.count, "\(reused.bytes.count) bytes against \(exact.bytes.count) exact")
            // Every pixel shown is within 4 levels RMS of its cell's own (budget: 16 × 2 per cell).
            let grid = shown(tolerant, gridRows: 2)
            var worst = 0
            for cy in 0..<rect.height {
                for cx in 0..<rect.width {
                    var e = 0
                    for sub in 0..<2 {
                        let x = cx, y = cy * 2 + sub, p = image.pixel(x: x, y: y)
                        let o = (y * rect.width * 2 + x * 2) * 3
                        let d = (Int(grid[o]) - Int(p.r), Int(grid[o + 1]) - Int(p.g), Int(grid[o + 2]) - Int(p.b))
                        e += d.0 * d.0 + d.1 * d.1 + d.2 * d.2
                    }
                    worst = max(worst, e)
                }
            }
            #expect(worst <= 4 * 4 * 2 + 2 * 3 * 3, "worst cell error \(worst)")
            // The same picture again draws nothing: what was drawn is what is kept as shown.
            let again = try render(renderer, image, into: &tolerant)
            #expect(again.bytes.isEmpty, "\(again.stats)")
            // Without a tolerance nothing is reused.
            #expect(exact.stats.cellsPenReused == 0)
        }
        // 256 colours: a palette index is a coarse step already; no reuse.
        let palette = CellRenderer(symbols: .half, colorMode: .palette256)
        palette.tolerance = 8
        var decoder = CellStreamDecoder(columns: 50, rows: 16)
        #expect(try render(palette, image, into: &decoder).stats.cellsPenReused == 0)
    }

    /// A box over a still picture closes: the cells under it are drawn exactly as they were,
    /// though a tolerant renderer drawing them afresh would pick its pen's colours (which differ
    /// there now).
    @Test func cellsUnderAClosedBoxComeBackExactly() throws {
        let image = try TestImages.natural(width: rect.width, height: rect.height * 2)
        let renderer = CellRenderer(symbols: .half)
        renderer.tolerance = 8
        var decoder = CellStreamDecoder(columns: 50, rows: 16)
        _ = try render(renderer, image, into: &decoder)
        let before = shown(decoder, gridRows: 2)
        // A box over the middle of rows 3–6: the renderer leaves those cells; someone paints them.
        let box = CellRect(column: 12, row: 3, width: 17, height: 4)
        var mask = CellMask(columns: 50, rows: 16)
        mask.cover(box)
        _ = try render(renderer, image, mask: mask, into: &decoder)
        var scribble = [UInt8]()
        for row in box.row..<box.endRow {
            scribble += Array("\u{1B}[\(row + 1);\(box.column + 1)H\u{1B}[48;2;255;0;255m".utf8) + Array(repeating: 0x20, count: box.width)
        }
        decoder.feed(scribble)
        #expect(shown(decoder, gridRows: 2) != before)
        // Closed: the next frame (the same picture) repaints exactly what was there.
        let after = try render(renderer, image, into: &decoder)
        #expect(after.stats.cellsDrawn == box.width * box.height, "\(after.stats)")
        #expect(shown(decoder, gridRows: 2) == before)
        // The same after a whole invalidate (a screen clear).
        renderer.invalidate()
        var clear = [UInt8]()
        for row in rect.row..<rect.endRow {
            clear += Array("\u{1B}[\(row + 1);\(rect.column + 1)H\u{1B}[48;2;0;0;0m".utf8) + Array(repeating: 0x20, count: rect.width)
        }
        decoder.feed(clear)
        _ = try render(renderer, image, into: &decoder)
        #expect(shown(decoder, gridRows: 2) == before)
    }

    /// An overlay that came and went between two frames (a message shown as a filmstrip closed)
    /// was in no frame's mask, yet something drew on its cells: the output hands the renderer
    /// every mask it did not paint (``CellRenderer/invalidate(_:)-(CellMask)``), and the next
    /// frame draws exactly those cells again.
    @Test func cellsOfAnOverlayNoFrameSawAreDrawnAgain() throws {
        let image = try TestImages.natural(width: rect.width, height: rect.height * 2)
        let renderer = CellRenderer(symbols: .half)
        var decoder = CellStreamDecoder(columns: 50, rows: 16)
        _ = try render(renderer, image, into: &decoder)
        let before = shown(decoder, gridRows: 2)
        let box = CellRect(column: 3, row: 2, width: 9, height: 1)
        decoder.feed(Array("\u{1B}[\(box.row + 1);\(box.column + 1)H\u{1B}[0m".utf8) + Array(repeating: 0x20, count: box.width))
        #expect(shown(decoder, gridRows: 2) != before)
        // Unknown to the renderer, the same picture draws nothing.
        #expect(try render(renderer, image, into: &decoder).stats.cellsDrawn == 0)
        var seen = CellMask(columns: 50, rows: 16)
        seen.cover(box)
        var drawnOver = CellMask(columns: 50, rows: 16)
        drawnOver.cover(seen)
        #expect(!drawnOver.isEmpty)
        renderer.invalidate(drawnOver)
        let after = try render(renderer, image, into: &decoder)
        #expect(after.stats.cellsDrawn == box.width, "\(after.stats)")
        #expect(shown(decoder, gridRows: 2) == before)
    }

    /// A two-colour cell is drawn the way round that keeps the colours the terminal has set:
    /// alternating rows of the same two colours need one SGR in all.
    @Test func cellsAreDrawnEitherWayRoundToKeepColours() throws {
        let image = try TestImages.image(width: rect.width, height: rect.height * 2) { x, y in
            (x + y / 2) % 2 == (y % 2) ? (250, 0, 0) : (0, 0, 250)
        }
        var decoder = CellStreamDecoder(columns: 50, rows: 16)
        let (_, stats) = try render(CellRenderer(symbols: .half), image, into: &decoder)
        #expect(stats.colorChanges == 1, "\(stats)")
        var wrong = 0
        let grid = shown(decoder, gridRows: 2)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let o = (y * rect.width * 2 + x * 2) * 3, p = image.pixel(x: x, y: y)
                if grid[o] != p.r || grid[o + 2] != p.b { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test func terminalsGetTheFinestCellsTheyDrawThemselves() {
        func symbols(_ version: String?, program: String? = nil, tmux: Bool = false) -> CellSymbols {
            var caps = TerminalCapabilities()
            caps.terminal.version = version
            caps.terminal.termProgram = program
            caps.tmux.inside = tmux
            return CellSymbols.preferred(for: caps)
        }
        #expect(symbols("kitty(0.40.1)") == .octant)
        #expect(symbols("kitty(0.26.5)") == .sextant)
        #expect(symbols("kitty(0.19.3)") == .half)
        #expect(symbols("foot(1.20.2)") == .octant)
        #expect(symbols("foot(1.13.1)") == .sextant)
        #expect(symbols("WezTerm 20240203-110809-5046fc22") == .octant)
        #expect(symbols("ghostty 1.1.3") == .octant)
        #expect(symbols("XTerm(379)") == .half)
        #expect(symbols(nil) == .half)
        #expect(symbols(nil, program: "WezTerm") == .octant)
        #expect(symbols("tmux 3.3a", tmux: true) == .half)
        #expect(symbols("kitty(0.40.1)", tmux: true) == .half)
        // Hostile names: long, numbers past Int, control bytes: half blocks, no trap.
        #expect(symbols("kitty(" + String(repeating: "9", count: 5000) + ")") == .octant)
        #expect(symbols("foot(\u{1B}[1;2)") == .half)
        #expect(VideoDrivers.resolve("auto", capabilities: {
            var c = TerminalCapabilities(); c.terminal.version = "foot(1.20.0)"; return c }())?.name == "cells")
        #expect(VideoDrivers.resolve("auto", capabilities: TerminalCapabilities())?.name == "halfblock")
        #expect(CellSymbols(option: "OCTANT") == .octant && CellSymbols(option: "eighth") == nil)
        var foot = TerminalCapabilities()
        foot.terminal.version = "foot(1.20.0)"
        #expect(foot.summaryLines.contains("cells (--vo-cells=auto): octant"), "\(foot.summaryLines)")
    }

    /// The decoder is fed what the renderer never writes: garbage, cut sequences, huge numbers,
    /// strings; it stays inside its screen and never traps.
    @Test func decoderSurvivesHostileStreams() {
        var decoder = CellStreamDecoder(columns: 20, rows: 5)
        var seed: UInt64 = 3
        for _ in 0..<200 {
            var chunk: [UInt8] = []
            for _ in 0..<300 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let r = Int(seed >> 33)
                switch r % 9 {
                case 0: chunk += Array("\u{1B}[".utf8)
                case 1: chunk += Array("\(r);".utf8)
                case 2: chunk += Array("38;2;999999999999;".utf8)
                case 3: chunk += Array("\u{1B}P".utf8)
                case 4: chunk.append(0xF0)
                case 5: chunk += Array("𜴀".utf8)
                case 6: chunk += Array("H\u{1B}[99999;99999H".utf8)
                default: chunk.append(UInt8(truncatingIfNeeded: r))
                }
            }
            decoder.feed(chunk)
        }
        decoder.feed(Array("\u{1B}\\\u{1B}[0m\u{1B}[1;1H\u{1B}[38;2;1;2;3;48;5;200m▀".utf8))
        #expect(decoder[0, 0].scalar == 0x2580)
        #expect(decoder[0, 0].fg == .rgb(1, 2, 3) && decoder[0, 0].bg == .index(200))
        #expect(decoder.pixels(of: CellRect(column: 15, row: 3, width: 10, height: 10)).count == 10 * 2 * 10 * 12 * 3)
    }
}
