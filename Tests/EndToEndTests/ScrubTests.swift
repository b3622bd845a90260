import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Scrub mode and screenshots in the real binary, in tmux at 100×30 with half-block output (the
/// preview is drawn in cells, so `capture-pane` sees it). The fixture is 4:3, so the picture
/// leaves letterbox columns left and right where only the preview can draw.
@Suite(.serialized) struct ScrubTests {
    init() {
        #expect(TestEnvironment.requirePulse())
    }

    private func start(_ args: [String] = []) throws -> TmuxSession {
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor"]
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"),
                                 "--audio-device=pulse", "--vo=halfblock", "--pause"] + args,
                                columns: 100, rows: 30, environment: env)
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        return s
    }

    /// Columns of `rows` that show picture cells: a half-block glyph, or a cell painted with an
    /// RGB background (a flat area of a picture is spaces on a coloured background). Read from
    /// `capture-pane -e`, whose SGR sequences carry the colours.
    private static func pictureColumns(_ screen: String, rows: ClosedRange<Int>) -> Set<Int> {
        let lines = screen.components(separatedBy: "\n")
        var columns: Set<Int> = []
        for row in rows where lines.indices.contains(row) {
            var background = false
            var column = 0
            var chars = Array(lines[row].unicodeScalars)[...]
            while let c = chars.popFirst() {
                if c == "\u{1B}" {
                    var sequence = ""
                    while let n = chars.popFirst() {
                        if n == "m" || n.properties.isAlphabetic { break }
                        sequence.unicodeScalars.append(n)
                    }
                    let parameters = sequence.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                    var i = 0
                    while i < parameters.count {
                        switch parameters[i] {
                        case "", "0", "49": background = false
                        case "48": background = true; i += parameters[safe: i + 1] == "2" ? 4 : 2
                        case "38": i += parameters[safe: i + 1] == "2" ? 4 : 2
                        default: break
                        }
                        i += 1
                    }
                    continue
                }
                if background || c == "▀" || c == "▄" || c == "█" { columns.insert(column) }
                column += 1
            }
        }
        return columns
    }

    private func pictureColumns(_ s: TmuxSession, rows: ClosedRange<Int>) -> Set<Int> {
        Self.pictureColumns(s.screen(colours: true), rows: rows)
    }

    @Test func bShowsAPreviewAboveTheBarThatFollowsTheMarkerAndGoesOnEsc() throws {
        let s = try start()
        defer { s.close() }
        // The picture's own columns (row 15 is in the middle of it).
        #expect(s.waitFor(5) { _ in !pictureColumns(s, rows: 15...15).isEmpty }, "no picture:\n\(s.screen())")
        let video = pictureColumns(s, rows: 15...15)
        let left = video.min() ?? 0, right = video.max() ?? 99
        #expect(left >= 5 && right <= 94, "expected letterbox columns either side of the 4:3 picture: \(left)…\(right)")
        let previewRows = 20...27
        #expect(pictureColumns(s, rows: previewRows).filter { $0 < left || $0 > right }.isEmpty)

        s.send("b")
        #expect(s.waitFor(5) { $0.contains("scrub: Enter seeks") }, "no scrub mode:\n\(s.screen())")
        // The marker at 00:00: the preview sits at the left edge, over the left letterbox.
        #expect(s.waitFor(5) { _ in pictureColumns(s, rows: previewRows).contains { $0 < left } },
                "no preview at the left:\n\(s.screen())")
        #expect(s.screen().contains("◆"))

        s.send("End")
        #expect(s.waitFor(5) { screen in
            let cells = pictureColumns(s, rows: previewRows)
            return cells.contains { $0 > right } && !cells.contains { $0 < left } && screen.contains("00:03 / 00:04")
        }, "the preview did not move to the end (or left cells behind):\n\(s.screen())")

        s.send("Escape")
        #expect(s.waitFor(5) { screen in
            !screen.contains("scrub:") && pictureColumns(s, rows: previewRows).allSatisfy { (left...right).contains($0) }
        }, "the preview stayed after Esc:\n\(s.screen())")
        // Esc cancelled: still at the start.
        #expect(s.screen().contains("00:00 / 00:04"))
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// A new thumbnail for a marker whose preview stays in place (near the start the preview is
    /// pinned to the left edge) is drawn: on the numbered clip (a keyframe every second, frame 0
    /// black, frame 24 with white stripes) 1 s and 0 s have different thumbnails in the same cells.
    @Test func aNewThumbnailInTheSamePlaceIsDrawn() throws {
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor"]
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("frames-numbered.mkv"), "--ao=null",
                                 "--vo=halfblock", "--pause", "--start=1"], columns: 100, rows: 30, environment: env)
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("00:01 / 00:10") }, "the transport bar never appeared:\n\(s.screen())")
        try #require(s.waitForPausedPicture() != nil, "the paused picture never settled:\n\(s.screen())")
        func previewRows() -> [String] { Array(s.screen(colours: true).components(separatedBy: "\n")[20...27]) }
        let video = previewRows()
        s.send("b")
        #expect(s.waitFor(5) { _ in previewRows() != video }, "no preview at 00:01:\n\(s.screen())")
        // The preview drawn whole (its thumbnail may follow its frame).
        try #require(s.waitForStill(colours: true) != nil, "the preview never settled:\n\(s.screen())")
        let atOne = previewRows()
        s.send("S-Left")
        #expect(s.waitFor(5) { $0.contains("00:00 / 00:10") }, "the marker did not move:\n\(s.screen())")
        #expect(s.waitFor(5) { _ in previewRows() != atOne }, "the thumbnail for 00:00 was never drawn:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func enterSeeksToTheMarker() throws {
        let s = try start()
        defer { s.close() }
        s.send("b")
        #expect(s.waitFor(5) { $0.contains("scrub: Enter seeks") })
        s.send("Right")   // +5 s, clamped to the 4 s clip's end
        s.send("S-Left")   // −1 s
        s.send("Enter")
        #expect(s.waitFor(5) { !$0.contains("scrub:") && PlayerRuns.time(in: $0) == 3 }, "no seek to the marker:\n\(s.screen())")
        // Nothing but scrub keys reached the player (no stray screenshot in the working directory).
        let strays = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)) ?? []
        #expect(!strays.contains { $0.hasPrefix("aether-tui-") && $0.hasSuffix(".png") }, "\(strays)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// `S` saves the frame on screen at source size; it equals ffmpeg's decode of that frame.
    @Test func screenshotIsTheDecodedFrame() throws {
        let dir = NSTemporaryDirectory() + "aether-shots-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try start(["--screenshot-directory=\(dir)"])
        defer { s.close() }
        s.send("S")
        // The message names the file; a deep directory is shortened in its middle to fit.
        #expect(s.waitFor(8) { $0.contains("screenshot: ") && $0.contains("aether-tui-h264-aac-2audio-srt-ass-00-00-00.000.png") },
                "no screenshot message:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
        let png = dir + "/aether-tui-h264-aac-2audio-srt-ass-00-00-00.000.png"
        func raw(_ input: [String]) -> [UInt8] {
            let out = dir + "/raw-\(UInt32.random(in: 0...UInt32.max)).rgb"
            _ = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y"] + input + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", out],
                            timeout: 20)
            return FileManager.default.contents(atPath: out).map { [UInt8]($0) } ?? []
        }
        let shot = (data: raw(["-i", png]), ())
        // Screenshots are converted as accurately as libswscale can (chroma interpolated to every
        // pixel, exact rounding), and so is the reference.
        let reference = (data: raw(["-i", TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"),
                                    "-vf", "scale=flags=bicubic+full_chroma_int+full_chroma_inp+accurate_rnd,format=rgb24"]), ())
        #expect(shot.data.count == 320 * 240 * 3, "the PNG is not 320×240 RGB: \(shot.data.count) bytes")
        #expect(reference.data.count == shot.data.count)
        if shot.data.count == reference.data.count, !shot.data.isEmpty {
            var se = 0.0
            for (a, b) in zip(shot.data, reference.data) { let d = Double(a) - Double(b); se += d * d }
            let mse = se / Double(shot.data.count)
            let psnr = mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
            print("screenshot PSNR against ffmpeg: \(psnr) dB")
            #expect(psnr >= 35)
        }
    }
}

