@testable import AetherScreen
@testable import AetherTUI
import AetherEngine
import TerminalGraphics
import Testing

/// The music view's geometry and glyphs (pure).
@Suite struct MusicLayoutTests {
    let cell = CellSize(width: 8, height: 16)

    /// No two parts overlap, and all stay inside `area`.
    func checkDisjoint(_ l: MusicLayout, in area: CellRect) {
        let parts = [l.cover, l.text, l.bars].filter { !$0.isEmpty }
        for (i, a) in parts.enumerated() {
            #expect(a.intersection(area) == a, "\(a) leaves \(area)")
            for b in parts.dropFirst(i + 1) { #expect(a.intersection(b).isEmpty, "\(a) overlaps \(b)") }
        }
    }

    @Test func wideAreaPutsTheCoverLeftAndTheSpectrumUnderTheTags() {
        // A 100×30 screen: the area is rows 1…27.
        let area = CellRect(column: 0, row: 1, width: 100, height: 27)
        let l = MusicLayout(area: area, cellSize: cell, textLines: 5)
        // 25 rows would be 50 columns (square in pixels): capped at two fifths of 96.
        #expect(l.cover == CellRect(column: 2, row: 2, width: 38, height: 19))
        #expect(l.text == CellRect(column: 43, row: 2, width: 55, height: 5))
        #expect(l.bars == CellRect(column: 43, row: 8, width: 55, height: 19))
        #expect(!l.meter)
        checkDisjoint(l, in: area)
    }

    @Test func aSquareCoverWhenTheWidthAllows() {
        let area = CellRect(column: 0, row: 1, width: 200, height: 20)
        let l = MusicLayout(area: area, cellSize: cell, textLines: 4)
        // 18 rows of 16 px = 36 columns of 8 px.
        #expect(l.cover == CellRect(column: 2, row: 2, width: 36, height: 18))
        #expect(l.bars.height == 18 - 4 - 1)
        checkDisjoint(l, in: area)
    }

    @Test func narrowAreaStacksTheCoverAboveAndFallsBackToTheMeter() {
        let area = CellRect(column: 0, row: 1, width: 40, height: 17)
        let l = MusicLayout(area: area, cellSize: cell, textLines: 5)
        #expect(l.cover == CellRect(column: 2, row: 2, width: 36, height: 7))
        #expect(l.text == CellRect(column: 2, row: 10, width: 36, height: 5))
        #expect(l.meter && l.bars == CellRect(column: 2, row: 16, width: 36, height: 1))
        checkDisjoint(l, in: area)
    }

    @Test func aLowAreaHasNoCoverAndGivesTagLinesToTheMeter() {
        let area = CellRect(column: 0, row: 1, width: 80, height: 7)
        let l = MusicLayout(area: area, cellSize: cell, textLines: 5)
        #expect(l.cover.isEmpty)
        #expect(l.text.height == 3)
        #expect(l.meter && l.bars.height == 1 && l.bars.row == area.endRow - 2)
        checkDisjoint(l, in: area)
    }

    @Test func tinyAreasDrawNothingOrTextOnly() {
        let none = MusicLayout(area: CellRect(column: 0, row: 1, width: 6, height: 10), cellSize: cell, textLines: 5)
        #expect(none.cover.isEmpty && none.text.isEmpty && none.bars.isEmpty)
        let oneRow = MusicLayout(area: CellRect(column: 0, row: 1, width: 80, height: 3), cellSize: cell, textLines: 5)
        #expect(oneRow.text.height == 1 && oneRow.bars.isEmpty && oneRow.cover.isEmpty)
    }

    @Test func everyScreenSizeGivesDisjointParts() {
        for width in stride(from: 1, through: 220, by: 7) {
            for height in stride(from: 1, through: 70, by: 3) {
                let area = CellRect(column: 0, row: 1, width: width, height: height)
                for lines in [1, 5] { checkDisjoint(MusicLayout(area: area, cellSize: cell, textLines: lines), in: area) }
            }
        }
    }

    @Test func bandsFillTheWidthWithAGapBetweenBars() {
        #expect(MusicLayout.bands(width: 55) == (18, 2))
        #expect(MusicLayout.bands(width: 16) == (5, 2))
        #expect(MusicLayout.bands(width: 400).count == 48)
        for width in 3...300 {
            let (count, bar) = MusicLayout.bands(width: width)
            #expect(count * (bar + 1) - 1 <= width, "\(count) bars of \(bar) at \(width) columns")
        }
    }

    @Test func barsAreBlocksInEighths() {
        #expect(MusicLayout.barGlyphs(level: 0, rows: 3) == [" ", " ", " "])
        #expect(MusicLayout.barGlyphs(level: 1, rows: 3) == ["█", "█", "█"])
        // 0.5 of 3 rows = 12 eighths: one full block and a half block.
        #expect(MusicLayout.barGlyphs(level: 0.5, rows: 3) == ["█", "▄", " "])
        #expect(MusicLayout.barGlyphs(level: 1.0 / 24, rows: 3) == ["▁", " ", " "])
        #expect(MusicLayout.meterGlyphs(level: 0.5, width: 5) == "██▌  ")
        #expect(MusicLayout.meterGlyphs(level: 2, width: 3) == "███")
    }
}

/// The music view with synced lyrics (issue 35, item 3): they take the spectrum's rows but the
/// meter's, and the line sung now is in the middle, its sung words in the selection's style.
@Suite struct MusicLyricsTests {
    static let lyrics = Lyrics.parse(Array("""
        [00:01.00]one
        [00:02.00]two
        [00:03.00]<00:03.00>three <00:03.50>four <00:04.00>five
        [00:05.00]six
        [00:06.00]seven
        [00:07.00]eight
        """.utf8))!

