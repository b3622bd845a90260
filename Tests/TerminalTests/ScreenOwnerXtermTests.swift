import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Layout changes in a real sixel terminal leave no picture behind: whatever the screen showed
/// for a filmstrip or a preview is gone when it closes, read back from xterm's window.
@Suite(.serialized) struct ScreenOwnerXtermTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil),
          arguments: [(100, 30), (160, 48)])
    func filmstripLeavesNoPictureBehind(columns: Int, rows: Int) throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null --pause --keep-open",
                                 columns: columns, rows: rows)
        defer { x.stop() }
        let before = x.waitForRedPicture()
        try #require(before.count >= 20_000, "no sixel picture on screen (\(before.count) red pixels; \(x.state))")
        x.press("B")
        // The filmstrip's thumbnails (red too) stand on the progress bar, below the picture or
        // over it: wait until the red area changed.
        let during = x.waitForRedBox(from: before) { $0.count != before.count || $0.y1 != before.y1 }
        #expect(during.count != before.count || during.y1 != before.y1, "no filmstrip appeared")
        x.press("Escape")
        // Esc taken: the filmstrip's red area changes (gone), then the next key.
        _ = x.waitForRedBox(from: during) { $0.count != during.count || $0.y1 != during.y1 }
        x.press("space")
        let after = x.waitForRedBox(from: during) { abs($0.count - before.count) < 200 }
        #expect(abs(after.y0 - before.y0) <= 1 && abs(after.y1 - before.y1) <= 1
                && abs(after.x0 - before.x0) <= 1 && abs(after.x1 - before.x1) <= 1,
                "red area before \(before), after the filmstrip \(after)")
        #expect(abs(after.count - before.count) < 200, "\(after.count - before.count) red pixels more than before the filmstrip")
        print("xterm filmstrip: red area \(before) before, \(during) during, \(after) after")
    }
}
