import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `aether-tui inspect` in a real sixel terminal.
@Suite(.serialized) struct InspectorXtermTests {
    /// The frames tab in a real sixel terminal (xterm -ti vt340 under Xvfb): read back from the
    /// window, the inspector hides the player's picture, `.` draws the first frame as a filled
    /// 4:3 red rectangle (the source, solid red 320×240) in the tab's left part, and Esc gives
    /// the player's picture back with no frame left behind.
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func framesTabDrawsASixelPictureInXterm() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' inspect --tab frames '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null",
                                 columns: 100, rows: 30)
        defer { x.stop() }
        // The tab is up (its frame not chosen yet): no red anywhere, the player's picture hidden.
        Thread.sleep(forTimeInterval: 2)   // measurement window: 2 s up, the player's picture must not show
        let hidden = x.screenshot()?.redBox()
        #expect(hidden?.count ?? -1 < 100, "the player's picture shows through the inspector: \(String(describing: hidden)); \(x.state)")
        x.press("period")
        let frame = x.waitForRedPicture(minimum: 10_000)
        try #require(frame.count >= 10_000, "no sixel frame on screen (\(frame.count) red pixels; \(x.state))")
        let (w, h) = (frame.x1 - frame.x0 + 1, frame.y1 - frame.y0 + 1)
        #expect(Double(frame.count) >= 0.97 * Double(w * h), "not a filled picture: \(frame), \(w)×\(h)")
        #expect(abs(Double(w) / Double(h) - 4.0 / 3.0) < 0.05, "aspect \(w)×\(h), the source is 320×240")
        #expect(frame.x1 < x.windowSize.width * 4 / 5, "the picture is not in the tab's left part: \(frame), window \(x.windowSize)")
        x.press("Escape")
        let after = x.waitForRedBox(from: frame) { $0.count > 0 && ($0.count != frame.count || $0.x0 != frame.x0) }
        let (aw, ah) = (after.x1 - after.x0 + 1, after.y1 - after.y0 + 1)
        #expect(after.count != frame.count || after.x0 != frame.x0 || after.y0 != frame.y0, "the frame stayed after Esc: \(after)")
        #expect(Double(after.count) >= 0.97 * Double(aw * ah), "the player's picture after Esc is not one rectangle (a frame left behind?): \(after)")
        print("xterm inspector frame: \(frame) (\(w)×\(h)), player's picture after Esc \(after)")
    }
}
