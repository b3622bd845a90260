import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--input-ipc-server`: the real player, driven over its socket as an mpv script would.
@Suite(.serialized) struct IPCEndToEndTests {
    @Test func headlessScriptPausesSeeksReadsAndQuits() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let clip = TestEnvironment.fixture("h264-720p.mkv")
        // A permissive umask must not widen the socket.
        let player = BackgroundPlayer(["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\"", TestEnvironment.binary, clip,
                                       "--vo=null", "--ao=null", "--input-ipc-server=\(socket)"])
        let client = try IPCTestClient(path: socket, timeout: 15)
        var st = stat()
        #expect(lstat(socket, &st) == 0 && st.st_mode & 0o7777 == 0o600, "mode \(String(st.st_mode & 0o7777, radix: 8))")

        // The socket is up before the file is open: wait for it as a script does, by observing.
        #expect(client.request(#"{"command":["observe_property",9,"duration"]}"#)?["error"] as? String == "success")
        let duration = client.waitForEvent(timeout: 15) { $0["id"] as? Int == 9 && !($0["data"] is NSNull) }
        #expect(duration?["data"] as? Double ?? 0 > 11)
        #expect(client.request(#"{"command":["get_property","filename"],"request_id":1}"#) as NSDictionary?
                == ["data": "h264-720p.mkv", "request_id": 1, "error": "success"])
        #expect(client.request(#"{"command":["observe_property",1,"pause"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Bool == false)

        #expect(client.request(#"{"command":["set_property","pause",true]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Bool == true)
        #expect(client.request(#"{"command":["seek",5,"absolute"],"request_id":2}"#) as NSDictionary?
                == ["data": NSNull(), "request_id": 2, "error": "success"])
        let position = client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double
        #expect(position.map { abs($0 - 5) < 0.1 } == true, "time-pos \(String(describing: position))")
        // Still there a moment later: paused.
        usleep(300_000)   // measurement window: paused, time-pos must stay
        let later = client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double
        #expect(later.map { abs($0 - 5) < 0.1 } == true, "time-pos \(String(describing: later))")

        // An input.conf line: no reply, but the observer sees it.
        client.send("cycle pause")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Bool == false)
        #expect(client.request(#"{"command":["get_property","nonsense"]}"#)?["error"] as? String == "property not found")
        #expect(client.request("{not json")?["error"] as? String == "invalid parameter")

        #expect(client.request(#"{"command":["quit"],"request_id":3}"#) as NSDictionary?
                == ["data": NSNull(), "request_id": 3, "error": "success"])
        #expect(client.waitForEvent { $0["event"] as? String == "shutdown" } != nil)
        #expect(client.closedByServer())
        let r = try #require(player.wait())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir)) == [])
    }

    /// The seeks of issue 48 (6) over the socket, on x264's default GOP (keyframes at 0, 10 and
    /// 20 s): `seek 5` from 2 s lands on the keyframe at 10 (mpv: 11.02 a second later; we went
    /// back to 0), `seek 5 relative exact` and `--hr-seek=yes` land on the target, and an
    /// absolute seek is exact.
    @Test func aForwardSeekOverTheSocketNeverLandsBehind() throws {
        let clip = TestEnvironment.fixture("h264-longgop.mp4")
        for (extra, command, expected) in [([String](), #"["seek",5]"#, 10.0), ([], #"["seek",5,"relative+exact"]"#, 7),
                                           (["--hr-seek=yes"], #"["seek",5]"#, 7), ([], #"["seek",14,"absolute"]"#, 14),
                                           (["--hr-seek=no"], #"["seek",14,"absolute"]"#, 10)] {
            let dir = PlayerRuns.socketDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let socket = dir + "/mpv.sock"
            let player = BackgroundPlayer([TestEnvironment.binary, clip, "--vo=null", "--ao=null", "--start=2", "--pause",
                                           "--input-ipc-server=\(socket)"] + extra)
            let client = try IPCTestClient(path: socket, timeout: 15)
            #expect(client.request(#"{"command":["observe_property",1,"duration"]}"#)?["error"] as? String == "success")
            _ = client.waitForEvent(timeout: 15) { $0["id"] as? Int == 1 && !($0["data"] is NSNull) }
            #expect(client.request(#"{"command":\#(command)}"#)?["error"] as? String == "success")
            var position: Double?
            let settled = waitUntil(5, interval: 0.05) {
                position = client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double
                return position.map { abs($0 - expected) < 0.05 } == true
            }
            #expect(settled, "\(extra) \(command): time-pos \(String(describing: position)), expected \(expected)")
            _ = client.request(#"{"command":["quit"]}"#)
            #expect(player.wait()?.status == 0)
        }
    }

    @Test func theTerminalPlayerAnswersTooAndItsKeysReachObservers() throws {
        #expect(TestEnvironment.requirePulse())
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/tui.sock"
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        let tui = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--audio-device=pulse",
                                   "--input-ipc-server=\(socket)"], environment: env)
        defer { tui.close() }
        #expect(tui.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(tui.screen())")
        let client = try IPCTestClient(path: socket, timeout: 10)
        var st = stat()
        #expect(lstat(socket, &st) == 0 && st.st_mode & 0o7777 == 0o600)

        #expect(client.request(#"{"command":["observe_property",1,"pause"]}"#)?["error"] as? String == "success")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Bool == false)
        // Commands over the socket show on the screen …
        #expect(client.request(#"{"command":["set_property","pause",true]}"#)?["error"] as? String == "success")
        #expect(tui.waitFor(3) { $0.contains("‖") }, "IPC pause did not show:\n\(tui.screen())")
        #expect(client.request(#"{"command":["seek",7,"absolute"]}"#)?["error"] as? String == "success")
        #expect(tui.waitFor(3) { PlayerRuns.time(in: $0) == 7 }, "IPC seek did not show:\n\(tui.screen())")
        let position = client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double
        #expect(position.map { abs($0 - 7) < 0.1 } == true, "time-pos \(String(describing: position))")
        // … and keys reach the socket's observers.
        #expect(client.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Bool == true)
        tui.send("space")
        #expect(client.waitForEvent { $0["id"] as? Int == 1 }?["data"] as? Bool == false)

        #expect(client.request(#"{"command":["quit"]}"#)?["error"] as? String == "success")
        #expect(tui.waitFor(5) { $0.contains("EXIT=0") }, "quit over IPC did not end the player:\n\(tui.screen())")
        #expect(tui.display("#{alternate_on}") == "0", "alternate screen left on")
        #expect(client.closedByServer())
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func aSocketThatCannotBeMadeIsOneWarning() throws {
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let occupied = dir + "/notes.txt"
        FileManager.default.createFile(atPath: occupied, contents: Data("keep".utf8))
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--vo=null", "--ao=null",
                             "--length=0.5", "--input-ipc-server=\(occupied)"], timeout: 20)
        #expect(r.status == 0)
        #expect(r.stderr == "aether-tui: warning: --input-ipc-server: \(occupied): exists and is not a socket; not replacing it\n")
        #expect(FileManager.default.contents(atPath: occupied) == Data("keep".utf8))
    }
}
