import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The player in the terminals people use, installed from Debian and driven under Xvfb (foot
/// inside weston): xterm with sixel and with half-block, mlterm (sixel), kitty (its graphics
/// protocol, software GL), foot (sixel), and tmux inside xterm passing sixel through. For each:
/// play the 720p testsrc2 clip for 5 s and compare the picture on screen with the decoded
/// frame (PSNR over the picture's region against the best-matching source frame of the
/// seconds around then, scaled to the region as the player converts it: BT.709 for untagged
/// HD); pause and open the stats and help boxes and check they are readable (a frame drawn,
/// one background inside it, text on it, no picture through it); quit and check the terminal
/// is restored (`stty -g` before and after, the status, the picture gone from the screen).
/// The player runs with `--vo-governor=no`: the picture is compared at full quality on these
/// slow software terminals, not at the rung the governor would choose. Serialized: each plays
/// in real time; 11–15 s per terminal, about 90 s in all.
@Suite(.serialized) struct TerminalMatrixTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let terminal: RealTerminal
        /// Player options beyond the common ones (none: `--vo=auto` chooses).
        let options: [String]
        /// The output the player must end with (the stats summary's renderer).
        let renderer: String
        var inTmux = false
        /// Compare at two pixels per cell (half-block's own resolution) instead of the screen's.
        var perCell = false
        /// The least PSNR (dB) of the picture region while playing.
        var minimumPSNR = 20.0
        var testDescription: String { name }
    }

    static let cases: [Case] = ProcessInfo.processInfo.environment["AETHER_MATRIX_ONLY"].map { only in allCases.filter { $0.name.contains(only) } } ?? allCases
    static let allCases: [Case] = [
        Case(name: "xterm sixel", terminal: .xterm, options: [], renderer: "sixel"),
        // xterm sets no COLORTERM: the probe's DECRQSS answer gives it 24-bit cells.
        // Compared at two pixels per cell, what half-block can show (at the screen's pixels a
        // correct picture and one of mojibake cells were both about 13 dB). A correct picture
        // measures 19.97–20.02 dB here (the font's ▀ does not fill its cell exactly, so the
        // capture blends neighbours); the floor sits 3 dB under that, where fonts, load and the
        // moment of capture cannot take a correct picture.
        Case(name: "xterm half-block", terminal: .xterm, options: ["--vo=halfblock"], renderer: "halfblock", perCell: true, minimumPSNR: 17),
        Case(name: "mlterm sixel", terminal: .mlterm, options: [], renderer: "sixel"),
        Case(name: "kitty graphics", terminal: .kitty, options: [], renderer: "kitty"),
        Case(name: "foot sixel", terminal: .foot, options: [], renderer: "sixel"),
        Case(name: "tmux in xterm, sixel through passthrough", terminal: .xterm, options: [], renderer: "sixel", inTmux: true),
    ]

    static let fixture = "h264-720p.mkv"
    static let frameRate = 24.0
    /// X displays of its own (XtermSession's other tests pick from 100–999).
    static let displays = 70...79
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }
    /// `AETHER_MATRIX_SHOTS=DIR` keeps each terminal's screenshots there as PNG (playing,
    /// paused, stats, help, quit), for a person to look at.
    static let shots = ProcessInfo.processInfo.environment["AETHER_MATRIX_SHOTS"]

    @Test(.enabled(if: RealTerminal.xterm.isPresent || inCI), arguments: cases)
    func playsReadablyAndRestoresTheTerminal(_ c: Case) throws {
        // A developer machine may lack a terminal (the case is skipped); CI installs them all.
        guard c.terminal.isPresent && (!c.inTmux || FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")) else {
            #expect(!Self.inCI, "\(c.terminal.tools) or tmux missing: install-deps.sh installs them")
            print("matrix \(c.name): skipped, \(c.terminal.tools) or tmux missing")
            return
        }
        let work = NSTemporaryDirectory() + "aether-matrix-\(getpid())-\(c.terminal.rawValue)-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let binary = TestEnvironment.binary, fixture = TestEnvironment.fixture(Self.fixture)
        _ = TestEnvironment.isolatedHomes
        // The player between two `stty -g`; `caps` first records what the probe found.
        let player = ([binary, fixture, "--ao=null", "--vo-governor=no", "--stats-file=\(work)/stats.jsonl"] + c.options).map(q)
        let script = """
            cd \(q(work)) || exit 1
            stty -g > before
            script -q -c \(q(q(binary) + " caps")) caps.txt
            : > ready
            \(player.joined(separator: " ")) 2> player.err
            echo $? > status
            stty -g > after
            """
        try script.write(toFile: work + "/run.sh", atomically: true, encoding: .utf8)
        let tmuxSocket = "aether-matrix-\(getpid())"
        var command = "sh \(q(work + "/run.sh"))"
        if c.inTmux {
            let conf = work + "/tmux.conf"
            try "set -g allow-passthrough on\nset -g status off\nset -g escape-time 10\n".write(toFile: conf, atomically: true, encoding: .utf8)
            command = "/usr/bin/tmux -L \(tmuxSocket) -f \(q(conf)) new-session \(q(command + "; sleep 60"))"
        }
        let caseStart = Date()
        let session = try TerminalSession(c.terminal, command: command, displays: Self.displays)
        defer {
            // tmux's server first: while it runs, ending xterm waited for its `sleep 60`.
            if c.inTmux { _ = Process.run(["/usr/bin/tmux", "-L", tmuxSocket, "kill-server"], timeout: 10) }
            session.stop()
        }
        func file(_ name: String) -> String? { try? String(contentsOfFile: work + "/" + name, encoding: .utf8) }
        func wait(for name: String, seconds: Double) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if FileManager.default.fileExists(atPath: work + "/" + name) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        try #require(wait(for: "ready", seconds: 20), "\(c.name): the terminal never ran the command (\(session.state))")
        let started = Date()
        let caps = (file("caps.txt") ?? "").split(whereSeparator: \.isNewline).map(String.init)

        // 1. Play 5 s, then the picture against the source.
        while Date().timeIntervalSince(started) < 5 {
            try #require(file("status") == nil, "\(c.name): the player ended early: \(file("player.err") ?? "")")
            Thread.sleep(forTimeInterval: 0.1)
        }
        var picture: PixelBox?
        var playing: Screenshot?
        let elapsed = Date().timeIntervalSince(started)
        for _ in 0..<10 where picture == nil {
            playing = session.screenshot()
            picture = playing?.colourBars()
        }
        // A second look: a screenshot can catch a terminal halfway through drawing a frame.
        let second = session.screenshot()
        // Paused now, before the comparison: on a loaded machine it took long enough for the
        // 12 s clip to end (and the player with it) before the boxes were opened.
        session.press("space")
        let shot = try #require(playing, "\(c.name): no screenshot (\(session.state))")
        func keep(_ shot: Screenshot?, _ name: String) {
            guard let dir = Self.shots, let shot else { return }
            let base = "\(dir)/\(c.name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-"))-\(name)"
            FileManager.default.createFile(atPath: base + ".rgb", contents: Data(shot.rgb))
            _ = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(shot.width)x\(shot.height)",
                             "-i", base + ".rgb", base + ".png"], timeout: 20)
            try? FileManager.default.removeItem(atPath: base + ".rgb")
        }
        keep(shot, "1-playing")
        let bars = try #require(picture, "\(c.name): no picture of the clip on screen at \(elapsed) s (\(session.state))")
        // The picture is at least as wide as the source's aspect (16:9) makes it from its left
        // edge: the bars end short of its right edge when the picture's last columns are black
        // (found in xterm's half-block and foot's sixel); kitty stretches it over whole cells.
        let aspectWidth = Int((Double(bars.height) * 16 / 9).rounded())
        let box = PixelBox(x: bars.x, y: bars.y, width: min(shot.width - bars.x, max(bars.width, aspectWidth)), height: bars.height)
        #expect(box.width >= 200 && box.height >= 110, "\(c.name): picture only \(box)")
        // The player started within a second or so of `ready`; search the frames around then.
        // Half-block: the cell grid from the window (xterm's cells are 6×13 px here).
        let cell = (width: max(1, session.windowSize.width / session.cells.columns), height: max(2, session.windowSize.height / session.cells.rows))
        let compare = c.perCell ? (width: box.width / cell.width, height: box.height * 2 / cell.height) : (width: box.width, height: box.height)
        // Over the part the bars reach (a black strip at the right is checked on its own below).
        let drawn = max(1, compare.width * bars.width / box.width)
        let matches = [shot, second].compactMap { $0 }.compactMap {
            Self.bestPSNR($0.crop(box), box: box, compare: compare, keepWidth: drawn, fixture: fixture,
                          from: max(0, elapsed - 3), to: elapsed + 1)
        }
        let match = try #require(matches.max { $0.psnr < $1.psnr }, "\(c.name): ffmpeg's psnr gave nothing")
        // The picture's content fills its placement (within 2 px): libswscale's vectorised
        // YUV→RGB output left a picture's last `width % 8` columns black (foot's 1015 px sixel
        // picture, 1008 drawn) until the scaler sent such widths through its exact path.
        #expect(bars.width >= box.width - 2, "\(c.name): the colour bars end \(box.width - bars.width) px short of the picture's right edge")
        #expect(match.psnr >= c.minimumPSNR,
                "\(c.name): picture \(box) (compared at \(compare.width)x\(compare.height)) is \(String(format: "%.1f", match.psnr)) dB from the source (at \(String(format: "%.2f", match.time)) s), expected ≥ \(c.minimumPSNR)")

        // 2. Paused: the stats and help boxes over the picture.
        Thread.sleep(forTimeInterval: 1)
        let paused = try #require(session.screenshot())
        keep(paused, "2-paused")
        var boxes: [String: String] = [:]
        for (key, name, rows) in [("i", "stats", 6), ("question", "help", 12)] {
            session.press(key)
            var found: BoxCheck?
            var last: Screenshot?
            let end = Date().addingTimeInterval(6)
            while Date() < end, found?.readable != true {
                Thread.sleep(forTimeInterval: 0.3)
                last = session.screenshot()
                if let last { found = last.box(since: paused) }
            }
            keep(last, key == "i" ? "3-stats" : "4-help")
            let check = try #require(found, "\(c.name): no \(name) box appeared")
            // Cells are at least 8 px tall in every terminal here.
            let minimumHeight = rows * 8
            // mlterm draws a sixel image's transparent pixels as background: a picture with a
            // hole for the box blanked the box's text, so there the picture goes around it.
            #expect(check.readable && check.frame.height >= minimumHeight,
                    "\(c.name): the \(name) box is not readable: \(check)")
            boxes[name] = check.summary
            session.press(key)
            Thread.sleep(forTimeInterval: 0.6)
        }

        // 3. Quit: status 0, the terminal's modes as before, the picture gone.
        session.press("q")
        try #require(wait(for: "status", seconds: 15), "\(c.name): the player did not quit (\(session.state))")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(file("status")?.trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "\(c.name): exit status \(file("status") ?? "-"): \(file("player.err") ?? "")")
        _ = wait(for: "after", seconds: 5)
        let before = file("before"), after = file("after")
        #expect(before != nil && before == after, "\(c.name): stty before \(before ?? "-") after \(after ?? "-")")
        var left = 1.0
        let end = Date().addingTimeInterval(3)
        while Date() < end, left > 0.02 {
            let gone = session.screenshot()
            if let gone { left = gone.saturatedFraction(in: box) }
            if left > 0.02 { Thread.sleep(forTimeInterval: 0.3) } else { keep(gone, "5-quit") }
        }
        #expect(left <= 0.02, "\(c.name): \(Int(left * 100)) % of the picture's region still shows colour bars after quitting")

        // The output the player ended with, and what it found out about the terminal.
        let summary = (file("stats.jsonl") ?? "").split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.contains("\"renderer\":\"\(c.renderer)\""), "\(c.name): expected \(c.renderer): \(summary.prefix(600))")
        let truecolor = caps.first { $0.contains("truecolor:") }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "-"
        // xterm sets no COLORTERM: it answers DECRQSS itself, and tmux 3.3 lists RGB in its
        // xterm client's features.
        if c.terminal == .xterm {
            #expect(truecolor == "truecolor: yes (reply)", "\(c.name): \(truecolor)")
        }
        let version = caps.first { $0.contains("XTVERSION") }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "-"
        print("matrix \(c.name): PSNR \(String(format: "%.2f", match.psnr)) dB at \(compare.width)x\(compare.height) (bars \(bars.width)x\(bars.height), picture \(box.width)x\(box.height) at +\(box.x)+\(box.y), "
              + "source frame at \(String(format: "%.3f", match.time)) s of \(Self.fixture), screenshot \(String(format: "%.2f", elapsed)) s after start); "
              + "stats \(boxes["stats"] ?? "-"); help \(boxes["help"] ?? "-"); restored (stty same, status 0, \(Int(left * 100)) % bars left); "
              + "\(version); \(truecolor); \(String(format: "%.1f", Date().timeIntervalSince(caseStart))) s")
    }

    /// The best PSNR of `region` (RGB24, `box`'s size) against the frames of `fixture` between
    /// `from` and `to` seconds, each scaled to the region by area averaging from BT.709 (the
    /// player's matrix for untagged HD): ffmpeg's psnr filter over all three components.
    /// `compare` is the size both are scaled to (area averaging) before their left
    /// `keepWidth` columns are compared.
    static func bestPSNR(_ region: [UInt8], box: PixelBox, compare: (width: Int, height: Int), keepWidth: Int, fixture: String,
                         from: Double, to: Double) -> (psnr: Double, time: Double)? {
        let path = NSTemporaryDirectory() + "aether-matrix-region-\(getpid())-\(UUID().uuidString.prefix(6)).rgb"
        guard FileManager.default.createFile(atPath: path, contents: Data(region)) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = "\(compare.width):\(compare.height)"
        let crop = "crop=\(min(keepWidth, compare.width)):\(compare.height):0:0"
        let graph = "[1:v]scale=\(size):flags=area:in_color_matrix=bt709,format=rgb24,\(crop),settb=1/24,setpts=N[ref];"
            + "[0:v]scale=\(size):flags=area,format=rgb24,\(crop),loop=loop=-1:size=1,settb=1/24,setpts=N[shot];"
            + "[shot][ref]psnr=stats_file=-:shortest=1"
        let r = Process.run(["/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                             "-s", "\(box.width)x\(box.height)", "-i", path, "-ss", String(format: "%.3f", from),
                             "-t", String(format: "%.3f", to - from), "-i", fixture, "-lavfi", graph, "-f", "null", "-"], timeout: 60)
        var best: (psnr: Double, time: Double)?
        for line in r.stdout.split(separator: "\n") {
            var n: Int?, value: Double?
            for field in line.split(separator: " ") {
                if field.hasPrefix("n:") { n = Int(field.dropFirst(2)) }
                if field.hasPrefix("psnr_avg:") { value = field.hasSuffix("inf") ? 99 : Double(field.dropFirst(9)) }
            }
            guard let n, let value else { continue }
            let time = (from * frameRate).rounded(.up) / frameRate + Double(n - 1) / frameRate
            if value > best?.psnr ?? -1 { best = (value, time) }
        }
        return best
    }
}

