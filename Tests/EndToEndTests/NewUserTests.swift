import AetherInput
import AetherControl
import AetherTestSupport
import EndToEndSupport
import Foundation
import TerminalGraphics
import Testing

/// The tmux panes' environment: a 24-bit colour terminal and the tests' isolated homes.
private let tmuxEnvironment = ["TERM": "screen-256color", "COLORTERM": "truecolor",
                               "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]

/// What a new user meets first (issue 32). mpv's habits a user or a script reaches for first: the chapter keys `!` and `@`,
/// IPC `keypress` (a key as if typed: the bindings headless, every mode of the terminal player)
/// and the `mpv-version` property. Tier: cli.
@Suite(.serialized) struct MpvHabitsTests {
    static let clip = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")   // chapters at 0, 1, 2.5 s

    @Test func keypressGoesThroughTheBindingsHeadlessAndMpvVersionAnswers() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, Self.clip, "--vo=null", "--ao=null", "--pause",
                                       "--input-ipc-server=\(socket)"])
        let client = try IPCTestClient(path: socket, timeout: 15)
        #expect(client.request(#"{"command":["observe_property",1,"chapter"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent(timeout: 15) { $0["id"] as? Int == 1 && $0["data"] as? Double == 0 } != nil, "never in chapter 0")
        // `@` is mpv's next chapter, `!` the previous one.
        #expect(client.request(#"{"command":["keypress","@"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 && $0["data"] as? Double == 1 } != nil, "@ did not go to chapter 1")
        #expect(client.request(#"{"command":["keypress","@"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 && $0["data"] as? Double == 2 } != nil, "@ did not go to chapter 2")
        #expect(client.request(#"{"command":["keypress","!"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 && $0["data"] as? Double == 1 } != nil, "! did not go back to chapter 1")
        // A named key, as input.conf spells it: SPACE plays.
        #expect(client.request(#"{"command":["keypress","SPACE"]}"#)?["error"] as? String == "success")
        #expect(waitUntil(5, interval: 0.05) { client.request(#"{"command":["get_property","pause"]}"#)?["data"] as? Bool == false })
        // Not a key: refused, the player goes on.
        #expect(client.request(#"{"command":["keypress","Hyper+x"]}"#)?["error"] as? String == "error running command")
        #expect(client.request(#"{"command":["keypress"]}"#)?["error"] as? String == "invalid parameter")
        // mpv-version: who answers, as the first line of --version says it (mpv's `mpv 0.38.0`).
        let version = Process.run([TestEnvironment.binary, "--version"], timeout: 10).stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(version.hasPrefix("aether-tui "))
        #expect(client.request(#"{"command":["get_property","mpv-version"]}"#)?["data"] as? String == version)
        #expect(client.request(#"{"command":["quit"]}"#)?["error"] as? String == "success")
        #expect(player.wait()?.status == 0)
    }

    /// `!` 1.4 s into the last chapter (2.5 s): mpv's default threshold (5 s) goes to the chapter
    /// before; `--chapter-seek-threshold=1` restarts the chapter (issue 62, item 6).
    @Test(arguments: [(nil, 1.0, 1.0), ("1", 2.0, 2.5)] as [(String?, Double, Double)])
    func backAChapterFollowsTheThreshold(threshold: String?, chapter: Double, at start: Double) throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, Self.clip, "--vo=null", "--ao=null", "--pause", "--start=3.9",
                                       "--input-ipc-server=\(socket)"] + (threshold.map { ["--chapter-seek-threshold=\($0)"] } ?? []))
        let client = try IPCTestClient(path: socket, timeout: 15)
        func number(_ name: String) -> Double? { client.request(#"{"command":["get_property","\#(name)"]}"#)?["data"] as? Double }
        #expect(waitUntil(15, interval: 0.05) { (number("time-pos") ?? 0) > 3.8 }, "never at 3.9 s")
        #expect(client.request(#"{"command":["keypress","!"]}"#)?["error"] as? String == "success")
        #expect(waitUntil(5, interval: 0.05) { number("chapter") == chapter && abs((number("time-pos") ?? -9) - start) < 0.05 },
                "chapter \(number("chapter") ?? -1) at \(number("time-pos") ?? -1) s")
        #expect(client.request(#"{"command":["quit"]}"#)?["error"] as? String == "success")
        #expect(player.wait()?.status == 0)
    }

    @Test func theTerminalPlayerTakesChapterKeysAndKeypressReachesItsModes() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/tui.sock"
        let tui = try TmuxSession([TestEnvironment.binary, Self.clip, "--ao=null", "--vo=halfblock", "--pause",
                                   "--input-ipc-server=\(socket)"], columns: 100, rows: 30, environment: tmuxEnvironment)
        defer { tui.close() }
        let client = try IPCTestClient(path: socket, timeout: 10)
        func chapter() -> Double? { client.request(#"{"command":["get_property","chapter"]}"#)?["data"] as? Double }
        #expect(waitUntil(8, interval: 0.05) { chapter() == 0 }, "never in chapter 0:\n\(tui.screen())")
        tui.send("@")
        #expect(waitUntil(3, interval: 0.05) { chapter() == 1 }, "@ did not go to the next chapter:\n\(tui.screen())")
        tui.send("!")
        #expect(waitUntil(3, interval: 0.05) { chapter() == 0 }, "! did not go to the previous chapter:\n\(tui.screen())")
        // keypress reaches the terminal player's own modes: `b` opens scrub mode, ESC leaves it.
        #expect(client.request(#"{"command":["keypress","b"]}"#)?["error"] as? String == "success")
        #expect(tui.waitFor(3) { $0.contains("◆") }, "keypress b did not open scrub mode:\n\(tui.screen())")
        #expect(client.request(#"{"command":["keypress","ESC"]}"#)?["error"] as? String == "success")
        #expect(tui.waitFor(3) { !$0.contains("◆") }, "keypress ESC did not leave scrub mode:\n\(tui.screen())")
        // The help overlay names the keys.
        tui.send("?")
        #expect(tui.waitFor(3) { $0.contains("! @") }, "help does not name ! @:\n\(tui.screen())")
        tui.send("q")
        #expect(tui.waitFor(5) { $0.contains("EXIT=0") })
    }
}

