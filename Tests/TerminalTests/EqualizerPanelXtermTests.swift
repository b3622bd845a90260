import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The equalizer's panel on a pixel output (#63): in xterm's sixel mode (`xterm -ti vt340` under
/// Xvfb) its curve is a picture. `e` over a bass curve: the curve's colour (#6EC8FF) is on the
/// screen, high at the low end and low at the top end, as bass is; `e` again takes it away.
/// Tier: terminals.
@Suite(.serialized) struct EqualizerPanelXtermTests {
    /// The curve's pixels in `shot`: (x, y) of each within 8 of its colour.
    static func curve(_ shot: Screenshot) -> [(x: Int, y: Int)] {
        var found: [(x: Int, y: Int)] = []
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let i = (y * shot.width + x) * 3
                if abs(Int(shot.rgb[i]) - 110) <= 8 && abs(Int(shot.rgb[i + 1]) - 200) <= 8 && abs(Int(shot.rgb[i + 2]) - 255) <= 8 {
                    found.append((x, y))
                }
            }
        }
        return found
    }

    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func inASixelTerminalTheCurveIsAPicture() throws {
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("lyrics-song.flac"))' --vo=sixel --ao=null --no-config --equalizer=bass",
                                 columns: 110, rows: 36)
        defer { x.stop() }
        // The player is up when its screen stops changing; then the panel.
        _ = x.waitForStillScreenshot()
        x.press("e")
        var pixels: [(x: Int, y: Int)] = []
        #expect(waitUntil(10, interval: 0.2) {
            pixels = x.screenshot().map(Self.curve) ?? []
            return pixels.count >= 300
        }, "\(pixels.count) pixels of the curve's colour (\(x.state))")
        let xs = pixels.map(\.x)
        let (left, right) = (xs.min() ?? 0, xs.max() ?? 0)
        try #require(right - left > 200, "the curve spans \(left)…\(right)")
        func height(near column: Int) -> Double {
            let near = pixels.filter { abs($0.x - column) <= 3 }.map { Double($0.y) }
            return near.isEmpty ? .nan : near.reduce(0, +) / Double(near.count)
        }
        // Screen y grows downwards: bass is higher (smaller y) at 20–40 Hz than at 20 kHz.
        let low = height(near: left + (right - left) / 20), high = height(near: right - 2)
        #expect(low < high - 10, "the curve at its low end y \(low), at its top end y \(high)")
        x.press("e")
        #expect(waitUntil(10, interval: 0.2) { (x.screenshot().map(Self.curve)?.count ?? 1000) < 20 }, "the picture went with the panel")
    }
}
