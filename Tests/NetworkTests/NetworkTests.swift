import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Network sources through the real binary against a real HTTP server on loopback
/// (`range_http.py`) behind the suite's fault proxy (`fault_proxy.py`): progressive HTTP with
/// Range, HLS (variants, AES-128), DASH, dropped and stalled connections, 4xx/5xx, bad hosts,
/// hostile playlists, and standard input. Media: `Tests/Fixtures/make-network-fixtures.sh`.
@Suite(.serialized) struct NetworkTests {
    static var root: String { (TestEnvironment.fixture("net/progressive.mp4") as NSString).deletingLastPathComponent }
    /// progressive.mp4: 20 s, 24 fps.
    static let progressiveFrames = 480
    static let progressiveBytes = 1_556_461

    static func headless(_ arguments: [String], timeout: Double = 40) throws -> (ProcessResult, [PlaybackSummary]) {
        try PlayerRuns.headless(arguments, timeout: timeout)
    }

    static func errorLines(_ r: ProcessResult) -> [String] {
        r.stderr.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// The first byte a request asked for (its Range start; 0 without one).
    static func rangeStart(_ request: [String: Any]) -> Int {
        guard let range = request["range"] as? String, range.hasPrefix("bytes=") else { return 0 }
        return Int(range.dropFirst(6).split(separator: "-").first ?? "0") ?? 0
    }

    @Test func aFileOverHTTPPlaysAndSeeks() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("progressive.mp4"), "--start=12", "--length=3"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(abs(summary.mediaSeconds - 3) < 0.3, "played \(summary.mediaSeconds) s")
        #expect(summary.startPosition == 12)
        #expect(summary.framesPresented >= 60)
        #expect(summary.endedEarly == nil)
        // The index is at the front: the seek to 12 s is one Range request into the file.
        let requests = try server.requests().filter { ($0["path"] as? String) == "/progressive.mp4" }
        #expect(requests.contains { Self.rangeStart($0) > Self.progressiveBytes / 3 }, "no Range request past the start: \(requests.map { $0["range"] ?? "" })")
    }