/// `caps` for a bug report (issue 32, item 8): piped to a file it asks the controlling terminal
/// and writes the report to the file; with no terminal at all it says so in one line. Tier: cli.
@Suite struct CapsPipedTests {
    @Test func capsPipedToAFileAsksTheControllingTerminal() throws {
        let out = PlayerRuns.temp("caps.txt")
        defer { try? FileManager.default.removeItem(atPath: (out as NSString).deletingLastPathComponent) }
        let tui = try TmuxSession(["/bin/sh", "-c", "\"$0\" caps > \"$1\"", TestEnvironment.binary, out], environment: ["TERM": "screen-256color"])
        defer { tui.close() }
        #expect(tui.waitFor(10) { $0.contains("EXIT=0") }, "caps > file did not succeed:\n\(tui.screen())")
        let report = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(report.contains("cell size: "), "no cell size in the report:\n\(report)")
        #expect(report.contains("video output (--vo=auto): "), "no choice in the report:\n\(report)")
        // Nothing of the report went to the terminal.
        #expect(!tui.screen().contains("video output"), "the report reached the screen:\n\(tui.screen())")

        // No terminal at all (a new session, no controlling terminal): one line, exit 1.
        let none = Process.run(["/usr/bin/setsid", "-w", TestEnvironment.binary, "caps"], timeout: 10)
        #expect(none.status == 1)
        #expect(none.stderr == "aether-tui: no terminal to ask: standard input and output are not one and there is no controlling terminal\n",
                "\(none.stderr)")
        #expect(none.stdout.isEmpty)
    }
}

/// A value the option's type refuses in `aether-tui.conf` (issue 32, item 14) reads like the
/// config's other warnings: the file, the line, the key, the value and what the option takes
/// (its own help), not the command-line parser's wording. Tier: cli.
@Suite struct ConfigValueWordingTests {
    @Test func aBadValueNamesTheFileLineKeyAndWhatIsAllowed() throws {
        let config = PlayerRuns.temp("config")
        defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: config + "/aether-tui", withIntermediateDirectories: true)
        try "volume=40\nsub-font-size=abc\n".write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let (r, s) = try PlayerRuns.headless([TestEnvironment.fixture("sine-1k.mkv"), "--length=0.3"], environment: ["XDG_CONFIG_HOME": config])
        #expect(r.status == 0, "a bad line does not stop the player: \(r.stderr)")
        #expect(r.stderr == "aether-tui: warning: aether-tui.conf:2: sub-font-size: 'abc' is not allowed; sub-font-size takes: "
                + "Their font size in pixels of a 720-line picture, 1 to 9000. (default: 55.0)\n", "\(r.stderr)")
        #expect(!r.stderr.contains("The value"), "the parser's wording: \(r.stderr)")
        #expect(s.first?.item.volume == 40, "the good line still counts")
    }
}

