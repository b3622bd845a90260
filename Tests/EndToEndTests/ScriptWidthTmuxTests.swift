import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Text in Thai, Devanagari, Arabic and CJK takes the columns the terminal gives it (#60 item 9,
/// cli tier): a chapter's name stands at the right end of the title bar, placed by the player's
/// width of it; tmux draws it, and where tmux's width (measured by printing it in a pane of its
/// own and reading the cursor) differs from the player's, it ends short of the edge or runs
/// past it. Before: `สวัสดีครับ` was 10 columns to the player and 7 to tmux.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct ScriptWidthTmuxTests {
    static let columns = 100

    /// The columns tmux gives `text`.
    static func tmuxWidth(_ text: String) throws -> Int {
        let pane = try TmuxSession(["/bin/sh", "-c", "printf '%s' '\(text)'; sleep 30"], columns: 60, rows: 3, environment: ["LANG": "C.UTF-8"])
        defer { pane.close() }
        _ = pane.waitFor(5) { $0.contains(text.prefix(1)) }
        _ = pane.waitForStill(3)
        return Int(pane.display("#{cursor_x}")) ?? -1
    }

    /// A 4 s clip (testsrc2, 160×90, H.264) made with ffmpeg in a folder of its own; `more`
    /// gets the folder (to write files into) and gives ffmpeg's arguments after the picture's
    /// input (more inputs, metadata). The clip's path, and the folder to remove.
    static func clip(_ name: String, more: (_ folder: String) throws -> [String]) throws -> (path: String, folder: String) {
        let folder = (PlayerRuns.temp("clip") as NSString).deletingLastPathComponent
        let path = folder + "/" + name
        do {
            let made = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=4"]
                                   + (try more(folder)) + ["-c:v", "libx264", "-preset", "ultrafast", path], timeout: 60)
            try #require(made.status == 0, "\(made.stderr)")
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return (path, folder)
    }

    @Test(arguments: ["สวัสดีครับ", "नमस्ते दुनिया", "مَرْحَبًا بِكُم", "日本語の章"])
    func aChapterNameEndsAtTheEdge(name: String) throws {
        let (clip, folder) = try Self.clip("chapter.mkv") { folder in
            try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=4000\ntitle=\(name)\n".write(toFile: folder + "/meta.txt", atomically: true, encoding: .utf8)
            return ["-i", folder + "/meta.txt", "-map_metadata", "1", "-map_chapters", "1"]
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let expected = try Self.tmuxWidth(name)
        #expect(expected > 0, "tmux measured \(expected)")
        let s = try TmuxSession([TestEnvironment.binary, clip, "--pause", "--vo=halfblock", "--ao=null", "--no-config"],
                                columns: Self.columns, rows: 20, environment: ["LANG": "C.UTF-8", "TERM": "screen-256color"])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains(name) }, "\(s.screen())")
        let row = try #require(s.lines().first { $0.contains(name) })
        // Everything before the name is ASCII (the file name and spaces): its characters are columns.
        let found = try #require(row.range(of: name))
        let start = row.distance(from: row.startIndex, to: found.lowerBound)
        let before = row[..<found.lowerBound]
        #expect(before.allSatisfy { $0.isASCII }, "\(before)")
        // The name and one space end the row.
        #expect(start == Self.columns - expected - 1, "'\(name)' starts at column \(start): the player gave it \(Self.columns - 1 - start) columns, tmux \(expected)")
        s.send("q")
    }

    /// A track's name in the same scripts keeps the audio menu's box square: the right border on
    /// the name's row stands in the column of the box's corner, as tmux draws both (the player
    /// pads the row by its width of the name; a width that differs from tmux's moves that border).
    @Test(arguments: ["สวัสดีครับ", "नमस्ते दुनिया", "مَرْحَبًا بِكُم", "日本語の章"])
    func aTrackNameKeepsItsMenuSquare(name: String) throws {
        let (clip, folder) = try Self.clip("track.mkv") { _ in ["-f", "lavfi", "-i", "sine=d=4", "-metadata:s:a:0", "title=\(name)", "-c:a", "aac"] }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let width = try Self.tmuxWidth(name)
        let s = try TmuxSession([TestEnvironment.binary, clip, "--pause", "--vo=halfblock", "--ao=null", "--no-config"],
                                columns: Self.columns, rows: 20, environment: ["LANG": "C.UTF-8", "TERM": "screen-256color"])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("00:00 / 00:04") }, "\(s.screen())")
        s.send("a")
        #expect(s.waitFor(5) { $0.contains(name) && $0.contains("off") }, "\(s.screen())")
        let lines = s.lines()
        let at = try #require(lines.firstIndex { $0.contains(name) })
        let row = lines[at], found = try #require(row.range(of: name))
        // Around the name every character is one column (the picture's half blocks, the box, digits).
        let bar = try #require(row[found.upperBound...].lastIndex(of: "│"), "\(row)")
        let barColumn = row.distance(from: row.startIndex, to: found.lowerBound) + width + row.distance(from: found.upperBound, to: bar)
        let top = try #require(lines[..<at].last { $0.contains("┐") }, "\(s.screen())")
        let corner = try #require(top.lastIndex(of: "┐"))
        #expect(barColumn == top.distance(from: top.startIndex, to: corner), "the border on '\(name)''s row is at column \(barColumn), the corner at \(top.distance(from: top.startIndex, to: corner)):\n\(s.screen())")
        s.send("q")
    }
}