    @Test func headersGoWithEveryRequestSegmentsAndSidecarsToo() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("hls-vod/master.m3u8"), "--sub-file", server.url("progressive.srt"),
                                        "--length=5", "--http-header-fields", "X-Aether-Test: net-7, X-Second: two",
                                        "--user-agent", "aether-test/1", "--referrer", "http://ref.example/"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 4 } == true)
        let requests = try server.requests()
        let paths = requests.compactMap { $0["path"] as? String }
        #expect(paths.contains { $0.hasSuffix(".m3u8") } && paths.contains { $0.hasSuffix(".ts") } && paths.contains { $0.hasSuffix(".srt") },
                "\(paths)")
        for request in requests {
            let headers = request["headers"] as? [String: String] ?? [:]
            #expect(headers["X-Aether-Test"] == "net-7" && headers["X-Second"] == "two", "\(request["path"] ?? "?") without the headers: \(headers)")
            #expect(headers["User-Agent"] == "aether-test/1" && headers["Referer"] == "http://ref.example/", "\(request["path"] ?? "?"): \(headers)")
        }
    }

    @Test func aConnectionDroppedAt40PercentIsRecoveredWithNoFrameLost() throws {
        let drop = Self.progressiveBytes * 4 / 10
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "progressive\\.mp4$", "times": 1, "drop_after": \#(drop)}]"#)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("progressive.mp4"), "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.endedEarly == nil)
        #expect(summary.framesDecoded == Self.progressiveFrames, "decoded \(summary.framesDecoded)")
        #expect(summary.framesPresented + summary.framesDropped == Self.progressiveFrames)
        #expect((summary.networkRetries ?? 0) >= 1)
        #expect(summary.networkBytes == Int64(Self.progressiveBytes), "bytes \(String(describing: summary.networkBytes))")
        let requests = try server.requests()
        let cut = try #require(requests.firstIndex { ($0["cut"] as? Bool) == true }, "no request was cut")
        // The next request resumes where the bytes stopped (some may die in the socket with the reset).
        let resumed = requests[(cut + 1)...].map(Self.rangeStart)
        #expect(resumed.contains { $0 > 0 && $0 <= drop }, "resumed at \(resumed), dropped after \(drop)")
    }

    @Test func aStalledServerShowsBufferingAndPlaybackRecovers() throws {
        let stall = Self.progressiveBytes * 3 / 10
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "progressive\\.mp4$", "times": 1, "stall_after": \#(stall), "stall_seconds": 3}]"#)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("progressive.mp4"), "--speed=4", "--cache-secs=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect((summary.rebuffers ?? 0) >= 1, "no rebuffer")
        #expect(summary.framesDecoded == Self.progressiveFrames)
        #expect(summary.endedEarly == nil)
        #expect(summary.networkRetries == 0, "a 3 s stall is within the 10 s read deadline")
    }

    @Test func theTransportBarSaysBufferingWhileTheServerStalls() throws {
        let stall = Self.progressiveBytes / 10  // about 2 s in
        // Every request stalls once, 10 % into its body (the TUI's first request only reads the index),
        // for 6 s: the playhead gets there long before the stall ends.
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "progressive\\.mp4$", "stall_after": \#(stall), "stall_seconds": 6}]"#)
        defer { server.stop() }
        let session = try TmuxSession([TestEnvironment.binary, server.url("progressive.mp4"), "--ao=null", "--vo=halfblock", "--cache-secs=2"],
                                      columns: 100, rows: 30)
        defer { session.close() }
        // The chrome, hidden while the picture plays, comes back to say so.
        #expect(session.waitFor(10) { $0.contains("buffering…") }, "never buffering:\n\(session.screen())")
        session.send("o")  // pin the transport bar, to watch the clock after the stall
        // Then it plays on past the stall.
        #expect(session.waitFor(20) { !$0.contains("buffering…") && ($0.contains("00:05 /") || $0.contains("00:06 /")) },
                "did not recover:\n\(session.screen())")
    }

    @Test func aServerStalledPastTheDeadlineEndsWithOneClearLine() throws {
        let stall = Self.progressiveBytes * 3 / 10
        let server = try LoopbackHTTP(root: Self.root, rules: #"""
            [{"path": "progressive\\.mp4$", "times": 1, "stall_after": \#(stall), "stall_seconds": 1e9},
             {"path": "progressive\\.mp4$", "status": 503}]
            """#)
        defer { server.stop() }
        let start = Date()
        let (r, s) = try Self.headless([server.url("progressive.mp4"), "--network-timeout=1", "--network-retries=2"])
        #expect(r.status != 0)
        #expect(Date().timeIntervalSince(start) < 20)
        let lines = Self.errorLines(r)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first.map { $0.contains("read error") && $0.contains("gave up after 2 retries") } == true, "\(lines)")
        #expect(s.first?.endedEarly != nil)
    }

    @Test(arguments: [("missing.mp4", "[]", "404"), ("progressive.mp4", #"[{"status": 403}]"#, "403")])
    func httpErrorsEndWithOneClearLine(path: String, rules: String, code: String) throws {
        let server = try LoopbackHTTP(root: Self.root, rules: rules)
        defer { server.stop() }
        let start = Date()
        let (r, _) = try Self.headless([server.url(path)])
        #expect(r.status != 0)
        #expect(Date().timeIntervalSince(start) < 5, "a 4xx is not retried")
        let lines = Self.errorLines(r)
        #expect(lines.count == 1 && lines[0].contains(code) && lines[0].contains(path), "\(lines)")
        #expect(try server.requests().count == 1, "retried a permanent error")
    }

    @Test func aHostThatDoesNotResolveEndsWithOneClearLine() throws {
        let (r, _) = try Self.headless(["http://aether-no-such-host.invalid/clip.mp4"], timeout: 20)
        #expect(r.status != 0)
        let lines = Self.errorLines(r)
        #expect(lines == ["aether-tui: cannot open 'http://aether-no-such-host.invalid/clip.mp4': cannot resolve host 'aether-no-such-host.invalid'"])
    }

    /// Which HLS variant directories the proxy saw segment requests for.
    static func variantsFetched(_ server: LoopbackHTTP) throws -> Set<String> {
        Set(try server.requests().compactMap { ($0["path"] as? String).flatMap { path -> String? in
            let parts = path.split(separator: "/")
            return parts.count == 3 && parts[2].hasSuffix(".ts") ? String(parts[1]) : nil
        } })
    }

    @Test(arguments: [("min", "v0"), ("max", "v2"), ("800k", "v1")])
    func hlsBitrateFetchesOnlyTheChosenVariant(choice: String, variant: String) throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("hls-vod/master.m3u8"), "--hls-bitrate=\(choice)", "--length=6"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 5 } == true)
        #expect(try Self.variantsFetched(server) == [variant])
    }

    /// Separate audio renditions (English, French) are audio tracks; `--alang` chooses, and once
    /// playing only the chosen rendition and variant are fetched (libavformat reads one segment
    /// of each to probe it).
    @Test(arguments: [("eng", "English", "Francais", 1), ("fra", "Francais", "English", 2)])
    func hlsAudioRenditionsAreTracks(language: String, chosen: String, other: String, track: Int) throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("hls-renditions/master.m3u8"), "--hls-bitrate=min", "--alang=\(language)", "--length=6"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.audioTrack == track)
        #expect(summary.mediaSeconds > 5)
        let segments = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasSuffix(".ts") }
        func count(_ dir: String) -> Int { segments.filter { $0.contains("/\(dir)/") }.count }
        #expect(count(chosen) >= 3 && count(other) <= 1, "\(chosen) \(count(chosen)), \(other) \(count(other))")
        #expect(count("2") >= 3 && count("3") <= 1, "low variant \(count("2")), high \(count("3"))")
    }

    @Test func dashPlaysTheChosenRepresentationOnly() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=min", "--length=8"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 7 } == true)
        let paths = try server.requests().compactMap { $0["path"] as? String }
        let low = paths.filter { $0.contains("chunk-stream0-") }.count
        let high = paths.filter { $0.contains("chunk-stream1-") }.count
        // Our reader: the translated master names the chosen representation only; the other is
        // never fetched, not even to probe it.
        #expect(low >= 4 && high == 0, "stream0 \(low) chunks, stream1 \(high)")
        #expect(!paths.contains("/dash-vod/init-stream1.m4s"), "\(paths)")
        // The playlists it made never reach the server.
        #expect(!paths.contains { $0.contains("aether-dash") }, "\(paths)")
    }

    /// A start in the middle of a DASH source through our reader: the HLS demuxer finds the
    /// segment from the translated playlist's timeline and fetches from there on.
    @Test func aDASHSourceStartsInTheMiddle() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=max", "--start=12", "--length=3"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.startPosition == 12)
        #expect(abs(summary.mediaSeconds - 3) < 0.3, "played \(summary.mediaSeconds) s")
        #expect(summary.framesPresented >= 60)
        let video = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasPrefix("/dash-vod/chunk-stream1-") }
        // The probe reads the first segment; then playback starts at segment 7 (12 s).
        #expect(video.contains("/dash-vod/chunk-stream1-00007.m4s") && !video.contains("/dash-vod/chunk-stream1-00004.m4s"), "\(video)")
    }

    /// lavf's dash demuxer, kept as the named fallback, still plays (and reads the first
    /// fragment of every representation to probe it).
    @Test func theLavfDashDemuxerIsTheNamedFallback() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let logFile = PlayerRuns.temp("lavf-dash.log")
        defer { try? FileManager.default.removeItem(atPath: (logFile as NSString).deletingLastPathComponent) }
        let (r, s) = try Self.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=min", "--length=6", "--demuxer-lavf-dash",
                                        "--log-file", logFile])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 5 } == true)
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        #expect(log.contains("[dash @"), "lavf's dash demuxer did not run")
        #expect(!log.contains("DASH through our reader"))
    }

    /// Every DASH request (manifest, init sections, segments) carries the headers, user agent
    /// and referrer: they go through our reader.
    @Test func dashSegmentsCarryTheHeadersAndUserAgent() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("dash-vod/manifest.mpd"), "--length=5", "--http-header-fields", "X-Aether-Test: dash-1",
                                        "--user-agent", "aether-test/2", "--referrer", "http://ref.example/d"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 4 } == true)
        let requests = try server.requests()
        let paths = requests.compactMap { $0["path"] as? String }
        #expect(paths.contains { $0.contains("init-stream2") } && paths.contains { $0.contains("chunk-stream2-") }, "no audio fetched: \(paths)")
        #expect(paths.filter { $0.contains("chunk-stream") }.count >= 4, "\(paths)")
        for request in requests {
            let headers = request["headers"] as? [String: String] ?? [:]
            #expect(headers["X-Aether-Test"] == "dash-1" && headers["User-Agent"] == "aether-test/2"
                    && headers["Referer"] == "http://ref.example/d", "\(request["path"] ?? "?"): \(headers)")
        }
    }

    /// A connection dropped in the middle of a DASH segment resumes at the byte where it
    /// stopped (a Range request), the segment's bytes arrive exactly once, and every frame plays.
    @Test func aDASHSegmentCutMidwayResumesAtTheByte() throws {
        let chunk = "dash-vod/chunk-stream1-00004.m4s"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.root + "/" + chunk)[.size] as? Int)
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "chunk-stream1-00004\\.m4s$", "times": 1, "drop_after": \#(size / 2)}]"#)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=max", "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.framesDecoded == Self.progressiveFrames, "decoded \(summary.framesDecoded)")
        #expect(summary.endedEarly == nil)
        #expect((summary.networkRetries ?? 0) >= 1)
        let requests = try server.requests().filter { ($0["path"] as? String) == "/" + chunk }
        #expect(requests.count == 2, "\(requests)")
        #expect(requests.first?["cut"] as? Bool == true)
        let resumedAt = requests.dropFirst().map(Self.rangeStart)
        #expect(resumedAt == [size / 2], "resumed at \(resumedAt), cut after \(size / 2)")
        let delivered = requests.compactMap { $0["bytes"] as? Int }.reduce(0, +)
        #expect(delivered == size, "\(delivered) bytes of a \(size)-byte segment")
    }

    /// A dynamic MPD generated here (`$Number$` segments of 2 s, `availabilityStartTime` 12.5 s
    /// ago: six segments available, one more every 2 s; the dash-number files), served on
    /// loopback: playback starts `--live-start-index` segments behind the live edge, the
    /// manifest is fetched again as the edge moves, and every segment comes through our reader.
    @Test func aLiveMPDStartsBehindTheEdgeAndIsFetchedAgain() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.root + "/dash-number") where name.hasSuffix(".m4s") {
            try FileManager.default.copyItem(atPath: Self.root + "/dash-number/" + name, toPath: dir + "/" + name)
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let start = formatter.string(from: Date().addingTimeInterval(-12.5))
        let template = #"<SegmentTemplate timescale="1000000" duration="2000000" startNumber="1" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s"/>"#
        let mpd = """
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="dynamic"
                 availabilityStartTime="\(start)" minimumUpdatePeriod="PT2S" timeShiftBufferDepth="PT30S" minBufferTime="PT2S">
              <Period id="0" start="PT0S">
                <AdaptationSet id="0" contentType="video">\(template)
                  <Representation id="1" mimeType="video/mp4" codecs="avc1.42c01e" bandwidth="540000" width="640" height="360"/>
                </AdaptationSet>
                <AdaptationSet id="1" contentType="audio" lang="eng">\(template)
                  <Representation id="2" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="96000"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        try mpd.write(toFile: dir + "/live.mpd", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("live.mpd"), "--live-start-index=-2", "--length=5", "--user-agent", "aether-live/1"],
                                       timeout: 40)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.framesDecoded >= 100, "decoded \(summary.framesDecoded)")
        let requests = try server.requests()
        let paths = requests.compactMap { $0["path"] as? String }
        let video = paths.filter { $0.hasPrefix("/chunk-stream1-") }
        // Six available, two back from the edge: the first is number 5; nothing before it.
        #expect(video.first == "/chunk-stream1-00005.m4s", "\(video)")
        #expect(!video.contains { ["00001", "00002", "00003", "00004"].contains(String($0.dropFirst(15).prefix(5))) }, "\(video)")
        #expect(video.contains("/chunk-stream1-00007.m4s"), "the edge did not move on: \(video)")
        #expect(paths.filter { $0 == "/live.mpd" }.count >= 2, "the manifest was not fetched again: \(paths)")
        #expect(requests.allSatisfy { ($0["headers"] as? [String: String])?["User-Agent"] == "aether-live/1" })
    }

    /// `$Time$` addressing: the dash-vod files renamed by their start times, the MPD's media
    /// template rewritten; every frame plays.
    @Test func aTimeAddressedTimelinePlaysEveryFrame() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var mpd = try String(contentsOfFile: Self.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        mpd = mpd.replacingOccurrences(of: "chunk-stream$RepresentationID$-$Number%05d$.m4s", with: "t$RepresentationID$-$Time%010d$.m4s")
        try mpd.write(toFile: dir + "/time.mpd", atomically: true, encoding: .utf8)
        let parsed = try DASHManifest.parse(mpd, base: "http://127.0.0.1/time.mpd")
        for rep in try #require(parsed.periods.first).adaptationSets.flatMap(\.representations) {
            try FileManager.default.copyItem(atPath: Self.root + "/dash-vod/init-stream\(rep.id).m4s", toPath: dir + "/init-stream\(rep.id).m4s")
            for (k, segment) in rep.segments.enumerated() {
                let name = (segment.resource.url as NSString).lastPathComponent
                #expect(name.hasPrefix("t\(rep.id)-") && name.count == "t0-0000000000.m4s".count, "\(name)")
                try FileManager.default.copyItem(atPath: Self.root + "/dash-vod/chunk-stream\(rep.id)-" + String(format: "%05d.m4s", k + 1),
                                                 toPath: dir + "/" + name)
            }
        }
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("time.mpd"), "--hls-bitrate=max", "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.framesDecoded == Self.progressiveFrames, "decoded \(summary.framesDecoded)")
        #expect(try server.requests().allSatisfy { ($0["status"] as? Int ?? 0) < 400 }, "a request failed")
    }

    @Test(arguments: ["hls-aes/index.m3u8", "dash-number/manifest.mpd"])
    func encryptedHLSAndNumberedDASHPlayEveryFrame(path: String) throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url(path), "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.framesDecoded == Self.progressiveFrames, "decoded \(summary.framesDecoded)")
        #expect(summary.endedEarly == nil)
    }

    @Test(arguments: ["hostile/passwd.m3u8", "hostile/passwd-master.m3u8", "hostile/remote-list.m3u"])
    func aRemotePlaylistCannotReadLocalFiles(path: String) throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url(path)], timeout: 20)
        #expect(r.status != 0)
        #expect(s.allSatisfy { $0.framesDecoded == 0 })
        #expect(!r.stdout.contains("root:") && !r.stderr.contains("root:"))
        #expect(Self.errorLines(r).count == 1, "\(r.stderr)")
    }

    @Test func aRemoteDASHManifestNamingALocalFileIsRefused() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var mpd = try String(contentsOfFile: Self.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        mpd = mpd.replacingOccurrences(of: "<Period", with: "<BaseURL>file:///etc/</BaseURL>\n<Period")
        try mpd.write(toFile: dir + "/evil.mpd", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let (r, _) = try Self.headless([server.url("evil.mpd")], timeout: 20)
        #expect(r.status != 0)
        #expect(Self.errorLines(r) == ["aether-tui: cannot open '\(server.url("evil.mpd"))': the manifest refers to 'file:///etc/' (a network source may only use http and https)"])
    }

    /// A remote MPD whose every timeline is hostile (a repeat count of a trillion) is refused by
    /// our parser before anything is expanded or fetched: one line naming the manifest and the
    /// first part left out and why, no segment requested. (One hostile representation among
    /// good ones is left out and the rest plays: DASHConformanceTests, DASHManifestTests.)
    @Test func aRemoteMPDWithAHostileTimelineIsRefusedInOneLine() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var mpd = try String(contentsOfFile: Self.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        mpd = DASHDownloadTests.everyTimeline(mpd, #"<S t="0" d="24576" r="1000000000000" />"#)
        try mpd.write(toFile: dir + "/huge.mpd", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let started = Date()
        let (r, _) = try Self.headless([server.url("huge.mpd")], timeout: 20)
        #expect(r.status != 0)
        #expect(Date().timeIntervalSince(started) < 10)
        let lines = Self.errorLines(r)
        #expect(lines.count == 1 && lines.first?.hasPrefix("aether-tui: cannot open '\(server.url("huge.mpd"))': the manifest has no video or audio representation with segments (representation '0' left out: 'S@r'") == true, "\(lines)")
        #expect(try server.requests().compactMap { $0["path"] as? String } == ["/huge.mpd"])
    }

    @Test func ctrlCInterruptsAStalledNetworkReadAtOnce() throws {
        let server = try LoopbackHTTP(root: Self.root, rules: #"[{"path": "progressive\\.mp4$", "stall_after": 200000, "stall_seconds": 1e9}]"#)
        defer { server.stop() }
        let player = Process()
        player.executableURL = URL(fileURLWithPath: TestEnvironment.binary)
        player.arguments = [server.url("progressive.mp4"), "--vo=null", "--ao=null", "--cache-secs=60"]
        player.standardOutput = FileHandle.nullDevice
        player.standardError = FileHandle.nullDevice
        try player.run()
        defer { if player.isRunning { kill(player.processIdentifier, SIGKILL); player.waitUntilExit() } }
        // Past the stall point, the demuxer (and, once the cache ran dry, playback) waits on the network.
        Thread.sleep(forTimeInterval: 4)   // measurement window: the 200 kB before the stall played out
        #expect(player.isRunning)
        let start = Date()
        kill(player.processIdentifier, SIGINT)
        _ = waitUntil(5, interval: 0.02) { !player.isRunning }
        let took = Date().timeIntervalSince(start)
        #expect(!player.isRunning && took < 1, "SIGINT took \(took) s")
        if !player.isRunning { #expect(player.terminationStatus == 4, "exit status \(player.terminationStatus)") }
    }

    /// Writes `v.mp4` (progressive.mp4's video as one fragmented MP4 with a global sidx) and
    /// `sb.mpd`, a static MPD addressing it by `SegmentBase` (an `Initialization` range and the
    /// sidx's `indexRange`), which the ffmpeg CLI does not write, into `dir`.
    static func makeSegmentBase(in dir: String) throws {
        let made = Process.run(["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", Self.root + "/progressive.mp4",
                                "-map", "0:v", "-c", "copy", "-movflags", "+frag_keyframe+empty_moov+default_base_moof+global_sidx",
                                dir + "/v.mp4"], timeout: 60)
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/v.mp4")))
        var boxes: [String: (offset: Int, size: Int)] = [:]
        var at = 0
        while at + 8 <= bytes.count {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            if boxes[type] == nil { boxes[type] = (at, size) }
            guard size >= 8 else { break }
            at += size
        }
        let moov = try #require(boxes["moov"]), sidx = try #require(boxes["sidx"])
        let mpd = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT20S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
            <Period><AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="600000" width="640" height="360" codecs="avc1.42c01e">
            <BaseURL>v.mp4</BaseURL><SegmentBase indexRange="\(sidx.offset)-\(sidx.offset + sidx.size - 1)"><Initialization range="0-\(moov.offset + moov.size - 1)"/></SegmentBase>
            </Representation></AdaptationSet></Period></MPD>
            """
        try mpd.write(toFile: dir + "/sb.mpd", atomically: true, encoding: .utf8)
    }

    /// DASH with SegmentBase (one fragmented MP4 with a sidx, addressed by byte ranges).
    @Test func dashSegmentBaseWithSidxPlays() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeSegmentBase(in: dir)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let (r, s) = try Self.headless([server.url("sb.mpd"), "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.framesDecoded == Self.progressiveFrames, "decoded \(summary.framesDecoded)")
    }

    @Test func standardInputPlays() throws {
        let file = Self.root + "/progressive.mp4"
        let stats = PlayerRuns.temp("stats.jsonl")
        let r = Process.run(["/bin/sh", "-c", "exec \"$0\" - --vo=null --ao=null --speed=4 --stats-file \"$1\" < \"$2\"",
                             TestEnvironment.binary, stats, file], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(try PlayerRuns.summaries(stats).first)
        #expect(summary.source == "-")
        #expect(summary.framesDecoded == Self.progressiveFrames)
    }
}
