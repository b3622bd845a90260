@testable import AetherTUI
import TerminalGraphics
import Testing

/// Changing the video output (the `d` key, the governor's fallback from sixel to half-block)
/// erases the cells the old output's pictures cover before anything is drawn for the new one:
/// a sixel picture stays on screen until its cells are erased, and foot kept its pixels where
/// the half-block picture did not draw.
@Suite struct OutputSwitchTests {
    static let cell = CellSize(width: 10, height: 20)

    /// The cells `bytes` erase (CUP then ECH), after checking they are wrapped in DECSC, SGR 0
    /// … DECRC and contain nothing else.
    static func erasedCells(_ bytes: [UInt8]) throws -> Set<[Int]> {
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}7\u{1B}[0m"), "default attributes, cursor saved: \(text.debugDescription)")
        #expect(text.hasSuffix("\u{1B}8"), "the cursor put back")
        var erased = Set<[Int]>()
        var cursor = (column: 0, row: 0)
        var i = 0
        let b = bytes
        while i < b.count {
            guard b[i] == 0x1B, i + 1 < b.count else { throw SwitchError.unexpected("byte \(b[i]) at \(i)") }
            if b[i + 1] == UInt8(ascii: "7") || b[i + 1] == UInt8(ascii: "8") { i += 2; continue }
            guard b[i + 1] == UInt8(ascii: "[") else { throw SwitchError.unexpected("ESC \(b[i + 1])") }
            var j = i + 2
            while j < b.count, !(0x40...0x7E).contains(b[j]) { j += 1 }
            guard j < b.count else { throw SwitchError.unexpected("truncated CSI") }
            let n = String(decoding: b[(i + 2)..<j], as: UTF8.self).split(separator: ";").map { Int($0) ?? 0 }
            switch b[j] {
            case UInt8(ascii: "H") where n.count == 2: cursor = (n[1] - 1, n[0] - 1)
            case UInt8(ascii: "X") where n.count == 1 && n[0] > 0:
                for k in 0..<n[0] { erased.insert([cursor.column + k, cursor.row]) }
            case UInt8(ascii: "m"): #expect(n == [0])
            default: throw SwitchError.unexpected("CSI final \(b[j])")
            }
            i = j + 1
        }
        return erased
    }

    enum SwitchError: Error { case unexpected(String) }

    static func cells(_ rect: CellRect) -> Set<[Int]> {
        Set((rect.row..<rect.endRow).flatMap { row in (rect.column..<rect.endColumn).map { [$0, row] } })
    }

    @Test func theSwitchErasesThePicturesButTheOverlays() throws {
        let picture = CellRect(column: 2, row: 1, width: 20, height: 6)
        let box = CellRect(column: 6, row: 3, width: 8, height: 2)
        let preview = CellRect(column: 24, row: 2, width: 6, height: 3)
        var mask = CellMask(columns: 40, rows: 12)
        mask.cover(box)
        mask.cover(preview)   // a still's cells are in the video's mask
        var overPreview = CellMask(columns: 40, rows: 12)
        overPreview.cover(CellRect(column: 24, row: 2, width: 6, height: 1))   // its label
        let scene = VideoOutput.Scene(
            placement: Placement(rect: picture, pictureSize: PixelSize(width: 200, height: 120), cellSize: Self.cell),
            mask: mask,
            stills: [.init(placement: Placement(rect: preview, pictureSize: PixelSize(width: 60, height: 60), cellSize: Self.cell),
                           stamp: 1, picture: .init(width: 1, height: 1, pixels: [0, 0, 0]), mask: overPreview)])
        let erased = try Self.erasedCells(VideoOutput.pictureErase(for: scene))
        let expected = Self.cells(picture).subtracting(Self.cells(box))
            .union(Self.cells(preview).subtracting(Self.cells(CellRect(column: 24, row: 2, width: 6, height: 1))))
        #expect(erased == expected, "missing \(expected.subtracting(erased).sorted { $0.lexicographicallyPrecedes($1) }), extra \(erased.subtracting(expected).sorted { $0.lexicographicallyPrecedes($1) })")
    }

    /// Nothing on screen, nothing sent: no picture yet (or no room for one).
    @Test func noPictureNoErase() {
        #expect(VideoOutput.pictureErase(for: .init(placement: .none, mask: CellMask(columns: 40, rows: 12))).isEmpty)
    }

    /// A picture whose mask covers all of it (a menu over the whole video) erases nothing.
    @Test func aFullyCoveredPictureErasesNothing() {
        let picture = CellRect(column: 0, row: 1, width: 10, height: 4)
        var mask = CellMask(columns: 10, rows: 6)
        mask.cover(picture)
        let scene = VideoOutput.Scene(placement: Placement(rect: picture, pictureSize: PixelSize(width: 100, height: 78), cellSize: Self.cell),
                                      mask: mask)
        #expect(VideoOutput.pictureErase(for: scene).isEmpty)
    }
}
