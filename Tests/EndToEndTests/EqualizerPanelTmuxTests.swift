import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The equalizer's panel and property in the real binary (#63), in tmux: `e` opens it, the arrows
/// move a band and `p` steps through the presets, each change is the `equalizer` property the
/// IPC reads, a change over the IPC shows on the panel (and, closed, in the music view), and the
/// last choice is kept for the
/// device: the next start plays it, over the config file's, and `--equalizer` on the command
/// line wins over it. Tier: cli.
@Suite(.serialized) struct EqualizerPanelTmuxTests {
    /// A state and a config directory of the test's own.
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("aether-eqp-\(UUID().uuidString.prefix(8))").path

    private func start(_ args: [String], socket: String) throws -> TmuxSession {
        try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("lyrics-song.flac"), "--ao=null", "--vo=halfblock",
                         "--input-ipc-server=\(socket)"] + args,
                        columns: 110, rows: 36,
                        environment: ["TERM": "screen-256color", "COLORTERM": "truecolor",
                                      "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config"])
    }

    private func equalizer(_ client: IPCTestClient) -> String? {
        client.request(#"{"command":["get_property","equalizer"]}"#)?["data"] as? String
    }

    @Test func thePanelChangesTheEqualizerAndTheDeviceKeepsIt() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var s = try start([], socket: dir + "/a.sock")
        var client = try IPCTestClient(path: dir + "/a.sock", timeout: 10)
        #expect(s.waitFor(8) { $0.contains("vol 100%") }, "\(s.screen())")
        s.send("e")
        #expect(s.waitFor(5) { $0.contains("Equalizer: flat · preamp +0.0 dB") }, "\(s.screen())")
        s.send("Right", "Right", "Up", "Up", "Up")
        #expect(s.waitFor(5) { $0.contains("Equalizer: bands · preamp -3.0 dB") }, "\(s.screen())")
        #expect(waitUntil(5) { equalizer(client) == "bands:0,0,3,0,0,0,0,0,0,0" }, "\(equalizer(client) ?? "nil")")
        s.send("p")
        s.send("p")
        #expect(waitUntil(5) { equalizer(client) == "bass" }, "from bands, p goes to flat and then to the first preset: \(equalizer(client) ?? "nil")")
        #expect(s.waitFor(5) { $0.contains("Equalizer: bass") && $0.contains("+6") }, "\(s.screen())")
        // Set over the IPC: the panel follows.
        _ = client.request(#"{"command":["set_property","equalizer","vocal"]}"#)
        #expect(s.waitFor(5) { $0.contains("Equalizer: vocal") }, "\(s.screen())")
        let bad = client.request(#"{"command":["set_property","equalizer","loud"]}"#)
        #expect(bad?["error"] as? String != nil && bad?["error"] as? String != "success", "refused: \(String(describing: bad))")
        #expect(equalizer(client) == "vocal", "a bad value changes nothing")
        // Closed, the music view names it beside the stream's format.
        s.send("e")
        #expect(s.waitFor(5) { $0.contains("· EQ vocal -5.3 dB") && !$0.contains("Equalizer: vocal") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
        s.close()
        let kept = try String(contentsOfFile: home + "/state/aether-tui/equalizer", encoding: .utf8)
        #expect(kept == "null\tvocal\n", "kept for the device: \(kept)")

        // The next start on the device plays it, over the config file's.
        try FileManager.default.createDirectory(atPath: home + "/config/aether-tui", withIntermediateDirectories: true)
        try "equalizer=speech\n".write(toFile: home + "/config/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        s = try start([], socket: dir + "/b.sock")
        client = try IPCTestClient(path: dir + "/b.sock", timeout: 10)
        #expect(waitUntil(5) { equalizer(client) == "vocal" }, "\(equalizer(client) ?? "nil")")
        s.send("q")
        s.close()
        // The command line wins.
        s = try start(["--equalizer=treble"], socket: dir + "/c.sock")
        client = try IPCTestClient(path: dir + "/c.sock", timeout: 10)
        #expect(waitUntil(5) { equalizer(client) == "treble" }, "\(equalizer(client) ?? "nil")")
        s.send("q")
        s.close()
    }
}
