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

    /// Half-block cells in the frames tab's picture (its left part, below the tab bar).
    static func pictureCells(_ screen: String) -> Int {
        screen.components(separatedBy: "\n").dropFirst(2).prefix(20)
            .map { $0.prefix(60).filter { $0 == "▀" || $0 == "▄" || $0 == "█" }.count }.reduce(0, +)
    }

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
        #expect(s.waitFor(5) { $0.contains("1a 45 df a3") }, "no hex view:\n\(s.screen())")
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
        // The picture follows the frame's text (the still is drawn by the output on its next pass).
        #expect(s.waitFor(5) { Self.pictureCells($0) > 100 }, "no picture cells:\n\(s.screen())")
        s.send(".")
        #expect(s.waitFor(10) { $0.contains("pts 1042") && !$0.contains("picture I") }, "step forward:\n\(s.screen())")
        s.send(",")
        #expect(s.waitFor(10) { $0.contains("pts 1000") && $0.contains("picture I") }, "step back:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { !$0.contains("Container") }, "q did not quit:\n\(s.screen())")
    }

    /// The issue's walk on an MP4: open, expand `moov`, the packets tab, jump to 00:05, the
    /// frame drawn in half blocks, keyframes only, quit.
    @Test func mp4MoovPacketsJumpToFiveSecondsAndFrame() throws {
        let file = TestEnvironment.fixture("inspect-8s.mp4")
        // ffprobe's own count and keyframe times: the tab must agree.
        let probe = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts_time,flags", "-of", "csv=p=0", file])
        let packets = probe.stdout.split(separator: "\n")
        // The flags field is "K_" on ffprobe 5.1 and "K__" from 6.1 on (D, then C): its first letter counts.
        let videoKeys = packets.filter { $0.hasPrefix("0,") && $0.split(separator: ",").last?.first == "K" }.count
        try #require(packets.count > 300 && videoKeys == 8, "ffprobe: \(packets.count) packets, \(videoKeys) video keyframes")
        let s = try start([file])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("1 Container") && $0.contains("▸ moov") }, "no container tab:\n\(s.screen())")
        // ffmpeg writes moov last (no faststart): End selects it.
        s.send("End", "Right")
        #expect(s.waitFor(5) { $0.contains("▾ moov") && $0.contains("mvhd") && $0.contains("trak") }, "moov did not open:\n\(s.screen())")
        s.send("2")
        #expect(s.waitFor(10) { $0.contains("\(packets.count) of \(packets.count) packets") }, "packets not read:\n\(s.screen())")
        s.send("s")
        #expect(s.waitFor(5) { $0.contains("filter: stream #0") })
        s.send("g", "0", ":", "0", "5", "Enter")
        #expect(s.waitFor(5) { screen in
            screen.components(separatedBy: "\n").contains { $0.contains("5.000000    5.000000") && $0.contains("K__") }
        }, "no keyframe at 00:05 shown:\n\(s.screen())")
        // Keyframes only: the video's 8 keyframes (one a second), every row flagged K.
        s.send("K")
        #expect(s.waitFor(5) { $0.contains("keyframes only") }, "K did not filter:\n\(s.screen())")
        let rows = s.screen().components(separatedBy: "\n").filter { $0.range(of: #"^\S*\s+\d+\s+0\s+\d+\.\d{6}"#, options: .regularExpression) != nil }
        #expect(rows.count == videoKeys && rows.allSatisfy { $0.contains("K__") }, "keyframe rows:\n\(rows.joined(separator: "\n"))")
        // The columns line up under the header (the byte position right-aligned under `pos`).
        let screen = s.screen().components(separatedBy: "\n")
        let header = try #require(screen.first { $0.contains("pos flags") })
        func column(_ line: String, _ text: String) -> Int? { line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) } }
        #expect(rows.allSatisfy { column($0, " K__") == column(header, " flags") }, "columns:\n\(header)\n\(rows.joined(separator: "\n"))")
        s.send("K")
        #expect(s.waitFor(5) { !$0.contains("keyframes only") })
        s.send("Enter")
        #expect(s.waitFor(10) { $0.contains("picture I") && $0.contains("5.000000 s") }, "frame at 00:05 not shown:\n\(s.screen())")
        // The picture follows the frame's text (the still is drawn by the output on its next pass).
        #expect(s.waitFor(5) { Self.pictureCells($0) > 100 }, "no picture cells:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { !$0.contains("Container") }, "q did not quit:\n\(s.screen())")
    }

    /// `` ` `` opens the inspector over a playing film (the same screen), the film plays on under
    /// the live tab, and Esc gives the picture back.
    @Test func backtickOpensTheInspectorOverAPlayingFilm() throws {
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("inspect-8s.mp4"), "--audio-device=pulse", "--vo=halfblock"],
                                columns: 120, rows: 40, environment: Self.env)
        defer { s.close() }
        func cells(_ screen: String) -> Int {
            screen.components(separatedBy: "\n").prefix(30).map { $0.filter { $0 == "▀" || $0 == "▄" || $0 == "█" }.count }.reduce(0, +)
        }
        #expect(s.waitFor(10) { cells($0) > 500 }, "no picture:\n\(s.screen())")
        s.send("`")
        #expect(s.waitFor(5) { $0.contains("1 Container") && $0.contains("▸ moov") }, "` did not open the inspector:\n\(s.screen())")
        s.send("4")
        #expect(s.waitFor(10) { screen in
            screen.contains("video packets") && cells(screen) > 200
                && (screen.range(of: #"(\d+) decoded"#, options: .regularExpression).map { Int(screen[$0].split(separator: " ")[0]) ?? 0 } ?? 0) > 24
        }, "live tab over the playing film:\n\(s.screen())")
        s.send("Escape")
        #expect(s.waitFor(5) { !$0.contains("video packets") && !$0.contains("Container") && cells($0) > 500 }, "Esc:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { cells($0) == 0 }, "q did not quit:\n\(s.screen())")
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

    /// #62 item 15: numbers are JSON numbers (no thousands separator inside JSON), and a track
    /// header shows its transformation matrix and the rotation it asks for, as ffprobe reads it.
    @Test func jsonNumbersAndTheTrackMatrix() throws {
        let file = TestEnvironment.fixture("frames-rotate90.mp4")
        let r = Process.run([TestEnvironment.binary, "inspect", "--json", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.range(of: #""value":"-?\d{1,3}(,\d{3})+""#, options: .regularExpression) == nil, "a grouped number in JSON")
        let tkhd = try #require(try JSONSerialization.jsonObject(with: Data(Process.run([TestEnvironment.binary, "inspect", "--json", file,
                                                                                        "moov/trak[1]/tkhd"]).stdout.utf8)) as? [String: Any])
        let fields = (tkhd["fields"] as? [[String: Any]]) ?? []
        func field(_ name: String) -> Any? { fields.first { $0["name"] as? String == name }?["value"] }
        #expect(field("duration") is Int, "\(fields)")
        let ffprobe = Process.run(["/usr/bin/ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream_side_data=rotation",
                                   "-of", "csv=p=0", file]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let degrees = ((Int(ffprobe) ?? 0) % 360 + 360) % 360
        #expect(degrees != 0 && field("rotation") as? String == "\(degrees)° counter-clockwise", "ffprobe \(ffprobe): \(fields)")
        #expect((field("matrix") as? String)?.hasSuffix("; 0 0 1") == true, "\(fields)")
    }

    /// A DASH manifest's events (issue 33, item 2): `inspect --json` on an .mpd lists them under
    /// Events in time order, with their scheme (a name, never fetched) and sanitised message.
    @Test func aManifestsEventsInTimeOrder() throws {
        let manifest = try String(contentsOfFile: TestEnvironment.fixture("net/dash-vod/manifest.mpd"), encoding: .utf8)
            .replacingOccurrences(of: "<AdaptationSet id=\"0\"", with: """
                <EventStream schemeIdUri="urn:scte:scte35:2013:xml" value="1" timescale="1000"><Event presentationTime="9000" id="2">ad&#x1b;]0;x&#x7;break</Event><Event presentationTime="1500" id="1"/></EventStream>
                <AdaptationSet id="0"
                """)
        let file = NSTemporaryDirectory() + "aether-events-\(UUID().uuidString).mpd"
        try manifest.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = Process.run([TestEnvironment.binary, "inspect", "--json", file, "Events"])
        #expect(r.status == 0, "\(r.stderr)")
        let node = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let events = (node?["children"] as? [[String: Any]]) ?? []
        #expect(events.map { $0["name"] as? String } == ["Event 1", "Event 2"], "\(r.stdout.prefix(400))")
        let fields = (events.last?["fields"] as? [[String: String]]) ?? []
        #expect(fields.first { $0["name"] == "time" }?["value"] == "9.000 s")
        #expect(fields.first { $0["name"] == "message" }?["value"] == "adbreak", "\(fields)")
        #expect(!r.stdout.contains("\u{1b}"))
    }
}
