import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--hls-bitrate=auto` on ladders the throttled runs do not cover, unthrottled on loopback: a
/// DASH SegmentList ladder (byte ranges), an HLS master with audio renditions (each playlist
/// fetched once; a live rendition beside VOD variants), and a live DASH source from ffmpeg.
/// A suite of its own so that test.sh runs it beside the throttled runs.
@Suite(.serialized) struct AdaptiveLadderTests {
    /// Plays `arguments` headless (no picture, no sound) with its stats written to `stats`.
    static func headless(_ arguments: [String], stats: String) -> (ProcessResult, [PlaybackSummary]) {
        let r = Process.run([TestEnvironment.binary] + arguments + ["--vo=null", "--ao=null", "--stats-file", stats], timeout: 40)
        return (r, (try? PlayerRuns.summaries(stats)) ?? [])
    }

    /// `SegmentList` (an Initialization range and a SegmentURL mediaRange per fragment): the
    /// switch up at the start fetches the top representation's ranges; every frame of 8 s plays.
    @Test func aDASHSegmentListLadderSwitchesByteRanges() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (r, s) = Self.headless([server.url("dash-ranges-abr/sl.mpd"), "--length=8"], stats: dir + "/stats.jsonl")
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.decoded >= 8 * 24 - 1 && summary.frames.dropped == 0, "\(summary)")
        let switches = try AdaptiveBitrateEndToEndTests.read(dir + "/stats.jsonl").switches
        #expect(switches.first?["toVariant"] as? Int == 3, "\(switches)")
        let requests = try server.requests()
        let top = requests.filter { ($0["path"] as? String) == "/dash-ranges-abr/v2.mp4" && NetworkTests.rangeStart($0) > 0 }
        #expect(top.count >= 3, "ranges of v2.mp4: \(top.count)")
    }

    /// Every playlist of a master with separate audio renditions is fetched once at open: the
    /// master, the start variant's playlist and both renditions (read by the player first, then
    /// served to libavformat from memory), and the other variants' (read by libavformat, handed
    /// to the switcher). The proxy log counts the requests per URL; the audio rendition chosen
    /// still plays and the switcher still switches (to the top at the start, on loopback) while
    /// the French rendition plays on through the demuxer: each of its segments fetched once, in
    /// order, English only for the probe's first. (The throttled schedule with renditions is a
    /// replay: `ABRReplayTests`.)
    @Test func eachPlaylistOfAMasterWithRenditionsIsFetchedOnce() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (r, s) = Self.headless([server.url("hls-renditions-abr/master.m3u8"), "--alang=fra", "--length=6",
                                    "--log-file=\(dir)/log"], stats: dir + "/stats.jsonl")
        #expect(r.status == 0, "\(r.stderr)")
        #expect((s.first?.mediaSeconds ?? 0) > 5, "\(String(describing: s.first))")
        var counts: [String: Int] = [:]
        for path in try server.requests().compactMap({ $0["path"] as? String }) where path.hasSuffix(".m3u8") { counts[path, default: 0] += 1 }
        let expected = ["master.m3u8", "v0/index.m3u8", "v1/index.m3u8", "v2/index.m3u8", "English/index.m3u8", "Francais/index.m3u8"]
            .map { "/hls-renditions-abr/" + $0 }
        #expect(Dictionary(uniqueKeysWithValues: expected.map { ($0, 1) }) == counts, "playlist requests: \(counts)")
        let paths = try server.requests().compactMap { $0["path"] as? String }
        let french = paths.filter { $0.hasPrefix("/hls-renditions-abr/Francais/seg") }
        let english = paths.filter { $0.hasPrefix("/hls-renditions-abr/English/seg") }
        #expect(french.count >= 3 && french == (0..<french.count).map { String(format: "/hls-renditions-abr/Francais/seg%03d.ts", $0) },
                "French segments \(french)")
        #expect(english.count <= 1, "English segments \(english)")
        let switches = try AdaptiveBitrateEndToEndTests.read(dir + "/stats.jsonl").switches
        #expect(switches.first?["toVariant"] as? Int == 3, "\(switches)")
        print("playlists fetched once: \(counts.sorted { $0.key < $1.key })")
    }

    /// Hostile: the French rendition is live (no ENDLIST) while the variants are VOD
    /// (`hls-renditions-abr/master-live-audio.m3u8`): switching is refused in one log line, the
    /// start variant plays on its own (no switch, no other variant's segment after the probe's).
    @Test func aLiveRenditionBesideVODVariantsKeepsTheStartVariant() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (r, s) = Self.headless([server.url("hls-renditions-abr/master-live-audio.m3u8"), "--alang=fra", "--length=6",
                                    "--log-file=\(dir)/log"], stats: dir + "/stats.jsonl")
        #expect(r.status == 0, "\(r.stderr)")
        #expect((s.first?.mediaSeconds ?? 0) > 5, "\(String(describing: s.first))")
        let log = (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? ""
        let abr = log.split(separator: "\n").filter { $0.hasPrefix("[abr ") }
        #expect(abr.count == 1 && abr.first?.hasSuffix("no switching: the audio rendition 'audio_1' is live while the variants are VOD") == true,
                "\(abr)")
        #expect(try AdaptiveBitrateEndToEndTests.read(dir + "/stats.jsonl").switches.isEmpty)
        // After the probe (the first two segments of each variant) only the start variant's.
        let video = try server.requests().compactMap { $0["path"] as? String }
            .filter { $0.range(of: #"^/hls-renditions-abr/v[0-9]/seg"#, options: .regularExpression) != nil }
        let late = video.filter { !$0.hasPrefix("/hls-renditions-abr/v0/") && !$0.hasSuffix("seg000.ts") && !$0.hasSuffix("seg001.ts") && !$0.hasSuffix("seg002.ts") }
        #expect(late.isEmpty && video.filter { $0.hasPrefix("/hls-renditions-abr/v0/") }.count >= 3, "\(video)")
    }

    /// A live DASH source written by ffmpeg's dash muxer (a dynamic MPD of two video
    /// representations, 300k and 600k, `$Number$` SegmentTimeline, its window sliding) switches
    /// like live HLS: the log says so, it plays without a decode error, and any switch is to a
    /// representation of the ladder. (The throttled live ladder: LiveAdaptiveBitrateTests.)
    @Test func aLiveDASHSourceFromFFmpegSwitchesByNumber() throws {
        let stream = try LiveStream(seconds: 40, dash: true, twoVideos: true)
        defer { stream.stop() }
        #expect(stream.waitForSegments(4))
        let url = stream.url
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try AdaptiveBitrateEndToEndTests.start(url, ["--ao=null", "--log-file=\(dir)/log"], socket: dir + "/l.sock", stats: dir + "/l.jsonl")
        Thread.sleep(forTimeInterval: 8)   // measurement window: 8 s of the live stream, switching
        let position = run.client.request(#"{"command":["get_property","time-pos"]}"#)?["data"] as? Double
        _ = run.client.request(#"{"command":["quit"]}"#)
        let result = run.player.wait(timeout: 30)
        #expect(result?.status == 0, "\(result?.stderr ?? "did not end")")
        #expect(position != nil, "not playing")
        let log = (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? ""
        let abr = log.split(separator: "\n").filter { $0.hasPrefix("[abr ") }
        #expect(abr.first?.contains("switching between 2 DASH representations") == true
                && abr.first?.hasSuffix("(live: segments matched by media sequence number)") == true, "\(abr)")
        #expect(!abr.contains { $0.contains("left out of switching") }, "\(abr)")
        let switches = try AdaptiveBitrateEndToEndTests.read(run.stats).switches
        #expect(switches.allSatisfy { [1, 2].contains($0["toVariant"] as? Int ?? 0) }, "\(switches)")
        let decodeErrors = try String(contentsOfFile: run.stats, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { ($0["telemetry"] as? [String: Any])?["decodeErrors"] as? Int }.max()
        #expect(decodeErrors == 0, "decode errors: \(String(describing: decodeErrors)); switches \(switches)")
    }
}