/// A rectangle of screen pixels.
struct PixelBox: Equatable, CustomStringConvertible {
    var x: Int, y: Int, width: Int, height: Int
    var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// What a box the chrome drew looks like on screen.
struct BoxCheck: CustomStringConvertible {
    /// From its left to its right border line, top to bottom.
    var frame: PixelBox
    /// The share of the inside that is its most common colour (the box's background).
    var background: Double
    /// The share of the inside that stands out from the background (text).
    var text: Double
    /// The share of the inside that still shows the picture (colour bars as they were).
    var picture: Double
    var readable: Bool { background >= 0.4 && (0.01...0.5).contains(text) && picture < 0.05 && frame.width >= 80 }
    var summary: String { "\(frame), background \(Int(background * 100)) %, text \(Int(text * 100)) %, picture \(Int(picture * 100)) %" }
    var description: String { summary }
}

extension Screenshot {
    private func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 3
        return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
    }

    private static func saturated(_ p: (Int, Int, Int)) -> Bool { max(p.0, p.1, p.2) - min(p.0, p.1, p.2) > 100 }

    /// testsrc2's picture on screen: the rows where at least four of its six bar colours
    /// (red, green, yellow, blue, magenta, cyan) are seen, the longest run of them, and the
    /// columns that are mostly saturated over those rows. Nil when there is no such picture
    /// (nothing, a blank or broken one: mlterm's `changed` repaint left a mostly white one).
    func colourBars() -> PixelBox? {
        var rows: [Int] = []
        for y in 0..<height {
            var n = 0
            var hues = [Int](repeating: 0, count: 8)
            for x in 0..<width {
                let p = pixel(x, y)
                guard Self.saturated(p) else { continue }
                n += 1
                hues[(p.0 > 128 ? 4 : 0) | (p.1 > 128 ? 2 : 0) | (p.2 > 128 ? 1 : 0)] += 1
            }
            if n >= 40, [4, 2, 6, 1, 5, 3].filter({ hues[$0] * 100 >= 3 * n }).count >= 4 { rows.append(y) }
        }
        var best = (start: 0, end: 0), start = -1, previous = -2
        for y in rows {
            if y != previous + 1 { start = y }
            if y + 1 - start > best.end - best.start { best = (start, y + 1) }
            previous = y
        }
        guard best.end - best.start >= 20 else { return nil }
        var columns: [Int] = []
        for x in 0..<width {
            var n = 0
            for y in best.start..<best.end where Self.saturated(pixel(x, y)) { n += 1 }
            if n * 2 >= best.end - best.start { columns.append(x) }
        }
        guard let first = columns.first, let last = columns.last, last - first >= 40 else { return nil }
        return PixelBox(x: first, y: best.start, width: last + 1 - first, height: best.end - best.start)
    }

