@testable import AetherScreen
@testable import AetherTUI
@testable import AetherThemes
import Testing
import TerminalGraphics

/// The compositor writes only what changed; the scrub marker and the bar share one time axis.
struct CompositorTests {
    static func frame(_ lines: [(String, ThemeRole)], columns: Int = 20) -> CellGrid {
        var grid = CellGrid(columns: columns, rows: lines.count)
        for (row, line) in lines.enumerated() where !line.0.isEmpty { grid.put(line.0, row: row, column: 0, role: line.1) }
        return grid
    }

    @Test func aBlankScreenGetsOnlyTheDrawnCells() {
        var grid = CellGrid(columns: 20, rows: 3)
        grid.put("title", row: 0, column: 2, role: .title)
        grid.put("12:00", row: 2, column: 10, role: .time)
        #expect(Compositor.runs(from: nil, to: grid) == [
            .init(row: 0, column: 2, text: "title", role: .title),
            .init(row: 2, column: 10, text: "12:00", role: .time),
        ])
        #expect(Compositor.runs(from: grid, to: grid).isEmpty, "an unchanged frame writes nothing")
    }

    @Test func onlyChangedCellsAreWrittenInTheirStyle() {
        let old = Self.frame([("00:07 / 00:12", .time), ("vol 100%", .status)])
        var new = Self.frame([("00:08 / 00:12", .time), ("vol 100%", .status)])
        #expect(Compositor.runs(from: old, to: new) == [.init(row: 0, column: 4, text: "8", role: .time)])
        // The same text in another role is a change; a cell left blank is written blank.
        new = Self.frame([("00:07 / 00:12", .warning), ("vol 10%", .status)])
        #expect(Compositor.runs(from: old, to: new) == [
            .init(row: 0, column: 0, text: "00:07 / 00:12", role: .warning),
            .init(row: 1, column: 6, text: "%", role: .status),
            .init(row: 1, column: 7, text: " ", role: nil),
        ])
    }

    @Test func wideCharactersTravelWhole() {
        let old = Self.frame([("ab日本", .title)])
        var new = old
        new.put("x", row: 0, column: 3, role: .title)   // cuts 日 in half: its left half turns blank
        #expect(new.lines == ["ab x本"])
        #expect(Compositor.runs(from: old, to: new) == [.init(row: 0, column: 2, text: " x", role: .title)])
        // A wide character written where narrow ones were goes out as one character.
        let narrow = Self.frame([("abcd", .title)])
        #expect(Compositor.runs(from: narrow, to: old) == [.init(row: 0, column: 2, text: "日本", role: .title)])
        // Cells the new frame leaves blank are written blank, in the terminal's own colours.
        #expect(Compositor.runs(from: old, to: narrow) == [.init(row: 0, column: 2, text: "cd", role: .title),
                                                          .init(row: 0, column: 4, text: "  ", role: nil)])
    }

    @Test func subtitleStylesAreRunsOfTheirOwn() {
        var grid = CellGrid(columns: 20, rows: 1)
        grid.putStyled("ab", row: 0, column: 0, style: SubtitleCellStyle(bold: true), width: nil)
        grid.putStyled("cd", row: 0, column: 2, style: SubtitleCellStyle(italic: true), width: nil)
        #expect(Compositor.runs(from: nil, to: grid).map(\.text) == ["ab", "cd"])
        #expect(Compositor.runs(from: nil, to: grid).allSatisfy { $0.role == .subtitle })
    }

    /// The scrub marker used to be placed at `time / duration` of the screen while the bar spans
    /// a live stream's kept window: on a live stream the marker stood away from the time it
    /// named. Both go through ``TransportBar/Axis`` now.
    @Test func theMarkerUsesTheLiveWindowAsTheBarDoes() {
        let axis = TransportBar.Axis(duration: nil, liveWindow: 3600...3660)
        #expect(axis.live && axis.origin == 3600 && axis.span == 60)
        let width = 80
        let target = 3630.0
        var grid = CellGrid(columns: width, rows: 2)
        TransportBar(state: .playing, origin: axis.origin, span: axis.span, position: 3650, buffered: 3650,
                     scrubMarker: target, timeText: "LIVE", badges: []).render(into: &grid)
        let drawn = grid.characters[0].firstIndex(of: "◆")
        #expect(drawn == axis.markerColumn(target, width: width))
        #expect(drawn == 40, "half way through the window is the bar's middle")
        // The file's axis: the marker's last column at the end, and a damaged duration clamped.
        let file = TransportBar.Axis(duration: 120, liveWindow: nil)
        #expect(!file.live && file.markerColumn(120, width: width) == width - 1 && file.column(60, width: width) == 40)
        #expect(TransportBar.Axis(duration: nil, liveWindow: nil).markerColumn(30, width: width) == 0)
    }
}