/// The music view's stats are the sound's (issue 32, item 11): no frame, fps or video output
/// lines for a file with no picture, and one channel reads "mono". Tier: cli.
@Suite struct MusicStatsTests {
    @Test func theMusicViewsStatsSayOnlyWhatTheSoundIs() throws {
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("tones-stepped.mka"), "--ao=null", "--pause"],
                                columns: 120, rows: 40, environment: tmuxEnvironment)
        defer { s.close() }
        #expect(s.waitFor(8) { $0.contains("/ 00:12") }, "no music view:\n\(s.screen())")
        s.send("I")
        #expect(s.waitFor(5) { $0.contains("Container") && $0.contains("Speed") }, "no stats box:\n\(s.screen())")
        let screen = s.screen()
        #expect(screen.contains("mono"), "one channel is not called mono:\n\(screen)")
        #expect(!screen.contains("1.0 "), "one channel reads 1.0:\n\(screen)")
        for videoLine in ["Frames ", "fps ", "Video out", "A/V "] {
            #expect(!screen.contains(videoLine), "'\(videoLine)' in the music view's stats:\n\(screen)")
        }
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}

/// The helps agree (issue 32, item 7): `aether-tui --help` shows the common play options with
/// the same values `help play` gives them, `--vo`'s outputs are the registry's everywhere (both
/// helps, the README and the man page are held to the same lists by ManPageTests), and the
/// `?` overlay's `d` line names every output it can switch to. Tier: cli.
@Suite struct HelpsAgreeTests {
    @Test func topLevelHelpShowsTheCommonPlayOptionsAsHelpPlayDoes() throws {
        let top = Process.run([TestEnvironment.binary, "--help"], timeout: 20)
        let play = Process.run([TestEnvironment.binary, "help", "play"], timeout: 20)
        #expect(top.status == 0 && play.status == 0)
        let topValues = ManPage.helpValues(in: top.stdout), playValues = ManPage.helpValues(in: play.stdout)
        let outputs = Set(VideoDrivers.all.map(\.name) + ["auto"])
        #expect(topValues["--vo"] == outputs, "--help: \(String(describing: topValues["--vo"]))")
        #expect(playValues["--vo"] == outputs, "help play: \(String(describing: playValues["--vo"]))")
        for (option, values) in topValues {
            #expect(playValues[option] == values, "\(option): --help says \(values), help play \(String(describing: playValues[option]))")
        }
        // mpv's options that are accepted and ignored: named by --help and --list-options, not play options.
        let ignored = Self.ignoredOptions()
        #expect(ignored.count >= 20 && ignored.contains("--hwdec"), "\(ignored.sorted())")
        #expect(ignored.isSubset(of: ManPage.longOptions(in: top.stdout)), "--help does not name \(ignored.subtracting(ManPage.longOptions(in: top.stdout)).sorted())")
        let topOptions = ManPage.longOptions(in: top.stdout).subtracting(["--help", "--version", "--list-options"]).subtracting(ignored)
        #expect(topOptions.count >= 10, "--help shows \(topOptions.sorted())")
        #expect(topOptions.isSubset(of: ManPage.longOptions(in: play.stdout)), "\(topOptions.subtracting(ManPage.longOptions(in: play.stdout)))")
        let d = try #require(KeyMap.helpRows.first { $0.keys == "d" })
        for name in outputs.subtracting(["null", "auto"]) {
            #expect(d.description.contains(name), "the ? overlay's d line lacks \(name): \(d.description)")
        }
    }

    /// The options `--list-options` says are mpv's, accepted and ignored.
    static func ignoredOptions() -> Set<String> {
        let list = Process.run([TestEnvironment.binary, "--list-options"], timeout: 20).stdout
        return ManPage.longOptions(in: list.split(separator: "\n").filter { $0.contains("accepted and ignored") }.joined(separator: "\n"))
    }

