import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics
import TerminalPictures

/// kitty's Unicode placeholders (unit tier): the cells name the image and cover the picture's
/// cells, decoded back from the bytes (``CellStreamDecoder``); the driver sends the image every
/// frame it changes and the cells only where the terminal does not have them.
struct KittyPlaceholderTests {
    /// kitty's table: 297 marks, all distinct, every one a combining mark drawn above (class 230).
    @Test func theDiacriticsAreKittysTable() {
        let marks = KittyPlaceholder.diacritics
        #expect(marks.count == 297 && Set(marks).count == 297)
        #expect(marks.first == 0x0305 && marks.last == 0x1D244 && marks[100] == 0x07EB)
        for mark in marks {
            let scalar = Unicode.Scalar(mark)
            #expect(scalar?.properties.canonicalCombiningClass == .above, "U+\(String(mark, radix: 16)) is not above")
        }
        #expect(KittyPlaceholder.index(of: 0x0305) == 0 && KittyPlaceholder.index(of: 0x1D244) == 296)
        #expect(KittyPlaceholder.index(of: 0xFB1E) == nil && KittyPlaceholder.index(of: 0x41) == nil)
    }

    func decode(_ bytes: [UInt8], columns: Int = 40, rows: Int = 12) -> CellStreamDecoder {
        var decoder = CellStreamDecoder(columns: columns, rows: rows)
        decoder.feed(bytes)
        return decoder
    }

    /// The cells over a rectangle: each names the image (its 32 bits: the colour and the third
    /// mark) and its row and column; covered cells are not written.
    @Test func theCellsNameTheImageAndCoverThePicture() {
        let rect = CellRect(column: 5, row: 2, width: 12, height: 4)
        var mask = CellMask(columns: 40, rows: 12)
        mask.cover(CellRect(column: 8, row: 3, width: 3, height: 2))
        let out = ByteBuffer()
        KittyPlaceholder.appendCells(imageID: KittyDriver.defaultImageID, rect: rect, mask: mask, into: out)
        let screen = decode(out.bytes)
        #expect(screen.placeholdersCover(rect, imageID: KittyDriver.defaultImageID, except: mask))
        #expect(screen[8, 3].scalar == 0x20 && screen[8, 3].writes == 0, "a covered cell was written")
        let corner = screen.placeholder(column: 16, row: 5)
        #expect(corner == .init(imageID: 0x4165_7468, row: 3, column: 11))
        #expect(screen.placeholders(of: KittyDriver.defaultImageID).count == 12 * 4 - 6)
        // The foreground is back to the default after the cells.
        #expect(out.bytes.suffix(5) == ArraySlice("\u{1B}[39m".utf8))
        // A picture wider than the table: the columns past 297 are left out, the rest named.
        let wide = ByteBuffer()
        KittyPlaceholder.appendCells(imageID: 7, rect: CellRect(column: 0, row: 0, width: 300, height: 1),
                                     mask: CellMask(columns: 300, rows: 1), into: wide)
        let wideScreen = decode(wide.bytes, columns: 300, rows: 1)
        #expect(wideScreen.placeholder(column: 296, row: 0) == .init(imageID: 7, row: 0, column: 296))
        #expect(wideScreen.placeholder(column: 297, row: 0) == nil)
    }

