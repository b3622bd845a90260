import AetherEngine
@testable import AetherScreen
@testable import AetherSubtitles
@testable import AetherTUI
import Testing
import TerminalGraphics

/// Text subtitles placed in cells as the script places them, rendered into a ``CellGrid``.
@Suite struct SubtitleCellLayoutTests {
    static let script = ASSScript.parse("""
        [Script Info]
        PlayResX: 400
        PlayResY: 200
        WrapStyle: 0
        [V4+ Styles]
        Format: Name, PrimaryColour, Bold, Italic, Alignment, MarginL, MarginR, MarginV
        Style: Default,&H00FFFFFF,0,0,2,0,0,0
        Style: Top,&H00FFFFFF,0,0,8,0,0,0
        """)
    let picture = CellRect(column: 0, row: 0, width: 40, height: 10)

    func cue(_ event: String, start: Double = 0) -> SubtitleCue {
        let styled = ASSEvent.parse("0,0," + event, script: Self.script)
        return SubtitleCue(start: start, end: start + 5, content: .text(styled.plainText), styled: styled)
    }

    func render(_ cues: [SubtitleCue]) -> CellGrid {
        var grid = CellGrid(columns: picture.width, rows: picture.height)
        _ = SubtitleCellLayout.render(SubtitleCellLayout.place(cues, in: picture), into: &grid)
        return grid
    }

    @Test func anAn8EventIsOnTheTopRowAndABottomOneAtTheBottom() {
        let grid = render([cue(#"Default,,0,0,0,,{\an8}Up here"#), cue("Default,,0,0,0,,Down there")])
        #expect(grid.lines[0] == "                ·Up here·".replacingOccurrences(of: "·", with: " ").replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression))
        #expect(grid.lines[9].trimmingCharacters(in: .whitespaces) == "Down there")
        #expect(grid.lines[1...8].allSatisfy { $0.isEmpty })
    }

    @Test func posPutsTheTextAtItsCell() {
        // (100,150) of 400×200 → column 10, row 7; \an7: the text's top-left corner is there.
        let grid = render([cue(#"Default,,0,0,0,,{\an7\pos(100,150)}Sign"#)])
        #expect(grid.lines[7] == String(repeating: " ", count: 11) + "Sign")
        // \an3 (bottom right) at the same point: the text ends there.
        let right = render([cue(#"Default,,0,0,0,,{\an3\pos(100,150)}Sign"#)])
        #expect(right.lines[7] == String(repeating: " ", count: 5) + "Sign")
    }

    @Test func collidingEventsStackAwayFromTheirEdge() {
        let grid = render([cue("Default,,0,0,0,,first", start: 0), cue("Default,,0,0,0,,second", start: 1),
                           cue("Top,,0,0,0,,one", start: 0), cue("Top,,0,0,0,,two", start: 1)])
        let rows = grid.lines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(rows[9] == "first" && rows[8] == "second", "\(rows)")
        #expect(rows[0] == "one" && rows[1] == "two", "\(rows)")
    }

    @Test func hardBreaksAndBalancedWrapping() {
        let grid = render([cue(#"Default,,0,0,0,,line one\Nline two"#)])
        #expect(grid.lines[8].trimmingCharacters(in: .whitespaces) == "line one")
        #expect(grid.lines[9].trimmingCharacters(in: .whitespaces) == "line two")
        // 47 columns of words in a 38-column room: smart wrapping makes two lines of similar
        // width (filling would leave one word on the second line).
        let long = render([cue("Default,,0,0,0,,aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj")])
        let a = long.lines[8].trimmingCharacters(in: .whitespaces), b = long.lines[9].trimmingCharacters(in: .whitespaces)
        #expect(abs(a.count - b.count) <= 5, "\(a) / \(b)")
        #expect(a.count >= b.count, "WrapStyle 0: the top line is the wider")
    }

    @Test func stylesReachTheCells() {
        let grid = render([cue(#"Default,,0,0,0,,plain {\b1\i1\c&H00FF00&}green"#)])
        let row = grid.lines[9]
        let g = row.distance(from: row.startIndex, to: row.range(of: "green")!.lowerBound)
        let p = row.distance(from: row.startIndex, to: row.range(of: "plain")!.lowerBound)
        #expect(grid.styles[9][g] == SubtitleCellStyle(bold: true, italic: true, color: StyledSubtitle.RGB(r: 0, g: 255, b: 0)))
        #expect(grid.styles[9][p] == SubtitleCellStyle())
        #expect(grid.roles[9][g] == .subtitle)
    }

    @Test func noRawTagReachesTheGrid() {
        let grid = render([cue(#"Default,,0,0,0,,{\fad(1,2)}a{\p1}m 0 0 l 1 1{\p0}b{\k10}c{\unknown"#)])
        #expect(!grid.text.contains("{") && !grid.text.contains("\\") && !grid.text.contains("m 0 0"))
        #expect(grid.lines[9].trimmingCharacters(in: .whitespaces) == "abc")
    }

    @Test func placementsAreCachedPerCuesAndRectangle() {
        var cache = SubtitleCellCache()
        let cues = [cue("Default,,0,0,0,,x")]
        _ = cache.lines(for: cues, in: picture)
        _ = cache.lines(for: cues, in: picture)
        #expect(cache.placements == 1)
        _ = cache.lines(for: cues, in: CellRect(column: 0, row: 0, width: 30, height: 10))
        #expect(cache.placements == 2)
    }
}