    /// An mpv user's options that mean nothing here (issue 62, item 8), in the config file and on
    /// the command line: the player starts and plays without a word; `vo=gpu` is `--vo=auto`
    /// (the output auto chooses in tmux, not an error).
    @Test func mpvsOptionsWithNoMeaningHereAreAcceptedSilently() throws {
        let config = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "hwdec=auto\nvo=gpu-next\nosd-level=1\nno-border\nfs\nscale=ewa_lanczossharp\ninterpolation=yes\nvideo-sync=display-resample\n"
            .write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let sine = TestEnvironment.fixture("sine-1k.mkv")
        let (r, s) = try PlayerRuns.headless([sine, "--length=0.2", "--hwdec=vaapi", "--no-osd-bar", "--geometry=50%"],
                                             environment: ["XDG_CONFIG_HOME": config])
        #expect(r.status == 0 && r.stderr.isEmpty && s.count == 1, "\(r.stderr)")
        // In the terminal: vo=gpu-next from the config, nothing on the message line, q leaves.
        let tui = try TmuxSession(["/usr/bin/env", "XDG_CONFIG_HOME=\(config)", TestEnvironment.binary, "--ao=null", "--pause",
                                   TestEnvironment.fixture("solid-red.mkv")], columns: 100, rows: 30, environment: tmuxEnvironment)
        defer { tui.close() }
        #expect(tui.waitFor(10) { PlayerRuns.time(in: $0) != nil }, "\(tui.screen())")
        #expect(!tui.screen().contains("aether-tui.conf"), "a warning: \(tui.screen())")
        tui.send("q")
        #expect(tui.waitFor(5) { $0.contains("EXIT=0") }, "\(tui.screen())")
        #expect(!tui.screen().contains("aether-tui.conf"), "a warning: \(tui.screen())")
        // A --vo mixing ours and mpv's window outputs is not rewritten: the parser says what is wrong.
        let mixed = Process.run([TestEnvironment.binary, "--vo=kitty,gpu", sine], timeout: 20)
        #expect(mixed.status != 0 && mixed.stderr.contains("vo"), "\(mixed.stderr)")
    }

    /// The sample config (`man/aether-tui.conf`, in the package's examples): every option line
    /// in it, uncommented, is one the player takes without a warning, its profile too.
    @Test func theSampleConfigHoldsOnlyGoodLines() throws {
        let sample = try String(contentsOfFile: TestEnvironment.root.path + "/man/aether-tui.conf", encoding: .utf8)
        let lines = sample.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // `#name=value`, `#flag` and `#[profile]` are options; `# text` and `## text` explanations.
        let options = lines.filter { $0.hasPrefix("#") && !$0.hasPrefix("# ") && !$0.hasPrefix("##") && $0.count > 1 }
        #expect(options.count >= 25, "\(options.count) option lines")
        let config = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let socket = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: socket) }
        let text = lines.map { line in
            guard options.contains(line) else { return line }
            return line.hasPrefix("#input-ipc-server=") ? "input-ipc-server=\(socket)/s" : String(line.dropFirst())
        }.joined(separator: "\n")
        try text.write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let r = PlayerRuns.play(config: config, ["--profile=quiet", "--no-mpris"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    }

    /// `--list-options` (mpv's): every option `help play` lists, one line each, sorted, with its
    /// default; a flag's `--no-` form on its line.
    @Test func listOptionsListsEveryPlayOptionOnALine() throws {
        let list = Process.run([TestEnvironment.binary, "--list-options"], timeout: 20)
        let play = Process.run([TestEnvironment.binary, "help", "play"], timeout: 20)
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        let firsts = lines.compactMap { $0.split(separator: " ").first.map { String($0.prefix { $0 != "=" && $0 != "," }) } }
        #expect(firsts == firsts.sorted() && firsts.count == Set(firsts).count, "one line per option, sorted")
        // Every option (and every other name of one) `help play` names, and no other.
        let listed = ManPage.longOptions(in: list.stdout).subtracting(["--help"]).subtracting(Self.ignoredOptions())
        let offered = ManPage.longOptions(in: play.stdout).subtracting(["--help", "--version"])
        #expect(listed == offered, "\(offered.symmetricDifference(listed).sorted())")
        #expect(lines.contains { $0.hasPrefix("--audio-buffer=<seconds> ") && $0.hasSuffix("(default: 0.2)") }, "\(list.stdout)")
        #expect(lines.contains { $0.hasPrefix("--mute, --no-mute ") }, "\(list.stdout)")
    }
}

