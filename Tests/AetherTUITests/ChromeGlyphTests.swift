@testable import AetherScreen
@testable import AetherTUI
import AetherTestSupport
import Foundation
import Testing

/// Every glyph the transport rows and the boxes draw is in the monospace fonts terminals use
/// by default on Linux (DejaVu Sans Mono, Noto Sans Mono), read from the fonts' own character
/// sets with fontconfig: xterm draws a glyph its font lacks as an empty box (`⏸` did).
struct ChromeGlyphTests {
    static let fonts = ["/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                        "/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf"]
    static var present: Bool {
        (fonts + ["/usr/bin/fc-query"]).allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    /// The code points a font has, from `fc-query --format=%{charset}` (`20-7e a0-17f …`).
    static func charset(_ font: String) -> [ClosedRange<UInt32>] {
        let r = Process.run(["/usr/bin/fc-query", "--format=%{charset}", font], timeout: 20)
        return r.stdout.split(whereSeparator: \.isWhitespace).compactMap { item in
            let ends = item.split(separator: "-").compactMap { UInt32($0, radix: 16) }
            guard let low = ends.first, let high = ends.last, low <= high else { return nil }
            return low...high
        }
    }

    /// What the chrome draws: the bar in every state with chapters and the scrub marker, and a box.
    static var drawn: Set<Unicode.Scalar> {
        var scalars = Set<Unicode.Scalar>()
        for state in [TransportBar.State.playing, .paused, .seeking, .buffering] {
            var grid = CellGrid(columns: 60, rows: 8)
            TransportBar(state: state, origin: 0, span: 100, position: 30, buffered: 60, chapterStarts: [50],
                         scrubMarker: 70, timeText: "00:30 / 01:40", badges: [.init(text: "1.00×", role: .status)])
                .render(into: &grid)
            _ = BoxView(title: "Stats", lines: ["a"], style: .stats, border: .statsBorder).render(at: (1, 1), into: &grid)
            for line in grid.lines { scalars.formUnion(line.unicodeScalars.filter { !$0.isASCII }) }
        }
        return scalars
    }

    @Test(.enabled(if: present || ProcessInfo.processInfo.environment["CI"] != nil))
    func chromeGlyphsAreInTheCommonMonospaceFonts() {
        #expect(Self.present, "DejaVu Sans Mono, Noto Sans Mono or fc-query missing")
        let glyphs = Self.drawn
        #expect(glyphs.contains("‖") && glyphs.contains("▶") && glyphs.contains("━"), "\(glyphs)")
        for font in Self.fonts {
            let ranges = Self.charset(font)
            #expect(ranges.count > 10, "fc-query read nothing from \(font)")
            let missing = glyphs.filter { g in !ranges.contains { $0.contains(g.value) } }
            #expect(missing.isEmpty, "\((font as NSString).lastPathComponent) lacks \(missing.map { "U+" + String($0.value, radix: 16, uppercase: true) + " " + String($0) })")
        }
        // The one that was an empty box in xterm: in neither font, so never drawn.
        for font in Self.fonts { #expect(!Self.charset(font).contains { $0.contains(0x23F8) }) }
    }
}
