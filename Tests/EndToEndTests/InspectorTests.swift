import AetherTestSupport
import Foundation
import Testing

/// `aether-tui inspect` in the real binary, in tmux at 120×40 with half-block output: the
/// container tree, the packets tab's jump, the frames tab's picture and steps, the live tab's
/// queues, and `--json` with node paths.
@Suite(.serialized) struct InspectorTests {
    init() {
        #expect(TestEnvironment.requirePulse())
    }

    private static let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor"]

    private func start(_ args: [String]) throws -> TmuxSession {
        try TmuxSession([TestEnvironment.binary, "inspect"] + args + ["--audio-device=pulse", "--vo=halfblock"],
                        columns: 120, rows: 40, environment: Self.env)
    }

    /// Open, expand the Segment, the packets tab, jump to 00:01, the frame drawn in half blocks,
    /// a step forward and back, quit with the terminal restored.
    @Test func containerPacketsFramesAndQuit() throws {
        let s = try start([TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("1 Container") && $0.contains("▸ Segment") }, "no container tab:\n\(s.screen())")
        // The hex view shows the EBML magic of the first node.
        #expect(s.screen().contains("1a 45 df a3"))
        s.send("Down", "Right")
        #expect(s.waitFor(5) { $0.contains("▾ Segment") && $0.contains("Tracks") && $0.contains("Cluster") }, "Segment did not open:\n\(s.screen())")
        s.send("Left", "2")
        // Every packet (ffprobe counts the same 478 packets in this file, see ProbeTests).
        #expect(s.waitFor(10) { $0.contains("478 of 478 packets") }, "packets not read:\n\(s.screen())")
        s.send("s")   // stream #0, the video
        #expect(s.waitFor(5) { $0.contains("filter: stream #0") })
        s.send("g", "1", "Enter")
        #expect(s.waitFor(5) { screen in
            screen.components(separatedBy: "\n").contains { $0.contains("1.000000    1.000000") }
        }, "no packet at 1 s shown:\n\(s.screen())")
        s.send("Enter")
        #expect(s.waitFor(10) { $0.contains("picture I") && $0.contains("pts 1000") }, "frame of the 1 s keyframe not shown:\n\(s.screen())")
        // The picture: half-block cells in the frames tab's left part.
        let picture = s.screen().components(separatedBy: "\n").dropFirst(2).prefix(20)
            .map { $0.prefix(60).filter { $0 == "▀" || $0 == "▄" || $0 == "█" }.count }.reduce(0, +)
        #expect(picture > 100, "no picture cells:\n\(s.screen())")
        s.send(".")
        #expect(s.waitFor(10) { $0.contains("pts 1042") && !$0.contains("picture I") }, "step forward:\n\(s.screen())")
        s.send(",")
        #expect(s.waitFor(10) { $0.contains("pts 1000") && $0.contains("picture I") }, "step back:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { !$0.contains("Container") }, "q did not quit:\n\(s.screen())")
    }

    /// The live tab plays the file and shows the queues filling and frames decoded.
    @Test func liveTabShowsTheQueuesWhilePlaying() throws {
        let s = try start(["--tab", "live", TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")])
        defer { s.close() }
        #expect(s.waitFor(10) { screen in
            screen.contains("video packets") && screen.contains("frames") && screen.contains("decode")
                && (screen.range(of: #"(\d+) decoded"#, options: .regularExpression).map { Int(screen[$0].split(separator: " ")[0]) ?? 0 } ?? 0) > 10
        }, "no live figures:\n\(s.screen())")
        s.send("Escape")
        #expect(s.waitFor(5) { !$0.contains("video packets") })
        s.send("q")
    }

    /// `--json` with a node path; a path that names nothing is one line and status 1.
    @Test func jsonNodePaths() throws {
        let file = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        let whole = Process.run([TestEnvironment.binary, "inspect", "--json", file])
        #expect(whole.status == 0)
        let tree = try JSONSerialization.jsonObject(with: Data(whole.stdout.utf8)) as? [String: Any]
        #expect(tree?["format"] as? String == "matroska")
        let tracks = Process.run([TestEnvironment.binary, "inspect", "--json", file, "Segment/Tracks"])
        #expect(tracks.status == 0)
        let node = try JSONSerialization.jsonObject(with: Data(tracks.stdout.utf8)) as? [String: Any]
        #expect(node?["name"] as? String == "Tracks")
        #expect((node?["children"] as? [[String: Any]])?.filter { $0["name"] as? String == "TrackEntry" }.count == 5)  // ffprobe: 5 streams
        let missing = Process.run([TestEnvironment.binary, "inspect", "--json", file, "Segment/Tracks[2]"])
        #expect(missing.status == 1)
        #expect(missing.stderr.split(separator: "\n").count == 1 && missing.stderr.contains("Tracks[2]"))
        let badIndex = Process.run([TestEnvironment.binary, "inspect", "--json", file, "Segment[1e300]"])
        #expect(badIndex.status == 1 && badIndex.stderr.split(separator: "\n").count == 1)
        let bad = Process.run([TestEnvironment.binary, "inspect", "--json", "/nonexistent.mkv"])
        #expect(bad.status == 1 && bad.stderr.split(separator: "\n").count == 1)
    }
}
