import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Resume at the byte while playing (issue 33, item 7): each kind of fetch playback makes is cut
/// once mid-transfer (the server resets the connection after half its bytes), and the player
/// asks for the rest with a range request, so the demuxer never sees a gap: every video frame
/// of the source is decoded, the retry is counted, and the bytes after the cut are asked for
/// from where they stopped. The kinds play at once, one player each (the cuts are on different
/// paths of one server). A DASH `$Number$` segment's cut is `NetworkTests`'s own test.
/// Tier: network.
struct CutMidTransferTests {
    struct Kind: Sendable {
        var name: String
        /// Path (under the fixtures' root) the player opens.
        var open: String
        var arguments: [String]
        /// The path cut, the byte range cut (its first byte), and the cut's place in the body.
        var path: String
        var rangeStart: Int?
        var cutAfter: Int
        /// Video frames in the source (nil: as many as the same run uncut decodes).
        var frames: Int?
    }

    static let root = NetworkTests.root

    static func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: root + "/" + path)[.size] as? Int)
    }

    /// Video packets of a local file or playlist (ffprobe, stream `stream`).
    static func videoPackets(_ path: String, stream: String = "v:0") throws -> Int {
        let r = Process.run(["/usr/bin/ffprobe", "-v", "error", "-allowed_extensions", "ALL", "-select_streams", stream, "-count_packets",
                             "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", root + "/" + path], timeout: 60)
        // The stream's line (a playlist's programs list it again).
        return try #require(r.stdout.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
                            "ffprobe \(path): \(r.stdout) \(r.stderr)")
    }

    /// The `EXT-X-BYTERANGE`s (offset, length) of a local media playlist.
    static func byteRanges(_ path: String) throws -> [(Int, Int)] {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("#EXT-X-BYTERANGE:") }
            .map { line in
                let parts = line.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@").compactMap { Int($0) }
                return (parts[1], parts[0])
            }
    }

    static func kinds() throws -> [Kind] {
        // The segment 4 s after the start (50 s of 60; 70 s of 80).
        let ranges = try byteRanges("hls-ranges-abr/v2/index.m3u8")
        try #require(ranges.count == 30, "\(ranges.count) byte ranges")
        let hlsRange = ranges[27]
        let sl = try String(contentsOfFile: root + "/dash-ranges-abr/sl.mpd", encoding: .utf8)
        let v2 = try #require(sl.range(of: "<BaseURL>v2.mp4</BaseURL>"))
        let listRanges = sl[v2.upperBound...].matches(of: #/mediaRange="(\d+)-(\d+)"/#).prefix(40)
            .compactMap { m in Int(m.1).flatMap { a in Int(m.2).map { (a, $0 - a + 1) } } }
        try #require(listRanges.count == 40, "\(listRanges.count) media ranges")
        let listRange = listRanges[37]
        return [
            Kind(name: "HLS segment", open: "hls-vod/master.m3u8", arguments: ["--hls-bitrate=max", "--speed=4"],
                 path: "/hls-vod/v2/seg003.ts", cutAfter: try size("hls-vod/v2/seg003.ts") / 2,
                 frames: try videoPackets("hls-vod/v2/index.m3u8")),
            Kind(name: "HLS byte range", open: "hls-ranges-abr/master.m3u8", arguments: ["--hls-bitrate=max", "--start=50", "--speed=4"],
                 path: "/hls-ranges-abr/v2/index.ts", rangeStart: hlsRange.0, cutAfter: hlsRange.1 / 2),
            Kind(name: "DASH init section", open: "dash-vod/manifest.mpd", arguments: ["--hls-bitrate=max", "--speed=4"],
                 path: "/dash-vod/init-stream1.m4s", cutAfter: try size("dash-vod/init-stream1.m4s") / 2,
                 frames: NetworkTests.progressiveFrames),
            Kind(name: "DASH SegmentList range", open: "sl.mpd", arguments: ["--hls-bitrate=max", "--start=70", "--speed=4"],
                 path: "/dash-ranges-abr/v2.mp4", rangeStart: listRange.0, cutAfter: listRange.1 / 2),
            Kind(name: "DASH WebM (VP9) segment", open: "dash-webm/manifest.mpd", arguments: ["--hls-bitrate=max", "--speed=4"],
                 path: "/dash-webm/chunk-stream1-00004.webm", cutAfter: try size("dash-webm/chunk-stream1-00004.webm") / 2,
                 frames: try videoPackets("dash-webm/manifest.mpd", stream: "v:1")),
            Kind(name: "DASH AV1 fMP4 segment", open: "dash-av1/manifest.mpd", arguments: ["--speed=4"],
                 path: "/dash-av1/chunk-stream0-00004.m4s", cutAfter: try size("dash-av1/chunk-stream0-00004.m4s") / 2,
                 frames: try videoPackets("dash-av1/manifest.mpd")),
        ]
    }

    @Test func eachKindOfFetchCutOnceResumesAtTheByte() throws {
        let media = try LoopbackHTTP(root: Self.root)
        defer { media.stop() }
        // sl.mpd names its files on the media server (its cut is a range of v2.mp4 there).
        let dir = PlayerRuns.temp("cut")
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let sl = try DASHConformanceTests.rangesManifest("sl.mpd", on: media)
        try sl.write(toFile: dir + "/sl.mpd", atomically: true, encoding: .utf8)
        let manifests = try LoopbackHTTP(root: dir)
        defer { manifests.stop() }
        let kinds = try Self.kinds()
        // A run that starts late decodes what the same run uncut decodes (a server of its own).
        let uncut = try LoopbackHTTP(root: Self.root)
        defer { uncut.stop() }
        var sameUncut = sl
        sameUncut = sameUncut.replacingOccurrences(of: media.url("dash-ranges-abr/"), with: uncut.url("dash-ranges-abr/"))
        try sameUncut.write(toFile: dir + "/sl-uncut.mpd", atomically: true, encoding: .utf8)
        let baselines = kinds.filter { $0.frames == nil }
        let rules = kinds.map { k -> [String: Any] in
            var rule: [String: Any] = ["path": NSRegularExpression.escapedPattern(for: k.path) + "$", "times": 1, "drop_after": k.cutAfter]
            if let start = k.rangeStart { rule["range"] = "^bytes=\(start)-" }
            return rule
        }
        try media.setRules(String(decoding: try JSONSerialization.data(withJSONObject: rules), as: UTF8.self))
        let results = Guarded<[String: (ProcessResult, [PlaybackSummary])]>([:])
        DispatchQueue.concurrentPerform(iterations: kinds.count + baselines.count) { i in
            let k = i < kinds.count ? kinds[i] : baselines[i - kinds.count]
            let cut = i < kinds.count
            let url = k.open == "sl.mpd" ? manifests.url(cut ? "sl.mpd" : "sl-uncut.mpd") : (cut ? media : uncut).url(k.open)
            let run = try? PlayerRuns.headless([url] + k.arguments, timeout: 90)
            if let run { results.withLock { $0[(cut ? "" : "uncut ") + k.name] = run } }
        }
        let requests = try media.requests()
        for k in kinds {
            let (r, summaries) = try #require(results.withLock { $0[k.name] }, "\(k.name): did not run")
            #expect(r.status == 0, "\(k.name): \(r.stderr)")
            let s = try #require(summaries.last, "\(k.name): no summary")
            #expect(s.endedEarly == nil, "\(k.name): ended early: \(String(describing: s.endedEarly))")
            #expect((s.network.retries ?? 0) >= 1, "\(k.name): no retry counted")
            let frames = try k.frames ?? #require(results.withLock { $0["uncut " + k.name] }?.1.last?.frames.decoded, "\(k.name): no uncut run")
            #expect(frames >= 200, "\(k.name): \(frames) frames in the source")
            #expect(s.frames.decoded == frames, "\(k.name): decoded \(s.frames.decoded) of \(frames) frames")
            let uncut = results.withLock { $0["uncut " + k.name] }?.1.last
            let shown = uncut.map { $0.frames.presented + $0.frames.dropped } ?? frames
            #expect(s.frames.presented + s.frames.dropped == shown, "\(k.name): \(s.frames.presented) shown + \(s.frames.dropped) dropped of \(shown)")
            // The cut, then the rest asked for from the byte where it stopped.
            let mine = requests.filter { ($0["path"] as? String) == k.path }
            let cut = try #require(mine.firstIndex { $0["cut"] as? Bool == true }, "\(k.name): nothing was cut")
            // From the byte the player had (some of the bytes sent may die in the socket with the
            // reset), not from the start again.
            let start = k.rangeStart ?? 0
            #expect(mine[(cut + 1)...].contains { ((start + 1)...(start + k.cutAfter)).contains(NetworkTests.rangeStart($0)) },
                    "\(k.name): no request from a byte after \(start) up to \(start + k.cutAfter): \(mine[cut...].map { $0["range"] as? String ?? "-" }.prefix(4))")
        }
    }
}
