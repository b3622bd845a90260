import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

/// Overlays over a sixel picture on terminals that do not compose images. mlterm 3.9 turns
/// every cell a sixel image touches into a picture cell, its unset pixels background: a picture
/// with transparent holes for the stats box blanked the box's text each time it was painted.
/// There the driver sends the picture in pieces around the overlay's cells instead.
@Suite struct SixelOverlayTests {
    /// A terminal that keeps pictures per cell and does not compose them, as mlterm does: an
    /// image replaces everything in the cells it touches (its unset pixels become background,
    /// the text there is gone); text replaces a cell's picture. Reads CUP, DECSC/DECRC,
    /// private modes, DCS sixel images and printable ASCII.
    struct CellPictureScreen {
        let columns: Int, rows: Int
        let cell: CellSize
        /// Per cell, the character on it (nil: none, or a picture cell).
        var text: [Character?]
        /// The screen's pixels (RGB24), background black.
        var pixels: [UInt8]
        var cursor = (column: 0, row: 0)
        /// The images drawn, with the cells each covered.
        var images: [CellRect] = []

        init(columns: Int, rows: Int, cell: CellSize) {
            self.columns = columns
            self.rows = rows
            self.cell = cell
            text = Array(repeating: nil, count: columns * rows)
            pixels = [UInt8](repeating: 0, count: columns * cell.width * rows * cell.height * 3)
        }

        var pixelWidth: Int { columns * cell.width }

        mutating func write(_ string: String, column: Int, row: Int) {
            for (k, ch) in string.enumerated() where column + k < columns {
                text[row * columns + column + k] = ch
                fill(cellColumn: column + k, row: row, with: (200, 200, 200))
            }
        }

        mutating func fill(cellColumn: Int, row: Int, with rgb: (UInt8, UInt8, UInt8)) {
            for y in (row * cell.height)..<((row + 1) * cell.height) {
                for x in (cellColumn * cell.width)..<((cellColumn + 1) * cell.width) {
                    let i = (y * pixelWidth + x) * 3
                    pixels[i] = rgb.0; pixels[i + 1] = rgb.1; pixels[i + 2] = rgb.2
                }
            }
        }

