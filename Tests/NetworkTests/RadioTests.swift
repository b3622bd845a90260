import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Internet radio against Debian's Icecast on loopback, fed by ffmpeg (network tier): each new
/// title reaches IPC within one metadata interval, a station that drops is reconnected with its
/// title, the Opus mount's title comes from its comments, station lists play as playlists, and
/// the title reaches the title bar, the terminal's title and MPRIS.
@Suite(.serialized, .enabled(if: IcecastStation.isInstalled)) struct RadioTests {
    static let mp3 = "/radio.mp3"
    static let opus = "/radio.opus"
    /// How long a title may take: one metadata interval of the MP3 mount (2 s at 64 kb/s), and
    /// half a second for the player's tick and the machine.
    static let titleDeadline = Double(IcecastStation.metaint) / Double(IcecastStation.mp3BytesPerSecond) + 0.5

    /// The headless player on `arguments` with an IPC socket; `close` quits it and says how it ended.
    final class Headless {
        let player: BackgroundPlayer
        let client: IPCTestClient
        let directory: String
        let log: String

        init(_ arguments: [String]) throws {
            directory = PlayerRuns.socketDirectory()
            log = directory + "/player.log"
            let socket = directory + "/mpv.sock"
            player = BackgroundPlayer([TestEnvironment.binary, "--vo=null", "--ao=null", "--no-config",
                                       "--input-ipc-server=\(socket)", "--log-file=\(log)"] + arguments, timeout: 120)
            client = try IPCTestClient(path: socket, timeout: 15)
        }

        func property(_ name: String) -> Any? {
            client.request(#"{"command":["get_property","\#(name)"]}"#)?["data"]
        }

        var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Waits for `media-title` to be `title` (observed as property-change events).
        func waitForTitle(_ title: String, timeout: Double) -> Bool {
            client.waitForEvent(timeout: timeout) {
                $0["event"] as? String == "property-change" && $0["name"] as? String == "media-title" && $0["data"] as? String == title
            } != nil
        }

        func quit() -> ProcessResult? {
            client.send(#"{"command":["quit"]}"#)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            return player.wait(timeout: 20)
        }

        /// Quits and expects a clean exit.
        func quitCleanly(_ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
            let r = quit()
            #expect(r?.status == 0, "\(what) \(r?.stderr ?? "still running")", sourceLocation: sourceLocation)
        }

        /// Waits until playback is past `seconds` (false after 15 s).
        func waitForPlayback(past seconds: Double) -> Bool {
            waitUntil(15, interval: 0.05) { (property("time-pos") as? Double ?? 0) > seconds }
        }
    }

    @Test func eachNewTitleReachesIPCWithinOneMetadataInterval() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        #expect(station.setTitle(Self.mp3, "First Song"))
        let run = try Headless([station.url(Self.mp3)])
        #expect(run.client.request(#"{"command":["observe_property",1,"media-title"]}"#)?["error"] as? String == "success")
        #expect(run.waitForTitle("First Song", timeout: 15), "\(run.logText)")
        let metadata = run.property("metadata") as? [String: Any]
        #expect(metadata?["icy-name"] as? String == IcecastStation.name, "\(String(describing: metadata))")
        #expect(metadata?["icy-genre"] as? String == IcecastStation.genre)
        #expect(metadata?["icy-title"] as? String == "First Song")
        for title in ["Second – Don't Stop", "Ünïcødé ☃ 3"] {
            let sent = MonotonicTime.now()
            #expect(station.setTitle(Self.mp3, title))
            // mpv's order: metadata-update, then the properties that changed.
            let update = run.client.waitForEvent(timeout: 10) { $0["event"] as? String == "metadata-update" }
            let arrived = run.waitForTitle(title, timeout: 10)
            let took = MonotonicTime.now() - sent
            #expect(update != nil && arrived, "\(title): \(run.logText)")
            #expect(took < Self.titleDeadline, "\(title) took \(took) s (one interval: \(Self.titleDeadline - 0.5) s)")
            print("radio: '\(title)' shown \(String(format: "%.2f", took)) s after Icecast took it")
        }
        #expect((run.property("time-pos") as? Double ?? 0) > 1)
        let log = run.logText
        #expect(log.contains("title: Second – Don't Stop") && log.contains("title: Ünïcødé ☃ 3"), "\(log)")
        run.quitCleanly()
    }

    @Test func aStationThatDropsIsReconnectedWithItsTitle() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        #expect(station.setTitle(Self.mp3, "Before the drop"))
        let run = try Headless([station.url(Self.mp3), "--network-timeout=8"])
        #expect(run.client.request(#"{"command":["observe_property",1,"media-title"]}"#)?["error"] as? String == "success")
        #expect(run.waitForTitle("Before the drop", timeout: 15), "\(run.logText)")
        station.stopSource(Self.mp3)
        #expect(waitUntil(10, interval: 0.05) { run.logText.contains("the station closed the connection") }, "\(run.logText)")
        // While it is gone the player waits with the title, and it resumes when the source is back.
        #expect(run.property("media-title") as? String == "Before the drop")
        let before = run.property("time-pos") as? Double ?? 0
        try station.startSource(Self.mp3, frequency: 660)
        #expect(waitUntil(15, interval: 0.1) { (run.property("time-pos") as? Double ?? 0) > before + 1.5 },
                "did not resume: \(run.logText)")
        // Icecast says '' to a listener of the restarted source: the title stays.
        #expect(run.property("media-title") as? String == "Before the drop", "\(run.logText)")
        #expect(station.setTitle(Self.mp3, "After the drop"))
        #expect(run.waitForTitle("After the drop", timeout: 10), "\(run.logText)")
        run.quitCleanly()
    }

    @Test func aStationGoneLongerThanTheNetworkTimeoutEndsWithItsReason() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        let run = try Headless([station.url(Self.mp3), "--network-timeout=2"])
        #expect(run.waitForPlayback(past: 0.5))
        let gone = MonotonicTime.now()
        station.stopSource(Self.mp3)
        let r = run.player.wait(timeout: 30)
        let took = MonotonicTime.now() - gone
        try? FileManager.default.removeItem(atPath: run.directory)
        // The player's buffer plays out, the reconnects stop 2 s after the last byte.
        #expect(r != nil && r?.status != 0, "\(r?.stderr ?? "still running")")
        #expect(r?.stderr.contains("station closed the connection") == true, "\(r?.stderr ?? "")")
        #expect(took < 15, "ended \(took) s after the source went")
        print("radio: a station gone for good ended the player \(String(format: "%.1f", took)) s later: \(r?.stderr ?? "")")
    }

    /// #62 items 1 and 2: the first sound within a second of the launch in a release build
    /// (was 9 s in the commit before, 4.5 s on a 128 kb/s station: libavformat's
    /// format probe waited for the station's real-time bytes past Icecast's burst, then the sound
    /// waited 2 s for a picture a station never has), and `--length` counts from it (was 4 s of
    /// sound for `--length=2`). Heard in a null sink of its own.
    @Test func aStationSoundsWithinASecondAndLengthCountsFromItsFirstSound() throws {
        #expect(TestEnvironment.requirePulse())
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        let log = PlayerRuns.temp("radio.log")
        defer { try? FileManager.default.removeItem(atPath: (log as NSString).deletingLastPathComponent) }
        let heard = try SinkRecorder.hear([TestEnvironment.binary, "--vo=null", "--no-config", "--length=2", "--log-file=\(log)", station.url(Self.mp3)],
                                          timeout: 30)
        #expect(heard.run.status == 0, "\(heard.run.stderr)")
        let first = heard.first ?? .infinity
        let sounding = (heard.last ?? 0) - (heard.first ?? 0)
        // When the source was open (the live source's timeshift starts then; seconds since the
        // process started, as the recording's are since the launch).
        let opened = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("[live ") && $0.contains("timeshift:") }
            .flatMap { Double($0.dropFirst(6).prefix { $0 != "]" }) } ?? .infinity
        print("radio: open \(String(format: "%.2f", opened)) s, first sound \(String(format: "%.2f", first)) s after the launch, \(String(format: "%.2f", sounding)) s of it for --length=2")
        // Each cause on its own clock, so a loaded tier (2.4 s to the first sound in one) does
        // not hide either: the probe (the open came after 4.5-9 s of the station's real-time
        // bytes), then the sound's 2 s wait for a picture.
        #expect(opened < 3.5, "the source opened \(opened) s after the launch")
        #expect(first - opened < 1.5, "the first sound came \(first - opened) s after the open")
        #expect(abs(sounding - 2) < 0.3, "\(sounding) s of sound for --length=2")
    }

    @Test func theOpusMountTakesItsTitleFromItsComments() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.opus, title: "Opus Song")
        let run = try Headless([station.url(Self.opus)])
        #expect(run.waitForPlayback(past: 0.5), "\(run.logText)")
        #expect(run.property("media-title") as? String == "Opus Song")
        let metadata = run.property("metadata") as? [String: Any]
        #expect(metadata?["icy-name"] as? String == IcecastStation.name + " (Opus)", "\(String(describing: metadata))")
        run.quitCleanly()
    }

    /// A `.pls` of stations, local and fetched from a server: a playlist with the list's titles
    /// (until a station names its song); a remote list naming a local file has it left out.
    @Test func stationListsPlayAsPlaylistsWithTheirTitles() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        try station.startSource(Self.opus, title: "Opus Song")
        let dir = NSTemporaryDirectory() + "aether-stations-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pls = "[playlist]\nNumberOfEntries=3\nFile1=\(station.url(Self.mp3))\nTitle1=Tone Station\nFile2=/etc/passwd\n"
            + "File3=\(station.url(Self.opus))\nTitle3=Opus Station\n"
        try pls.write(toFile: dir + "/stations.pls", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        for source in [dir + "/stations.pls", server.url("stations.pls")] {
            let run = try Headless([source])
            #expect(run.waitForPlayback(past: 0.3), "\(source): \(run.logText)")
            let entries = (run.property("playlist") as? [[String: Any]]) ?? []
            let titles = entries.compactMap { $0["title"] as? String }
            let remote = source.hasPrefix("http")
            // A list from the network names no local file; a local one may.
            #expect(titles == ["Tone Station", "Opus Station"], "\(source): \(entries)")
            #expect(entries.count == (remote ? 2 : 3), "\(source): \(entries)")
            #expect(run.property("media-title") as? String == "Tone Station", "\(source)")
            if remote { #expect(run.logText.contains("1 entry not on the network left out"), "\(run.logText)") }
            #expect(run.client.request(#"{"command":["playlist-next"]}"#)?["error"] as? String == "success")
            #expect(waitUntil(15, interval: 0.05) { run.property("media-title") as? String == "Opus Song" }, "\(source): \(run.logText)")
            run.quitCleanly(source)
        }
    }

    /// `--stream-record`: what is played, as received; each song a chapter in Matroska;
    /// stopped and started again over IPC (the `stream-record` property).
    @Test func aStationIsRecordedWithItsSongsAsChapters() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        #expect(station.setTitle(Self.mp3, "Recorded One"))
        let dir = NSTemporaryDirectory() + "aether-record-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try Headless([station.url(Self.mp3), "--stream-record=\(dir)/first.mkv"])
        #expect(run.client.request(#"{"command":["observe_property",1,"media-title"]}"#)?["error"] as? String == "success")
        #expect(run.waitForTitle("Recorded One", timeout: 15), "\(run.logText)")
        #expect(run.property("stream-record") as? String == "\(dir)/first.mkv")
        #expect(station.setTitle(Self.mp3, "Recorded Two"))
        #expect(run.waitForTitle("Recorded Two", timeout: 10), "\(run.logText)")
        // The chapter begins with the first packet read after the title: a second of it first.
        let sung = run.property("time-pos") as? Double ?? 0
        #expect(run.waitForPlayback(past: sung + 1))
        // Stopped, then started again in another file (Icecast names one format: MP3 as received).
        #expect(run.client.request(#"{"command":["set_property","stream-record",""]}"#)?["error"] as? String == "success")
        #expect(run.property("stream-record") as? String == "")
        #expect(run.client.request(#"{"command":["set_property","stream-record","\#(dir)/second.mp3"]}"#)?["error"] as? String == "success")
        let before = run.property("time-pos") as? Double ?? 0
        #expect(waitUntil(10, interval: 0.1) { (run.property("time-pos") as? Double ?? 0) > before + 2 })
        // A file that cannot be written is refused in one line; the recording before goes on.
        let refused = run.client.request(#"{"command":["set_property","stream-record","/nonexistent/dir/x.mkv"]}"#)
        #expect(refused?["error"] as? String != "success", "\(String(describing: refused))")
        run.quitCleanly()
        let chapters = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "chapter_tags=title", "-of", "csv=p=0", dir + "/first.mkv"], timeout: 20)
        #expect(chapters.stdout.split(separator: "\n") == ["Recorded One", "Recorded Two"], "\(chapters.stdout) \(chapters.stderr)")
        for name in ["first.mkv", "second.mp3"] {
            let probe = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "csv=p=0",
                                     dir + "/" + name], timeout: 20)
            let lines = probe.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "mp3" && (Double(lines.last ?? "") ?? 0) > 1.5, "\(name): \(probe.stdout) \(probe.stderr)")
        }
    }

    /// The equalizer on a station (#63): the sound the device plays goes through it, what
    /// `--stream-record` writes does not (the source as received). The station's 440 Hz tone
    /// with the 500 Hz band at −12 dB: heard about 11.6 dB lower than the recording decodes to.
    @Test func theEqualizerShapesTheSoundAndNotTheRecording() throws {
        #expect(TestEnvironment.requirePulse())
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        let dir = NSTemporaryDirectory() + "aether-eq-radio-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorder = try SinkRecorder(.own)
        #expect(recorder.waitFor(samples: 4800))
        let run = Process.run([TestEnvironment.binary, "--vo=null", "--no-config", "--length=4", "--equalizer=bands:0,0,0,0,-12,0,0,0,0,0",
                               "--stream-record=\(dir)/radio.mp3", station.url(Self.mp3)], environment: recorder.environment, timeout: 40)
        recorder.waitFor(samples: recorder.samplesRecorded + 4800)
        let (left, _) = recorder.stop()
        #expect(run.status == 0, "\(run.stderr)")
        // The loudest second heard (the tone, past its start).
        let second = 48_000
        let heard = stride(from: 0, to: max(0, left.count - second), by: second / 4).map { Signal.rmsDBFS(left[$0..<($0 + second)]) }.max() ?? -200
        // The recording, decoded to 48 kHz mono floats.
        let decoded = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-i", dir + "/radio.mp3", "-ac", "1", "-ar", "48000", "-f", "f32le",
                                   dir + "/radio.raw"], timeout: 20)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let samples = Self.floats((try? Data(contentsOf: URL(fileURLWithPath: dir + "/radio.raw"))) ?? Data())
        let recorded = samples.count > 2 * second ? Signal.rmsDBFS(samples[second..<(2 * second)]) : -200
        let expected = GraphicBands.curve([0, 0, 0, 0, -12, 0, 0, 0, 0, 0]).safe(sampleRate: 48_000).response(at: 440, sampleRate: 48_000)
        print(String(format: "radio with the equalizer: heard %.2f dBFS, recorded %.2f dBFS (%.2f dB apart; the curve: %.2f dB at 440 Hz)", heard, recorded, heard - recorded, expected))
        #expect(abs((heard - recorded) - expected) < 1, "heard \(heard), recorded \(recorded): the recording is the source, the sound has the curve")
    }

    static func floats(_ data: Data) -> [Double] {
        data.withUnsafeBytes { raw in raw.bindMemory(to: Float.self).map(Double.init) }
    }

    /// A mount that is not on the air (Icecast's 404) ends with one line, once, in both players
    /// (issue 62, item 10: it was said twice in two wordings) and exit status 5.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func aMountNotOnTheAirIsOneLine() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        let url = station.url("/gone.mp3")
        let headless = Process.run([TestEnvironment.binary, url, "--vo=null", "--ao=null", "--no-config"], timeout: 20)
        let lines = headless.stderr.split(separator: "\n")
        #expect(headless.status == 5 && lines.count == 1 && lines[0].contains("404") && lines[0].contains("gone.mp3"), "\(headless.stderr)")
        let s = try TmuxSession([TestEnvironment.binary, url, "--ao=null", "--no-config"], columns: 120, rows: 30)
        defer { s.close() }
        #expect(s.waitFor(15) { $0.contains("EXIT=") }, "\(s.screen())")
        let said = s.screen().split(separator: "\n").filter { $0.contains("gone.mp3") }
        #expect(said.count == 1 && said[0].contains("404") && s.screen().contains("EXIT=5"), "\(s.screen())")
    }

    /// A newcomer's walk: the station in the TUI (in tmux), its song in the title bar, the
    /// terminal's title and `playerctl metadata`, and each follows a new title.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl")))
    func theSongReachesTheTitleBarTheTerminalsTitleAndMPRIS() throws {
        let station = try IcecastStation()
        defer { station.stop() }
        try station.startSource(Self.mp3)
        #expect(station.setTitle(Self.mp3, "Morning Song"))
        let bus = try SessionBus()
        defer { bus.close() }
        let home = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let s = try TmuxSession([TestEnvironment.binary, station.url(Self.mp3), "--ao=null", "--no-config"], columns: 100, rows: 30,
                                environment: bus.environment.merging(["XDG_STATE_HOME": home, "XDG_CACHE_HOME": home]) { $1 })
        defer { s.close() }
        func ctlTitle() -> String { bus.playerctl("-p", "aether-tui", "metadata", "title").stdout.trimmingCharacters(in: .newlines) }
        for title in ["Morning Song", "Evening Song"] {
            if title != "Morning Song" { #expect(station.setTitle(Self.mp3, title)) }
            // The title bar (the chrome shows while the music view plays; the music view names it too).
            #expect(s.waitFor(10) { $0.contains(title) }, "\(title): \(s.screen())")
            #expect(waitUntil(10, interval: 0.05) { s.display("#{pane_title}") == "\(title) - aether-tui" },
                    "\(title): '\(s.display("#{pane_title}"))'")
            #expect(waitUntil(10, interval: 0.1) { ctlTitle() == title }, "\(title): '\(ctlTitle())'")
        }
        // The station's name and genre in the music view.
        #expect(s.screen().contains("\(IcecastStation.name) · \(IcecastStation.genre)"), "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(10) { $0.contains("EXIT=0") }, "\(s.screen())")
    }
}