/// The filmstrip over chapters (issue 32, item 6): with keyframes just after each chapter's
/// start (x.021 s), each thumbnail is labelled with its chapter's start, Enter lands at that
/// start inside the chapter (as PgDn does), and the highlight starts on the chapter playing.
/// Tier: cli.
@Suite struct FilmstripChapterTests {
    /// 12 s, 24 fps; chapters at 0, 3, 6 and 9 s, each with its keyframe just after its start
    /// (the first frame from x.021 s: x.042), so the keyframe at or before a chapter's start is
    /// the previous chapter's.
    static func clip() throws -> String {
        let path = PlayerRuns.temp("chapters.mkv")
        let dir = (path as NSString).deletingLastPathComponent
        let meta = dir + "/chapters.ffmeta"
        var text = ";FFMETADATA1\n"
        for k in 0..<4 { text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(k * 3000)\nEND=\((k + 1) * 3000)\ntitle=Part \(k + 1)\n" }
        try text.write(toFile: meta, atomically: true, encoding: .utf8)
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=24:d=12", "-i", meta,
                             "-map_metadata", "1", "-map_chapters", "1", "-c:v", "libx264", "-g", "1000", "-sc_threshold", "0",
                             "-force_key_frames", "0,3.021,6.021,9.021", path], timeout: 60)
        try #require(r.status == 0, "ffmpeg: \(r.stderr)")
        return path
    }

    @Test func chapterThumbnailsAreTheChaptersStarts() throws {
        let file = try Self.clip()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try TmuxSession([TestEnvironment.binary, file, "--ao=null", "--vo=halfblock", "--pause", "--start=4",
                                 "--input-ipc-server=\(dir)/s.sock"], columns: 120, rows: 36, environment: tmuxEnvironment)
        defer { s.close() }
        let client = try IPCTestClient(path: dir + "/s.sock", timeout: 10)
        #expect(waitUntil(8, interval: 0.05) { client.request(#"{"command":["get_property","chapter"]}"#)?["data"] as? Double == 1 },
                "not in the second chapter at 4 s:\n\(s.screen())")
        s.send("B")
        // Every chapter's start labels its thumbnail; the second (playing) is highlighted.
        #expect(s.waitFor(10) { $0.contains("▶ 00:03") && $0.contains("00:00") && $0.contains("00:06") && $0.contains("00:09") },
                "the labels are not the chapters' starts:\n\(s.screen())")
        s.send("Right")
        #expect(s.waitFor(3) { $0.contains("▶ 00:06") }, "→ did not move to the third chapter:\n\(s.screen())")
        s.send("Enter")
        #expect(waitUntil(5, interval: 0.05) { client.request(#"{"command":["get_property","chapter"]}"#)?["data"] as? Double == 2 },
                "Enter did not land in the third chapter: chapter \(String(describing: client.request(#"{"command":["get_property","chapter"]}"#)?["data"]))")
        let position = client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double ?? -1
        #expect(abs(position - 6) < 0.05, "Enter landed at \(position) s, the chapter starts at 6 s")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}

