import AetherCommands
import AetherControl
@testable import AetherInput
@testable import AetherScreen
@testable import AetherTUI
import AetherEngine
import TerminalGraphics
import Testing

@Suite struct LayoutTests {
    let cell = CellSize(width: 8, height: 16)

    @Test func halfBlockLetterboxesWideVideoAndKeepsChromeRows() {
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 16.0 / 9, driver: CellDriver(colorMode: .truecolor), showTelemetry: false)
        #expect(l.videoArea == CellRect(column: 0, row: 1, width: 160, height: 45))
        // 160 cells × 8 px = 1280 px wide → 720 px tall = 45 rows of 16 px: fills the area exactly.
        #expect(l.video == CellRect(column: 0, row: 1, width: 160, height: 45))
        #expect(l.renderSize == PixelSize(width: 160, height: 90))
        #expect(l.transportRows == 46...47)
    }

    @Test func halfBlockPillarboxesNarrowVideoCentred() {
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 4.0 / 3, driver: CellDriver(colorMode: .truecolor), showTelemetry: false)
        // 45 rows × 16 px = 720 px tall → 960 px wide = 120 cells, centred.
        #expect(l.video == CellRect(column: 20, row: 1, width: 120, height: 45))
        #expect(l.renderSize == PixelSize(width: 120, height: 90))
    }

    @Test func telemetryPaneTakesTheRightColumns() {
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 16.0 / 9, driver: CellDriver(colorMode: .truecolor), showTelemetry: true)
        #expect(l.telemetryPane == CellRect(column: 160 - Layout.telemetryWidth, row: 1, width: Layout.telemetryWidth, height: 45))
        #expect(l.video.endColumn <= 160 - Layout.telemetryWidth)
    }

    @Test func sixelHeightIsAMultipleOfSixAndLeavesSubtitleRows() {
        let sixel = SixelDriver(colors: 256, dither: .none)
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 16.0 / 9, driver: sixel, showTelemetry: false)
        #expect(l.renderSize.height % 6 == 0)
        #expect(l.renderSize.height <= (45 - sixel.rowsBelowPicture) * 16)
        #expect(abs(Double(l.renderSize.width) / Double(l.renderSize.height) - 16.0 / 9) < 0.01)
        #expect(l.video.endRow <= 1 + 45 - sixel.rowsBelowPicture)
    }

    /// A tty may claim 65535 columns and a terminal any cell size: the picture asked of the
    /// decoder stays within ReplyLimits.sixelGeometry.upperBound, and an implausible cell falls back.
    @Test func hugeScreensAndCellsGiveABoundedPicture() {
        for renderer in [CellDriver(colorMode: .truecolor), SixelDriver(colors: 256, dither: .none)] as [any VideoDriver] {
            for (c, r) in [(65535, 65535), (10000, 20), (20, 10000)] {
                let l = Layout(columns: c, rows: r, cellSize: CellSize(width: 1024, height: 1024), displayAspect: 16.0 / 9,
                               driver: renderer, showTelemetry: false)
                #expect(l.renderSize.width <= ReplyLimits.sixelGeometry.upperBound && l.renderSize.height <= ReplyLimits.sixelGeometry.upperBound,
                        "\(renderer) \(c)×\(r): \(l.renderSize)")
                #expect(l.renderSize.width > 0 && l.renderSize.height > 0)
            }
        }
        let l = Layout(columns: 160, rows: 48, cellSize: CellSize(width: 1024, height: 1024), displayAspect: 16.0 / 9,
                       driver: SixelDriver(colors: 256, dither: .none), showTelemetry: false)
        let fallback = CellSize.fallback
        #expect(l.renderSize.width <= 160 * fallback.width && l.renderSize.height <= 46 * fallback.height)
    }

    /// Screens too small for the chrome: the picture and the area it is in stay on the screen
    /// and off the title and transport rows (an area placed past the screen's bottom or over
    /// the bar would draw outside it), and the picture asked of the decoder is never empty
    /// where the area is not.
    @Test func tinyScreensKeepThePictureOnTheScreen() {
        for (c, r) in [(1, 1), (5, 3), (0, 0), (20, 4), (3, 5), (40, 6)] {
            let l = Layout(columns: c, rows: r, cellSize: cell, displayAspect: 1.78, driver: CellDriver(colorMode: .truecolor), showTelemetry: true)
            for rect in [l.videoArea, l.video] where !rect.isEmpty {
                #expect(rect.column >= 0 && rect.column + rect.width <= c, "\(c)×\(r): \(rect)")
                #expect(rect.row >= Layout.chromeTop && rect.endRow <= r - Layout.chromeBottom, "\(c)×\(r): \(rect) over the chrome")
            }
            #expect(l.video.isEmpty || l.videoArea.intersection(l.video) == l.video, "\(c)×\(r): \(l.video) outside \(l.videoArea)")
            #expect(l.videoArea.isEmpty == (r <= Layout.chromeTop + Layout.chromeBottom || c == 0), "\(c)×\(r): \(l.videoArea)")
        }
    }
}