        mutating func feed(_ bytes: [UInt8]) throws {
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                guard b == 0x1B else {
                    guard (0x20...0x7E).contains(b) else { throw ScreenError.unexpected("byte \(b) at \(i)") }
                    write(String(UnicodeScalar(b)), column: cursor.column, row: cursor.row)
                    cursor.column += 1
                    i += 1
                    continue
                }
                guard i + 1 < bytes.count else { throw ScreenError.unexpected("lone ESC") }
                switch bytes[i + 1] {
                case UInt8(ascii: "7"), UInt8(ascii: "8"):
                    i += 2
                case UInt8(ascii: "["):
                    var j = i + 2
                    while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                    guard j < bytes.count else { throw ScreenError.unexpected("truncated CSI") }
                    let params = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                    if bytes[j] == UInt8(ascii: "H") {
                        let n = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
                        cursor = (max(1, n.count > 1 ? n[1] : 1) - 1, max(1, n.first ?? 1) - 1)
                    } else if !params.hasPrefix("?") {
                        throw ScreenError.unexpected("CSI \(params)\(UnicodeScalar(bytes[j]))")
                    }
                    i = j + 1
                case UInt8(ascii: "P"):
                    var j = i + 2
                    while j + 1 < bytes.count, !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) { j += 1 }
                    guard j + 1 < bytes.count else { throw ScreenError.unexpected("unterminated DCS") }
                    try place(SixelDecoder.decode(Array(bytes[i...(j + 1)])))
                    i = j + 2
                default:
                    throw ScreenError.unexpected("ESC \(bytes[i + 1])")
                }
            }
        }

        /// mlterm's way: the cells the image touches become picture cells, its unset pixels
        /// background.
        private mutating func place(_ image: SixelDecoder) {
            let covered = CellRect(column: cursor.column, row: cursor.row,
                                   width: min(columns - cursor.column, (image.width + cell.width - 1) / cell.width),
                                   height: min(rows - cursor.row, (image.height + cell.height - 1) / cell.height))
            images.append(covered)
            for row in covered.row..<covered.endRow {
                for column in covered.column..<covered.endColumn {
                    text[row * columns + column] = nil
                    fill(cellColumn: column, row: row, with: (0, 0, 0))
                }
            }
            let x0 = cursor.column * cell.width, y0 = cursor.row * cell.height
            for y in 0..<image.height where y0 + y < rows * cell.height {
                for x in 0..<image.width where x0 + x < pixelWidth && image.painted[y * image.width + x] {
                    for c in 0..<3 { pixels[((y0 + y) * pixelWidth + x0 + x) * 3 + c] = image.pixels[(y * image.width + x) * 3 + c] }
                }
            }
        }

        /// The text of `rect`'s cells, row by row (`·` where there is none).
        func text(in rect: CellRect) -> [String] {
            (rect.row..<rect.endRow).map { row in
                String((rect.column..<rect.endColumn).map { text[row * columns + $0] ?? "·" })
            }
        }

        /// Whether cell (`column`, `row`) shows the same pixels here as on `other`.
        func sameCell(_ column: Int, _ row: Int, as other: CellPictureScreen) -> Bool {
            for y in (row * cell.height)..<((row + 1) * cell.height) {
                let i = (y * pixelWidth + column * cell.width) * 3
                if pixels[i..<(i + cell.width * 3)] != other.pixels[i..<(i + cell.width * 3)] { return false }
            }
            return true
        }
    }

    enum ScreenError: Error { case unexpected(String) }

    /// mlterm 3.9's probe answers: DA1 with sixel, no XTVERSION.
    static var mltermCapabilities: TerminalCapabilities {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?63;1;2;3;4;6;7;15;18;22;29c\u{1B}[0n")
        return CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm")).capabilities
    }

    static var xtermCapabilities: TerminalCapabilities {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?63;1;2;4;6;9;15;16;22;28c\u{1B}[?1;0;256S\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[0n")
        return CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm")).capabilities
    }

    /// mlterm's cells in the matrix's Xvfb (10 × 22 px: not a multiple of sixel's 6 rows).
    static let cell = CellSize(width: 10, height: 22)
    /// A picture of 20 × 6 cells at column 2, row 1; the box 8 × 2 cells inside it, and its text.
    static let placement = Placement(rect: CellRect(column: 2, row: 1, width: 20, height: 6),
                                     pictureSize: PixelSize(width: 200, height: 132), cellSize: cell)
    static let box = CellRect(column: 6, row: 3, width: 8, height: 2)
    static let boxText = ["Stats   ", "fps 24.0"]

    static func mask(_ rects: [CellRect]) -> CellMask {
        var mask = CellMask(columns: 30, rows: 10)
        for r in rects { mask.cover(r) }
        return mask
    }

    /// Renders `image` with `driver` and `mask`, over a screen whose box cells hold the box's
    /// text (ncurses drew it after erasing those cells).
    static func paint(_ driver: any VideoDriver, _ image: PixelImage, mask: CellMask,
                      on screen: inout CellPictureScreen) throws -> RenderReport {
        for (k, line) in boxText.enumerated() { screen.write(line, column: box.column, row: box.row + k) }
        let out = ByteBuffer()
        let report = try driver.render(image, placement: placement, mask: mask, into: out)
        try screen.feed(out.bytes)
        return report
    }

    @Test func theOverlayPolicyFollowsWhetherTheTerminalComposes() throws {
        let mlterm = Self.mltermCapabilities, xterm = Self.xtermCapabilities
        #expect(mlterm.sixel.available && !mlterm.sixelComposes && xterm.sixelComposes)
        let clipped = try #require(VideoDrivers.make("auto", capabilities: mlterm, options: .init(), clock: .monotonic) as? SixelDriver)
        #expect(clipped.overlays == .clipped && clipped.repaint == .full)
        #expect(clipped.logDetail == "repaint full, overlays clipped")
        let holes = try #require(VideoDrivers.make("auto", capabilities: xterm, options: .init(), clock: .monotonic) as? SixelDriver)
        #expect(holes.overlays == .transparent && holes.repaint == .changed)
        #expect(mlterm.summaryLines.contains { $0.hasPrefix("sixel composes images: no") })
    }

    /// The failure as the matrix saw it, in the model: one image with a hole over the box
    /// blanks the box's text in a terminal that does not compose.
    @Test func aPictureWithHolesBlanksTheBoxOnANonComposingTerminal() throws {
        let image = try TestImages.natural(width: 200, height: 132)
        var screen = CellPictureScreen(columns: 30, rows: 10, cell: Self.cell)
        _ = try Self.paint(SixelDriver(colors: 64, dither: .none, repaint: .full, overlays: .transparent), image,
                           mask: Self.mask([Self.box]), on: &screen)
        #expect(screen.images.count == 1)
        #expect(screen.text(in: Self.box) == ["········", "········"], "the model must show the failure")
    }

    /// The driver made for mlterm paints every cell of the picture but the box's, and the
    /// box's text survives every frame: the first, a changed one, a repaint of the same.
    @Test func theBoxTextSurvivesThePictureOnMlterm() throws {
        let driver = try #require(VideoDrivers.make("auto", capabilities: Self.mltermCapabilities, options: .init(sixelColors: 64), clock: .monotonic))
        let reference = SixelDriver(colors: 64, dither: .none, repaint: .full)
        let mask = Self.mask([Self.box])
        for seed in [7, 8] as [UInt64] {
            let image = try TestImages.natural(width: 200, height: 132, seed: seed)
            var screen = CellPictureScreen(columns: 30, rows: 10, cell: Self.cell)
            let report = try Self.paint(driver, image, mask: mask, on: &screen)
            #expect(!report.unchanged && report.bytes > 0)
            #expect(screen.text(in: Self.box) == Self.boxText, "seed \(seed): the box's text after the picture")
            #expect(!screen.images.contains { !$0.intersection(Self.box).isEmpty }, "no image touches the box: \(screen.images)")
            // Every other cell of the picture shows what the whole picture shows there (the
            // reference sees the same frames: the same palettes).
            var whole = CellPictureScreen(columns: 30, rows: 10, cell: Self.cell)
            _ = try Self.paint(reference, image, mask: Self.mask([]), on: &whole)
            let r = Self.placement.rect
            var differing: [String] = []
            for row in r.row..<r.endRow {
                for column in r.column..<r.endColumn where !Self.box.contains(column: column, row: row) {
                    if !screen.sameCell(column, row, as: whole) { differing.append("\(column),\(row)") }
                }
            }
            #expect(differing.isEmpty, "seed \(seed): cells unlike the whole picture: \(differing)")
        }
        // Paused: the same frame again is nothing to send; the box stays.
        var screen = CellPictureScreen(columns: 30, rows: 10, cell: Self.cell)
        let again = try Self.paint(driver, try TestImages.natural(width: 200, height: 132, seed: 8), mask: mask, on: &screen)
        #expect(again.unchanged && screen.images.isEmpty)
    }

    /// The pieces tile the picture around the box: one above, one left and one right of it,
    /// one below; each image's raster size is its piece (rows of 22 px: partial last bands).
    @Test func thePiecesTileThePictureAroundTheBox() throws {
        let rects = SixelDriver.uncoveredRects(mask: Self.mask([Self.box]), placement: Self.placement)
        #expect(rects == [PixelRect(x: 0, y: 0, width: 200, height: 44),
                          PixelRect(x: 0, y: 44, width: 40, height: 44), PixelRect(x: 120, y: 44, width: 80, height: 44),
                          PixelRect(x: 0, y: 88, width: 200, height: 44)])
        #expect(SixelDriver.uncoveredRects(mask: Self.mask([]), placement: Self.placement)
                == [PixelRect(x: 0, y: 0, width: 200, height: 132)])
        #expect(SixelDriver.uncoveredRects(mask: Self.mask([Self.placement.rect]), placement: Self.placement).isEmpty)
        // A box past the picture's right edge, and a picture narrower than its cells (195 px in
        // 20 cells): pieces stop at the picture.
        let narrow = Placement(rect: Self.placement.rect, pictureSize: PixelSize(width: 195, height: 132), cellSize: Self.cell)
        let edge = SixelDriver.uncoveredRects(mask: Self.mask([CellRect(column: 18, row: 6, width: 10, height: 2)]), placement: narrow)
        #expect(edge == [PixelRect(x: 0, y: 0, width: 195, height: 110), PixelRect(x: 0, y: 110, width: 160, height: 22)])

        let encoder = SixelEncoder(options: .init(colors: 32, repaint: .full))
        let out = ByteBuffer()
        let report = try encoder.encode(try TestImages.natural(width: 200, height: 132), into: out,
                                        transparent: SixelDriver.transparentRects(mask: Self.mask([Self.box]), placement: Self.placement),
                                        pieces: rects)
        #expect(report.pieces.map(\.rect) == rects)
        let bytes = out.bytes
        for piece in report.pieces {
            let d = try SixelDecoder.decode(Array(bytes[piece.bytes]))
            #expect(d.raster == [1, 1, piece.rect.width, piece.rect.height])
            #expect(d.painted.allSatisfy { $0 }, "a piece paints all of itself")
        }
        #expect(report.pieces.last?.bytes.upperBound == bytes.count && report.pieces.first?.bytes.lowerBound == 0)
        // The same frame again: nothing to send; asked to repeat it (after a clear), the same
        // pieces of what the terminal shows.
        let again = ByteBuffer()
        let same = try encoder.encode(try TestImages.natural(width: 200, height: 132), into: again,
                                      transparent: SixelDriver.transparentRects(mask: Self.mask([Self.box]), placement: Self.placement),
                                      pieces: rects)
        #expect(same.outcome == .identical && again.isEmpty)
        let repeated = ByteBuffer()
        let echo = try encoder.encode(try TestImages.natural(width: 200, height: 132), into: repeated, repeatIdentical: true,
                                        transparent: SixelDriver.transparentRects(mask: Self.mask([Self.box]), placement: Self.placement),
                                        pieces: rects)
        #expect(echo.outcome == .identical && echo.pieces.map(\.rect) == rects)
        for (first, second) in zip(report.pieces, echo.pieces) {
            #expect(try SixelDecoder.decode(Array(bytes[first.bytes])).pixels == SixelDecoder.decode(Array(repeated.bytes[second.bytes])).pixels)
        }
    }

    /// Through tmux's passthrough each piece goes to the outer terminal wrapped and placed.
    @Test func piecesThroughTmuxAreEachWrappedAndPlaced() throws {
        let driver = SixelDriver(colors: 32, dither: .none, repaint: .full, overlays: .clipped,
                                 passthrough: TmuxPassthrough(paneTop: 1, paneLeft: 0))
        let out = ByteBuffer()
        _ = try driver.render(try TestImages.natural(width: 200, height: 132), placement: Self.placement,
                              mask: Self.mask([Self.box]), into: out)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "\u{1B}Ptmux;").count - 1 == 4)
        // The pieces' cells, on the outer terminal one row lower: (2,1), (2,3), (14,3), (2,5).
        for (column, row) in [(2, 1), (2, 3), (14, 3), (2, 5)] {
            #expect(text.contains("\u{1B}\u{1B}[\(row + 2);\(column + 1)H"), "piece at \(column),\(row)")
        }
    }
}
