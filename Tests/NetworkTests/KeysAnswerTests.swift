import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Keys always answer: `q` and `Q` (and `quit` over IPC) act at once while a source is opening
/// on a server that stops sending, while the next item opens, and while playback is stalled.
/// Figures (issue 19): a bound of 100 ms is the goal; these tests allow 300 ms for a busy CI
/// machine and print what they saw.
@Suite(.serialized) struct KeysAnswerTests {
    /// The fixtures behind the fault proxy; every `.mkv` stalls for good after `after` bytes.
    static func stallingServer(after bytes: Int) throws -> LoopbackHTTP {
        try LoopbackHTTP(root: TestEnvironment.fixtureDirectory.path,
                         rules: #"[{"path": "\\.mkv$", "stall_after": \#(bytes), "stall_seconds": 1e9}]"#)
    }

    /// Runs the player in a pty (Tests/Scripts/stalled_pty.py, which never stops reading here),
    /// sends `before` after `warmup` seconds, then `key` after `beforeWait` more; the JSON report.
    static func pty(_ arguments: [String], key: String, warmup: Double, before: String? = nil,
                    beforeWait: Double = 1.5) throws -> [String: Any] {
        let script = TestEnvironment.scripts.appendingPathComponent("stalled_pty.py").path
        var args = ["/usr/bin/python3", script, "--stall", "0", "--warmup", String(warmup), "--key", key]
        if let before { args += ["--before", before, "--before-wait", String(beforeWait)] }
        let r = Process.run(args + ["--", TestEnvironment.binary, "--ao=null"] + arguments, timeout: 40)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                            "\(r.stdout) \(r.stderr)")
    }

