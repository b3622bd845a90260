@testable import AetherScreen
import Testing

/// Text width by Unicode's tables (#60 item 9, unit tier): combining marks take no column and
/// stay on the cell before them, East Asian wide characters take two, as the terminal's
/// `wcwidth` says (tmux measures with it; ThaiDevanagariTmuxTests compares the screen).
@Suite struct DisplayWidthTests {
    @Test(arguments: [("สวัสดีครับ", 7), ("नमस्ते", 4), ("مَرْحَبًا", 5), ("日本語", 6), ("한국어", 6), ("😀", 2),
                      ("e\u{301}t\u{E9}", 3), ("a\u{200B}b", 2), ("ｆｕｌｌ", 8)])
    func widthsAreTheTerminals(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns, "\(text): \(DisplayWidth.of(text))")
    }

    /// A mark joins the cell before it: Thai's vowels and tones are drawn, not dropped, and the
    /// grid's columns are the terminal's.
    @Test func marksStayOnTheirCell() {
        var grid = CellGrid(columns: 12, rows: 1)
        grid.put("สวัสดีครับ|", row: 0, column: 0, role: .title, width: nil)
        #expect(grid.lines == ["สวัสดีครับ|"])
        #expect(grid.cells[0][7].scalar == "|", "the bar after 7 columns")
        #expect(grid.cells[0][1].marks == ["\u{E31}"] && grid.cells[0][3].marks == ["\u{E35}"])
        // A hostile stack of marks keeps at most four.
        var zalgo = CellGrid(columns: 4, rows: 1)
        zalgo.put("a" + String(repeating: "\u{301}", count: 50), row: 0, column: 0, role: .title, width: nil)
        #expect(zalgo.cells[0][0].marks.count == CellGrid.maxMarks)
    }
}
