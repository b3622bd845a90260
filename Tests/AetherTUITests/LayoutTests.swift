@testable import AetherTUI
import AetherEngine
import TerminalGraphics
import Testing

@Suite struct LayoutTests {
    let cell = CellSize(width: 8, height: 16)

    @Test func halfBlockLetterboxesWideVideoAndKeepsChromeRows() {
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 16.0 / 9, driver: HalfBlockDriver(colorMode: .truecolor), showTelemetry: false)
        #expect(l.videoArea == CellRect(column: 0, row: 1, width: 160, height: 45))
        // 160 cells × 8 px = 1280 px wide → 720 px tall = 45 rows of 16 px: fills the area exactly.
        #expect(l.video == CellRect(column: 0, row: 1, width: 160, height: 45))
        #expect(l.renderSize == PixelSize(width: 160, height: 90))
        #expect(l.transportRows == 46...47)
    }

    @Test func halfBlockPillarboxesNarrowVideoCentred() {
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 4.0 / 3, driver: HalfBlockDriver(colorMode: .truecolor), showTelemetry: false)
        // 45 rows × 16 px = 720 px tall → 960 px wide = 120 cells, centred.
        #expect(l.video == CellRect(column: 20, row: 1, width: 120, height: 45))
        #expect(l.renderSize == PixelSize(width: 120, height: 90))
    }

    @Test func telemetryPaneTakesTheRightColumns() {
        let l = Layout(columns: 160, rows: 48, cellSize: cell, displayAspect: 16.0 / 9, driver: HalfBlockDriver(colorMode: .truecolor), showTelemetry: true)
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
        for renderer in [HalfBlockDriver(colorMode: .truecolor), SixelDriver(colors: 256, dither: .none)] as [any VideoDriver] {
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

    @Test func tinyScreensDoNotTrap() {
        for (c, r) in [(1, 1), (5, 3), (0, 0), (20, 4)] {
            let l = Layout(columns: c, rows: r, cellSize: cell, displayAspect: 1.78, driver: HalfBlockDriver(colorMode: .truecolor), showTelemetry: true)
            #expect(l.video.width >= 0 && l.video.height >= 0)
        }
    }
}

@Suite struct KeyMapTests {
    @Test func mpvDefaults() {
        #expect(KeyMap.command(for: .character(" ")) == .togglePause)
        #expect(KeyMap.command(for: .right) == .seek(seconds: 5, exact: false))
        #expect(KeyMap.command(for: .up) == .seek(seconds: 60, exact: false))
        #expect(KeyMap.command(for: .shiftLeft) == .seek(seconds: -1, exact: true))
        #expect(KeyMap.command(for: .character("]")) == .speedMultiply(1.1))
        #expect(KeyMap.command(for: .character("}")) == .speedMultiply(2))
        #expect(KeyMap.command(for: .character("9")) == .volume(delta: -2))
        #expect(KeyMap.command(for: .character("j")) == .cycleSubtitles(forward: true))
        #expect(KeyMap.command(for: .character("q")) == .quit)
    }

    @Test func noKeyIsBoundTwice() {
        var seen: Set<Key> = []
        for binding in KeyMap.bindings {
            for key in binding.triggers {
                #expect(!seen.contains(key), "\(key) bound twice")
                seen.insert(key)
            }
        }
    }

    @Test func wrapAndClipCountDisplayColumns() {
        #expect(DisplayWidth.of("日本") == 4)
        #expect(DisplayWidth.clip("日本語", to: 5) == "日本")
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
