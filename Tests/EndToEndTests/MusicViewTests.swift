import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The music view in the real binary: tmux at 100×30 with half-block output (the cover is drawn
/// in cells, so `capture-pane -e` sees its colours), and on the stand-in kitty terminal.
/// music-tagged.mp3 (make-fixtures.sh) has a 120×80 cover, left half #D02020, right half #2040E0,
/// and plays 1 kHz for 3 s, then 4 kHz.
@Suite(.serialized) struct MusicViewTests {
    static let red = (208, 32, 32), blue = (32, 64, 224)

    private func start(_ file: String, _ args: [String] = []) throws -> TmuxSession {
        let env = ["TERM": "screen-256color", "COLORTERM": "truecolor"]
        return try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture(file), "--ao=null", "--vo=halfblock"] + args,
                               columns: 100, rows: 30, environment: env)
    }

    /// One screen cell as `capture-pane -e` shows it.
    struct Cell {
        var character: Character
        var foreground: (Int, Int, Int)?
        var background: (Int, Int, Int)?
    }

    /// The screen's cells, row by row, with their 24-bit colours (other colours are nil).
    static func cells(_ screen: String) -> [[Cell]] {
        func rgb(_ c: [Int]?) -> (Int, Int, Int)? { c.map { ($0[0], $0[1], $0[2]) } }
        return CapturedCells.parse(screen).map { row in
            row.map { Cell(character: $0.character, foreground: rgb($0.foreground), background: rgb($0.background)) }
        }
    }

    static func near(_ a: (Int, Int, Int)?, _ b: (Int, Int, Int), within t: Int = 6) -> Bool {
        guard let a else { return false }
        return abs(a.0 - b.0) <= t && abs(a.1 - b.1) <= t && abs(a.2 - b.2) <= t
    }

    /// (column, row) of every cell showing `colour` as a picture: its background, or the
    /// foreground of a half-block glyph.
    static func picture(_ screen: String, colour: (Int, Int, Int)) -> [(Int, Int)] {
        var found: [(Int, Int)] = []
        for (y, row) in cells(screen).enumerated() {
            for (x, cell) in row.enumerated() {
                let glyph = cell.character == "▀" || cell.character == "▄"
                if near(cell.background, colour) || (glyph && near(cell.foreground, colour)) { found.append((x, y)) }
            }
        }
        return found
    }

    /// Cells with any 24-bit background (pictures; the chrome uses palette colours).
    static func pictureCellCount(_ screen: String) -> Int {
        cells(screen).joined().filter { $0.background != nil || $0.character == "▀" }.count
    }

    /// The column with the most full blocks in rows `rows`: the tallest spectrum bar.
    static func tallestBar(_ screen: String, rows: ClosedRange<Int>, from column: Int) -> Int? {
        var counts: [Int: Int] = [:]
        let lines = screen.components(separatedBy: "\n")
        for y in rows where lines.indices.contains(y) {
            for (x, c) in Array(lines[y]).enumerated() where x >= column && c == "█" { counts[x, default: 0] += 1 }
        }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    @Test func coverTagsAndALiveSpectrum() throws {
        let s = try start("music-tagged.mp3")
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("Test Artist") },
                "no music view:\n\(s.screen())")
        let screen = s.screen()
        for text in ["Test Title", "Test Artist", "Album One", "Track 3/12 · 2021 · Ambient", "mp3 · 44.1 kHz · 2.0"] {
            #expect(screen.contains(text), "missing '\(text)':\n\(screen)")
        }
        // The album's raw ESC [31m was taken out whole; nothing of it reached the screen.
        #expect(!screen.contains("[31m") && !screen.contains("31mOne"))

        // The cover: red cells on the left, blue on the right, in the left two fifths.
        // (A capture can land while the cover is still being written: wait for a whole one.)
        var coloured = s.screen(colours: true)
        var red: [(Int, Int)] = [], blue: [(Int, Int)] = []
        _ = s.waitFor(5) { _ in
            coloured = s.screen(colours: true)
            red = Self.picture(coloured, colour: Self.red)
            blue = Self.picture(coloured, colour: Self.blue)
            return red.count >= 100 && blue.count >= 100
        }
        #expect(!blue.isEmpty, "no cover:\n\(coloured)")
        #expect(red.count >= 100 && blue.count >= 100, "\(red.count) red and \(blue.count) blue cells")
        let redRight = red.map(\.0).max() ?? 99, blueLeft = blue.map(\.0).min() ?? 0
        #expect(redRight < blueLeft, "red must be left of blue: red up to \(redRight), blue from \(blueLeft)")
        #expect((blue.map(\.0).max() ?? 99) < 42 && (red.map(\.0).min() ?? 0) >= 2, "the cover leaves its area")

        // The spectrum at 1 kHz, then at 4 kHz: the tallest bar moves right.
        #expect(s.waitFor(5) { $0.contains("00:01 / 00:06") })
        // The tallest bar settled: in the same column in two looks 0.1 s apart.
        var tallest: [Int?] = []
        _ = waitUntil(3, interval: 0.1) {
            tallest.append(Self.tallestBar(s.screen(), rows: 8...26, from: 43))
            return tallest.count >= 2 && tallest.last! != nil && tallest.suffix(2).allSatisfy { $0 == tallest.last! }
        }
        let low = try #require(tallest.last ?? nil, "no bars at 1 kHz:\n\(s.screen())")
        // (The transport bar hides after 3 s without input: the bars tell the time.)
        var high: Int?
        #expect(s.waitFor(6) { screen in
            high = Self.tallestBar(screen, rows: 8...26, from: 43)
            return (high ?? 0) >= low + 6
        }, "the tallest bar was at column \(low) for 1 kHz and \(high.map(String.init) ?? "nowhere") later:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// The stats box opens over the cover: the cover leaves its cells alone (and they are
    /// erased), so the box is whole; when it closes the cover comes back there.
    @Test func anOverlayOverTheCoverStaysWhole() throws {
        let s = try start("music-tagged.mp3", ["--pause"])
        defer { s.close() }
        // The cover as it settles (its first cells can come a paint before the rest).
        let drawn = try #require(s.waitForStill(8, colours: true) { !Self.picture($0, colour: Self.red).isEmpty }, "no cover:\n\(s.screen())")
        let cover = Set(Self.picture(drawn, colour: Self.red).map { "\($0.0),\($0.1)" })
        s.send("I")
        #expect(s.waitFor(5) { $0.contains("Container") }, "no stats box:\n\(s.screen())")
        try #require(s.waitForStill(colours: true) { $0.contains("Container") } != nil, "the stats box never settled:\n\(s.screen())")
        let lines = s.lines()
        let box = try #require(lines.indices.first { lines[$0].contains("┌─ Stats") }.map { top in
            (top, lines.indices.first { $0 > top && lines[$0].contains("└") } ?? top)
        })
        let covered = Self.picture(s.screen(colours: true), colour: Self.red).filter { $0.1 >= box.0 && $0.1 <= box.1 && $0.0 <= 60 }
        #expect(covered.isEmpty, "cover cells inside the stats box: \(covered.prefix(5))")
        #expect(lines[box.0 + 1].contains("File") && lines[box.0 + 1].contains("music-tagged.mp3"), "\(lines[box.0 + 1])")
        s.send("I")
        #expect(s.waitFor(5) { screen in
            !screen.contains("Container")
                && Set(Self.picture(s.screen(colours: true), colour: Self.red).map { "\($0.0),\($0.1)" }) == cover
        }, "the cover did not come back whole: missing \(cover.subtracting(Set(Self.picture(s.screen(colours: true), colour: Self.red).map { "\($0.0),\($0.1)" })).sorted().prefix(12)), extra \(Set(Self.picture(s.screen(colours: true), colour: Self.red).map { "\($0.0),\($0.1)" }).subtracting(cover).sorted().prefix(12))\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// The stats box of the music view says the sound's facts only (no frames, no video
    /// output), and a mono file reads `mono` (its track and the output). (Issue 35, item 4.)
    @Test func musicStatsAreTheSoundsAndMonoReadsMono() throws {
        let s = try start("tones-stepped.mka", ["--pause"])
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("48 kHz · mono") && $0.contains("00:00 /") }, "no music view:\n\(s.screen())")
        s.send("I")
        #expect(s.waitFor(8) { $0.contains("Container") && $0.contains("Output") }, "no stats box:\n\(s.screen())")
        let screen = s.screen()
        #expect(screen.contains("Audio      #1 und · flac · mono"), "\(screen)")
        #expect(screen.range(of: #"Output .* s16 mono"#, options: .regularExpression) != nil, "\(screen)")
        #expect(!screen.contains("Frames") && !screen.contains("Video out") && !screen.contains("A/V"), "\(screen)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// The text drawn highlighted (reverse video or on a background colour) on each row of a
    /// `capture-pane -e` screen.
    static func highlighted(_ captured: String) -> [String] {
        captured.components(separatedBy: "\n").map { line in
            var out = "", reverse = false, background = false
            var chars = Array(line.unicodeScalars)[...]
            while let c = chars.popFirst() {
                guard c == "\u{1B}" else {
                    if reverse || background { out.unicodeScalars.append(c) }
                    continue
                }
                guard chars.first == "[" else { continue }
                chars = chars.dropFirst()
                var body = ""
                while let d = chars.popFirst(), !(("@"..."~").contains(d)) { body.unicodeScalars.append(d) }
                var params = body.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
                if params.isEmpty { params = [0] }
                while let p = params.popFirst() {
                    switch p {
                    case 0: reverse = false; background = false
                    case 7: reverse = true
                    case 27: reverse = false
                    case 49: background = false
                    case 40...47, 100...107: background = true
                    case 38, 48:
                        if p == 48 { background = true }
                        let kind = params.popFirst()
                        params = params.dropFirst(kind == 5 ? 1 : kind == 2 ? 3 : 0)
                    default: break
                    }
                }
            }
            return out.trimmingCharacters(in: .whitespaces)
        }
    }

    /// Synced lyrics (issue 35, item 3): `lyrics-song.lrc` beside the song (`line NN` at
    /// NN × 1.5 s). While it plays, at 1× from the start, then after a seek to 20 s at 2×, the
    /// highlighted line is the one whose stamp has passed, within 0.25 s of the position the
    /// player reports just before and after the screen is read.
    @Test func theHighlightedLyricIsTheLineWhoseStampHasPassed() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try start("lyrics-song.flac", ["--input-ipc-server=\(dir)/l.sock"])
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("line 00") && $0.contains("line 01") }, "no lyrics:\n\(s.screen())")
        let client = try IPCTestClient(path: dir + "/l.sock", timeout: 10)
        func position() -> Double? { client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double }
        var checked = 0
        func sample() {
            guard let before = position() else { return }
            let rows = Self.highlighted(s.screen(colours: true)).filter { $0.hasPrefix("line ") }
            guard let after = position() else { return }
            let allowed = Set(stride(from: max(0, before - 0.25), through: after + 0.25, by: 0.05).map { min(19, Int($0 / 1.5)) })
            guard let row = rows.first, let n = Int(row.dropFirst(5).prefix(2)) else {
                #expect(rows.count == 1, "no line highlighted at \(before)–\(after) s")
                return
            }
            #expect(rows.count == 1 && allowed.contains(n), "at \(before)–\(after) s: \(rows), allowed \(allowed.sorted())")
            checked += 1
        }
        let firstPart = MonotonicTime.now() + 7
        while MonotonicTime.now() < firstPart {
            sample()
            Thread.sleep(forTimeInterval: 0.3)   // measurement window: a sample every 0.3 s
        }
        _ = client.request(#"{"command":["seek",20,"absolute"]}"#)
        _ = client.request(#"{"command":["set_property","speed",2]}"#)
        #expect(waitUntil(5) { (position() ?? 0) >= 20 })
        // The screen after the seek: a loaded run read the position at 20 s before the next
        // redraw, with the line of 7 s still highlighted. Sampling starts once it is drawn.
        #expect(waitUntil(5) { Self.highlighted(s.screen(colours: true)).contains { $0.hasPrefix("line ") && $0 >= "line 13" } }, "\(s.screen())")
        let secondPart = MonotonicTime.now() + 4
        while MonotonicTime.now() < secondPart {
            sample()
            Thread.sleep(forTimeInterval: 0.3)   // measurement window: a sample every 0.3 s
        }
        #expect(checked >= 25, "\(checked) samples")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// The line sung shows once (issue 48): in the lyrics pane, not again as a subtitle line
    /// of the track made from the same lyrics (which stays selected: `sid` says so).
    @Test func theLyricShowsOnceNotAlsoAsASubtitle() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try start("lyrics-song.flac", ["--start=3.2", "--pause", "--input-ipc-server=\(dir)/o.sock"])
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("line 02") && $0.contains("line 03") }, "no lyrics:\n\(s.screen())")
        let client = try IPCTestClient(path: dir + "/o.sock", timeout: 10)
        #expect(client.request(#"{"command":["get_property","sid"]}"#)?["data"] as? Int == 1)
        // Drawn, then steady: each line of the lyrics once.
        let screen = s.waitForStill(5) ?? s.screen()
        #expect(screen.components(separatedBy: "line 02").count - 1 == 1, "\(screen)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// Lyrics in the file itself (issue 35, item 3): an MP3's ID3 `SYLT` frame (libavformat
    /// keeps none) scrolls with its words highlighted as their stamps pass (within 0.25 s of the
    /// position read just before and after the screen); a FLAC's `UNSYNCEDLYRICS` tag is
    /// shown, and nothing of it is highlighted.
    @Test func lyricsInTheFileItselfAreShown() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try start("lyrics-sylt.mp3", ["--input-ipc-server=\(dir)/s.sock"])
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("sylt line 01") }, "no lyrics:\n\(s.screen())")
        let client = try IPCTestClient(path: dir + "/s.sock", timeout: 10)
        func position() -> Double? { client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double }
        // Line k's words at k × 1.5 s, +0.5 s, +1 s.
        func sung(_ t: Double) -> String {
            let k = min(9, Int(t / 1.5)), into = t - Double(k) * 1.5
            return "sylt" + (into >= 0.5 ? " line" : "") + (into >= 1 ? String(format: " %02d", k) : "")
        }
        var checked = 0
        let until = MonotonicTime.now() + 5
        while MonotonicTime.now() < until {
            guard let before = position() else { continue }
            let rows = Self.highlighted(s.screen(colours: true)).filter { $0.hasPrefix("sylt") }
            guard let after = position() else { continue }
            let allowed = Set(stride(from: max(0, before - 0.25), through: after + 0.25, by: 0.05).map(sung))
            #expect(rows.count == 1 && allowed.contains(rows[0]), "at \(before)–\(after) s: \(rows), allowed \(allowed.sorted())")
            checked += 1
            Thread.sleep(forTimeInterval: 0.2)   // measurement window: a sample every 0.2 s
        }
        #expect(checked >= 10, "\(checked) samples")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })

        let t = try start("lyrics-tag.flac", ["--pause"])
        defer { t.close() }
        #expect(t.waitFor(8) { $0.contains("first verse") && $0.contains("third verse") }, "no lyrics:\n\(t.screen())")
        #expect(!Self.highlighted(t.screen(colours: true)).contains { $0.contains("verse") })
    }

    /// `--vid=no` on a video file: no picture, the music view with the file name (untagged), the
    /// placeholder for the missing cover and a bar for the 1 kHz tone; without it, the video.
    @Test func vidNoShowsTheMusicViewForAVideoFile() throws {
        let s = try start("sine-1k.mkv", ["--vid=no"])
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("no cover") && $0.contains("00:01 / 00:05") }, "no music view:\n\(s.screen())")
        var screen = s.screen()
        // The codec line and the 1 kHz bar drawn.
        #expect(s.waitFor(3) { screen = $0; return $0.contains("pcm_s16le") && Self.tallestBar($0, rows: 8...26, from: 43) != nil })
        #expect(screen.contains("pcm_s16le · 48 kHz · 2.0"))
        #expect(screen.components(separatedBy: "sine-1k.mkv").count == 3, "the file name stands for the missing title:\n\(screen)")
        #expect(!screen.contains("320×240"), "a video badge:\n\(screen)")
        #expect(Self.pictureCellCount(s.screen(colours: true)) == 0, "picture cells:\n\(screen)")
        #expect(Self.tallestBar(screen, rows: 8...26, from: 43) != nil, "no spectrum bar:\n\(screen)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })

        let video = try start("sine-1k.mkv")
        defer { video.close() }
        #expect(video.waitFor(8) { _ in Self.pictureCellCount(video.screen(colours: true)) > 500 }, "no video:\n\(video.screen())")
        #expect(!video.screen().contains("no cover"))
        video.send("q")
        #expect(video.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// On a kitty terminal the cover is a kitty image of the cover's colours (the mean of the
    /// two halves), deleted when the player quits.
    @Test func onAKittyTerminalTheCoverIsAKittyImage() throws {
        let r = try KittyPty.run([TestEnvironment.binary, "--ao=null", "--pause", TestEnvironment.fixture("music-tagged.mp3")])
        #expect(r.status == 0 && r.errors.isEmpty, "\(r)")
        let t = try #require(r.transmissions.first, "no kitty image arrived")
        let expected = [120.0, 48.0, 128.0]
        #expect(zip(t.mean, expected).allSatisfy { abs($0 - $1) < 6 }, "mean colour \(t.mean), expected about \(expected)")
        let columns = Int(t.keys["c"] ?? "") ?? 0, rows = Int(t.keys["r"] ?? "") ?? 0
        #expect(columns > 10 && rows > 5 && columns < 45, "placed over \(columns)×\(rows) cells")
        #expect(r.deletes.contains { $0["i"] == t.keys["i"] }, "the cover was not deleted at exit: \(r.deletes)")
    }

    /// The cover is whole before and after the transport bar hides (3 s without input), while the
    /// spectrum next to it changes every frame: ncurses never erases or scrolls picture cells.
    @Test func coverStaysWholeWhenTheBarHides() throws {
        let s = try start("music-tagged.mp3", ["--loop-file=inf"])
        defer { s.close() }
        var before = s.screen(colours: true)
        #expect(s.waitFor(5) { _ in before = s.screen(colours: true); return Self.picture(before, colour: Self.blue).count >= 100 },
                "no cover:\n\(before)")
        #expect(before.contains("●"), "the bar is not up")
        let rows = Set((Self.picture(before, colour: Self.red) + Self.picture(before, colour: Self.blue)).map(\.1))
        let cellsBefore = Self.picture(before, colour: Self.red).count + Self.picture(before, colour: Self.blue).count
        // The bar hides; the spectrum keeps moving beside the cover for a few seconds.
        #expect(s.waitFor(6) { !$0.contains("●") }, "the bar did not hide")
        Thread.sleep(forTimeInterval: 1.5)   // measurement window: the spectrum moves beside the cover
        let after = s.screen(colours: true)
        let rowsAfter = Set((Self.picture(after, colour: Self.red) + Self.picture(after, colour: Self.blue)).map(\.1))
        let cellsAfter = Self.picture(after, colour: Self.red).count + Self.picture(after, colour: Self.blue).count
        #expect(rowsAfter == rows, "cover rows \(rows.sorted()) before the bar hid, \(rowsAfter.sorted()) after")
        #expect(cellsAfter == cellsBefore, "\(cellsBefore) cover cells before, \(cellsAfter) after")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}