    /// The driver: the first frame sends the image as a virtual placement (`U=1`, no `C=1`)
    /// and every cell; a changed frame sends the image only; an unchanged one nothing; cells an
    /// overlay leaves, or that something else drew on, are written again; a new placement or
    /// an invalidation writes all of them.
    @Test func theDriverWritesCellsOnlyWhereTheTerminalLacksThem() throws {
        let driver = KittyDriver(placeholders: true, clock: .monotonic)
        #expect(!driver.drawsAboveText && driver.showsPixels)
        let geometry = TerminalGeometry(columns: 40, rows: 12, cellSize: CellSize(width: 10, height: 20))
        let placement = driver.placement(for: CellRect(column: 0, row: 0, width: 40, height: 12), displayAspect: 16 / 9,
                                         geometry: geometry, scale: 1)
        let empty = CellMask(columns: 40, rows: 12)
        let red = try TestImages.image(width: placement.pictureSize.width, height: placement.pictureSize.height, { _, _ in (255, 0, 0) })
        let blue = try TestImages.image(width: placement.pictureSize.width, height: placement.pictureSize.height, { _, _ in (0, 0, 255) })
        func frame(_ image: PixelImage, _ mask: CellMask) throws -> (text: String, report: RenderReport, screen: CellStreamDecoder) {
            let out = ByteBuffer()
            let report = try driver.render(image, placement: placement, mask: mask, into: out)
            return (String(decoding: out.bytes, as: UTF8.self), report, decode(out.bytes))
        }
        let first = try frame(red, empty)
        #expect(first.text.contains("U=1") && !first.text.contains("C=1") && first.text.contains("a=T"))
        #expect(first.screen.placeholdersCover(placement.rect, imageID: driver.imageID))
        let changed = try frame(blue, empty)
        #expect(changed.text.contains("U=1") && changed.screen.placeholders(of: driver.imageID).isEmpty)
        let same = try frame(blue, empty)
        #expect(same.report.unchanged && same.report.bytes == 0)
        // An overlay opens: nothing to write (its cells are the overlay's now); it closes: its cells.
        var menu = empty
        let menuRect = CellRect(column: 10, row: 3, width: 6, height: 2)
        menu.cover(menuRect)
        let opened = try frame(blue, menu)
        #expect(opened.report.unchanged, "\(opened.text.utf8.count) bytes with the overlay opening")
        let closed = try frame(blue, empty)
        #expect(closed.screen.placeholders(of: driver.imageID).count == 12)
        #expect(closed.screen.placeholdersCover(menuRect, imageID: driver.imageID) == false)
        for row in menuRect.row..<menuRect.endRow {
            for column in menuRect.column..<menuRect.endColumn {
                #expect(closed.screen.placeholder(column: column, row: row)
                        == .init(imageID: driver.imageID, row: row - placement.rect.row, column: column - placement.rect.column))
            }
        }
        // Something else drew on two cells (a toast): those two again.
        var toast = empty
        toast.cover(CellRect(column: 0, row: 0, width: 2, height: 1))
        driver.invalidate(cells: toast)
        #expect(try frame(blue, empty).screen.placeholders(of: driver.imageID).count == 2)
        // An invalidation (a redraw of the screen): the image and every cell.
        driver.invalidate()
        let again = try frame(blue, empty)
        #expect(again.text.contains("a=T") && again.screen.placeholdersCover(placement.rect, imageID: driver.imageID))
    }

    /// Inside tmux the image goes through the passthrough without a cursor move (a virtual
    /// placement has no place) and the cells as text.
    @Test func insideTmuxOnlyTheImageIsWrapped() throws {
        let driver = KittyDriver(passthrough: TmuxPassthrough(paneTop: 3, paneLeft: 0), placeholders: true, clock: .monotonic)
        let placement = Placement(rect: CellRect(column: 2, row: 1, width: 8, height: 3), pictureSize: PixelSize(width: 80, height: 60))
        let out = ByteBuffer()
        _ = try driver.render(try TestImages.image(width: 80, height: 60, { _, _ in (0, 255, 0) }), placement: placement,
                              mask: CellMask(columns: 20, rows: 6), into: out)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=T"), "\(text.prefix(40).debugDescription)")
        #expect(!text.contains("\u{1B}\u{1B}7") && !text.contains("\u{1B}\u{1B}["), "a cursor move inside the wrap")
        #expect(decode(out.bytes, columns: 20, rows: 6).placeholdersCover(placement.rect, imageID: driver.imageID))
    }

    /// Which outer terminals get placeholders inside tmux: kitty from 0.28, ghostty; not an
    /// older kitty, WezTerm, or any terminal outside tmux.
    @Test func placeholdersAreForTerminalsThatShowThem() {
        func caps(_ version: String?, tmux: Bool = true) -> TerminalCapabilities {
            var c = TerminalCapabilities()
            c.tmux.inside = tmux
            c.tmux.pane = tmux ? TmuxPane(passthrough: true) : nil
            c.kitty.graphics = true
            c.tmux.outerVersion = version
            return c
        }
        #expect(KittyDriver.placeholders(for: caps("kitty(0.28.0)")))
        #expect(KittyDriver.placeholders(for: caps("kitty(0.35.2)")))
        #expect(KittyDriver.placeholders(for: caps("ghostty 1.1.3")))
        #expect(!KittyDriver.placeholders(for: caps("kitty(0.26.5)")))
        #expect(!KittyDriver.placeholders(for: caps("WezTerm 20240203")))
        #expect(!KittyDriver.placeholders(for: caps(nil)))
        #expect(!KittyDriver.placeholders(for: caps("kitty(0.35.2)", tmux: false)))
        #expect(!KittyDriver.placeholders(for: caps("kitty(x.y)")))
        let made = VideoDrivers.make("kitty", capabilities: caps("kitty(0.35.2)"), options: .init(), clock: .monotonic) as? KittyDriver
        #expect(made?.placeholders == true)
    }
}
