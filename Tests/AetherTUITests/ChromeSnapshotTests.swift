@testable import AetherEngine
@testable import AetherScreen
@testable import AetherTUI
import Foundation
import Testing
import TerminalGraphics

/// Every piece of chrome rendered into a ``CellGrid`` at three widths and compared with the
/// snapshots in ``ChromeSnapshots`` (characters and each cell's role), and its roles' styles in
/// the bundled default and mono themes. No terminal: views are values.
///
/// To take new snapshots after a deliberate change: run with `AETHER_RECORD_SNAPSHOTS=DIR`, which
/// writes each render to `DIR/NAME.txt` (and still fails), and paste them into ChromeSnapshots.
struct ChromeSnapshotTests {
    static let widths = [40, 80, 160]

    /// Compares `grid` with the stored snapshot `name`, and its legend in each bundled theme
    /// with `name-THEME`.
    static func check(_ grid: CellGrid, _ name: String, themes: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var renders = [(name, Snapshot.cells(grid))]
        if themes {
            for theme in Snapshot.themes {
                renders.append(("\(name)-\(theme)", Snapshot.legend(grid, theme: try ThemeTests.shippedTheme(theme))))
            }
        }
        for (name, actual) in renders {
            if let directory = ProcessInfo.processInfo.environment["AETHER_RECORD_SNAPSHOTS"] {
                try actual.write(toFile: directory + "/" + name + ".txt", atomically: true, encoding: .utf8)
            }
            Snapshot.expect(actual, ChromeSnapshots.expected[name] ?? "(no snapshot)", name, sourceLocation: sourceLocation)
        }
    }

    // MARK: title

    @Test(arguments: widths)
    func titleBar(width: Int) throws {
        var grid = CellGrid(columns: width, rows: 1)
        // Hostile text from the media: an escape sequence and a bidi override are cleaned away.
        TitleBar(title: "Big Buck Bunny\u{1B}[31m (2008) — the open movie", chapter: "2. The \u{202E}meadow").render(into: &grid)
        try Self.check(grid, "title-\(width)")
        #expect(!grid.text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
    }

    // MARK: telemetry

    static func telemetry() -> TelemetryPane {
        var t = TelemetrySnapshot()
        t.bitrates.instant = 4_250_000
        t.sync.gapLastMs = -3.25
        t.observedFPS = 23.976
        t.buffer.seconds = 2.5
        t.buffer.frames = 12
        t.network.bytes = 12_500_000
        t.network.bytesPerSecond = 640_000
        t.network.retries = 1
        t.network.rebuffers = 2
        t.frames.presented = 1440
        t.frames.droppedLate = 3
        t.stages.decodeMsPerFrame = 4.125
        t.stages.readMsPerPacket = 0.05
        t.stages.filterMsPerFrame = 0.5
        t.stages.scaleMsPerFrame = 1.25
        t.stages.renderMsPerFrame = 6.5
        t.stages.writeMsPerFrame = 2
        t.sync.clockSource = "audio"
        t.audio.device = "pulse: null sink"
        var history = TelemetryHistory()
        var bytes = 0
        for second in 0..<40 {
            var s = t
            s.bitrates.instant = Double(second % 8) * 1e6
            s.sync.gapLastMs = Double(second % 5) - 2
            s.observedFPS = 20 + Double(second % 3)
            bytes += (second % 4) * 100_000
            history.add(s, terminalBytes: bytes)
        }
        return TelemetryPane(telemetry: t, history: history)
    }

    /// The pane is 36 columns in the player (``Layout/telemetryWidth``); narrower and wider panes
    /// clip and stretch the sparklines.
    @Test(arguments: [24, Layout.telemetryWidth, 60])
    func telemetryPane(width: Int) throws {
        var grid = CellGrid(columns: width, rows: 20)
        Self.telemetry().render(in: CellRect(column: 0, row: 1, width: width, height: 17), into: &grid)
        try Self.check(grid, "telemetry-\(width)")
    }

    // MARK: track menu