@Suite struct KeyMapTests {
    @Test func mpvDefaults() throws {
        #expect(KeyMap.command(for: .character(" ")) == .cycle("pause", up: true))
        #expect(KeyMap.command(for: .right) == .seek(5, .relative, .auto))
        #expect(KeyMap.command(for: .up) == .seek(60, .relative, .auto))
        #expect(KeyMap.command(for: .shiftLeft) == .seek(-1, .relative, .exact))
        #expect(KeyMap.command(for: .character("]")) == .multiply("speed", 1.1))
        #expect(KeyMap.command(for: .character("[")) == .multiply("speed", 1 / 1.1))
        #expect(KeyMap.command(for: .character("}")) == .multiply("speed", 2))
        #expect(KeyMap.command(for: .character("9")) == .add("volume", -2))
        #expect(KeyMap.command(for: .character("#")) == .cycle("audio", up: true))
        #expect(KeyMap.command(for: .character("j")) == .cycle("sub", up: true))
        #expect(KeyMap.command(for: .character(">")) == .playlistNext)
        #expect(KeyMap.command(for: .function(8)) == .ui(.menuPlaylist))
        #expect(KeyMap.command(for: .control("-")) == .add("audio-delay", -0.1))
        #expect(KeyMap.command(for: .control("+")) == .add("audio-delay", 0.1))
        #expect(KeyMap.command(for: .character("q")) == .quit(code: 0, watchLater: false))
        #expect(KeyMap.command(for: .character("Q")) == .quit(code: 0, watchLater: true))
    }

    @Test func everyDefaultParsesAndNoKeyIsBoundTwice() throws {
        var seen: Set<String> = []
        for binding in KeyMap.bindings {
            _ = try PlayerCommand.parse(binding.command)
            for key in binding.triggers {
                let name = try #require(KeyMap.canonicalName(key), "\(key)")
                #expect(!seen.contains(name), "\(key) bound twice")
                seen.insert(name)
            }
        }
    }

    @Test func keyNamesAsInputConfWritesThem() {
        #expect(KeyMap.canonicalName("right") == "RIGHT")
        #expect(KeyMap.canonicalName("ctrl+X") == "Ctrl+x")
        #expect(KeyMap.canonicalName("Ctrl++") == "Ctrl++")
        #expect(KeyMap.canonicalName("shift+ctrl+LEFT") == "Ctrl+Shift+LEFT")
        #expect(KeyMap.canonicalName("#") == "SHARP")
        #expect(KeyMap.canonicalName("PGDN") == "PGDWN")
        #expect(KeyMap.canonicalName("NOSUCHKEY") == nil)
        #expect(Key.control("x").mpvName == KeyMap.canonicalName("Ctrl+x"))
        #expect(Key.character(" ").mpvName == "SPACE")
    }

