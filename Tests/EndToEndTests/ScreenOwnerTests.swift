import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// What the screen shows after the UI changes around the picture, read from tmux as the colours
/// a viewer sees (half-block cells decoded to their top and bottom colours).
@Suite(.serialized) struct ScreenOwnerTests {
    /// A cell as seen: its character (for text) and the colours of its top and bottom halves.
    struct Seen: Equatable {
        var text: Character
        var top: [Int]?
        var bottom: [Int]?
    }

    /// What a viewer sees of a `capture-pane -e` screen: half-block glyphs decoded to colours.
    static func seen(_ screen: String) -> [[Seen]] {
        CapturedCells.parse(screen).map { row in
            row.map { cell in
                switch cell.character {
                case "▀": Seen(text: " ", top: cell.foreground, bottom: cell.background)
                case "▄": Seen(text: " ", top: cell.background, bottom: cell.foreground)
                case "█": Seen(text: " ", top: cell.foreground, bottom: cell.foreground)
                case " ": Seen(text: " ", top: cell.background, bottom: cell.background)
                default: Seen(text: cell.character, top: cell.background, bottom: cell.background)
                }
            }
        }
    }

    /// Cells of rows `rows` that differ between two screens.
    static func differing(_ a: String, _ b: String, rows: Range<Int>) -> Int {
        let sa = seen(a), sb = seen(b)
        var n = 0
        for y in rows where sa.indices.contains(y) && sb.indices.contains(y) {
            for x in 0..<max(sa[y].count, sb[y].count) {
                let ca = sa[y].indices.contains(x) ? sa[y][x] : Seen(text: " ", top: nil, bottom: nil)
                let cb = sb[y].indices.contains(x) ? sb[y][x] : Seen(text: " ", top: nil, bottom: nil)
                if ca != cb { n += 1 }
            }
        }
        return n
    }

    func start(_ path: String, _ args: [String]) throws -> TmuxSession {
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        let s = try TmuxSession([TestEnvironment.binary, path, "--vo=halfblock"] + args, columns: 100, rows: 30, environment: env)
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        return s
    }

    /// A grainy clip (noise over testsrc2, every frame different), made once per run.
    static let grainy: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aether-grain-\(getpid()).mkv").path
        _ = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=24:d=6,noise=alls=40:allf=t",
                         "-c:v", "libx264", "-preset", "ultrafast", "-crf", "24", path], timeout: 60)
        return path
    }()

    /// Paused, `b`, →, Esc: the picture is exactly what it was (the preview's cells repainted
    /// from the frame on screen, nothing else touched).
    @Test func cancelledScrubRestoresTheExactCells() throws {
        let clip = Self.grainy
        try #require(FileManager.default.fileExists(atPath: clip), "ffmpeg could not make the grainy clip")
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let s = try start(clip, ["--ao=null", "--pause", "--start=2"])
        defer { s.close() }
        // The --start seek over (» becomes ‖) and the picture drawn.
        let before = try #require(s.waitForPausedPicture(), "the paused picture never settled:\n\(s.screen())")
        s.send("b")
        #expect(s.waitFor(3) { _ in Self.differing(before, s.screen(colours: true), rows: 1..<27) > 20 }, "no preview appeared")
        let previewed = try #require(s.waitForStill(colours: true), "the preview never settled")
        s.send("Right")
        // The preview for the new time drawn whole.
        let during = try #require(s.waitForStill(colours: true) { $0 != previewed }, "→ changed nothing:\n\(s.screen())")
        s.send("Escape")
        var after = during
        #expect(s.waitFor(3) { _ in after = s.screen(colours: true); return Self.differing(before, after, rows: 1..<27) == 0 },
                "\(Self.differing(before, after, rows: 1..<27)) picture cells differ after Esc (\(Self.differing(before, during, rows: 1..<27)) during the scrub)")
    }

    /// A bitmap subtitle track chosen while paused shows its cue at once.
    @Test func pausedBitmapSubtitleTrackShowsAtOnce() throws {
        let s = try start(TestEnvironment.fixture("dvdsub.mkv"), ["--ao=null", "--sid=no", "--pause", "--start=2.3"])
        defer { s.close() }
        let before = try #require(s.waitForPausedPicture(), "the paused picture never settled:\n\(s.screen())")
        /// Cells showing black or white (the cue's box and glyphs).
        func cueCells(_ screen: String) -> Int {
            Self.seen(screen).joined().filter { cell in
                [cell.top, cell.bottom].contains { c in c.map { $0.max()! < 30 || $0.min()! > 230 } ?? false }
            }.count
        }
        let base = cueCells(before)
        s.send("j")
        var shown = 0
        #expect(s.waitFor(2) { _ in shown = cueCells(s.screen(colours: true)) - base; return shown >= 15 },
                "the cue did not show while paused (\(shown) more black or white cells)")
        #expect(s.screen().contains("‖"))
    }

    /// A message (the track switch) goes below the stats box, never over its border.
    @Test func aMessageNeverCoversTheStatsBox() throws {
        let s = try start(TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), ["--audio-device=pulse", "--pause"])
        defer { s.close() }
        s.send("I")
        #expect(s.waitFor(2) { $0.contains("┌─ Stats") })
        s.send("#")
        #expect(s.waitFor(2) { $0.contains("audio: ") }, "no message:\n\(s.screen())")
        let lines = s.lines()
        let border = try #require(lines.firstIndex { $0.contains("┌─ Stats") }, "the box's top border was overwritten:\n\(s.screen())")
        let message = try #require(lines.firstIndex { $0.contains("audio: ") })
        let bottom = try #require(lines.firstIndex { $0.contains("└") })
        #expect(message > bottom || message < border, "message on row \(message) inside the box (rows \(border)…\(bottom))")
    }
}
