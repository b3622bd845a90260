import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Tier: cli. mpv's spellings of the options work here (issue 48, 7): flags take `=yes`/`=no`
/// (on the command line as in the config), `--loop`, `--no-audio`/`--no-video`, `--audio-channels`,
/// `--af`, `--title`; an unknown `--profile` is refused as mpv refuses it.
struct MpvSpellingTests {
    @Test func flagsTakeYesAndNoAndTheCommandLineWins() throws {
        let red = TestEnvironment.fixture("solid-red.mkv"), sine = TestEnvironment.fixture("sine-1k.mkv")
        var (r, s) = try PlayerRuns.headless([sine, "--length=0.2", "--mute=yes", "--pause=no"])
        #expect(r.status == 0 && s.first?.item.muted == true, "\(r.stderr)")
        // The config says mute; --mute=no and --no-mute take it back.
        let config = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: config) }
        try "mute=yes\n".write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        for off in ["--mute=no", "--no-mute"] {
            (r, s) = try PlayerRuns.headless([sine, "--length=0.2", off], environment: ["XDG_CONFIG_HOME": config])
            #expect(r.status == 0 && s.first?.item.muted == false, "\(off): \(r.stderr)")
        }
        (r, _) = try PlayerRuns.headless([sine, "--length=0.2", "--mute=maybe"])
        #expect(r.status == 1 && r.stderr.contains("'--mute'"), "\(r.stderr)")
        // --loop=1 is --loop-file=1: two passes in one summary.
        (r, s) = try PlayerRuns.headless([red, "--length=0.4", "--loop=1"])
        #expect(r.status == 0 && (18...22).contains(s.first?.frames.presented ?? 0), "\(s.first?.frames.presented ?? 0) frames: \(r.stderr)")
    }

    /// mpv's time spellings (issue 62, item 7): `-T` before the end, `#C` a chapter's start,
    /// `--end`, and with `--length` too the earlier stop. The clip: 4.03 s, chapters at 0, 1, 2.5 s.
    /// #62 item 7: `--ab-loop-a/b/count` loop as mpv's (playing through B goes back to A, so
    /// many times), then the item plays to its end; a point that is no time is refused, exit 1.
    @Test func abLoopOptionsLoopAsMpvs() throws {
        let log = PlayerRuns.temp("ab.log")
        let (r, s) = try PlayerRuns.headless([TestEnvironment.fixture("h264-720p.mkv"), "--ab-loop-a=1", "--ab-loop-b=2", "--ab-loop-count=2",
                                              "--speed=4", "--log-file=\(log)"])
        let loops = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("seek to 1.000 s (exact)") }
        #expect(r.status == 0 && s.first?.endedEarly == nil, "\(r.stderr)")
        #expect(loops.count == 2, "\(loops)")
        let bad = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--ab-loop-a=#2", "--vo=null", "--ao=null"], timeout: 20)
        #expect(bad.status == 1 && bad.stderr.split(separator: "\n").first?.contains("'#2' is invalid for '--ab-loop-a") == true, "\(bad.stderr)")
    }

    @Test func startEndAndLengthTakeMpvsTimes() throws {
        let clip = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        for (arguments, seconds) in [(["--start=#2", "--end=#3"], 1.5), (["--start=-1"], 1.03), (["--start=-0:01.5", "--length=0.5"], 0.5),
                                     (["--start=1", "--end=2", "--length=0.4"], 0.4), (["--start=+0.5", "--end=25%"], 0.51)] {
            let (r, s) = try PlayerRuns.headless([clip] + arguments)
            let played = s.first?.mediaSeconds ?? -1
            #expect(r.status == 0 && abs(played - seconds) < 0.1, "\(arguments): played \(played) s, not \(seconds): \(r.stderr)")
        }
        // Where a chapter means nothing, it is refused in one line.
        let probe = Process.run([TestEnvironment.binary, "probe", "--packets", "--start=#2", clip], timeout: 20)
        #expect(probe.status != 0 && probe.stderr.contains("--start with --packets or --frames takes seconds or N%"), "\(probe.stderr)")
        let extract = Process.run([TestEnvironment.binary, "extract", "--at=#2", clip, "-o", PlayerRuns.temp("x.png")], timeout: 20)
        #expect(extract.status != 0 && extract.stderr.contains("not a chapter"), "\(extract.stderr)")
    }

    /// `--audio-device=help` lists the ALSA devices, as `aplay -L` names them (issue 62, item 7).
    @Test func audioDeviceHelpListsTheDevices() throws {
        let r = Process.run([TestEnvironment.binary, "--audio-device=help"], timeout: 20)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let listed = r.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: "'").dropFirst().first.map(String.init) }
        #expect(!listed.isEmpty && listed.first == "default" && listed.contains("null"), "\(r.stdout)")
    }

    @Test func noAudioNoVideoAndTheirOtherNames() throws {
        let clip = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        var (r, s) = try PlayerRuns.headless([clip, "--length=0.3", "--no-audio"])
        #expect(r.status == 0 && s.first?.audio.device == "none" && (s.first?.frames.presented ?? 0) > 0, "\(r.stderr)")
        (r, s) = try PlayerRuns.headless([clip, "--length=0.3", "--no-video"])
        #expect(r.status == 0 && s.first?.frames.presented == 0 && s.first?.audio.format != nil, "\(r.stderr)")
        (r, s) = try PlayerRuns.headless([clip, "--length=0.3", "--audio=2"])
        #expect(r.status == 0 && s.first?.item.audioTrack == 2, "\(r.stderr)")
        (r, s) = try PlayerRuns.headless([clip, "--length=0.3", "--no-sub"])
        #expect(r.status == 0 && s.first?.item.subtitleTrack == nil, "\(r.stderr)")
    }

    @Test func audioChannelsChooseWhatTheDevicePlays() throws {
        // AC-3 5.1: stereo by default (mpv's auto-safe), all six with auto, one with mono.
        let surround = TestEnvironment.fixture("hevc10-hdr10-ac3-51-movtext.mp4")
        for (option, format) in [(nil, "48000 Hz s16 stereo"), ("auto", "48000 Hz s16 6 ch"), ("mono", "48000 Hz s16 mono"), ("7.1", "48000 Hz s16 8 ch")] {
            let (r, s) = try PlayerRuns.headless([surround, "--length=0.3", "--vid=no"] + (option.map { ["--audio-channels=\($0)"] } ?? []))
            #expect(r.status == 0 && s.first?.audio.format == format, "\(option ?? "default"): \(s.first?.audio.format ?? "-") \(r.stderr)")
        }
        let (r, _) = try PlayerRuns.headless([surround, "--length=0.3", "--audio-channels=9"])
        #expect(r.status == 1 && r.stderr.contains("--audio-channels"), "\(r.stderr)")
    }

    @Test func audioFiltersAreLibavfiltersAndABadOneIsNamed() throws {
        let sine = TestEnvironment.fixture("sine-1k.mkv")
        for af in ["volume=0.5", "lavfi=[highpass=f=200,lowpass=f=3000]", "lavfi-loudnorm"] {
            let (r, s) = try PlayerRuns.headless([sine, "--length=0.3", "--af=\(af)"])
            #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) > 0.2, "\(af): \(r.stderr)")
        }
        var (r, _) = try PlayerRuns.headless([sine, "--length=0.3", "--af=volume=0.5,nosuchfilter"])
        #expect(r.status == 1 && r.stderr.contains("no filter named 'nosuchfilter'"), "\(r.stderr)")
        (r, _) = try PlayerRuns.headless([sine, "--length=0.3", "--af=volume=abc"])
        #expect(r.status == 1 && r.stderr.contains("--af: cannot use 'volume=abc'"), "\(r.stderr)")
    }

    @Test func anUnknownProfileIsRefused() throws {
        let config = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: config) }
        var r = PlayerRuns.play(config: config, ["--profile=nosuch"])
        #expect(r.status == 1 && r.stderr.contains("unknown profile 'nosuch'") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        try "volume=50\n[quiet]\nvolume=10\n".write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        r = PlayerRuns.play(config: config, ["--profile=quiet,loud"])
        #expect(r.status == 1 && r.stderr.contains("unknown profile 'loud' (aether-tui.conf has: quiet)"), "\(r.stderr)")
        r = PlayerRuns.play(config: config, ["--profile=quiet"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// The terminal's title, as tmux keeps it for the pane (`#{pane_title}`, which follows OSC 2
    /// and the title stack, XTWINOPS 22/23): mpv's default form with the media's title, a
    /// `--title` template, none with `--title=`; the title before is back after `q`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theTerminalTitleFollowsTitleAndIsGivenBack() throws {
        let clip = TestEnvironment.fixture("solid-red.mkv")
        for (args, expected) in [([String](), "solid-red.mkv - aether-tui"),
                                 (["--title=${filename} (${?pause==yes:paused}${!pause==yes:playing})"], "solid-red.mkv (paused)"),
                                 // A control sequence in the text never reaches the terminal.
                                 (["--title=\u{1B}]2;evil\u{07}${filename}"], "solid-red.mkv"),
                                 (["--title="], "before")] {
            let s = try TmuxSession(["/bin/sh", "-c", #"printf '\033]2;before\007'; exec "$0" "$@""#, TestEnvironment.binary, clip,
                                     "--vo=halfblock", "--ao=null", "--pause", "--no-config"] + args, columns: 80, rows: 24)
            defer { s.close() }
            #expect(s.waitFor(10) { PlayerRuns.time(in: $0) != nil }, "\(s.screen())")
            #expect(waitUntil(5, interval: 0.05) { s.display("#{pane_title}") == expected }, "\(args): '\(s.display("#{pane_title}"))'")
            s.send("q")
            #expect(s.waitFor(10) { $0.contains("EXIT=0") })
            #expect(s.display("#{pane_title}") == "before", "\(args): not given back: '\(s.display("#{pane_title}"))'")
        }
    }
}

