import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The real binary in tmux at 100×30, audio through the PulseAudio null sink: keys in,
/// `capture-pane` out. Serialized: each plays in real time.
@Suite(.serialized) struct TUITests {
    init() {
        #expect(TestEnvironment.requirePulse())
    }

    func start(_ fixture: String, _ args: [String] = [], columns: Int = 100, rows: Int = 30,
               environment: [String: String] = [:], stdin: String? = nil, afterExit: String? = nil) throws -> TmuxSession {
        try start(path: TestEnvironment.fixture(fixture), args, columns: columns, rows: rows, environment: environment,
                  stdin: stdin, afterExit: afterExit)
    }

    func start(path: String, _ args: [String] = [], columns: Int = 100, rows: Int = 30,
               environment: [String: String] = [:], stdin: String? = nil, afterExit: String? = nil) throws -> TmuxSession {
        var env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        env.merge(environment) { $1 }
        let s = try TmuxSession([TestEnvironment.binary, path, "--audio-device=pulse"] + args,
                                columns: columns, rows: rows, environment: env, stdin: stdin, afterExit: afterExit)
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        return s
    }

    /// Seconds shown in the transport bar (`▶ 00:07 / 00:12`).
    /// Every `38;2;r;g;b` / `48;2;r;g;b` colour in a captured line.
    static func rgbColours(in line: String) -> [(r: Int, g: Int, b: Int)] {
        let regex = try! Regex(#"[34]8;2;(\d+);(\d+);(\d+)"#)
        return line.matches(of: regex).compactMap { m in
            guard let r = m.output[1].substring.flatMap({ Int($0) }), let g = m.output[2].substring.flatMap({ Int($0) }),
                  let b = m.output[3].substring.flatMap({ Int($0) }) else { return nil }
            return (r, g, b)
        }
    }

    @Test func timeAdvancesSpacePausesArrowSeeksAndQRestores() throws {
        let s = try start("h264-720p.mkv")
        // `o` pins the bar: it hides 3 s after the start while playing, and on a loaded machine
        // the time needs that long to move 2 s from where it was first read.
        s.send("o")
        let t0 = try #require(PlayerRuns.time(in: s.screen()))
        #expect(s.waitFor(4) { (PlayerRuns.time(in: $0) ?? 0) >= t0 + 2 }, "time did not advance")
        s.send("space")
        #expect(s.waitFor(2) { $0.contains("‖") })
        let paused = try #require(PlayerRuns.time(in: s.screen()))
        Thread.sleep(forTimeInterval: 1.5)   // measurement window: paused, the time must not move
        #expect(PlayerRuns.time(in: s.screen()) == paused, "time moved while paused")
        s.send("Right")
        #expect(s.waitFor(3) { (PlayerRuns.time(in: $0) ?? 0) >= paused + 4 })
        let after = try #require(PlayerRuns.time(in: s.screen()))
        // → is a keyframe seek of 5 s forward: it lands on the first keyframe at or after the
        // target (one a second here), never before it: 5 to 6 s on (4 to 5 went to the one before).
        #expect((5...6).contains(after - paused), "→ moved from \(paused) to \(after)")
        #expect(s.display("#{alternate_on}") == "1")
        // Any-motion mouse reports in SGR encoding, turned on by the player itself.
        #expect(s.display("#{mouse_any_flag}") == "1" && s.display("#{mouse_sgr_flag}") == "1", "no any-motion SGR mouse")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
        #expect(s.display("#{alternate_on}") == "0", "alternate screen left on")
        #expect(s.display("#{cursor_flag}") == "1", "cursor left hidden")
        #expect(s.display("#{mouse_any_flag}") == "0" && s.display("#{mouse_standard_flag}") == "0"
                && s.display("#{mouse_sgr_flag}") == "0", "mouse reporting left on")
    }

    @Test func aBroadcastTimelineRunsFromZeroAndLengthEndsIt() throws {
        // An MPEG-TS whose timestamps start at 3600 s: the bar reads from 0:00, and --length
        // counts from the file's start.
        let s = try start("hostile/ts-offset-3600.ts", ["--length=3"])
        let first = s.screen()
        #expect(first.contains("00:00 / 00:10") || first.contains("00:01 / 00:10"), "transport bar:\n\(first)")
        #expect(s.waitFor(10) { $0.contains("EXIT=0") }, "--length=3 did not end playback:\n\(s.screen())")
    }