/// A hostile ICY server (`hostile_http.py` `/icy/CASE.mp3`: huge, binary, escaping, lying and
/// flooding title blocks, metadata intervals of 0 and 2^31): each plays, its title is clean
/// and within its budget, IPC answers at once, and `quit` ends the player (network tier).
@Suite struct HostileStationTests {
    static let mp3: String = {
        let dir = NSTemporaryDirectory() + "aether-icy-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = Process.run(["/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=6",
                         "-c:a", "libmp3lame", "-b:a", "64k", dir + "/tone.mp3"], timeout: 30)
        return dir
    }()

    @Test(arguments: ["huge", "binary", "escapes", "metaint-0", "metaint-2g", "lies-long", "lies-short", "flood"])
    func aHostileStationPlaysCleanly(case name: String) throws {
        let server = try HostileHTTP(media: Self.mp3)
        defer { server.stop() }
        let run = try RadioTests.Headless([server.url("icy/\(name).mp3")])
        #expect(run.waitForPlayback(past: 1.5), "\(name): \(run.logText)")
        let asked = MonotonicTime.now()
        let title = run.property("media-title") as? String ?? ""
        let answered = MonotonicTime.now() - asked
        #expect(answered < 0.5, "\(name): IPC took \(answered) s")
        #expect(!title.isEmpty && title.count <= StationMetadata.maxValueCharacters, "\(name): \(title.count) characters")
        #expect(!title.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" || $0 == "\u{2066}" },
                "\(name): \(title.debugDescription)")
        switch name {
        case "escapes": #expect(title.hasPrefix("red") && title.contains("evil song") && !title.contains("PWNED"), "\(title.debugDescription)")
        case "huge": #expect(title.count == StationMetadata.maxValueCharacters && title.hasPrefix("AAAA"))
        case "metaint-0", "metaint-2g", "binary": #expect(title == "\(name).mp3", "\(name): \(title.debugDescription)")
        case "flood":
            // A new title every 32 bytes: logged at most once a second, the rest counted.
            let lines = run.logText.components(separatedBy: "\n").filter { $0.contains("title: flood") }
            #expect(!lines.isEmpty && lines.count <= 6, "\(lines.count) title lines")
        default: break
        }
        let sent = MonotonicTime.now()
        let r = run.quit()
        #expect(r?.status == 0 && MonotonicTime.now() - sent < 3, "\(name): \(r?.stderr ?? "still running")")
    }
}
