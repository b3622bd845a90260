import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The TUI in a real sixel terminal: `xterm -ti vt340` under Xvfb, checked by screenshot.
/// Needs xvfb, xterm, x11-apps (xwd) and ffmpeg — installed by Tests/Scripts/install-deps.sh.
@Suite struct SixelTerminalTests {
    static var toolsPresent: Bool {
        ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xwd", "/usr/bin/ffmpeg"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Fails in CI (where install-deps.sh put the tools) rather than skipping.
    @Test(.enabled(if: toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func solidRedPlaysAsSixelInXterm() throws {
        #expect(SixelTerminalTests.toolsPresent, "Xvfb, xterm, xwd or ffmpeg missing")
        let x = try XtermSession.playingSolidRed()
        defer { x.stop() }
        let redPixels = x.waitForRedPicture().count
        // The picture at 100×30 cells is several hundred pixels on a side: far more than 20 000 red pixels.
        #expect(redPixels >= 20_000, "only \(redPixels) red pixels on screen")
    }
}