    @Test func lyricsTakeTheBarsRowsButTheMeters() {
        let area = CellRect(column: 0, row: 1, width: 100, height: 20)
        let without = MusicLayout(area: area, cellSize: CellSize(width: 8, height: 16), textLines: 4)
        let with = MusicLayout(area: area, cellSize: CellSize(width: 8, height: 16), textLines: 4, lyrics: true)
        #expect(without.lyrics.isEmpty && !without.meter)
        #expect(with.meter && with.bars.height == 1 && with.bars.row == without.bars.endRow - 1)
        #expect(with.lyrics.row == without.bars.row && with.lyrics.endRow == with.bars.row - 1 && with.lyrics.width == without.bars.width)
    }

    func grid(at time: Double) -> (CellGrid, MusicLayout) {
        let layout = MusicLayout(area: CellRect(column: 0, row: 0, width: 60, height: 14), cellSize: CellSize(width: 8, height: 16),
                                 textLines: 1, lyrics: true)
        var grid = CellGrid(columns: 60, rows: 14)
        MusicPane(layout: layout, tags: [.init(text: "Song", role: .title)], coverPlaceholder: false, meter: true,
                  levels: [0, 0], peaks: [0, 0], lyrics: Self.lyrics, time: time).render(into: &grid)
        return (grid, layout)
    }

    func row(_ grid: CellGrid, _ row: Int, _ layout: MusicLayout) -> String {
        String(grid.characters[row][layout.lyrics.column..<layout.lyrics.endColumn]).trimmingCharacters(in: .whitespaces)
    }

    @Test func theLineSungNowIsHighlightedWordByWord() {
        let (g, l) = grid(at: 3.7)
        let rows = (l.lyrics.row..<l.lyrics.endRow).map { row(g, $0, l) }
        let current = rows.firstIndex(of: "three four five")!
        #expect(current == min(2, l.lyrics.height / 2), "\(rows)")
        let r = l.lyrics.row + current
        let roles = g.roles[r][l.lyrics.column..<(l.lyrics.column + 15)]
        #expect(roles.prefix(11).allSatisfy { $0 == .menuSelected }, "three four sung")
        #expect(roles.suffix(4).allSatisfy { $0 == .title }, "five to come")
        #expect(g.roles[r - 1][l.lyrics.column] == .status)
        // Without word stamps the whole line is sung; before the first, nothing is.
        let (g2, _) = grid(at: 5.2)
        let sixRow = (l.lyrics.row..<l.lyrics.endRow).first { row(g2, $0, l) == "six" }!
        #expect(g2.roles[sixRow][l.lyrics.column..<(l.lyrics.column + 3)].allSatisfy { $0 == .menuSelected })
        let (g3, _) = grid(at: 0.5)
        #expect(!(l.lyrics.row..<l.lyrics.endRow).contains { r in g3.roles[r].contains(.menuSelected) })
    }
}
