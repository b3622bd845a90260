import AetherControl
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Issue 19's text doors, through the real binary: hostile `aether-tui.conf`, `input.conf`,
/// playlists, directories, watch-later entries and IPC clients. Each case starts (or exits)
/// within a deadline (before the fixes several ran for minutes or grew past a gigabyte) and
/// says what it left out in one line.
@Suite(.serialized) struct DoorsEndToEndTests {
    @Test func profilesFanningOutStartAtOnce() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Each profile names the next ten times, 8 deep: 10^8 applications before.
        var text = ""
        for i in 0..<8 { text += "[p\(i)]\nvolume=\(40 + i)\nprofile=" + Array(repeating: "p\(i + 1)", count: 10).joined(separator: ",") + "\n" }
        text += "[p8]\nmute\n"
        try text.write(toFile: dir + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let r = PlayerRuns.play(config: dir, ["--profile=p0"], timeout: 15)
        #expect(!r.timedOut, "profile expansion did not end")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    @Test func twentyThousandConfigLinesAndHugeNamesStartAtOnce() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var text = ""
        for i in 0..<20_000 { text += i % 2 == 0 ? "volume=\(i % 100)\n" : "sub-delay=0.\(i)\n" }
        text += "volme=3\nspeed=9\n"
        try text.write(toFile: dir + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        var r = PlayerRuns.play(config: dir, timeout: 15)
        #expect(!r.timedOut, "20,000 lines took 49 s before")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("aether-tui: warning: aether-tui.conf:20001: unknown option 'volme'\n"
                                   + "aether-tui: warning: aether-tui.conf:20002: --speed must be between 0.25 and 4"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 2, "\(r.stderr)")

        // One 50 MB option name: the file is read to its 1 MiB budget, the line refused.
        let huge = FileHandle(forWritingAtPath: dir + "/aether-tui/aether-tui.conf")
        try huge?.truncate(atOffset: 0)
        huge?.write(Data("volume=40\n".utf8))
        let chunk = Data(repeating: UInt8(ascii: "v"), count: 1 << 20)
        for _ in 0..<50 { huge?.write(chunk) }
        huge?.write(Data("=1\n".utf8))
        try huge?.close()
        r = PlayerRuns.play(config: dir, timeout: 15)
        #expect(!r.timedOut)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "aether-tui: warning: aether-tui.conf: larger than 1 MiB; the rest is left out\n", "\(r.stderr)")

        // Many bad lines: a few shown, then how many more.
        text = (0..<5000).map { "bad\($0)=1\n" }.joined()
        try text.write(toFile: dir + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        r = PlayerRuns.play(config: dir, timeout: 15)
        #expect(!r.timedOut && r.status == 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 21 && lines.last == "aether-tui: warning: aether-tui.conf: … and 4980 more warnings", "\(lines.suffix(2))")
    }

    @Test func aBadOptionExitsWithStatusOne() {
        for args in [["--volme=3"], ["--volume=500"], ["--vo=nope"], ["--speed"]] {
            let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("sine-1k.mkv"), "--ao=null"] + args, timeout: 10)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
            #expect(!r.stderr.isEmpty)
        }
        #expect(Process.run([TestEnvironment.binary, "--help"], timeout: 10).status == 0)
    }

    @Test func playlistsThatNameThemselvesAndLinkLoopsStartAtOnce() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = TestEnvironment.fixture("sine-1k.mkv")
        // Ten times itself, then the clip: 10^8 expansions before.
        try (String(repeating: "self.m3u\n", count: 10) + clip + "\n").write(toFile: dir + "/self.m3u", atomically: true, encoding: .utf8)
        var r = Process.run([TestEnvironment.binary, dir + "/self.m3u", "--vo=null", "--ao=null", "--length=0.2"], timeout: 15)
        #expect(!r.timedOut)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("self.m3u': playlist already expanded (it includes itself?), left out"), "\(r.stderr)")

        // A directory holding the clip and ten links to itself.
        let tree = dir + "/tree"
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: clip, toPath: tree + "/a.mkv")
        for i in 0..<10 { try FileManager.default.createSymbolicLink(atPath: "\(tree)/l\(i)", withDestinationPath: tree) }
        r = Process.run([TestEnvironment.binary, tree, "--vo=null", "--ao=null", "--length=0.2"], timeout: 15)
        #expect(!r.timedOut)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("directory already expanded"), "\(r.stderr)")
    }

    @Test func aMillionEntryPlsStartsAtOnceAndIsCut() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = TestEnvironment.fixture("sine-1k.mkv")
        // Short entries: the list stays under the 16 MiB a playlist may have.
        try FileManager.default.copyItem(atPath: clip, toPath: dir + "/a")
        var text = "[playlist]\n"
        text.reserveCapacity(15 << 20)
        for i in 1...1_000_000 { text += "File\(i)=a\n" }
        try text.write(toFile: dir + "/big.pls", atomically: false, encoding: .utf8)
        let stats = dir + "/stats.jsonl"
        let r = Process.run([TestEnvironment.binary, dir + "/big.pls", "--vo=null", "--ao=null", "--length=0.1",
                             "--stats-file", stats], timeout: 8)
        #expect(r.stderr.contains("more than 100000 entries; the rest is left out"), "\(r.stderr.prefix(500))")
        let summaries = ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").components(separatedBy: "\"summary\"").count - 1
        #expect(summaries >= 2, "items played in 8 s: \(summaries) (the list took 65 s to start before)")
    }

    /// How many items have ended so far, by the player's `--log-file` (`[player …] stopped`).
    static func ended(_ log: String) -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "] stopped").count - 1
    }

    @Test func keysAnswerInTheTUIWithAMillionEntryPls() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("h264-720p.mkv"), toPath: dir + "/a")
        var text = "[playlist]\n"
        text.reserveCapacity(15 << 20)
        for i in 1...1_000_000 { text += "File\(i)=a\n" }
        try text.write(toFile: dir + "/big.pls", atomically: false, encoding: .utf8)
        let log = dir + "/log"
        let s = try TmuxSession([TestEnvironment.binary, dir + "/big.pls", "--ao=null", "--length=0.4", "--log-file=\(log)"],
                                columns: 100, rows: 30,
                                environment: ["XDG_CONFIG_HOME": dir, "XDG_STATE_HOME": dir + "/state", "TERM": "screen-256color"])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains(" / 00:12") && s.display("#{alternate_on}") == "1" }, "not up: \(s.screen())")
        // Past the first items: two have ended (the log's `stopped`).
        #expect(waitUntil(10, interval: 0.05) { Self.ended(log) >= 2 }, "the first items never ended: \(s.screen())")
        s.send("q")
        #expect(s.waitFor(3) { $0.contains("EXIT=0") }, "q unanswered: \(s.screen())")
    }

    /// A playable first item, then 100 000 that are missing: at its end the player skips the
    /// missing ones in one go, and q still answers (it took 33 s); the errors are summed up.
    @Test func qAnswersWhileSkippingAHundredThousandMissingItems() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("h264-720p.mkv"), toPath: dir + "/a.mkv")
        var text = "a.mkv\n"
        text.reserveCapacity(2 << 20)
        for i in 1...100_000 { text += "missing-\(i).mkv\n" }
        try text.write(toFile: dir + "/list.m3u", atomically: false, encoding: .utf8)
        let log = dir + "/log"
        let s = try TmuxSession([TestEnvironment.binary, dir + "/list.m3u", "--ao=null", "--length=0.5", "--log-file=\(log)"],
                                columns: 100, rows: 30,
                                environment: ["XDG_CONFIG_HOME": dir, "XDG_STATE_HOME": dir + "/state", "TERM": "screen-256color"])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains(" / 00:12") }, "not up: \(s.screen())")
        // Past the first item's end (the log's `stopped`): skipping.
        #expect(waitUntil(10, interval: 0.05) { Self.ended(log) >= 1 }, "the first item never ended: \(s.screen())")
        s.send("q")
        #expect(s.waitFor(3) { $0.contains("EXIT=") }, "q unanswered while skipping: \(s.screen())")
        let errorLines = s.lines().filter { $0.contains("No such file") }.count
        #expect(errorLines <= 20, "\(errorLines) error lines")
    }

    @Test func aWatchLaterEntryOutOfRangeIsIgnored() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = TestEnvironment.fixture("sine-1k.mkv")
        let store = WatchLater(directory: dir + "/state/aether-tui/watch_later")
        try store.save(WatchLater.Entry(start: 0), for: clip)
        try "start=1e300\nvolume=1e300\naid=99999999999999999999\n".write(toFile: store.path(for: clip), atomically: true, encoding: .utf8)
        let r = PlayerRuns.play(config: dir, timeout: 15)
        #expect(!r.timedOut)
        #expect(r.status == 0, "start=1e300 crashed every start of the file: \(r.status) \(r.stderr)")
    }

    @Test func anIPCClientThatSendsTwoCommandsAndClosesHasBothRun() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"),
                                                        "--vo=null", "--ao=null", "--pause", "--input-ipc-server=\(socket)"])
        let observer = try IPCTestClient(path: socket, timeout: 15)
        #expect(observer.request(#"{"command":["observe_property",1,"speed"]}"#)?["error"] as? String == "success")
        #expect(observer.request(#"{"command":["observe_property",2,"volume"]}"#)?["error"] as? String == "success")
        do {
            let client = try IPCTestClient(path: socket)
            client.send(bytes: Array(#"{"command":["set_property","volume",37]}"#.utf8) + [0x0A]
                        + Array(#"{"command":["set_property","speed",1.5]}"#.utf8) + [0x0A])
        }   // closed here, before the first reply
        #expect(observer.waitForEvent(timeout: 5) { $0["id"] as? Int == 1 && $0["data"] as? Double == 1.5 } != nil,
                "the second command was lost")
        // A last line with no newline before the close runs too.
        do {
            let client = try IPCTestClient(path: socket)
            client.send(bytes: Array(#"{"command":["set_property","volume",55]}"#.utf8))
        }
        #expect(observer.waitForEvent(timeout: 5) { $0["id"] as? Int == 2 && $0["data"] as? Double == 55 } != nil,
                "the unterminated last line was lost")
        // A line past the budget (1 MiB): one error reply, then the connection closes.
        let flood = try IPCTestClient(path: socket)
        flood.send(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) + 70_000))
        #expect(flood.readObject()?["error"] as? String == "line too long")
        #expect(flood.closedByServer())
        // The server is still there.
        #expect(observer.request(#"{"command":["get_property","volume"]}"#)?["data"] as? Double == 55)
        #expect(observer.request(#"{"command":["quit"]}"#)?["error"] as? String == "success")
        let r = try #require(player.wait())
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func configAndInputConfErrorsShowOnTheMessageLineAtStart() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "volume=40\nvolme=3\n".write(toFile: dir + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        try "BADKEY quit\n".write(toFile: dir + "/aether-tui/input.conf", atomically: true, encoding: .utf8)
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--ao=null"], columns: 100, rows: 30,
                                environment: ["XDG_CONFIG_HOME": dir, "XDG_STATE_HOME": dir + "/state", "TERM": "screen-256color"])
        defer { s.close() }
        // Before, they were printed only on the normal screen, seen once the player had gone.
        // Read on the player's own (alternate) screen: the first with the transport bar up, the
        // next one 4 s later (the bar has hidden by then).
        #expect(s.waitFor(6) { $0.contains("aether-tui.conf:2: unknown option 'volme'") && $0.contains(" / 00:12")
                               && s.display("#{alternate_on}") == "1" }, "\(s.screen())")
        #expect(s.waitFor(8) { $0.contains("input.conf:1: unknown key 'BADKEY'") && s.display("#{alternate_on}") == "1" },
                "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }
}
