import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// What a new user meets first over the network (issue 32). Tier: network.
@Suite struct NewUserNetworkTests {
    /// A DASH stream read by our reader is said to be DASH (item 12): IPC `file-format` (and the
    /// stats box's container line, from the same MediaInfo), not the HLS it is translated to for
    /// libavformat.
    @Test func aDASHStreamSaysDASH() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/mpv.sock"
        let player = BackgroundPlayer([TestEnvironment.binary, server.url("dash-abr/manifest.mpd"), "--vo=null", "--ao=null", "--pause",
                                       "--input-ipc-server=\(socket)"], timeout: 60)
        let client = try IPCTestClient(path: socket, timeout: 15)
        #expect(waitUntil(15, interval: 0.05) { client.request(#"{"command":["get_property","duration"]}"#)?["data"] is Double },
                "the stream did not open")
        #expect(client.request(#"{"command":["get_property","file-format"]}"#)?["data"] as? String == "dash")
        _ = client.request(#"{"command":["quit"]}"#)
        #expect(player.wait()?.status == 0)
    }
}

/// After a bit-rate switch the player reports the variant it plays (issue 32, item 3): `width`,
/// `video-params`, `hls-bitrate`, the stats box's Video line and the bar's badge give the top
/// variant's 640×360 once its frames play, and a screenshot is a 640×360 PNG, not the size of
/// the variant playback started on. Tier: network.
@Suite struct PlayingVariantTests {
    @Test func theFactsFollowTheSwitch() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shots = PlayerRuns.temp("shots")
        defer { try? FileManager.default.removeItem(atPath: (shots as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let env = ["TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        // Starts on the lowest variant (the assumed throughput before any measurement) and
        // switches up once the first segment is measured (the stats file says so below).
        let s = try TmuxSession([TestEnvironment.binary, server.url("hls-abr/master.m3u8"), "--ao=null", "--vo=halfblock",
                                 "--input-ipc-server=\(dir)/s.sock", "--screenshot-directory=\(shots)", "--stats-file=\(dir)/stats.jsonl"],
                                columns: 120, rows: 40, environment: env)
        defer { s.close() }
        let client = try IPCTestClient(path: dir + "/s.sock", timeout: 15)
        func property(_ name: String) -> Any? { client.request(#"{"command":["get_property","\#(name)"]}"#)?["data"] }
        #expect(waitUntil(30, interval: 0.1) { property("hls-bitrate") as? Double == 3_600_000 && property("width") as? Double == 640 },
                "never on the top variant's frames: hls-bitrate \(String(describing: property("hls-bitrate"))), width \(String(describing: property("width")))\n\(s.screen())")
        let params = property("video-params") as? [String: Any]
        #expect(params?["w"] as? Double == 640 && params?["h"] as? Double == 360, "video-params \(String(describing: params))")
        #expect(s.waitFor(5) { $0.contains("640×360") }, "the bar's badge is not the playing size:\n\(s.screen())")
        s.send("I")
        #expect(s.waitFor(5) { screen in screen.split(separator: "\n").contains { $0.contains("Video") } && screen.contains("640×360") },
                "the stats do not say the playing size:\n\(s.screen())")
        #expect(client.request(#"{"command":["screenshot","video"]}"#)?["error"] as? String == "success")
        var png: String?
        #expect(waitUntil(20, interval: 0.1) {
            png = ((try? FileManager.default.contentsOfDirectory(atPath: shots)) ?? []).first { $0.hasSuffix(".png") }
            return png != nil && s.screen().contains("screenshot: ")
        }, "no screenshot:\n\(s.screen())")
        let size = try png.map { try Self.pngSize(shots + "/" + $0) }
        #expect(size?.width == 640 && size?.height == 360, "the screenshot is \(String(describing: size))")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") }, "no exit:\n\(s.screen())")
        let stats = (try? String(contentsOfFile: dir + "/stats.jsonl", encoding: .utf8)) ?? ""
        #expect(stats.contains(#""fromVariant":1"#) && stats.contains(#""toVariant":3"#), "no switch from the lowest to the top:\n\(stats.prefix(600))")
    }

    /// A PNG's size from its IHDR.
    static func pngSize(_ path: String) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        try #require(bytes.count == 24)
        func be(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }
}

/// A web page reaches yt-dlp however a server sends it (issue 32, item 10): Python's
/// http.server (HTTP/1.0), a body that ends when the connection closes (no length), no type,
/// chunked; a small page and a large one. Playback plays what the page names, and `probe`
/// reads it too. yt-dlp (real, offline) asks only the loopback server. Tier: network.
@Suite struct PagesAsServedTests {
    @Test func everyWayAPageIsServedGoesToYtdlp() throws {
        let dir = PlayerRuns.temp("site")
        let site = (dir as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: site) }
        let made = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-y", "-i", TestEnvironment.fixture("video-only.mkv"),
                                "-t", "2", "-c", "copy", "-movflags", "+faststart", site + "/clip.mp4"], timeout: 60)
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let small = #"<!DOCTYPE html><html><head><title>clip</title></head><body><video src="clip.mp4"></video></body></html>"#
        try small.write(toFile: site + "/small.html", atomically: true, encoding: .utf8)
        let filler = String(repeating: "<p>words words words words words words words words</p>\n", count: 20_000)   // about 1 MB
        try (#"<!DOCTYPE html><html><head><title>big</title></head><body><video src="clip.mp4"></video>"# + filler + "</body></html>")
            .write(toFile: site + "/large.html", atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", TestEnvironment.scripts.appendingPathComponent("page_server.py").path, site]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        let port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(Int(port) != nil, "no port from page_server.py: '\(port)'")
        for (way, page) in [("plain", "small.html"), ("nolength", "small.html"), ("notype", "small.html"), ("chunked", "small.html"),
                            ("nolength", "large.html"), ("chunked", "large.html")] {
            let url = "http://127.0.0.1:\(port)/\(way)/\(page)"
            let (r, summaries) = try PlayerRuns.headless([url, "--length=0.5"], timeout: 60)
            #expect(r.status == 0 && (summaries.first?.frames.presented ?? 0) > 0, "\(way) \(page): exit \(r.status), \(r.stderr)")
        }
        let probe = Process.run([TestEnvironment.binary, "probe", "http://127.0.0.1:\(port)/plain/small.html"], timeout: 60)
        #expect(probe.status == 0 && probe.stdout.contains("h264"), "probe: \(probe.stdout)\(probe.stderr)")
    }
}