    @Test func audioDropdownListsTracksAndSwitchesToFrench() throws {
        let s = try start("h264-aac-2audio-srt-ass.mkv", ["--pause"])
        s.send("a")
        #expect(s.waitFor(3) { $0.contains("Audio tracks") })
        let menu = s.screen()
        #expect(menu.contains("1. eng · \"English Stereo\" · aac · 2.0 · default"))
        #expect(menu.contains("2. fra · \"Français\" · aac · 2.0"))
        s.send("Down")
        s.send("Enter")
        #expect(s.waitFor(3) { !$0.contains("Audio tracks") })
        s.send("I")
        #expect(s.waitFor(3) { $0.contains("Audio      #2 fra · \"Français\" · aac · 2.0") }, "stats do not show the French track:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func subtitleCueAppearsDuringItsTimeAndGoesAfter() throws {
        // Embedded SRT: "Hello from aether" 0.5–1.5 s, "Second line" 2.0–3.0 s.
        let s = try start("h264-aac-2audio-srt-ass.mkv", ["--pause", "--sid=1", "--start=1"])
        #expect(s.waitFor(3) { $0.contains("Hello from aether") }, "cue missing:\n\(s.screen())")
        s.send("S-Right")   // exact seek +1 s → 2.0 s
        #expect(s.waitFor(3) { $0.contains("Second line") && !$0.contains("Hello from aether") },
                "the first cue stayed or the second never came:\n\(s.screen())")
        s.send("S-Right")   // 3.0 s: after the last cue
        #expect(s.waitFor(3) { !$0.contains("Second line") })
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func statsOverlayTogglesAndResizeRelayouts() throws {
        let s = try start("h264-720p.mkv", ["--pause"])
        // I toggles the overlay (mpv's stats script); i shows it for four seconds.
        s.send("I")
        #expect(s.waitFor(3) { $0.contains("┌─ Stats") && $0.contains("Video out  halfblock") })
        s.send("I")
        #expect(s.waitFor(3) { !$0.contains("┌─ Stats") })
        s.send("i")
        #expect(s.waitFor(3) { $0.contains("┌─ Stats") })
        #expect(s.waitFor(6) { !$0.contains("┌─ Stats") }, "i's overlay did not go after four seconds")
        s.tmux(["resize-window", "-t", s.name, "-x", "80", "-y", "24"])
        #expect(s.waitFor(3) { screen in
            let lines = screen.components(separatedBy: "\n")
            // The transport bar moved to the new last rows and spans the new width exactly.
            return lines.count >= 24 && (lines[22].hasPrefix("━") || lines[22].hasPrefix("●")) && lines[22].count == 80
                && PlayerRuns.time(in: lines[23]) != nil
        }, "no relayout after resize:\n\(s.screen())")
        s.send("i")
        #expect(s.waitFor(3) { $0.contains("cells of 80×24") }, "stats after resize:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// Cells of a box drawn over a playing half-block picture that show picture glyphs: none may
    /// (the picture must not bleed through the stats box or the help box).
    static func pictureCellsInsideBoxes(_ screen: String) -> Int {
        let lines = screen.components(separatedBy: "\n").map { Array($0) }
        var count = 0
        for (top, line) in lines.enumerated() {
            guard let left = line.firstIndex(of: "┌"), let right = line.lastIndex(of: "┐") else { continue }
            var bottom = top + 1
            while bottom < lines.count, !(lines[bottom].indices.contains(left) && lines[bottom][left] == "└") { bottom += 1 }
            for row in top..<min(bottom + 1, lines.count) {
                let cells = lines[row]
                for column in left...right where cells.indices.contains(column) && (cells[column] == "▀" || cells[column] == "█") {
                    count += 1
                }
            }
        }
        return count
    }

    @Test func statsAndHelpBoxesOverAPlayingPictureHaveNoPictureCellsInside() throws {
        let s = try start("h264-720p.mkv", ["--vo=halfblock"], columns: 120, rows: 40)
        s.send("i")
        #expect(s.waitFor(3) { $0.contains("┌─ Stats") })
        // The stats text changes every second and the box's width with it: watch it a while.
        for _ in 0..<6 {
            Thread.sleep(forTimeInterval: 0.5)   // measurement window: six looks over 3 s
            let screen = s.screen()
            #expect(TUITests.pictureCellsInsideBoxes(screen) == 0, "picture inside the stats box:\n\(screen)")
        }
        s.send("?")
        var withKeys = ""
        #expect(s.waitFor(3) { withKeys = $0; return $0.contains("┌─ Keys") })
        // A later frame of the playing picture, drawn with the help box up.
        var screen = withKeys
        #expect(s.waitFor(3) { screen = $0; return $0.contains("┌─ Keys") && $0 != withKeys }, "no frame with the help box:\n\(screen)")
        #expect(TUITests.pictureCellsInsideBoxes(screen) == 0, "picture inside the boxes:\n\(screen)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// A terminal that stops reading (an ssh stall, Ctrl-S): the pty's buffer fills and every
    /// write to it blocks. q, SIGTERM and SIGHUP still end the player within a second, and the
    /// terminal gets its modes and the restore sequence back once it reads again.
    @Test(arguments: [["--key", "q"], ["--signal", "TERM"], ["--signal", "HUP"]])
    func aStalledTerminalStillQuitsWithinASecond(how: [String]) throws {
        let script = TestEnvironment.scripts.appendingPathComponent("stalled_pty.py").path
        let r = Process.run(["/usr/bin/python3", script, "--stall", "5"] + how + ["--", TestEnvironment.binary, "--ao=null",
                            TestEnvironment.fixture("h264-720p.mkv")], timeout: 30)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout) \(r.stderr)")
        #expect((json["queued_when_stalled"] as? Int ?? 0) > 0, "the terminal never stalled: \(json)")
        #expect(json["status"] as? Int == (how[0] == "--key" ? 0 : 4), "\(json)")
        let seconds = try #require(json["exit_seconds"] as? Double, "never exited: \(json)")
        #expect(seconds < 1.0, "\(json)")
        #expect(json["canonical"] as? Bool == true && json["echo"] as? Bool == true, "modes not restored: \(json)")
        #expect(json["left_alternate_screen"] as? Bool == true && json["shows_cursor"] as? Bool == true, "\(json)")
    }

    @Test func solidRedFillsTheVideoRectangleInHalfBlocks() throws {
        let s = try start("solid-red.mkv", ["--pause", "--vo=halfblock"])
        let coloured = try #require(s.waitForPausedPicture(), "the paused picture never settled:\n\(s.screen())")
        // Middle row of the picture: its cells carry the red the decoder produced (253, 0, 0).
        let row = coloured.components(separatedBy: "\n")[15]
        let colours = TUITests.rgbColours(in: row)
        #expect(!colours.isEmpty, "no 24-bit cells in: \(row.debugDescription)")
        #expect(colours.allSatisfy { $0.r >= 245 && $0.g <= 6 && $0.b <= 6 }, "not all red: \(colours)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let s = try start("h264-720p.mkv")
        let shell = s.panePID
        let child = Process.run(["/usr/bin/pgrep", "-P", "\(shell)", "-f", "aether-tui"], timeout: 5).stdout
            .split(separator: "\n").first.flatMap { Int32($0) }
        let pid = try #require(child)
        kill(pid, SIGTERM)
        #expect(s.waitFor(5) { $0.contains("EXIT=4") }, "\(s.screen())")
        #expect(s.display("#{alternate_on}") == "0")
        #expect(s.display("#{cursor_flag}") == "1")
    }

    /// Replies that come after the probe's budget (a slow ssh link) are not keys: before, a
    /// late DA1 lowered the speed, changed the volume, opened help and the subtitle menu.
    @Test func lateTerminalRepliesAreNotKeys() throws {
        let s = try start("h264-aac-2audio-srt-ass.mkv", ["--pause"])
        #expect(s.waitFor(3) { $0.contains("vol 100%") && $0.contains("1.00×") })
        let replies = [
            "\u{1B}[?63;1;2;4;6;9;15;16;17;18;21;22;28c",   // DA1: [ ? 6 9 … c would be keys
            "\u{1B}[4;600;800t", "\u{1B}[6;20;10t", "\u{1B}[8;30;100t",   // window reports: 0 is volume up
            "\u{1B}[?1;0;256S", "\u{1B}[?2;0;1000;1000S",     // XTSMGRAPHICS
            "\u{1B}[12;40R", "\u{1B}[?2026;2$y", "\u{1B}[0n",
            "\u{1B}P1$r0m\u{1B}\\", "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\", "\u{1B}_Gi=31;OK\u{1B}\\",
        ]
        for reply in replies {
            s.sendBytes(Array(reply.utf8))
            Thread.sleep(forTimeInterval: 0.05)   // measurement window: each reply arrives on its own, late
        }
        // Keys still work after the replies; read after them (one input, in order), `]`'s 1.10×
        // shows once every reply has been read: none may have changed speed, volume or overlays.
        s.send("]")
        #expect(s.waitFor(3) { $0.contains("1.10×") }, "] after the replies did nothing:\n\(s.screen())")
        let screen = s.screen()
        #expect(screen.contains("vol 100%") && screen.contains("1.10×"), "a reply changed speed or volume:\n\(screen)")
        #expect(!screen.contains("Keys") && !screen.contains("Subtitle tracks") && !screen.contains("┌─ Stats"),
                "a reply opened an overlay:\n\(screen)")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// Ctrl-\ (SIGQUIT) quits cleanly like SIGTERM; a crash signal restores the terminal and
    /// then dies of it. Both with stdin redirected read-only (`< /dev/tty`), where writing the
    /// restore bytes to the fd the termios came from would fail and leave the alternate screen on.
    @Test(arguments: [SIGQUIT, SIGSEGV])
    func quitAndCrashSignalsRestoreTheTerminalWithReadOnlyStdin(signal: Int32) throws {
        // The Swift runtime's backtracer runs after the restore (on the normal screen); it would
        // wait 30 s for a key on a terminal.
        let s = try start("h264-720p.mkv", environment: ["SWIFT_BACKTRACE": "interactive=no"], stdin: "/dev/tty", afterExit: "stty -a")
        #expect(s.display("#{alternate_on}") == "1")
        // While it runs, output post-processing that would change no byte is off (the kernel
        // walked every picture byte for it); the exit puts it back.
        let playing = Process.run(["/bin/stty", "-a", "-F", s.display("#{pane_tty}")]).stdout
        #expect(playing.contains("-opost") && playing.contains("-onlcr"), "stty -a while playing:\n\(playing)")
        let pid = try #require(s.pid(of: "aether-tui"), "no aether-tui in the pane")
        kill(pid, signal)
        #expect(s.waitFor(20) { $0.contains("EXIT=") && $0.contains("icanon") }, "\(s.screen())")
        let screen = s.screen()
        let status = signal == SIGQUIT ? 4 : 128 + Int(signal)
        #expect(screen.contains("EXIT=\(status)"), "\(screen)")
        #expect(s.display("#{alternate_on}") == "0", "alternate screen left on")
        #expect(s.display("#{cursor_flag}") == "1", "cursor left hidden")
        #expect(s.display("#{mouse_any_flag}") == "0" && s.display("#{mouse_standard_flag}") == "0"
                && s.display("#{mouse_sgr_flag}") == "0", "mouse reporting left on")
        let words = Set(screen.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        #expect(words.contains("echo") && words.contains("icanon") && !words.contains("-echo") && !words.contains("-icanon")
                && words.contains("opost") && !words.contains("-opost"),
                "stty -a after the exit:\n\(screen)")
    }

    /// A file and its sidecar named with a right-to-left override, an escape sequence and a
    /// zero-width space: the title, the stats box and the subtitle menu show the name cleaned,
    /// and none of those characters reaches the terminal.
    @Test func hostileFileNamesNeverReachTheTerminal() throws {
        let dir = NSTemporaryDirectory() + "aether-names-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = dir + "/evil\u{202E}\u{1B}[31mna\u{200B}me"
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("h264-720p.mkv"), toPath: base + ".mkv")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("h264-aac-2audio-srt-ass.srt"), toPath: base + ".srt")
        let s = try start(path: base + ".mkv", ["--pause"])
        #expect(s.waitFor(3) { $0.contains(" evilname.mkv") }, "title:\n\(s.screen())")
        s.send("i")
        #expect(s.waitFor(3) { $0.contains("File       evilname.mkv") && $0.contains("Subtitles  evilname.srt") },
                "stats:\n\(s.screen())")
        func check(_ what: String) {
            let coloured = s.screen(colours: true)
            for bad in ["\u{202E}", "\u{200B}", "[31m", "^["] {
                #expect(!coloured.contains(bad) && !s.screen().contains(bad), "\(what) shows \(bad.debugDescription):\n\(coloured)")
            }
        }
        check("the stats box")
        s.send("i")
        s.send("c")
        #expect(s.waitFor(3) { $0.contains("Subtitle tracks") && $0.contains("evilname.srt") }, "menu:\n\(s.screen())")
        check("the subtitle menu")
        s.send("Escape")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// A TERM ncurses has no terminfo entry for: one clear line and exit 1 within seconds
    /// (newterm returned nil and the player waited forever), the terminal left in its modes.
    @Test func unknownTerminalTypeIsOneLine() throws {
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"),
                                 "--ao=null"], columns: 200, environment: ["TERM": "no-such-terminal-xyz"],
                                afterExit: "stty -a | grep -o ' -icanon\\| icanon' | head -1")
        #expect(s.waitFor(8) { $0.contains("EXIT=") }, "the player did not exit:\n\(s.screen())")
        let screen = s.screen()
        #expect(screen.contains("EXIT=1"), "\(screen)")
        #expect(screen.contains("aether-tui: the terminal type 'no-such-terminal-xyz' (TERM) is not in the terminfo database"), "\(screen)")
        #expect(s.waitFor(3) { $0.contains(" icanon") }, "the terminal was left in raw mode:\n\(s.screen())")
    }

    @Test func badFileIsOneLineAndNoRawMode() throws {
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("random.mkv")], columns: 200,
                                environment: ["TERM": "screen-256color"])
        #expect(s.waitFor(5) { $0.contains("EXIT=1") })
        let screen = s.screen()
        #expect(screen.contains("aether-tui: cannot open '\(TestEnvironment.fixture("random.mkv"))': Invalid data found when processing input"))
        #expect(s.display("#{alternate_on}") == "0")
    }
}