extension ScrubTests {
    /// `B` (paused) shows a row of thumbnails, one per chapter of the fixture (Opening, Middle,
    /// End), the current one chosen; → and Enter seek to the next chapter; Esc-less close.
    @Test func filmstripShowsTheChaptersAndEnterSeeks() throws {
        let s = try start()
        defer { s.close() }
        #expect(s.waitFor(5) { _ in !pictureColumns(s, rows: 15...15).isEmpty })
        let before = Array(s.screen(colours: true).components(separatedBy: "\n")[21...27])
        s.send("B")
        #expect(s.waitFor(5) { $0.contains("▶ 00:00") }, "no filmstrip:\n\(s.screen())")
        let labels = s.lines().first { $0.contains("▶ 00:00") } ?? ""
        // Three chapter thumbnails side by side, each with its start time.
        let times = labels.matches(of: try Regex(#"\d\d:\d\d"#)).count
        #expect(times == 3, "expected three chapter thumbnails: \(labels)")
        // The thumbnails are drawn over the rows above the bar: those rows now show other cells
        // (three small pictures) than the paused video did.
        func rows(_ screen: String) -> [String] { Array(screen.components(separatedBy: "\n")[21...27]) }
        #expect(s.waitFor(5) { _ in rows(s.screen(colours: true)) != before && !pictureColumns(s, rows: 21...27).isEmpty },
                "no thumbnails above the bar:\n\(s.screen())")
        s.send("Right")
        #expect(s.waitFor(3) { screen in screen.components(separatedBy: "\n").contains { $0.contains("▶ 00:0") && !$0.contains("▶ 00:00") } })
        // The label is the time of the picture shown, and Enter lands there.
        let chosen = s.lines().first { $0.contains("▶ 00:") }.flatMap { line -> Int? in
            guard let r = line.range(of: #"▶ \d\d:\d\d"#, options: .regularExpression) else { return nil }
            let parts = line[r].dropFirst(2).split(separator: ":").compactMap { Int($0) }
            return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
        }
        s.send("Enter")
        #expect(s.waitFor(5) { !$0.contains("▶ 00:") && PlayerRuns.time(in: $0).map { $0 >= 1 } == true }, "no seek:\n\(s.screen())")
        #expect(chosen != nil && PlayerRuns.time(in: s.screen()) == chosen, "labelled \(String(describing: chosen)), landed at \(String(describing: PlayerRuns.time(in: s.screen())))")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// `s` burns the subtitle on screen into the screenshot (libass), `S` does not: at 1 s the
    /// sidecar cue "Sidecar one" shows; the two PNGs differ in the bottom third and nowhere else.
    @Test func sBurnsTheSubtitleInAndSDoesNot() throws {
        let dir = NSTemporaryDirectory() + "aether-shots-s-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try start(["--screenshot-directory=\(dir)", "--start=1"])
        defer { s.close() }
        #expect(s.waitFor(5) { $0.contains("Sidecar one") }, "no subtitle on screen:\n\(s.screen())")
        s.send("s")
        #expect(s.waitFor(8) { $0.contains("screenshot: ") && $0.contains("00-00-01.000.png") }, "\(s.screen())")
        s.send("S")
        #expect(s.waitFor(8) { $0.contains("00-00-01.000-2.png") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
        func raw(_ png: String) -> [UInt8] {
            let out = png + ".rgb"
            _ = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", out], timeout: 20)
            return FileManager.default.contents(atPath: out).map { [UInt8]($0) } ?? []
        }
        let with = raw(dir + "/aether-tui-h264-aac-2audio-srt-ass-00-00-01.000.png")
        let without = raw(dir + "/aether-tui-h264-aac-2audio-srt-ass-00-00-01.000-2.png")
        try #require(with.count == 320 * 240 * 3 && without.count == with.count, "\(with.count) / \(without.count) bytes")
        var changedTop = 0, changedBottom = 0
        for y in 0..<240 {
            for x in 0..<320 {
                let i = (y * 320 + x) * 3
                let d = abs(Int(with[i]) - Int(without[i])) + abs(Int(with[i + 1]) - Int(without[i + 1])) + abs(Int(with[i + 2]) - Int(without[i + 2]))
                if d > 60 { if y < 160 { changedTop += 1 } else { changedBottom += 1 } }
            }
        }
        print("burnt-in subtitle: \(changedBottom) pixels changed in the bottom third, \(changedTop) above")
        #expect(changedBottom > 200, "no text burnt into the bottom third")
        #expect(changedTop == 0, "pixels changed above the subtitle area")
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
