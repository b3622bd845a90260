import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Overlays over a sixel picture in a real terminal: terminals draw graphics above text, so a
/// box the chrome draws is only readable if the picture leaves its cells alone (transparent
/// sixel pixels there). Read back from the screen: inside the picture's area, the pixel rows
/// the box covers must be one unbroken band as tall as the box, with no picture inside it.
@Suite(.serialized) struct XtermOverlayTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil),
          arguments: [("question", "help"), ("i", "stats")])
    func overlayRowsAreNotCoveredByTheSixelPicture(key: String, box: String) throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let x = try XtermSession.playingSolidRed()
        defer { x.stop() }

        // The picture: a red rectangle filling most of the video area.
        let picture = x.waitForRedPicture()
        try #require(picture.count >= 20_000, "no sixel picture on screen (\(picture.count) red pixels; \(x.state))")
        #expect(x.cellHeight >= 8, "xterm geometry unknown: \(x.windowSize)")

        x.press(key)
        // Rows of the picture's area with a wide stretch of something other than picture: the box.
        var band: [Int] = []
        var redInside = 0
        _ = waitUntil(5, interval: 0.25) {
            guard let shot = x.screenshot() else { return false }
            let width = picture.x1 - picture.x0 + 1
            var rows: [Int] = []
            for y in picture.y0...picture.y1 {
                var plain = 0
                for px in picture.x0...picture.x1 where !shot.isRed(px, y) { plain += 1 }
                if plain >= width / 5 { rows.append(y) }
            }
            guard let first = rows.first, let last = rows.last, last - first > 4 * x.cellHeight else { return false }
            band = rows
            // The box's columns: the longest stretch of non-picture pixels on the band's middle
            // row; then red pixels down the middle of that stretch (the picture painted over it).
            let y = (first + last) / 2
            var best = (start: picture.x0, length: 0), run = (start: picture.x0, length: 0)
            for px in picture.x0...picture.x1 {
                if shot.isRed(px, y) { run = (px + 1, 0) } else { run.length += 1 }
                if run.length > best.length { best = run }
            }
            let column = best.start + best.length / 2
            redInside = (first...last).filter { shot.isRed(column, $0) }.count
            return redInside == 0 && rows.count == last - first + 1
        }
        try #require(!band.isEmpty, "no \(box) box appeared over the picture")
        let gaps = (band.last! - band.first! + 1) - band.count
        #expect(gaps == 0, "\(gaps) pixel rows inside the \(box) box are covered by the picture (band \(band.first!)…\(band.last!))")
        #expect(redInside == 0, "\(redInside) picture pixels inside the \(box) box")
        // Help lists every key (clipped by the video area); stats has several lines: both are
        // many cell rows tall, and all of those rows must be visible.
        let minimumRows = box == "help" ? 12 : 6
        #expect(band.count >= minimumRows * x.cellHeight,
                "the \(box) box shows \(band.count) pixel rows, expected at least \(minimumRows) cell rows of \(x.cellHeight) px")
        print("xterm \(box) box: \(band.count) pixel rows unbroken over the picture, cell height \(x.cellHeight) px")
    }
}

/// The scrub preview in a real sixel terminal is a picture of its own (not cells): with the
/// marker at the start it sits over the left pillarbox of a 4:3 clip, and goes with Esc.
@Suite struct XtermScrubPreviewTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func scrubPreviewIsASixelPictureThatGoesOnEsc() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let x = try XtermSession.playingSolidRed()
        defer { x.stop() }
        let picture = x.waitForRedPicture()
        try #require(picture.count >= 20_000, "no sixel picture on screen (\(picture.count) red pixels; \(x.state))")
        try #require(picture.x0 > 40, "the 4:3 picture should leave a pillarbox: \(picture)")
        /// Red pixels left of the video picture (where only the preview can be).
        func leftOfPicture(_ shot: Screenshot) -> Int { shot.redPixels(leftOf: picture.x0 - 2) }
        x.press("b")
        var preview = 0
        _ = waitUntil(5, interval: 0.25) {
            if let shot = x.screenshot() { preview = leftOfPicture(shot) }
            return preview >= 500
        }
        #expect(preview >= 500, "no preview picture left of the video (\(preview) red pixels)")
        x.press("Escape")
        var left = preview
        _ = waitUntil(5, interval: 0.25) {
            if let shot = x.screenshot() { left = leftOfPicture(shot) }
            return left == 0
        }
        #expect(left == 0, "\(left) preview pixels stayed after Esc")
        print("xterm scrub preview: \(preview) red pixels in the pillarbox, \(left) after Esc")
    }
}