    /// The pixels of `box`, RGB24 rows.
    func crop(_ box: PixelBox) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(box.width * box.height * 3)
        for y in box.y..<(box.y + box.height) {
            let i = (y * width + box.x) * 3
            out += rgb[i..<(i + box.width * 3)]
        }
        return out
    }

    /// The share of `box` that is saturated colour (the bars).
    func saturatedFraction(in box: PixelBox) -> Double {
        var n = 0
        for y in box.y..<(box.y + box.height) { for x in box.x..<(box.x + box.width) where Self.saturated(pixel(x, y)) { n += 1 } }
        return Double(n) / Double(max(1, box.width * box.height))
    }

    /// A box drawn since `base`: its side borders are the outermost columns with a long
    /// vertical run (≥ 48 px) of changed pixels of one colour (`│` lines are continuous from
    /// cell to cell, text never is); its height is that run's. Nil when there is none.
    func box(since base: Screenshot) -> BoxCheck? {
        func changed(_ x: Int, _ y: Int) -> Bool {
            let a = pixel(x, y), b = base.pixel(x, y)
            return abs(a.0 - b.0) + abs(a.1 - b.1) + abs(a.2 - b.2) > 60
        }
        var sides: [(x: Int, top: Int, length: Int)] = []
        for x in 0..<width {
            var longest = (top: 0, length: 0), top = 0, length = 0
            var colour = (0, 0, 0)
            for y in 0..<height {
                let p = pixel(x, y)
                if changed(x, y), length > 0, abs(p.0 - colour.0) + abs(p.1 - colour.1) + abs(p.2 - colour.2) <= 24 {
                    length += 1
                } else if changed(x, y) {
                    top = y; length = 1; colour = p
                } else {
                    length = 0
                }
                if length > longest.length { longest = (top, length) }
            }
            if longest.length >= 48 { sides.append((x, longest.top, longest.length)) }
        }
        guard let left = sides.first, let right = sides.last, right.x - left.x >= 40 else { return nil }
        let frame = PixelBox(x: left.x, y: left.top, width: right.x + 1 - left.x, height: left.length)
        // Inside the borders, 3 px in.
        var counts: [Int: Int] = [:]
        var inside: [(Int, Int, Int)] = []
        var picture = 0
        for y in (frame.y + 3)..<max(frame.y + 3, frame.y + frame.height - 3) {
            for x in (frame.x + 3)..<max(frame.x + 3, frame.x + frame.width - 3) {
                let p = pixel(x, y)
                inside.append(p)
                counts[(p.0 >> 3) << 10 | (p.1 >> 3) << 5 | p.2 >> 3, default: 0] += 1
                if Self.saturated(p), !changed(x, y) { picture += 1 }
            }
        }
        guard !inside.isEmpty, let top = counts.max(by: { $0.value < $1.value }) else { return nil }
        let background = ((top.key >> 10) << 3, ((top.key >> 5) & 31) << 3, (top.key & 31) << 3)
        let text = inside.filter { abs($0.0 - background.0) + abs($0.1 - background.1) + abs($0.2 - background.2) > 150 }.count
        return BoxCheck(frame: frame, background: Double(top.value) / Double(inside.count),
                        text: Double(text) / Double(inside.count), picture: Double(picture) / Double(inside.count))
    }
}