/// A phone's portrait video stands up in playback (issue 32, item 2): the display matrix's turn
/// is the one StillGeometry gives `extract` and the stills. `frames-rotate90.mp4` is 320×240
/// stored, turned 90° (upright 240×320); frame 7 lights stripes 0–2 of eight, which the turn
/// takes from the left edge to the bottom. Tier: cli.
@Suite struct RotationPlaybackTests {
    @Test func aRotatedVideoPlaysUpright() throws {
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("frames-rotate90.mp4"), "--ao=null", "--vo=halfblock",
                                 "--pause", "--start=0.3"], columns: 100, rows: 30, environment: tmuxEnvironment)
        defer { s.close() }
        try #require(s.waitForPausedPicture() != nil, "no paused picture:\n\(s.screen())")
        let screen = s.screen(colours: true, wholeRows: true)
        // The picture's cells (24-bit backgrounds: half blocks, or spaces where both halves are
        // one colour) and their brightness.
        var box = (left: Int.max, right: -1, top: Int.max, bottom: -1)
        var light: [(x: Int, y: Int, on: Bool)] = []
        for (y, row) in CapturedCells.parse(screen).enumerated() {
            for (x, cell) in row.enumerated() {
                guard let bg = cell.background, ["▀", "▄", " "].contains(cell.character) else { continue }
                let fg = cell.character == " " ? bg : cell.foreground ?? bg
                box = (min(box.left, x), max(box.right, x), min(box.top, y), max(box.bottom, y))
                light.append((x, y, (fg.reduce(0, +) + bg.reduce(0, +)) / 6 > 128))
            }
        }
        try #require(box.right >= box.left && box.bottom >= box.top, "no picture cells:\n\(s.screen())")
        let width = Double(box.right - box.left + 1), height = Double(2 * (box.bottom - box.top + 1))   // a half block: 1×2
        #expect(width / height < 0.9, "the picture is \(width)×\(height) half-block pixels: not upright (240×320)")
        // Turned: the lit stripes are the bottom rows, across the whole width.
        let split = box.top + (box.bottom - box.top + 1) * 5 / 8
        let lowerLit = light.filter { $0.y > split }, upperLit = light.filter { $0.y < split - 1 }
        let lowerShare = Double(lowerLit.filter(\.on).count) / Double(max(1, lowerLit.count))
        let upperShare = Double(upperLit.filter(\.on).count) / Double(max(1, upperLit.count))
        #expect(lowerShare > 0.8 && upperShare < 0.2, "lit: \(lowerShare) of the bottom rows, \(upperShare) of the top ones")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}

/// The inspector's packets and hex (issue 32, item 13): sound packets start no group of
/// pictures (no ┌▶, gop "-"), video keyframes do; the hex view fills its pane (16 bytes a row
/// in a 70-column pane, the text column left out; 32 with it where there is room). Tier: cli.
@Suite struct InspectorPacketsAndHexTests {
    @Test func onlyVideoKeyframesStartGOPs() throws {
        let s = try TmuxSession([TestEnvironment.binary, "inspect", TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), "--ao=null",
                                 "--vo=halfblock"], columns: 120, rows: 40,
                                environment: ["TERM": "screen-256color", "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("1 Container") }, "no inspector:\n\(s.screen())")
        s.send("2")
        #expect(s.waitFor(10) { $0.contains("478 of 478 packets") }, "packets not read:\n\(s.screen())")
        let rows = s.screen().components(separatedBy: "\n").filter { $0.contains(" K__ ") || $0.contains(" ___ ") }
        // "┌▶ index st dts pts dur size pos flags gop": the stream is the second word after the marker.
        func stream(_ row: String) -> Substring? { row.split(separator: " ").filter { $0 != "┌▶" && $0 != "│" }.dropFirst().first }
        let audio = rows.filter { stream($0) == "1" }
        #expect(!audio.isEmpty, "no audio packets on the first page:\n\(s.screen())")
        for row in audio {
            #expect(!row.contains("┌▶") && row.hasSuffix("-"), "an audio packet starts a GOP: \(row)")
        }
        #expect(rows.contains { $0.contains("┌▶") && stream($0) == "0" }, "no video keyframe starts a GOP:\n\(s.screen())")
        s.send("q")
    }
}

/// Every cell an overlay covered is drawn again from the picture when it closes, paused or not
/// (issue 32, item 4). Half-block in a 160×48 pane of 16×32-px cells: the picture fills rows 1–45
/// and every column, so the seek message (row 1), the scrub preview and its caption and the
/// filmstrip (the rows above the bar) all lie on it. Overlays that come and go between two
/// frames (a message that appears as the filmstrip closes) used to leave their cells blank for
/// good. Every picture cell has a 24-bit background; a blank one has none. Tier: cli.
@Suite struct OverlayLeftoversTests {
    /// The picture's cells with no colour (blank), as (row, column), after the chrome settled.
    static func blanks(in session: TmuxSession, picture: (rows: Range<Int>, columns: Range<Int>)) -> [(Int, Int)] {
        let rows = session.colours().rows
        var out: [(Int, Int)] = []
        for row in picture.rows where row < rows.count {
            for column in picture.columns where column >= rows[row].count || rows[row][column] == nil { out.append((row, column)) }
        }
        return out
    }

