import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// How a network source fails (network tier): the cause named in one line with the URL, the
/// exit status of its own (5), and the time spent bounded by `--network-timeout`, one budget
/// over every reconnect, not one per attempt or per segment.
@Suite struct ServerFaultTests {
    static var root: String { NetworkTests.root }

    /// The request paths the server has answered so far.
    static func paths(_ server: LoopbackHTTP) -> [String] {
        ((try? server.requests()) ?? []).compactMap { $0["path"] as? String }
    }

    /// An HLS stream whose server dies at its third segment: the player gives up within the
    /// budget (a few seconds of cache, then `--network-timeout`), not after segment on segment
    /// of retries (50 s and more before), and says why: the connection was refused.
    @Test func aServerThatDiesEndsWithItsCauseWithinTheBudget() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let url = server.url("hls-vod/master.m3u8")
        let player = BackgroundPlayer([TestEnvironment.binary, url, "--vo=null", "--ao=null", "--hls-bitrate=min",
                                       "--cache-secs=3", "--network-timeout=3"], timeout: 90)
        #expect(waitUntil(30, interval: 0.05) { Self.paths(server).contains { $0.hasSuffix("seg002.ts") } },
                "the stream never got to its third segment")
        server.stop()
        let killed = Date()
        let r = try #require(player.wait(timeout: 80))
        let took = Date().timeIntervalSince(killed)
        #expect(r.status == 5, "exit \(r.status): \(r.stderr)")
        #expect(took < 12, "gave up \(took) s after the server died (3 s of cache, then 3 s without a byte)")
        let lines = NetworkTests.errorLines(r)
        #expect(lines.count == 1, "\(lines)")
        let line = lines.first ?? ""
        #expect(line.contains("Connection refused") && line.contains("--network-timeout") && line.contains("127.0.0.1"), "\(line)")
        #expect(!line.contains("truncated?"), "\(line)")
    }

    /// While it reconnects, the transport bar says the count and the time left.
    @Test func theBarShowsTheReconnectsAndTheTimeLeft() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let session = try TmuxSession([TestEnvironment.binary, server.url("hls-vod/master.m3u8"), "--ao=null", "--vo=halfblock",
                                       "--hls-bitrate=min", "--cache-secs=2", "--network-timeout=8"], columns: 100, rows: 30)
        defer { session.close() }
        #expect(session.waitFor(20) { $0.contains("00:01 /") }, "never played:\n\(session.screen())")
        session.send("o")  // pin the transport bar
        server.stop()
        #expect(session.waitFor(20) { $0.range(of: #"reconnecting \(\d+, \d\.\d s left\)"#, options: .regularExpression) != nil },
                "no count and time left:\n\(session.screen())")
    }

    /// Each cause at the open, named, with exit status 5: nothing listening, an https URL on a
    /// port that does not speak TLS, an HTTP error.
    @Test func eachCauseAtTheOpenIsNamed() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        // A port nothing listens on: a listener bound and closed.
        let closed = try LoopbackHTTP(root: Self.root)
        let deadPort = closed.port
        closed.stop()
        let cases: [(String, String)] = [
            ("http://127.0.0.1:\(deadPort)/clip.mp4", "Connection refused"),
            ("https://127.0.0.1:\(server.port)/progressive.mp4", "TLS handshake with '127.0.0.1' failed"),
            (server.url("missing.mp4"), "404"),
        ]
        for (url, says) in cases {
            let (r, _) = try NetworkTests.headless([url], timeout: 30)
            #expect(r.status == 5, "\(url): exit \(r.status): \(r.stderr)")
            let lines = NetworkTests.errorLines(r)
            #expect(lines.count == 1 && lines[0].contains(says) && lines[0].contains(url), "\(url): \(lines)")
        }
    }

    /// A status libavformat would not name ("4XX Client Error, but not one of 40{0,1,3,4}")
    /// is said exactly, from our own exchange; still exit status 5.
    @Test func anHTTPStatusIsSaidExactly() throws {
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "gone\\.mp4$", "status": 410}]"#)
        defer { server.stop() }
        let url = server.url("gone.mp4")
        let (r, _) = try NetworkTests.headless([url], timeout: 30)
        #expect(r.status == 5, "exit \(r.status): \(r.stderr)")
        #expect(NetworkTests.errorLines(r) == ["aether-tui: cannot open '\(url)': HTTP 410 Gone"], "\(NetworkTests.errorLines(r))")
    }

    /// `http_proxy` is libavformat's: the request goes to the proxy in absolute form (a host
    /// that does not resolve is reached through it), unless `no_proxy` names the host.
    @Test func anHTTPProxyGetsTheWholeURL() throws {
        let proxy = try LoopbackHTTP(root: Self.root)
        defer { proxy.stop() }
        let url = "http://media.invalid/progressive.mp4"
        let r = Process.run(["/usr/bin/env", "http_proxy=http://127.0.0.1:\(proxy.port)", "no_proxy=localhost",
                             TestEnvironment.binary, url, "--vo=null", "--ao=null", "--length=0.5"], timeout: 30)
        #expect(Self.paths(proxy).contains(url), "the proxy was asked for \(Self.paths(proxy))")
        #expect(!r.stderr.contains("resolve"), "\(r.stderr)")
        let skipped = Process.run(["/usr/bin/env", "http_proxy=http://127.0.0.1:\(proxy.port)", "no_proxy=.invalid",
                                   TestEnvironment.binary, url, "--vo=null", "--ao=null", "--length=0.5"], timeout: 30)
        #expect(skipped.status == 5 && skipped.stderr.contains("cannot resolve host 'media.invalid'"), "\(skipped.stderr)")
        #expect(Self.paths(proxy).count == 1, "\(Self.paths(proxy))")
    }

    /// Python's http.server (the commonest ad-hoc file server) serves no byte ranges; an MP4
    /// whose index is at its end (ffmpeg's and phones' default) plays from it by reading
    /// forward, within --demuxer-max-bytes, and past that budget says so in one line. Before:
    /// "Invalid data found when processing input", as mpv.
    @Test func anIndexAtTheEndPlaysFromAServerWithoutRanges() throws {
        let file = TestEnvironment.fixture("h264-longgop.mp4")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let moov = try #require(bytes.indices.dropLast(4).first { bytes[$0..<$0 + 4].elementsEqual("moov".utf8) })
        try #require(moov > bytes.count / 2, "the fixture's index is not at its end")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                            "--directory", (file as NSString).deletingLastPathComponent]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        var said = ""
        _ = waitUntil(10, interval: 0.05) {
            said += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            return said.contains(" port ")
        }
        let port = try #require(said.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) }, "\(said)")
        let url = "http://127.0.0.1:\(port)/h264-longgop.mp4"
        let (r, summaries) = try PlayerRuns.headless([url, "--start=2", "--length=1"], timeout: 60)
        #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        #expect((summaries.first?.frames.presented ?? 0) >= 20, "\(summaries.first.map { "\($0.frames)" } ?? "no summary")")
        let (refused, _) = try PlayerRuns.headless([url, "--demuxer-max-bytes=1MiB"], timeout: 60)
        #expect(refused.status == 1, "exit \(refused.status)")
        #expect(NetworkTests.errorLines(refused) == ["aether-tui: cannot open '\(url)': the server does not serve byte ranges, and byte \(moov - 4) is past --demuxer-max-bytes (1 MiB read from its start)"],
                "\(refused.stderr)")
    }
}
