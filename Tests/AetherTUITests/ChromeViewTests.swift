@testable import AetherScreen
@testable import AetherTUI
import Testing
import TerminalGraphics

/// The chrome's views rendered into a plain cell grid and compared with text snapshots (the
/// way ratatui tests widgets against its test backend): sizes, states, clipping, hostile text.
struct ChromeViewTests {
    static func bar(_ state: TransportBar.State = .playing, position: Double = 30, span: Double = 120, buffered: Double = 60,
                    chapters: [Double] = [], scrub: Double? = nil, time: String = "00:30 / 02:00",
                    badges: [TransportBar.Badge] = [.init(text: "vol 100%", role: .status), .init(text: "1.00×", role: .status),
                                                    .init(text: "SDR", role: .badge), .init(text: "halfblock", role: .badge)]) -> TransportBar {
        TransportBar(state: state, origin: 0, span: span, position: position, buffered: buffered, chapterStarts: chapters,
                     scrubMarker: scrub, timeText: time, badges: badges)
    }

    @Test func transportBarAt40And80Columns() {
        var narrow = CellGrid(columns: 40, rows: 4)
        Self.bar().render(into: &narrow)
        #expect(narrow.lines == [
            "",
            "",
            "━━━━━━━━━━●─────────────────────────────",
            " ▶ 00:30 / 02:00      vol 100%   1.00×",
        ], "\(narrow.text)")
        var wide = CellGrid(columns: 80, rows: 3)
        Self.bar(.paused, chapters: [60]).render(into: &wide)
        #expect(wide.lines == [
            "",
            "━━━━━━━━━━━━━━━━━━━━●───────────────────┃───────────────────────────────────────",
            " ‖ 00:30 / 02:00                            vol 100%   1.00×   SDR   halfblock",
        ], "\(wide.text)")
        // Roles: played, buffered, empty, chapter.
        #expect(wide.roles[1][5] == .progressPlayed)
        #expect(wide.roles[1][25] == .progressBuffered)
        #expect(wide.roles[1][60] == .progressEmpty)
        #expect(wide.roles[1][40] == .progressChapter)
        #expect(wide.roles[2][4] == .time)
    }

    /// What a user acts on stays longest (issue 62, item 12: at 40 columns the status line kept
    /// `2.0 halfblock` and dropped volume and speed): the time, then volume and speed, then the
    /// descriptions from the left, each kept in its place.
    @Test func badgesGiveWayToTheTimeDescriptionsFirst() {
        var grid = CellGrid(columns: 30, rows: 2)
        Self.bar(time: "00:30 / 02:00  reconnecting (2)").render(into: &grid)
        // The time keeps its room; no badge fits beside it here.
        #expect(grid.lines[1] == " ▶ 00:30 / 02:00  reconnecting")
        var some = CellGrid(columns: 44, rows: 2)
        Self.bar().render(into: &some)
        #expect(some.lines[1] == " ▶ 00:30 / 02:00    vol 100%   1.00×   SDR", "\(some.text)")
        var speedOnly = CellGrid(columns: 30, rows: 2)
        Self.bar().render(into: &speedOnly)
        #expect(speedOnly.lines[1] == " ▶ 00:30 / 02:00    vol 100%", "\(speedOnly.text)")
    }

    /// A box narrower than its lines cuts them with "…" (issue 62, item 12).
    @Test func aNarrowBoxSaysWhatItCut() {
        var grid = CellGrid(columns: 20, rows: 6)
        BoxView(title: "Statistics of the file", lines: ["Container  Matroska / WebM", "short"], style: .stats, border: .statsBorder)
            .render(at: (0, 0), into: &grid)
        #expect(grid.lines[0] == "┌─ Statistics of … ┐", "\(grid.text)")
        #expect(grid.lines[1] == "│ Container  Matro…│", "\(grid.text)")
        #expect(grid.lines[2] == "│ short            │", "\(grid.text)")
    }

    @Test func scrubMarkerAndStates() {
        var grid = CellGrid(columns: 24, rows: 2)
        Self.bar(.seeking, position: 0, span: 120, buffered: 0, scrub: 1e300, time: "x").render(into: &grid)
        // A huge scrub time is clamped to the last column.
        #expect(grid.lines[0] == "●──────────────────────◆")
        var empty = CellGrid(columns: 24, rows: 2)
        Self.bar(position: 5, span: 0, buffered: 0, time: "x").render(into: &empty)
        // No duration (a stream): the position dot stays at the start.
        #expect(empty.lines[0] == "●───────────────────────")
        #expect(grid.lines[1].hasPrefix(" » x"))
        var buffering = CellGrid(columns: 24, rows: 2)
        Self.bar(.buffering, time: "t").render(into: &buffering)
        #expect(buffering.lines[1].hasPrefix(" … t"))
    }

    @Test func boxAtSeveralSizes() {
        let stats = BoxView(title: "Stats", lines: ["File  clip.mkv", "Video h264"], style: .stats, border: .statsBorder)
        var grid = CellGrid(columns: 30, rows: 8)
        let rect = stats.render(at: (1, 1), into: &grid)
        #expect(grid.lines == [
            "",
            " ┌─ Stats ────────┐",
            " │ File  clip.mkv │",
            " │ Video h264     │",
            " └────────────────┘",
            "", "", "",
        ], "\(grid.text)")
        #expect(rect == CellRect(column: 1, row: 1, width: 18, height: 4))
        #expect(grid.roles[2][3] == .stats && grid.roles[2][1] == .statsBorder)
        // Too few rows: clipped above the transport rows, the bottom border kept.
        var short = CellGrid(columns: 30, rows: 5)
        let clipped = stats.render(at: (1, 1), into: &short)
        #expect(clipped.height == 2)
        #expect(short.lines[1].hasPrefix(" ┌─ Stats") && short.lines[2].hasPrefix(" └"))
        // Too narrow: nothing.
        var narrow = CellGrid(columns: 4, rows: 8)
        #expect(stats.render(at: (1, 1), into: &narrow).isEmpty)
        #expect(narrow.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func boxTextIsCleanedAndClipped() {
        let hostile = BoxView(title: "T\u{1B}]0;pwned\u{07}", lines: ["a\u{202E}b\u{200B}c\u{1B}[31m", String(repeating: "界", count: 40)],
                              style: .stats, border: .statsBorder, width: 20)
        var grid = CellGrid(columns: 30, rows: 8)
        hostile.render(at: (0, 0), into: &grid)
        let text = grid.text
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E || $0.value == 0x200B }, "\(text)")
        for line in grid.lines { #expect(DisplayWidth.of(line) <= 30) }
        #expect(grid.lines[0].hasSuffix("┐") && grid.lines[1].hasSuffix("│") && grid.lines[2].hasSuffix("│"), "\(text)")
    }

    @Test func messageGoesBelowTheBoxesAtTheTop() {
        let area = CellRect(column: 0, row: 1, width: 40, height: 10)
        var free = CellGrid(columns: 40, rows: 12)
        #expect(MessageView(text: "paused").render(in: area, avoiding: [], into: &free).row == 1)
        #expect(free.lines[1] == "  paused")
        var grid = CellGrid(columns: 40, rows: 12)
        let box = BoxView(title: "Stats", lines: ["a", "b"], style: .stats, border: .statsBorder).render(at: (1, 1), into: &grid)
        let message = MessageView(text: "audio: fra").render(in: area, avoiding: [box], into: &grid)
        #expect(message.row == box.row + box.height)
        #expect(grid.lines[1].hasPrefix(" ┌─ Stats"), "\(grid.text)")
        // Every row taken: the top row.
        let full = CellRect(column: 0, row: 0, width: 40, height: 12)
        #expect(MessageLine.row(width: 10, column: 1, area: area, avoiding: [full]) == 1)
    }

    /// #60 item 2: an open longer than a moment is named with its seconds so far; the host
    /// wakes when the text changes (the moment, then each whole second).
    @Test func anOpenIsNamedAfterAMomentWithItsSeconds() {
        let opening = (source: "http://radio.example/stream", since: 100.0)
        #expect(ChromeView.openingText(opening, now: 100.4) == nil, "a moment: nothing yet")
        #expect(ChromeView.openingText(opening, now: 103.2) == "opening radio.example/stream · 3 s · q to quit")
        let file = ChromeView.openingText((source: "/films/a\u{1B}[2Jb.mkv", since: 0), now: 1) ?? ""
        #expect(file.hasPrefix("opening a") && file.hasSuffix("b.mkv · 1 s · q to quit") && !file.contains("\u{1B}"),
                "a file by its name, sanitised: \(file)")
        #expect(ChromeView.openingText(nil, now: 5) == nil && ChromeView.openingDue(nil, now: 5) == nil)
        #expect(abs((ChromeView.openingDue(opening, now: 100.1) ?? 0) - 0.4) < 1e-9)
        #expect(abs((ChromeView.openingDue(opening, now: 103.25) ?? 0) - 0.75) < 1e-9)
    }
}
