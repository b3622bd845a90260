import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The music view in xterm's sixel mode (`xterm -ti vt340` under Xvfb). music-tagged.mp3
/// (make-fixtures.sh) has a 120×80 cover, left half #D02020, right half #2040E0.
@Suite(.serialized) struct MusicViewXtermTests {
    /// In xterm's sixel mode the cover is a sixel picture: red pixels, then as many blue ones
    /// right of them on the same rows, in the left half of the window.
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func inASixelTerminalTheCoverIsASixelPicture() throws {
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("music-tagged.mp3"))' --vo=sixel --ao=null --pause")
        defer { x.stop() }
        let red = x.waitForRedPicture(minimum: 5000)
        // A required condition: without the picture the scan below has no rows to look at.
        try #require(red.count >= 5000, "only \(red.count) red pixels (\(x.state))")
        let shot = try #require(x.screenshot())
        var blue = 0
        for y in max(0, red.y0)...max(0, red.y1) {
            for px in (red.x1 + 1)..<min(shot.width, red.x1 + 2 + (red.x1 - red.x0)) {
                let i = (y * shot.width + px) * 3
                if shot.rgb[i] < 60 && shot.rgb[i + 1] < 100 && shot.rgb[i + 2] > 200 { blue += 1 }
            }
        }
        #expect(blue >= red.count * 8 / 10, "\(blue) blue pixels right of \(red.count) red ones")
        #expect(red.x1 < x.windowSize.width / 2, "the cover reaches x \(red.x1) of \(x.windowSize.width)")
    }

    /// The same in xterm's sixel mode: the red half of the cover keeps its pixels when the bar
    /// hides (it used to smear into stripes as ncurses scrolled the rows under it).
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func sixelCoverStaysWholeWhenTheBarHides() throws {
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("music-tagged.mp3"))' --vo=sixel --ao=null --loop-file=inf")
        defer { x.stop() }
        let before = x.waitForRedPicture(minimum: 5000)
        try #require(before.count >= 5000, "only \(before.count) red pixels (\(x.state))")
        // The bar hides after 3 s without input; the spectrum moves meanwhile.
        Thread.sleep(forTimeInterval: 5)   // measurement window: the bar hides (3 s) and the spectrum moves
        let after = try #require(x.screenshot()).redBox()
        #expect(after.count == before.count && after.y0 == before.y0 && after.y1 == before.y1,
                "red cover pixels \(before) before the bar hid, \(after) after")
    }
}