/// `--stream-record` on a local film (cli tier): the playing streams as received, from the
/// first video keyframe, timestamps from 0; a file that cannot be written is one line and
/// playback goes on.
@Suite struct StreamRecordTests {
    @Test func aFilmIsRecordedFromItsFirstKeyframe() throws {
        let dir = NSTemporaryDirectory() + "aether-record-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/film.mkv"
        let (r, s) = try PlayerRuns.headless([TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), "--start=1.3", "--length=2",
                                              "--no-config", "--stream-record=\(out)"])
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) > 1.5, "\(r.stderr)")
        // One video and the one audio track playing, not the second audio or the subtitles.
        let streams = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", out], timeout: 20)
        #expect(streams.stdout.split(separator: "\n") == ["video", "audio"], "\(streams.stdout) \(streams.stderr)")
        let frames = Process.run(["/usr/bin/ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags",
                                  "-of", "csv=p=0", out], timeout: 20)
        let first = frames.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("0.000") && first.contains("K"), "first video packet: \(first)")
        let count = frames.stdout.split(separator: "\n").count
        #expect(count >= 24, "\(count) video packets")
        let bad = try PlayerRuns.headless([TestEnvironment.fixture("sine-1k.mkv"), "--length=0.3", "--no-config",
                                           "--stream-record=/nonexistent/dir/x.mkv"])
        #expect(bad.0.status == 0 && bad.0.stderr.contains("--stream-record: cannot write '/nonexistent/dir/x.mkv'"), "\(bad.0.stderr)")
    }
}