    /// `?` lists the keys as bound (issue 62, item 5): the user's bindings as written, then the
    /// defaults, a row whose key the user bound to something else saying which; a line binding
    /// a key to its default changes nothing and is not listed.
    @Test func theHelpRowsFollowInputConf() {
        let (b, _) = InputBindings.load(text: "RIGHT seek 10\nCtrl+x cycle sub\nLEFT seek -5\nk ignore\nk script-binding help\n")
        let rows = b.helpRows
        let seek = rows.first { $0.keys == "← →" }
        #expect(seek?.description == "seek back / forward 5 seconds (RIGHT: input.conf)", "\(String(describing: seek))")
        #expect(rows.first { $0.keys == "space, p" }?.description == "pause / play", "untouched rows stay")
        // The user's first (a short terminal shows the top of the box), then the defaults.
        #expect(rows.first?.keys == "input.conf")
        let own = Array(rows.dropFirst().prefix { !$0.keys.isEmpty })
        #expect(own.map(\.keys) == ["RIGHT", "Ctrl+x", "k"] && own.map(\.description) == ["seek 10", "cycle sub", "script-binding help"],
                "\(own)")
        #expect(rows.count == KeyMap.helpRows.count + 5)
        #expect(InputBindings().helpRows.map(\.keys) == KeyMap.helpRows.map(\.keys), "without input.conf: the defaults")
        #expect(InputBindings().helpRows.map(\.description) == KeyMap.helpRows.map(\.description))
    }

    @Test func inputConfOverridesDefaultsAndReportsBadLines() {
        let (b, warnings) = InputBindings.load(text: """
            # comment
            RIGHT seek 10
            Ctrl+x cycle sub
            y no-such-command
            BOGUS+k quit
            Y cycle volme
            """)
        #expect(b.command(for: .right) == .seek(10, .relative, .auto))
        #expect(b.command(for: .control("x")) == .cycle("sub", up: true))
        #expect(b.command(for: .left) == .seek(-5, .relative, .auto), "defaults stay")
        #expect(b.command(for: .character("y")) == nil)
        #expect(warnings == ["input.conf:4: unknown command 'no-such-command'", "input.conf:5: unknown key 'BOGUS+k'",
                             "input.conf:6: 'cycle': unknown property 'volme'"])
    }

    @Test func wrapAndClipCountDisplayColumns() {
        #expect(DisplayWidth.of("日本") == 4)
        #expect(DisplayWidth.clip("日本語", to: 5) == "日本")
        // A message too long for its line keeps its gist and its end (a path's file name).
        let path = "screenshot: /tmp/a/very/deep/directory/of/screenshots/aether-tui-clip-00-00-01.000.png"
        let clipped = DisplayWidth.middleClip(path, to: 50)
        #expect(DisplayWidth.of(clipped) == 50 && clipped.hasPrefix("screenshot: …") && clipped.hasSuffix("aether-tui-clip-00-00-01.000.png"), "\(clipped)")
        #expect(DisplayWidth.middleClip("short", to: 50) == "short")
        #expect(DisplayWidth.of(DisplayWidth.middleClip(String(repeating: "日", count: 40), to: 21)) <= 21)
        #expect(DisplayWidth.wrap("one two three four", to: 9) == ["one two", "three", "four"])
        #expect(TelemetryHistory.sparkline([0, 1, 2, 4], width: 4) == "▁▂▄█")
    }
}

@Suite struct SubtitleBlenderTests {
    @Test func blendsPremultipliedRGBAAtItsNormalisedPlace() {
        var pixels = [UInt8](repeating: 0, count: 10 * 10 * 3)
        // A 2×2 opaque white bitmap over the lower-right quarter, and a fully transparent corner.
        let cue = AetherEngine.SubtitleBitmap(x: 0.5, y: 0.5, width: 0.5, height: 0.5, pixelWidth: 2, pixelHeight: 2,
                                              rgba: [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0])
        SubtitleBlender.blend(cue, into: &pixels, width: 10, height: 10)
        func px(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * 10 + x) * 3..<(y * 10 + x) * 3 + 3]) }
        #expect(px(5, 5) == [255, 255, 255])
        #expect(px(9, 6) == [255, 255, 255])
        #expect(px(9, 9) == [0, 0, 0])      // transparent part leaves the picture alone
        #expect(px(2, 2) == [0, 0, 0])      // outside the cue
    }
}