    static func menu() -> TrackMenu {
        // As TrackMenu.audio makes them: cleaned (a bidi override in a tag is gone before measuring).
        let labels = ["off", "1. eng · aac · stereo · default", "2. fra · ac3 · 5.1", "3. deu · ac3 · 5.1", "4. spa · aac · stereo",
                      "5. eng · \"Commentary with the director and the whole cast\" · aac · stereo", "6. jpn · \u{202E}aac · stereo",
                      "7. kor · aac · stereo", "8. und · flac · stereo", "9. 日本語 · opus · stereo"].map { TextSanitizer.clean($0) }
        let items = labels.enumerated().map { TrackMenu.Item(label: $1, value: $0 == 0 ? nil : $0 - 1, current: $0 == 2) }
        return TrackMenu(kind: .audio, items: items, selection: 7)
    }

    @Test(arguments: widths)
    func trackMenu(width: Int) throws {
        var grid = CellGrid(columns: width, rows: 12)
        let area = CellRect(column: 0, row: 1, width: width, height: 9)
        var menu = Self.menu()
        // The update step keeps the selection in view; drawing only reads the scroll.
        menu.scrollToSelection(visibleRows: TrackMenuView.visibleRows(in: area))
        #expect(menu.scroll == 2)
        let rect = TrackMenuView(menu: menu).render(in: area, into: &grid)
        try Self.check(grid, "menu-\(width)")
        #expect(rect.row + rect.height == 10 && rect.endColumn == width - 2)
        // The selection's row is highlighted from border to border.
        let selected = rect.row + 1 + (menu.selection - menu.scroll)
        #expect(grid.roles[selected][(rect.column + 1)..<(rect.endColumn - 1)].allSatisfy { $0 == .menuSelected })
        #expect(grid.roles[selected][rect.column] == .menuBorder)
    }

    @Test func menuScrollFollowsTheSelectionBothWays() {
        var menu = Self.menu()
        menu.scrollToSelection(visibleRows: 4)
        #expect(menu.scroll == 4)
        menu.selection = 1
        menu.scrollToSelection(visibleRows: 4)
        #expect(menu.scroll == 1)
        menu.scrollToSelection(visibleRows: 0)   // no room: one row, the selection's
        #expect(menu.scroll == 1)
    }

    // MARK: scrub label

    @Test(arguments: widths)
    func scrubLabel(width: Int) throws {
        let axis = TransportBar.Axis(duration: 5400, liveWindow: nil)
        let target = 4000.0
        // Without a picture: the label alone above the marker.
        var alone = CellGrid(columns: width, rows: 4)
        let label = ScrubLabel(target: target, chapter: "Act \u{1B}]0;x\u{07}III", marker: axis.markerColumn(target, width: width), pictureLabel: nil)
        let covered = label.render(into: &alone)
        #expect(covered.row == 1 && covered.height == 1)
        try Self.check(alone, "scrub-\(width)")
        // Over a picture: the label row above it, filled across the picture's width.
        var over = CellGrid(columns: width, rows: 8)
        let spot = CellRect(column: width / 2, row: 2, width: min(48, max(16, width / 3)), height: 1)
        let both = ScrubLabel(target: target, chapter: nil, marker: 0, pictureLabel: spot).render(into: &over)
        #expect(both == CellRect(column: spot.column, row: 2, width: spot.width, height: 4))
        try Self.check(over, "scrub-picture-\(width)", themes: false)
    }

    /// A mouse on the bar points through the bar's own axis: a live stream's kept window (not 0
    /// to a duration it lacks), the file's span otherwise; each column's time lands on that column.
    @Test(arguments: widths)
    func theBarsAxisMapsColumnsToTimesBothWays(width: Int) throws {
        let live = TransportBar.Axis(duration: nil, liveWindow: 3600...3690)
        #expect(live.range == 3600...3690)
        #expect(live.time(atColumn: 0, width: width) == 3600)
        #expect(live.time(atColumn: width - 1, width: width) == 3690)
        #expect(live.time(atColumn: width + 5, width: width) == 3690)   // past the end: the end
        let file = TransportBar.Axis(duration: 5400, liveWindow: nil)
        for axis in [live, file] {
            for x in 0..<width {
                #expect(axis.markerColumn(axis.time(atColumn: x, width: width), width: width) == x, "column \(x) of \(width)")
            }
        }
        #expect(TransportBar.Axis(duration: nil, liveWindow: nil).range == nil)   // nothing to point at
        #expect(TransportBar.Axis(duration: nil, liveWindow: 10...10).range == nil) // a window with no span yet
    }