    /// Whether an established TCP connection to 127.0.0.1:`port` exists (/proc/net/tcp).
    static func connected(to port: Int) -> Bool {
        let remote = String(format: ":%04X", port)
        return readToEnd("/proc/net/tcp").split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[2].hasSuffix(remote) && fields[3] == "01"
        }
    }

    static func expectPromptExit(_ json: [String: Any], _ what: String) {
        let seconds = json["exit_seconds"] as? Double
        #expect(json["status"] as? Int == 0, "\(what): \(json)")
        #expect(seconds.map { $0 < 0.3 } == true, "\(what): \(json)")
        #expect(json["canonical"] as? Bool == true && json["echo"] as? Bool == true, "\(what): modes not restored: \(json)")
        print("keys-answer \(what): exit \(String(format: "%.0f", (seconds ?? -1) * 1000)) ms after the key")
    }

    @Test(arguments: ["q", "Q"]) func quitWhileTheFirstItemOpens(key: String) throws {
        let server = try Self.stallingServer(after: 100)
        defer { server.stop() }
        let json = try Self.pty([server.url("/h264-720p.mkv")], key: key, warmup: 2)
        Self.expectPromptExit(json, "\(key) while opening")
        // The screen came up while it opened (after a moment: #60), and went at the quit.
        #expect(json["left_alternate_screen"] as? Bool == true, "\(json)")
    }

    /// The bound on an answer seen on a tmux pane: the key's effect drawn and tmux's capture
    /// polled (31–139 ms here; before #60 the keys but `q` waited for the open's deadline, 15 s).
    static let paneAnswer = 500.0

    /// Waits for `text` on the pane after sending `key`; the milliseconds it took (nil: never within 5 s).
    static func answer(_ tui: TmuxSession, _ key: String, shows text: String) -> Double? {
        let sent = MonotonicClock.seconds()
        tui.send(key)
        guard tui.waitFor(5, { $0.contains(text) }) else { return nil }
        return (MonotonicClock.seconds() - sent) * 1000
    }

    /// #60 item 2: while the next item opens on a server that never answers, the screen names
    /// the open and its time, `?` shows the keys, `<` goes back to the item before and plays it
    /// (mpv's way), and `q` quits: each within the bound (measured from the key to the pane
    /// showing its effect, so tmux's capture is in the figure too).
    @Test func keysAnswerWhileTheNextItemOpens() throws {
        let server = try Self.stallingServer(after: 100)
        defer { server.stop() }
        let url = server.url("/h264-720p.mkv")
        let name = url.replacingOccurrences(of: "http://", with: "")
        let tui = try TmuxSession([TestEnvironment.binary, "--ao=null", "--vo=halfblock", "--length=2", "--no-config",
                                   TestEnvironment.fixture("h264-aac.flv"), url], columns: 140, rows: 40)
        defer { tui.close() }
        #expect(tui.waitFor(10) { $0.contains("opening \(name) · ") && $0.contains("q to quit") }, "the open is not named:\n\(tui.screen())")
        let help = Self.answer(tui, "?", shows: "Keys")
        #expect(help.map { $0 < Self.paneAnswer } == true, "? while the next item opens: \(String(describing: help)) ms\n\(tui.screen())")
        tui.send("Escape")
        let back = Self.answer(tui, "<", shows: "1/2 h264-aac.flv")
        #expect(back.map { $0 < Self.paneAnswer } == true, "< while the next item opens: \(String(describing: back)) ms\n\(tui.screen())")
        // The item before plays (its clock moves), and on to the stalled one again at its end.
        #expect(tui.waitFor(5) { $0.contains("00:01 / ") }, "the item before did not play:\n\(tui.screen())")
        #expect(tui.waitFor(10) { $0.contains("opening \(name) · ") }, "\(tui.screen())")
        let quit = Self.answer(tui, "q", shows: "EXIT=0")
        #expect(quit.map { $0 < Self.paneAnswer } == true, "q while the next item opens: \(String(describing: quit)) ms\n\(tui.screen())")
        print("keys-answer while the next item opens: ? \(help.map { Int($0) } ?? -1) ms, < \(back.map { Int($0) } ?? -1) ms, q \(quit.map { Int($0) } ?? -1) ms")
    }

    /// #60 item 2: started on a server that never answers, the screen comes up after a moment
    /// and names what opens, counting the seconds; the keys answer meanwhile.
    @Test func aFirstItemThatStallsGetsTheScreenAndItsName() throws {
        let server = try Self.stallingServer(after: 100)
        defer { server.stop() }
        let url = server.url("/h264-720p.mkv")
        let name = url.replacingOccurrences(of: "http://", with: "")
        let tui = try TmuxSession([TestEnvironment.binary, "--ao=null", "--vo=halfblock", "--no-config", url], columns: 140, rows: 40)
        defer { tui.close() }
        #expect(tui.waitFor(5) { $0.contains("opening \(name) · 1 s · q to quit") }, "\(tui.screen())")
        #expect(tui.waitFor(5) { $0.contains("opening \(name) · 2 s · q to quit") }, "the seconds do not count:\n\(tui.screen())")
        let help = Self.answer(tui, "?", shows: "Keys")
        #expect(help.map { $0 < Self.paneAnswer } == true, "? while the first item opens: \(String(describing: help)) ms")
        let quit = Self.answer(tui, "q", shows: "EXIT=0")
        #expect(quit.map { $0 < Self.paneAnswer } == true, "q while the first item opens: \(String(describing: quit)) ms\n\(tui.screen())")
    }

    /// #60 items 1 and 2: the inspector's container tab reads its document on a thread of its
    /// own. Opened over a URL whose server stops answering once the film plays, the tab says it
    /// reads, and the keys answer meanwhile: Esc closes it (the read cancelled), `` ` `` opens
    /// it again, `q` quits. Before, the loop waited in the read for the network's deadline.
    @Test func keysAnswerWhileTheInspectorReads() throws {
        let server = try LoopbackHTTP(root: TestEnvironment.fixtureDirectory.path)
        defer { server.stop() }
        let url = server.url("/h264-720p.mkv")
        let tui = try TmuxSession([TestEnvironment.binary, "--ao=null", "--vo=halfblock", "--no-config", "--pause",
                                   "--network-timeout=60", url], columns: 140, rows: 40)
        defer { tui.close() }
        #expect(tui.waitFor(10) { $0.contains("00:00 / 00:") }, "the film did not open:\n\(tui.screen())")
        // From now on every new request for the film stalls after its first bytes.
        try server.setRules(#"[{"path": "\\.mkv$", "stall_after": 100, "stall_seconds": 1e9}]"#)
        let open = Self.answer(tui, "`", shows: "reading \(url) …")
        #expect(open.map { $0 < Self.paneAnswer } == true, "` over a stalled read: \(String(describing: open)) ms\n\(tui.screen())")
        let close = MonotonicClock.seconds()
        tui.send("Escape")
        #expect(tui.waitFor(5) { !$0.contains("reading \(url)") && !$0.contains("1 Container") }, "Esc while it reads:\n\(tui.screen())")
        let closed = (MonotonicClock.seconds() - close) * 1000
        #expect(closed < Self.paneAnswer, "Esc while the inspector reads: \(Int(closed)) ms")
        let again = Self.answer(tui, "`", shows: "reading \(url) …")
        #expect(again.map { $0 < Self.paneAnswer } == true, "` again: \(String(describing: again)) ms\n\(tui.screen())")
        let quit = Self.answer(tui, "q", shows: "EXIT=0")
        #expect(quit.map { $0 < Self.paneAnswer } == true, "q while the inspector reads: \(String(describing: quit)) ms\n\(tui.screen())")
        print("keys-answer while the inspector reads: ` \(open.map { Int($0) } ?? -1) ms, Esc \(Int(closed)) ms, ` \(again.map { Int($0) } ?? -1) ms, q \(quit.map { Int($0) } ?? -1) ms")
    }

    // MARK: on the pty, without a multiplexer: #60's 100 ms

    /// Runs the player on a pty read all the time (Tests/Scripts/key_answer_pty.py) until
    /// `ready` shows, then sends `keys` (`K=TEXT`: the key and what shows it) and `q`; the report.
    static func keysOnThePty(_ arguments: [String], ready: String, keys: [String]) throws -> [String: Any] {
        let script = TestEnvironment.scripts.appendingPathComponent("key_answer_pty.py").path
        let r = Process.run(["/usr/bin/python3", script, "--ready", ready] + keys.flatMap { ["--key", $0] }
                            + ["--", TestEnvironment.binary, "--ao=null", "--vo=halfblock", "--no-config"] + arguments, timeout: 90)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout) \(r.stderr)")
    }

    /// The keys a user tries in any state: the help, Esc, pinning the bar, the stats.
    static let everyState = ["?=Keys", "Escape", "o=transport bar pinned", "I=Stats"]

    /// Each key's effect was written within 100 ms of the key (#60: "within 100 ms on the pty"),
    /// and `q` ended the player with status 0 within the exit's bound; prints what it saw.
    static func expectAnswers(_ json: [String: Any], _ state: String, keys: Int) {
        #expect(json["ready"] as? Bool == true, "\(state): never reached: \(json["screen_tail"] ?? "")")
        let answers = json["answers"] as? [[String: Any]] ?? []
        #expect(answers.count == keys, "\(state): \(json)")
        for answer in answers {
            let ms = answer["ms"] as? Double
            // (A wait for what the player says on its own is no key: it showed, at any time.)
            if answer["key"] as? String == "" {
                #expect(ms != nil, "\(state): \(answer["text"] ?? "") never showed: \(json["screen_tail"] ?? "")")
                continue
            }
            #expect(ms.map { $0 < 100 } == true, "\(state): \(answer["key"] ?? "") took \(String(describing: ms)) ms: \(json["screen_tail"] ?? "")")
        }
        let exit = json["exit_ms"] as? Double
        #expect(json["status"] as? Int == 0 && exit.map { $0 < 300 } == true, "\(state): q: \(json)")
        print("keys-answer on the pty \(state) (reached after \(String(format: "%.1f", json["ready_seconds"] as? Double ?? -1)) s): " + answers.map { ($0["key"] as? String == "" ? "'\($0["text"] ?? "")' shown after" : "\($0["key"] ?? "")") + " \($0["ms"] ?? "-") ms" }.joined(separator: ", ")
              + ", q \(exit ?? -1) ms to the exit")
    }

    /// An item opens on a server that stops after 100 bytes: the open is named, and every key
    /// answers on the pty within 100 ms.
    @Test func onThePtyKeysAnswerWhileAnItemOpens() throws {
        let server = try Self.stallingServer(after: 100)
        defer { server.stop() }
        let json = try Self.keysOnThePty([server.url("/h264-720p.mkv")], ready: "opening ", keys: Self.everyState)
        Self.expectAnswers(json, "while an item opens", keys: 3)
    }

    /// Playback stalls: the server stops sending after 400 kB and the player waits for the
    /// cache, saying so (`buffering…`); every key answers within 100 ms.
    @Test func onThePtyKeysAnswerWhilePlaybackStalls() throws {
        let server = try Self.stallingServer(after: 120_000)
        defer { server.stop() }
        let json = try Self.keysOnThePty(["--network-timeout=3", server.url("/h264-720p.mkv")], ready: "buffering…", keys: Self.everyState)
        Self.expectAnswers(json, "while playback stalls", keys: 3)
    }

    /// An item fails: its server answers 503 to every request. While the player tries again
    /// the keys answer within 100 ms; then it names the failure and plays the next item.
    @Test func onThePtyKeysAnswerWhileAnItemFails() throws {
        let server = try LoopbackHTTP(root: TestEnvironment.fixtureDirectory.path, rules: #"[{"path": "\\.mkv$", "status": 503}]"#)
        defer { server.stop() }
        let json = try Self.keysOnThePty(["--network-timeout=3", server.url("/h264-720p.mkv"), TestEnvironment.fixture("h264-aac.flv")],
                                         ready: "opening ", keys: Self.everyState + ["=503", "=h264-aac.flv", "?=Keys"])
        Self.expectAnswers(json, "while an item fails", keys: 6)
    }

    /// During a scrub whose thumbnails come from a server that has stopped sending: the keys
    /// answer within 100 ms while the thumbnail's read waits, and `q` ends the player at once
    /// (the thumbnails' reader is interrupted, not waited for: it took 2 s before).
    @Test func onThePtyKeysAnswerDuringAScrub() throws {
        let server = try Self.stallingServer(after: 120_000)
        defer { server.stop() }
        let json = try Self.keysOnThePty(["--network-timeout=3", server.url("/h264-720p.mkv"), "--pause"], ready: "00:00 / ",
                                         keys: ["b=scrub: Enter seeks", "Right", "?=Keys", "o=transport bar pinned", "I=Stats"])
        Self.expectAnswers(json, "during a scrub", keys: 4)
    }

    @Test func quitWhileTheNextItemOpens() throws {
        let server = try Self.stallingServer(after: 100)
        defer { server.stop() }
        let json = try Self.pty([TestEnvironment.fixture("h264-720p.mkv"), server.url("/h264-720p.mkv")],
                                key: "q", warmup: 2, before: ">", beforeWait: 2)
        Self.expectPromptExit(json, "q while the next item opens")
        #expect(json["left_alternate_screen"] as? Bool == true, "\(json)")
    }

    @Test func quitWhilePlaybackIsStalled() throws {
        // Enough bytes to open and start; then nothing more: the demuxer waits on the network.
        let server = try Self.stallingServer(after: 400_000)
        defer { server.stop() }
        let json = try Self.pty([server.url("/h264-720p.mkv"), "--cache=no"], key: "q", warmup: 5)
        Self.expectPromptExit(json, "q while stalled")
    }

    @Test func ipcQuitWhileALoadfileOpens() throws {
        let server = try Self.stallingServer(after: 100)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"),
                                                        "--vo=null", "--ao=null", "--input-ipc-server=\(socket)"])
        let client = try IPCTestClient(path: socket, timeout: 15)
        #expect(client.request(#"{"command":["observe_property",1,"duration"]}"#)?["error"] as? String == "success")
        _ = client.waitForEvent(timeout: 15) { $0["id"] as? Int == 1 && !($0["data"] is NSNull) }
        client.send(#"{"command":["loadfile","\#(server.url("/h264-720p.mkv"))"]}"#)
        client.send(#"{"command":["playlist-next"]}"#)
        // The load under way: a connection to the stalling server is up (its log has a request
        // only once it is answered, never here).
        let port = try #require(URL(string: server.url("/h264-720p.mkv"))?.port)
        #expect(waitUntil(10, interval: 0.02) { Self.connected(to: port) }, "the loadfile never reached the server")
        let sent = MonotonicClock.seconds()
        client.send(#"{"command":["quit"]}"#)
        let r = player.wait(timeout: 20)
        let seconds = MonotonicClock.seconds() - sent
        #expect(r?.status == 0, "\(String(describing: r?.stderr))")
        #expect(seconds < 0.5, "quit over IPC took \(seconds) s while a load was stalled")
        print("keys-answer IPC quit while opening: \(String(format: "%.0f", seconds * 1000)) ms")
    }
}
