import AetherTestSupport
import Foundation
import Testing

/// ASS typesetting in the half-block output, in tmux (100×30): the script's placement reaches
/// the screen, its tags never do. Fixture: Tests/Fixtures/make-subtitle-fixtures.sh.
@Suite(.serialized) struct ASSCellTests {
    init() {
        #expect(TestEnvironment.requirePulse())
    }

    static func start(_ args: [String], environment: [String: String] = [:]) throws -> TmuxSession {
        var env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        env.merge(environment) { $1 }
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.subtitleFixture("ass-signs.mkv"), "--audio-device=pulse",
                                 "--vo=halfblock", "--pause", "--sid=1", "--start=2"] + args,
                                columns: 100, rows: 30, environment: env)
        #expect(s.waitFor(8) { $0.contains("Top sign here") && $0.contains("Bottom bold red") && $0.contains("Left edge")
                    && $0.contains("Karaoke") },
                "cues missing:\n\(s.screen())")
        return s
    }

    @Test func an8IsOnTheTopRowsAndNoTagReachesTheScreen() throws {
        // An explicit theme: the colours are shown whatever NO_COLOR the test runs under.
        let s = try Self.start(["--theme=default"])
        defer { s.close() }
        let lines = s.lines()
        let top = try #require(lines.firstIndex { $0.contains("Top sign here") })
        let bottom = try #require(lines.firstIndex { $0.contains("Bottom bold red") })
        #expect(top <= 2, "\\an8 text on row \(top):\n\(s.screen())")
        #expect(bottom > 20, "bottom text on row \(bottom):\n\(s.screen())")
        // \pos(16,120)\an4: the left edge of the picture, half-way down.
        let left = try #require(lines.firstIndex { $0.contains("Left edge") })
        #expect((10...18).contains(left), "positioned sign on row \(left):\n\(s.screen())")
        #expect(lines.contains { $0.contains("Karaoke") }, "karaoke text lost:\n\(s.screen())")
        let screen = s.screen()
        #expect(!screen.contains("{\\") && !screen.contains("\\an") && !screen.contains("m 0 0 l"), "a raw tag:\n\(screen)")
        // Bold as SGR 1 on the bold word; the red override as a red foreground.
        let coloured = s.screen(colours: true).components(separatedBy: "\n")
        let row = coloured[bottom]
        #expect(row.contains("\u{1B}[1m") || row.contains(";1m") || row.contains("[1;"), "no bold SGR: \(row.debugDescription)")
        #expect(row.contains("38;5;196") || row.contains("38;5;9") || row.contains("38;2;255;0;0") || row.contains("[91m"),
                "no red: \(row.debugDescription)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func noColorKeepsTheScriptColoursOff() throws {
        let s = try Self.start([], environment: ["NO_COLOR": "1"])
        defer { s.close() }
        let lines = s.lines()
        let bottom = try #require(lines.firstIndex { $0.contains("Bottom bold red") })
        let row = s.screen(colours: true).components(separatedBy: "\n")[bottom]
        let text = try #require(row.range(of: "Bottom"))
        let sub = String(row[text.lowerBound...].prefix(60))
        #expect(!sub.contains("38;5;") && !sub.contains("[91m") && !sub.contains("[31m"), "coloured under NO_COLOR: \(sub.debugDescription)")
        #expect(sub.contains("red"))
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}