    @Test func closedOverlaysLeaveNoBlankCells() throws {
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--ao=null", "--vo=halfblock", "--pause"],
                                columns: 160, rows: 48, environment: tmuxEnvironment)
        defer { s.close() }
        let picture = (rows: 1..<46, columns: 0..<160)
        #expect(waitUntil(10, interval: 0.1) { Self.blanks(in: s, picture: picture).isEmpty }, "the picture never filled rows 1–45:\n\(s.screen())")
        // The filmstrip, a thumbnail chosen, Enter: the strip closes, the seek message comes and goes.
        s.send("B")
        #expect(s.waitFor(5) { $0.contains("▶ 00:") }, "no filmstrip:\n\(s.screen())")
        s.send("Right")
        s.send("Enter")
        #expect(s.waitFor(3) { $0.contains("seek 00:") }, "no seek message:\n\(s.screen())")
        var left: [(Int, Int)] = []
        let clean = waitUntil(8, interval: 0.1) {
            guard !s.screen().contains("seek 00:") else { return false }
            left = Self.blanks(in: s, picture: picture)
            return left.isEmpty
        }
        #expect(clean, "after the filmstrip, paused: \(left.count) blank cells, first \(left.prefix(8))")
        // Scrub mode with its preview, three steps, Esc.
        s.send("b")
        #expect(s.waitFor(3) { $0.contains("scrub:") })
        s.send("Right")
        s.send("Right")
        s.send("Right")
        s.send("Escape")
        let clean2 = waitUntil(8, interval: 0.1) {
            guard !s.screen().contains("scrub:") else { return false }
            left = Self.blanks(in: s, picture: picture)
            return left.isEmpty
        }
        #expect(clean2, "after scrubbing, paused: \(left.count) blank cells, first \(left.prefix(8))")
    }
}

/// The inspector leaves nothing behind (issue 32, item 5). Half-block, 160×48 (16×32-px cells:
/// the 4:3 picture takes columns 20–139): a frame opened from the packets tab shows as a still
/// over the left of the screen; on the live tab (its text over the lower rows, the video
/// above) and back in the player (Esc), no cell of that still remains, neither behind the
/// live tab's text nor in the margins beside the picture. Tier: cli.
@Suite struct InspectorLeftoversTests {
    @Test func theFramesStillGoesWithItsTab() throws {
        let s = try TmuxSession([TestEnvironment.binary, "inspect", TestEnvironment.fixture("inspect-8s.mp4"), "--vo=halfblock", "--ao=null"],
                                columns: 160, rows: 48, environment: tmuxEnvironment)
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("ftyp") }, "the inspector did not open:\n\(s.screen())")
        s.send("2")
        #expect(s.waitFor(10) { $0.contains("568 of 568 packets") }, "no packets:\n\(s.screen())")
        s.send("Down")
        s.send("Enter")
        #expect(s.waitFor(10) { $0.contains("picture I") }, "no frame opened:\n\(s.screen())")
        // The still is up (coloured cells left of the picture's columns).
        #expect(waitUntil(5, interval: 0.1) { s.colours().extent { _ in true }.columns > 100 }, "no still:\n\(s.screen())")
        let margins = [0..<20, 140..<160]
        func leftovers(_ rows: Range<Int>) -> [(Int, Int)] {
            let pane = s.colours()
            return margins.flatMap { columns in
                rows.flatMap { row in columns.compactMap { column in
                    row < pane.rows.count && column < pane.rows[row].count && pane.rows[row][column] != nil ? (row, column) : nil
                } }
            }
        }
        s.send("4")
        #expect(s.waitFor(5) { $0.contains("space play/pause") }, "no live tab:\n\(s.screen())")
        s.send("space")
        var left: [(Int, Int)] = []
        let liveClean = waitUntil(5, interval: 0.1) {
            left = leftovers(1..<46) + s.colours().colouredBlanks(rows: 30..<46, columns: 0..<160)
            return left.isEmpty
        }
        #expect(liveClean, "the live tab shows the still: \(left.count) cells, first \(left.prefix(6)):\n\(s.screen())")
        s.send("Escape")
        #expect(s.waitFor(5) { !$0.contains("space play/pause") }, "Esc did not close the inspector:\n\(s.screen())")
        let playerClean = waitUntil(5, interval: 0.1) {
            left = leftovers(1..<46)
            return left.isEmpty
        }
        #expect(playerClean, "the player's margins keep the still: \(left.count) cells, first \(left.prefix(6))")
    }
}