    // MARK: filmstrip

    @Test(arguments: widths)
    func filmstripLabels(width: Int) throws {
        let slotWidth = max(12, min(24, width / 5))
        let count = max(1, min(7, (width + 1) / (slotWidth + 1)))
        let times = Filmstrip.times(now: 95, duration: 600, chapters: [], count: count)
        var strip = Filmstrip(times: times, selection: times.count / 2, width: slotWidth)
        strip.shown[0] = times[0] - 1.5   // a keyframe before the asked time: the label says what is shown
        var grid = CellGrid(columns: width, rows: 5)
        let rect = FilmstripLabels(strip: strip, row: nil).render(into: &grid)
        #expect(rect.row == 2 && rect.height == 1)
        try Self.check(grid, "filmstrip-\(width)")
    }

    // MARK: music view

    static func music(width: Int, rows: Int, placeholder: Bool) -> MusicPane {
        let tags: [MusicPane.TagLine] = [
            .init(text: "Gymnopédie No. 1\u{1B}[2J", role: .title), .init(text: "Erik Satie", role: .time),
            .init(text: "Trois Gymnopédies", role: .status), .init(text: "Track 1 · 1888 · Classical", role: .status),
            .init(text: "flac · 44.1 kHz · stereo", role: .telemetry),
        ]
        let layout = MusicLayout(area: CellRect(column: 0, row: 1, width: width, height: rows - 3),
                                 cellSize: CellSize(width: 8, height: 16), textLines: tags.count)
        let count = layout.meter ? 2 : MusicLayout.bands(width: layout.bars.width).count
        let levels = (0..<count).map { Float(($0 * 37) % 100) / 100 }
        let peaks = levels.map { min(1, $0 + 0.25) }
        return MusicPane(layout: layout, tags: tags, coverPlaceholder: placeholder, meter: layout.meter,
                         levels: layout.meter ? [0.5, 0] : levels, peaks: layout.meter ? [0, 0.75] : peaks)
    }

    @Test(arguments: widths)
    func musicView(width: Int) throws {
        var grid = CellGrid(columns: width, rows: 16)
        Self.music(width: width, rows: 16, placeholder: true).render(into: &grid)
        try Self.check(grid, "music-\(width)")
    }

    @Test func musicMeterWhenTheSpectrumHasNoRoom() throws {
        var grid = CellGrid(columns: 40, rows: 9)
        let pane = Self.music(width: 40, rows: 9, placeholder: false)
        #expect(pane.layout.meter)
        pane.render(into: &grid)
        try Self.check(grid, "music-meter", themes: false)
    }

    // MARK: transport bar

    @Test(arguments: widths)
    func transportBar(width: Int) throws {
        var grid = CellGrid(columns: width, rows: 3)
        let badges: [TransportBar.Badge] = [.init(text: "vol 80%", role: .status), .init(text: "1.00×", role: .status),
                                            .init(text: "HDR10", role: .badgeHDR), .init(text: "3840×2160", role: .badge),
                                            .init(text: "5.1", role: .badge), .init(text: "sixel", role: .badge)]
        TransportBar(state: .paused, origin: 0, span: 5400, position: 1800, buffered: 2400, chapterStarts: [900, 3600],
                     scrubMarker: 4000, timeText: "30:00 / 1:30:00", badges: badges).render(into: &grid)
        try Self.check(grid, "transport-\(width)")
    }

    // MARK: boxes and the message line

    @Test(arguments: widths)
    func statsBoxAndMessage(width: Int) throws {
        var grid = CellGrid(columns: width, rows: 10)
        let area = CellRect(column: 0, row: 1, width: width, height: 7)
        let stats = BoxView(title: "Stats", lines: ["File       Big Buck Bunny (2008) — the open movie.mkv", "Video      h264 (High)  decoder h264",
                                                     "Clock      audio  A/V -3.2 ms (p95 8.1)"], style: .stats, border: .statsBorder)
            .render(at: (area.column + 1, area.row), into: &grid)
        let message = MessageView(text: "audio: 2. fra · ac3 · 5.1").render(in: area, avoiding: [stats], into: &grid)
        #expect(message.row == stats.endRow)
        try Self.check(grid, "stats-\(width)")
    }
}
