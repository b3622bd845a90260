import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// DASH through our reader and the real binary against `range_http.py` on loopback: the chosen
/// representation only, a start in the middle, lavf's demuxer as the named fallback, headers,
/// a segment cut midway, a live MPD, `$Time$`, SegmentBase, and hostile remote manifests.
@Suite(.serialized) struct DASHSourceTests {
    @Test func dashPlaysTheChosenRepresentationOnly() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=min", "--length=8"])
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
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=max", "--start=12", "--length=3"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.item.startPosition == 12)
        #expect(abs(summary.mediaSeconds - 3) < 0.3, "played \(summary.mediaSeconds) s")
        #expect(summary.frames.presented >= 60)
        let video = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasPrefix("/dash-vod/chunk-stream1-") }
        // The probe reads the first segment; then playback starts at segment 7 (12 s).
        #expect(video.contains("/dash-vod/chunk-stream1-00007.m4s") && !video.contains("/dash-vod/chunk-stream1-00004.m4s"), "\(video)")
    }

    /// `--demuxer-lavf-dash` is for local manifests: libavformat's dash demuxer would fetch a
    /// remote manifest's fragments over its own HTTP, which the sources' whitelist refuses (issue
    /// 59). A remote manifest plays through our reader, the player says so once, and no request
    /// is libavformat's (``NetworkTests/libavformatRequests(_:)``).
    @Test func theLavfDashDemuxerIsForLocalManifests() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let logFile = PlayerRuns.temp("lavf-dash.log")
        defer { try? FileManager.default.removeItem(atPath: (logFile as NSString).deletingLastPathComponent) }
        let (r, s) = try NetworkTests.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=min", "--length=6", "--demuxer-lavf-dash",
                                        "--log-file", logFile])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 5 } == true)
        #expect(NetworkTests.errorLines(r) == ["aether-tui: warning: --demuxer-lavf-dash: a remote manifest plays through the player's own DASH reader (libavformat's would fetch over its own HTTP)"],
                "\(r.stderr)")
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        #expect(log.contains("DASH through our reader") && !log.contains("[dash @"))
        let requests = try server.requests()
        #expect(!requests.isEmpty && NetworkTests.libavformatRequests(requests).isEmpty, "libavformat's: \(NetworkTests.libavformatRequests(requests))")
    }

    /// Every DASH request (manifest, init sections, segments) carries the headers, user agent
    /// and referrer: they go through our reader.
    @Test func dashSegmentsCarryTheHeadersAndUserAgent() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("dash-vod/manifest.mpd"), "--length=5", "--http-header-fields", "X-Aether-Test: dash-1",
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
        let size = try #require(try FileManager.default.attributesOfItem(atPath: NetworkTests.root + "/" + chunk)[.size] as? Int)
        let server = try LoopbackHTTP(root: NetworkTests.root, rules: #"[{"path": "chunk-stream1-00004\\.m4s$", "times": 1, "drop_after": \#(size / 2)}]"#)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("dash-vod/manifest.mpd"), "--hls-bitrate=max", "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.decoded == NetworkTests.progressiveFrames, "decoded \(summary.frames.decoded)")
        #expect(summary.endedEarly == nil)
        #expect((summary.network.retries ?? 0) >= 1)
        let requests = try server.requests().filter { ($0["path"] as? String) == "/" + chunk }
        #expect(requests.count == 2, "\(requests)")
        #expect(requests.first?["cut"] as? Bool == true)
        let resumedAt = requests.dropFirst().map(NetworkTests.rangeStart)
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
        for name in try FileManager.default.contentsOfDirectory(atPath: NetworkTests.root + "/dash-number") where name.hasSuffix(".m4s") {
            try FileManager.default.copyItem(atPath: NetworkTests.root + "/dash-number/" + name, toPath: dir + "/" + name)
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let startDate = Date().addingTimeInterval(-12.5)
        let start = formatter.string(from: startDate)
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
        let (r, s) = try NetworkTests.headless([server.url("live.mpd"), "--live-start-index=-2", "--length=5", "--user-agent", "aether-live/1"],
                                       timeout: 40)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.decoded >= 100, "decoded \(summary.frames.decoded)")
        let requests = try server.requests().sorted { ($0["seq"] as? Int ?? 0) < ($1["seq"] as? Int ?? 0) }
        let paths = requests.compactMap { $0["path"] as? String }
        let video = requests.filter { ($0["path"] as? String)?.hasPrefix("/chunk-stream1-") == true }
        let numbers = video.compactMap { ($0["path"] as? String).flatMap { Int($0.dropFirst(15).prefix(5)) } }
        // Segment n is available from `start` + 2n s. Two back from the edge, the first is the
        // newest available one less one, counted when the player read the manifest (six
        // available at 12.5 s: number 5); under load that may be a segment later, so the
        // edge is counted at the manifest's first fetch and at the first segment's.
        func firstBehindEdge(at request: [String: Any]?) -> Int? {
            (request?["time"] as? Double).map { Int(($0 - startDate.timeIntervalSince1970) / 2) - 1 }
        }
        let earliest = try #require(firstBehindEdge(at: requests.first { ($0["path"] as? String) == "/live.mpd" }))
        let latest = try #require(firstBehindEdge(at: video.first))
        let first = try #require(numbers.first)
        #expect((earliest...latest).contains(first), "first \(first), the edge allowed \(earliest)...\(latest): \(numbers)")
        #expect(numbers.allSatisfy { $0 >= first }, "a segment before the first: \(numbers)")
        #expect(numbers.contains(first + 2), "the edge did not move on: \(numbers)")
        #expect(paths.filter { $0 == "/live.mpd" }.count >= 2, "the manifest was not fetched again: \(paths)")
        #expect(requests.allSatisfy { ($0["headers"] as? [String: String])?["User-Agent"] == "aether-live/1" })
    }

    /// dash-vod's files renamed by their start times into `dir`, and `time.mpd` naming them by
    /// `$Time$`. `gap`: the fifth segment of every representation (8 s to 10 s) is left out of
    /// the timelines (the next `S@t` at 10 s) and of the files.
    static func timeAddressed(in dir: String, gap: Bool = false) throws {
        var mpd = try String(contentsOfFile: NetworkTests.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        mpd = mpd.replacingOccurrences(of: "chunk-stream$RepresentationID$-$Number%05d$.m4s", with: "t$RepresentationID$-$Time%010d$.m4s")
        if gap {
            mpd = mpd.replacing(#/<SegmentTimeline>[^<]*(<S[^>]*>[^<]*)+<\/SegmentTimeline>/#) { match in
                match.output.0.contains(#"d="24576""#)
                    ? #"<SegmentTimeline><S t="0" d="24576" r="3"/><S t="122880" d="24576" r="4"/></SegmentTimeline>"#
                    : #"<SegmentTimeline><S t="0" d="95232"/><S d="96256" r="2"/><S t="480256" d="96256" r="1"/><S d="95232"/><S d="96256"/><S d="95744"/></SegmentTimeline>"#
            }
        }
        try mpd.write(toFile: dir + "/time.mpd", atomically: true, encoding: .utf8)
        let parsed = try DASHManifest.parse(mpd, base: "http://127.0.0.1/time.mpd")
        for rep in try #require(parsed.periods.first).adaptationSets.flatMap(\.representations) {
            try FileManager.default.copyItem(atPath: NetworkTests.root + "/dash-vod/init-stream\(rep.id).m4s", toPath: dir + "/init-stream\(rep.id).m4s")
            #expect(rep.segments.count == (gap ? 9 : 10))
            for (k, segment) in rep.segments.enumerated() {
                let name = (segment.resource.url as NSString).lastPathComponent
                #expect(name.hasPrefix("t\(rep.id)-") && name.count == "t0-0000000000.m4s".count, "\(name)")
                let chunk = gap && k >= 4 ? k + 2 : k + 1
                try FileManager.default.copyItem(atPath: NetworkTests.root + "/dash-vod/chunk-stream\(rep.id)-" + String(format: "%05d.m4s", chunk),
                                                 toPath: dir + "/" + name)
            }
        }
    }

    /// `$Time$` addressing: the dash-vod files renamed by their start times, the MPD's media
    /// template rewritten; every frame plays.
    @Test func aTimeAddressedTimelinePlaysEveryFrame() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.timeAddressed(in: dir)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("time.mpd"), "--hls-bitrate=max", "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.decoded == NetworkTests.progressiveFrames, "decoded \(summary.frames.decoded)")
        #expect(try server.requests().allSatisfy { ($0["status"] as? Int ?? 0) < 400 }, "a request failed")
    }

    /// A gap in the timelines (`S@t` jumps from 8 s to 10 s): playback goes on across it to the
    /// end (18 s of pictures), and a start at 12 s starts at the segment the manifest places at
    /// 12 s (the playlist's timeline is the presentation's: the gap belongs to the segment
    /// before it), not at the one after it.
    @Test func aTimelineGapPlaysOnAndStartsWhereTheManifestPlacesASegment() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.timeAddressed(in: dir, gap: true)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        for (start, seconds) in [(0, 20.0), (12, 8.0)] {
            try server.clearRequests()
            let (r, s) = try NetworkTests.headless([server.url("time.mpd"), "--hls-bitrate=max", "--speed=4", "--start=\(start)"])
            #expect(r.status == 0, "from \(start) s: \(r.stderr)")
            let summary = try #require(s.first)
            #expect(summary.endedEarly == nil && abs(summary.mediaSeconds - seconds) < 0.6, "from \(start) s: \(summary.mediaSeconds) s")
            let frames = summary.frames.presented + summary.frames.dropped
            #expect(abs(frames - Int(seconds - (start == 0 ? 2 : 0)) * 24) <= 2, "from \(start) s: \(frames) frames")
            let video = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasPrefix("/t1-") }
            if start == 12 {
                // The probe's first segment, then from 10 s or 12 s on; never 14 s first.
                #expect(video.dropFirst().first.map { ["/t1-0000122880.m4s", "/t1-0000147456.m4s"].contains($0) } == true, "\(video)")
            }
        }
    }

    @Test func aRemoteDASHManifestNamingALocalFileIsRefused() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var mpd = try String(contentsOfFile: NetworkTests.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        mpd = mpd.replacingOccurrences(of: "<Period", with: "<BaseURL>file:///etc/</BaseURL>\n<Period")
        try mpd.write(toFile: dir + "/evil.mpd", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let (r, _) = try NetworkTests.headless([server.url("evil.mpd")], timeout: 20)
        #expect(r.status != 0)
        #expect(NetworkTests.errorLines(r) == ["aether-tui: cannot open '\(server.url("evil.mpd"))': the manifest refers to 'file:///etc/' (a network source may only use http and https)"])
    }

    /// A remote MPD whose every timeline is hostile (a repeat count of a trillion) is refused by
    /// our parser before anything is expanded or fetched: one line naming the manifest and the
    /// first part left out and why, no segment requested. (One hostile representation among
    /// good ones is left out and the rest plays: DASHConformanceTests, DASHManifestTests.)
    @Test func aRemoteMPDWithAHostileTimelineIsRefusedInOneLine() throws {
        let dir = NSTemporaryDirectory() + "aether-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var mpd = try String(contentsOfFile: NetworkTests.root + "/dash-vod/manifest.mpd", encoding: .utf8)
        mpd = DASHDownloadTests.everyTimeline(mpd, #"<S t="0" d="24576" r="1000000000000" />"#)
        try mpd.write(toFile: dir + "/huge.mpd", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let started = Date()
        let (r, _) = try NetworkTests.headless([server.url("huge.mpd")], timeout: 20)
        #expect(r.status != 0)
        #expect(Date().timeIntervalSince(started) < 10)
        let lines = NetworkTests.errorLines(r)
        #expect(lines.count == 1 && lines.first?.hasPrefix("aether-tui: cannot open '\(server.url("huge.mpd"))': the manifest has no video or audio representation with segments (representation '0' left out: 'S@r'") == true, "\(lines)")
        #expect(try server.requests().compactMap { $0["path"] as? String } == ["/huge.mpd"])
    }

    /// Writes `v.mp4` (progressive.mp4's video as one fragmented MP4 with a global sidx) and
    /// `sb.mpd`, a static MPD addressing it by `SegmentBase` (an `Initialization` range and the
    /// sidx's `indexRange`), which the ffmpeg CLI does not write, into `dir`.
    static func makeSegmentBase(in dir: String) throws {
        let made = Process.run(["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", NetworkTests.root + "/progressive.mp4",
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
        let (r, s) = try NetworkTests.headless([server.url("sb.mpd"), "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.decoded == NetworkTests.progressiveFrames, "decoded \(summary.frames.decoded)")
    }
}
