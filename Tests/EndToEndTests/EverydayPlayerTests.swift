import AetherControl
import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Playlists, resume, the config file, key bindings and track preferences, through the real
/// binary: headless with `--stats-file` (one summary per item), and in tmux.
@Suite(.serialized) struct EverydayPlayerTests {
    static func names(_ s: [PlaybackSummary]) -> [String] {
        s.compactMap { $0.item.source.map { ($0 as NSString).lastPathComponent } }
    }

    @Test func aThreeItemPlaylistPlaysInOrderAndABadItemIsSkipped() throws {
        let files = ["solid-red.mkv", "empty.mkv", "sine-1k.mkv", "theora-vorbis.ogg"].map(TestEnvironment.fixture)
        let (r, s) = try PlayerRuns.headless(files + ["--length=0.5"])
        #expect(!r.timedOut)
        #expect(Self.names(s) == ["solid-red.mkv", "sine-1k.mkv", "theora-vorbis.ogg"])
        #expect(s.map(\.item.playlistPosition) == [0, 2, 3])
        #expect(s.allSatisfy { abs($0.mediaSeconds - 0.5) < 0.1 }, "\(s.map(\.mediaSeconds))")
        // mpv's code for "some played, some did not", and the one line for the bad one.
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr == "aether-tui: cannot open '\(files[1])': Invalid data found when processing input\n")
    }

    @Test func directoriesM3uPlaylistStartAndLoops() throws {
        let dir = PlayerRuns.temp("media")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        for (name, fixture) in [("ep10.mkv", "solid-red.mkv"), ("ep2.mkv", "sine-1k.mkv"), ("ep1.mkv", "theora-vorbis.ogg")] {
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/\(name)", withDestinationPath: TestEnvironment.fixture(fixture))
        }
        var (r, s) = try PlayerRuns.headless([dir, "--length=0.3"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.names(s) == ["ep1.mkv", "ep2.mkv", "ep10.mkv"], "natural order")
        let list = (dir as NSString).deletingLastPathComponent + "/list.m3u"
        try "#EXTM3U\n#EXTINF:1,Red\nmedia/ep10.mkv\nmedia/ep1.mkv\n".write(toFile: list, atomically: true, encoding: .utf8)
        (r, s) = try PlayerRuns.headless([list, "--length=0.3", "--loop-playlist=1", "--playlist-start=1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.names(s) == ["ep1.mkv", "ep10.mkv", "ep1.mkv"], "start at item 1, then once more round")
        // --loop-file=1: the item plays twice; its summary counts both passes.
        (r, s) = try PlayerRuns.headless([TestEnvironment.fixture("solid-red.mkv"), "--length=0.4", "--loop-file=1"])
        #expect(r.status == 0)
        #expect(s.count == 1)
        let presented = try #require(s.first).frames.presented
        #expect((18...22).contains(presented), "two passes of 0.4 s at 24 fps: \(presented) frames")
    }

    @Test func shuffleWithASeedIsThatSeedsOrder() throws {
        let names = ["solid-red.mkv", "sine-1k.mkv", "theora-vorbis.ogg", "h264-aac.flv"]
        let files = names.map(TestEnvironment.fixture)
        var expected = Playlist(files.map { PlaylistItem(source: $0) })
        expected.shuffle(seed: 7)
        let (r, s) = try PlayerRuns.headless(files + ["--length=0.2", "--shuffle", "--shuffle-seed=7"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.names(s) == expected.items.map { ($0.source as NSString).lastPathComponent })
        #expect(Self.names(s) != names, "seed 7 keeps the order: pick another")
    }

    @Test func savePositionOnQuitAndResume() throws {
        let state = PlayerRuns.temp("state")
        let env = ["XDG_STATE_HOME": state]
        let file = TestEnvironment.fixture("h264-720p.mkv")
        // Stopped by --length at 7 s; the quit saves the position with the volume and track.
        var (r, s) = try PlayerRuns.headless([file, "--start=6", "--length=1", "--save-position-on-quit", "--volume=37", "--aid=1"],
                                       environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let saved = try #require(WatchLater(directory: state + "/aether-tui/watch_later").load(for: file))
        #expect(abs(saved.start - 7) < 0.1, "saved \(saved.start)")
        #expect(saved.volume == 37)
        // The next start resumes there, volume included.
        (r, s) = try PlayerRuns.headless([file, "--length=0.5"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let resumed = try #require(s.first)
        #expect(abs((resumed.item.startPosition ?? -1) - saved.start) < 0.1, "resumed at \(resumed.item.startPosition ?? -1)")
        #expect(resumed.item.volume == 37)
        // --no-resume-playback ignores it; --start wins over it.
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--no-resume-playback"], environment: env)
        #expect(s.first?.item.startPosition == 0)
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--start=2"], environment: env)
        #expect(s.first?.item.startPosition == 2)
    }

    @Test func configFileSetsOptionsAndProfilesAndReportsBadLines() throws {
        let config = PlayerRuns.temp("config")
        try FileManager.default.createDirectory(atPath: config + "/aether-tui", withIntermediateDirectories: true)
        try """
            # aether-tui.conf
            volume=40
            volme=3
            speed=9
            [quiet]
            mute=yes
            volume=25
            """.write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let file = TestEnvironment.fixture("sine-1k.mkv")
        var (r, s) = try PlayerRuns.headless([file, "--length=0.3"], environment: ["XDG_CONFIG_HOME": config])
        #expect(r.status == 0, "bad lines do not stop the player: \(r.stderr)")
        #expect(r.stderr.contains("aether-tui: warning: aether-tui.conf:3: unknown option 'volme'\n"), "\(r.stderr)")
        #expect(r.stderr.contains("aether-tui.conf:4: --speed must be between 0.25 and 4"), "\(r.stderr)")
        #expect(s.first?.item.volume == 40)
        #expect(s.first?.item.muted == false)
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--profile=quiet"], environment: ["XDG_CONFIG_HOME": config])
        #expect(s.first?.item.volume == 25 && s.first?.item.muted == true)
        // The command line wins; --no-config and --config-dir.
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--volume=90"], environment: ["XDG_CONFIG_HOME": config])
        #expect(s.first?.item.volume == 90)
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--no-config"], environment: ["XDG_CONFIG_HOME": config])
        #expect(s.first?.item.volume == 100 && r.stderr.isEmpty)
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--config-dir=\(config)/aether-tui"])
        #expect(s.first?.item.volume == 40)
    }

    /// A config file's play options go before the command line only when it plays: `inspect`,
    /// `download` and the other subcommands get their own arguments untouched (issue 48, 1).
    @Test func aConfigFileLeavesTheOtherSubcommandsTheirOptions() throws {
        let config = PlayerRuns.configHome()
        try "volume=70\nmute=yes\n".write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let env = ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": config + "/state"]
        let file = TestEnvironment.fixture("sine-1k.mkv")
        var r = Process.run([TestEnvironment.binary, "inspect", "--json", file], environment: env, timeout: 20)
        #expect(r.status == 0 && r.stdout.hasPrefix("{"), "\(r.stderr)")
        // `inspect FILE` opens the inspector (it played the file, and said "cannot open 'inspect'").
        let tui = try TmuxSession([TestEnvironment.binary, "inspect", file],
                                  environment: env.merging(["TERM": "screen-256color"]) { $1 })
        #expect(tui.waitFor(10) { $0.contains("▸ EBML") && $0.contains("▸ Segment") }, "not the inspector:\n\(tui.screen())")
        tui.close()
        r = Process.run([TestEnvironment.binary, "probe", "--json", file], environment: env, timeout: 20)
        #expect(r.status == 0 && r.stdout.hasPrefix("{"), "\(r.stderr)")
        // Nothing listens on port 9: each fails on the network, not on its options.
        for args in [["download", "--list", "http://127.0.0.1:9/a.m3u8"], ["download", "-o", config + "/x.mkv", "http://127.0.0.1:9/a.m3u8"]] {
            r = Process.run([TestEnvironment.binary] + args + ["--network-timeout=2"], environment: env, timeout: 20)
            #expect(r.status != 0 && !r.stderr.contains("Unknown option") && r.stderr.contains("127.0.0.1:9"), "\(args): \(r.stderr)")
        }
        // The player still takes the file's options.
        let (p, s) = try PlayerRuns.headless([file, "--length=0.2"], environment: env)
        #expect(p.status == 0 && s.first?.item.volume == 70 && s.first?.item.muted == true, "\(p.stderr)")
    }

    @Test func keepOpenStaysAtTheEnd() throws {
        let file = TestEnvironment.fixture("solid-red.mkv")
        var (r, _) = try PlayerRuns.headless([file, "--length=0.3"], timeout: 5)
        #expect(!r.timedOut && r.status == 0)
        (r, _) = try PlayerRuns.headless([file, "--length=0.3", "--keep-open"], timeout: 2.5)
        #expect(r.timedOut, "with --keep-open the player stays on the last frame")
    }

    @Test func alangPicksTheFrenchTrackAndSlangItsSubtitles() throws {
        let file = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        // --sub-auto=no: the sidecar next to the fixture would be chosen first (as in mpv, below).
        var (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--alang=fr,en", "--slang=fre", "--sub-auto=no"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first?.item.audioTrack == 2, "audio track \(String(describing: s.first?.item.audioTrack))")
        #expect(s.first?.item.subtitleTrack == 2)
        // mpv's rule (issue 62, item 3): a subtitle file beside the item is chosen over the
        // container's tracks, --slang matching one of those notwithstanding; --sid names one.
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--slang=fre"])
        #expect(s.first?.item.subtitleTrack == 3, "\(String(describing: s.first?.item.subtitleTrack)): \(r.stderr)")
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--sid=2"])
        #expect(s.first?.item.subtitleTrack == 2, "\(String(describing: s.first?.item.subtitleTrack)): \(r.stderr)")
        (r, s) = try PlayerRuns.headless([file, "--length=0.3", "--alang=jpn,eng"])
        #expect(s.first?.item.audioTrack == 1)
        // No preference: the default-flagged English track, no subtitles (none is default) —
        // except a sidecar next to the file, which headless playback now finds too.
        (r, s) = try PlayerRuns.headless([file, "--length=0.3"])
        #expect(s.first?.item.audioTrack == 1)
        #expect(s.first?.item.subtitleTrack == 3, "the sidecar .srt (after the two embedded tracks)")
    }
}

/// The same features in the TUI (tmux, 100×30, half-block).
@Suite(.serialized) struct EverydayTUITests {
    init() { #expect(TestEnvironment.requirePulse()) }

    func start(_ args: [String], environment: [String: String] = [:]) throws -> TmuxSession {
        var env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        env.merge(environment) { $1 }
        let s = try TmuxSession([TestEnvironment.binary, "--audio-device=pulse", "--vo=halfblock"] + args,
                                columns: 100, rows: 30, environment: env)
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        return s
    }

    @Test func nextPreviousAndThePlaylistMenu() throws {
        let files = ["solid-red.mkv", "sine-1k.mkv", "theora-vorbis.ogg"].map(TestEnvironment.fixture)
        let s = try start(files + ["--pause"])
        defer { s.close() }
        s.send("I")
        #expect(s.waitFor(3) { $0.contains("solid-red.mkv  (1/3)") }, "\(s.screen())")
        s.send(">")
        #expect(s.waitFor(3) { $0.contains("sine-1k.mkv  (2/3)") }, "\(s.screen())")
        s.send(">")
        #expect(s.waitFor(3) { $0.contains("theora-vorbis.ogg  (3/3)") }, "\(s.screen())")
        s.send("<")
        #expect(s.waitFor(3) { $0.contains("sine-1k.mkv  (2/3)") }, "\(s.screen())")
        s.send("F8")
        #expect(s.waitFor(3) { $0.contains("Playlist") && $0.contains("1. solid-red.mkv") && $0.contains("3. theora-vorbis.ogg") }, "\(s.screen())")
        s.send("Up")
        s.send("Enter")
        #expect(s.waitFor(3) { $0.contains("solid-red.mkv  (1/3)") }, "\(s.screen())")
        #expect(s.display("#{alternate_on}") == "1", "one screen session across items")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// A one-frame file opened with --pause stays on its picture (time does not move, so the
    /// end is not reached) until playback goes on; headless too.
    @Test func aOneFrameFileOpenedPausedStaysUntilPlay() throws {
        let dir = NSTemporaryDirectory() + "aether-oneframe-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/one.mkv"
        let made = Process.run(["/usr/bin/ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi",
                                "-i", "color=c=red:s=320x240:r=24", "-frames:v", "1", "-c:v", "libx264", file], timeout: 30)
        try #require(made.status == 0, "\(made.stderr)")
        let s = try start([file, "--pause"])
        defer { s.close() }
        Thread.sleep(forTimeInterval: 1.5)   // measurement window: paused on its one frame, it must stay
        #expect(!s.screen().contains("EXIT="), "left at once:\n\(s.screen())")
        s.send("space")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") }, "\(s.screen())")
        let headless = Process.run([TestEnvironment.binary, file, "--pause", "--vo=null", "--ao=null"], timeout: 1.5)
        #expect(headless.timedOut, "headless left at once: \(headless.status)")
    }

    /// Home/End in every common encoding, under a TERM whose terminfo names only one of them
    /// (tmux sends CSI 1~/4~ to a pane that says xterm-256color).
    @Test func homeAndEndWhateverTheTerminfoSays() throws {
        let s = try start([TestEnvironment.fixture("h264-720p.mkv"), "--pause"], environment: ["TERM": "xterm-256color"])
        defer { s.close() }
        let home = ["\u{1B}[1~", "\u{1B}[7~", "\u{1B}[H", "\u{1B}OH"], end = ["\u{1B}[4~", "\u{1B}[8~", "\u{1B}[F", "\u{1B}OF"]
        for (h, e) in zip(home, end) {
            s.sendBytes(Array(e.utf8))
            #expect(s.waitFor(3) { (PlayerRuns.time(in: $0) ?? 0) >= 11 }, "End as \(Array(e.utf8).dropFirst()): \(s.screen())")
            s.sendBytes(Array(h.utf8))
            #expect(s.waitFor(3) { PlayerRuns.time(in: $0) == 0 }, "Home as \(Array(h.utf8).dropFirst()): \(s.screen())")
        }
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func quitWatchLaterThenResumeLandsThere() throws {
        let state = NSTemporaryDirectory() + "aether-resume-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let file = TestEnvironment.fixture("h264-720p.mkv")
        var s = try start([file, "--start=7", "--pause"], environment: ["XDG_STATE_HOME": state])
        #expect(PlayerRuns.time(in: s.screen()) == 7)
        s.send("Q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
        s.close()
        let saved = try #require(WatchLater(directory: state + "/aether-tui/watch_later").load(for: file))
        #expect(abs(saved.start - 7) < 0.1, "saved \(saved.start)")
        s = try start([file, "--pause"], environment: ["XDG_STATE_HOME": state])
        defer { s.close() }
        #expect(s.waitFor(3) { PlayerRuns.time(in: $0) == 7 && $0.contains("resuming at 00:07") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// `show-text` expands `${…}` as mpv does (issue 62, item 4): a key's command in input.conf
    /// and a text line over IPC do unless prefixed `raw`; a JSON command array does only with
    /// `expand-properties`.
    @Test func showTextExpandsPropertiesAsMpvDoes() throws {
        let config = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "F1 show-text \"${filename} at ${time-pos} [${?nosuch:x}${!nosuch:none}]\"\nF2 raw show-text \"raw ${filename}\"\n"
            .write(toFile: config + "/aether-tui/input.conf", atomically: true, encoding: .utf8)
        let socket = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: socket) }
        let s = try start([TestEnvironment.fixture("h264-720p.mkv"), "--pause", "--start=7", "--input-ipc-server=\(socket)/s"],
                          environment: ["XDG_CONFIG_HOME": config])
        defer { s.close() }
        s.send("F1")
        #expect(s.waitFor(3) { $0.contains("h264-720p.mkv at 7.0") && $0.contains("[none]") }, "\(s.screen())")
        s.send("F2")
        #expect(s.waitFor(3) { $0.contains("raw ${filename}") }, "\(s.screen())")
        let client = try IPCTestClient(path: socket + "/s", timeout: 10)
        #expect(client.request(#"{"command":["show-text","json ${filename}"]}"#)?["error"] as? String == "success")
        #expect(s.waitFor(3) { $0.contains("json ${filename}") }, "\(s.screen())")
        #expect(client.request(#"{"command":["expand-properties","show-text","expanded ${filename}"]}"#)?["error"] as? String == "success")
        #expect(s.waitFor(3) { $0.contains("expanded h264-720p.mkv") }, "\(s.screen())")
        client.send("show-text \"line ${filename}\"")
        #expect(s.waitFor(3) { $0.contains("line h264-720p.mkv") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// Shift+PgUp and Shift+PgDn seek 10 minutes, as in mpv (issue 62, item 7): the keys as tmux
    /// sends them (CSI 5;2~ and 6;2~) reach the binding. The 12 s clip clamps both seeks.
    @Test func shiftPageKeysSeekTenMinutes() throws {
        let s = try start([TestEnvironment.fixture("h264-720p.mkv"), "--pause", "--start=6", "--keep-open"])
        defer { s.close() }
        #expect(s.waitFor(5) { PlayerRuns.time(in: $0) == 6 }, "\(s.screen())")
        s.send("S-PPage")
        #expect(s.waitFor(5) { PlayerRuns.time(in: $0) == 0 }, "Shift+PgUp: \(s.screen())")
        s.send("S-NPage")
        #expect(s.waitFor(5) { (PlayerRuns.time(in: $0) ?? 0) >= 11 }, "Shift+PgDn: \(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// #62 item 7: `l` sets A, then B, then clears the loop, in mpv's words; playing through B
    /// goes back to A (the log's seek), and IPC reads the points.
    @Test func theLKeySetsAnABLoop() throws {
        let log = PlayerRuns.temp("ab.log")
        let s = try start([TestEnvironment.fixture("h264-720p.mkv"), "--pause", "--speed=2", "--log-file=\(log)"])
        defer { s.close() }
        s.send("l")
        #expect(s.waitFor(3) { $0.contains("A-B loop start: 00:00") }, "\(s.screen())")
        s.send("Right")
        #expect(s.waitFor(3) { (PlayerRuns.time(in: $0) ?? 0) >= 5 }, "\(s.screen())")
        s.send("l")
        #expect(s.waitFor(3) { $0.contains("A-B loop: 00:00 - 00:05") }, "\(s.screen())")
        func seeksToA() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("seek to 0.000 s") }.count
        }
        let before = seeksToA()
        s.send("Left")
        #expect(waitUntil(5, interval: 0.05) { seeksToA() > before }, "Left did not go back to 0")
        let back = seeksToA()
        s.send("space")
        // 5 s of film at 2× to B, then back to A.
        #expect(waitUntil(10, interval: 0.1) { seeksToA() > back }, "no loop back to A: \(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(600))")
        s.send("l")
        #expect(s.waitFor(3) { $0.contains("Clear A-B loop") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    @Test func inputConfRemapsKeys() throws {
        let config = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "k script-binding help\nRIGHT seek 30\ni ignore\nnonsense here\n"
            .write(toFile: config + "/aether-tui/input.conf", atomically: true, encoding: .utf8)
        let s = try start([TestEnvironment.fixture("h264-720p.mkv"), "--pause"], environment: ["XDG_CONFIG_HOME": config])
        defer { s.close() }
        s.send("k")
        #expect(s.waitFor(3) { $0.contains("pause / play") }, "\(s.screen())")
        // The help lists the keys as bound: RIGHT's row says it changed, and the user's lines follow.
        #expect(s.screen().contains("(RIGHT: input.conf)") && s.screen().contains("seek 30"), "\(s.screen())")
        s.send("k")
        s.send("i")
        // Keys are read in order: once RIGHT's seek shows, i has been read too.
        s.send("Right")
        #expect(s.waitFor(3) { (PlayerRuns.time(in: $0) ?? 0) >= 11 }, "RIGHT seeks 30 s (clamped to the 12 s clip): \(s.screen())")
        #expect(!s.screen().contains("Container"), "i is unbound")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}

/// The telemetry's average bit rate (issue 48, cli tier): the stream's own rate from the first
/// line, not the bytes the decoders took ahead over the wall time (151.5 Mb/s for a 10 Mb/s file).
@Suite struct AverageBitrateTests {
    @Test func theFirstLineSaysTheStreamsOwnRate() throws {
        let dir = NSTemporaryDirectory() + "aether-cbr-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 4 Mb/s constant (x264's CBR with a small buffer), 720p, 4 s.
        let clip = dir + "/cbr.mkv"
        _ = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=24:d=4",
                         "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "4M", "-minrate", "4M", "-maxrate", "4M", "-bufsize", "500k",
                         "-x264-params", "nal-hrd=cbr", clip], timeout: 120)
        let stats = dir + "/stats.jsonl"
        let r = Process.run([TestEnvironment.binary, clip, "--no-config", "--vo=null", "--ao=null", "--length=2.5", "--stats-file", stats], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let rates = lines.compactMap { line -> Double? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let telemetry = object["telemetry"] as? [String: Any] else { return nil }
            return telemetry["averageBitrate"] as? Double
        }
        #expect(!rates.isEmpty, "\(lines.first ?? "")")
        for rate in rates { #expect(abs(rate - 4e6) < 0.6e6, "averageBitrate \(rate) for a 4 Mb/s stream: \(rates)") }
    }
}
