import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Bit-rate switching on live HLS: the `hls-abr` ladder (600k/1.5M/3.6M, 2 s MPEG-TS segments
/// aligned across variants) played out as a live stream in real time by
/// `Tests/Scripts/live_ladder.py` (a sliding window of 6 segments per variant, one more every 2 s,
/// each with a program date-time), served on loopback behind the fault proxy; and live DASH: the
/// `dash-abr` representations (the same ladder as fMP4, `$Number$` SegmentTimeline, a separate
/// audio set) played out the same way as a dynamic MPD. The throttled live HLS schedule (with
/// and without audio renditions) is a trace replay on a manual clock (`LiveABRReplayTests`);
/// live DASH keeps its real run (the dynamic MPD's translation, reloads of the manifest and its
/// audio set through the demuxer are not replayed).
@Suite(.serialized) struct LiveAdaptiveBitrateTests {
    /// A live ladder being written into a temporary directory and served over HTTP.
    final class LiveLadder {
        let directory: String
        let server: LoopbackHTTP
        private let writer: Process

        let dash: Bool

        /// The `hls-abr` ladder, or (`dash`) the `dash-abr` representations as a dynamic MPD
        /// (`live.mpd`).
        init(seconds: Int, dash: Bool = false, fixture: String? = nil, arguments: [String] = [], rules: String = "[]") throws {
            self.dash = dash
            directory = NSTemporaryDirectory() + "aether-live-ladder-\(UUID().uuidString)"
            writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            writer.arguments = ["python3", TestEnvironment.scripts.appendingPathComponent("live_ladder.py").path,
                                NetworkTests.root + "/" + (fixture ?? (dash ? "dash-abr" : "hls-abr")), directory, String(seconds)]
                + (dash ? ["--dash"] : []) + arguments
            let out = Pipe()
            writer.standardOutput = out
            writer.standardError = FileHandle.nullDevice
            try writer.run()
            // "ready" once the first playlists are written.
            var text = ""
            while !text.contains("ready") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            server = try LoopbackHTTP(root: directory, rules: rules)
        }

        var url: String { server.url(dash ? "live.mpd" : "master.m3u8") }

        func stop() {
            if writer.isRunning {
                // SIGKILL: signals may be blocked in what the test runner spawns (see LiveTests).
                kill(writer.processIdentifier, SIGKILL)
                writer.waitUntilExit()
            }
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        deinit { stop() }
    }

    /// One live run behind the proxy: 6 Mb/s, 1 Mb/s from 10 s, 6 Mb/s from 22 s, quit at
    /// `quitAt`, the null sink recorded throughout; what the checks below read.
    struct ThrottledRun {
        var switches: [[String: Any]]
        var moves: [String]
        var rebuffers: Int?
        var abrLog: [Substring]
        var log: String
        var stats: String
        var hlsBitrate: Double?
        /// The server's requests with the run's user agent.
        var requests: [[String: Any]]
        var slowedAt: Double, recoveredAt: Double
        var sound: [Double]
        var t0: Double, quitTook: Double
        func path(_ r: [String: Any]) -> String { r["path"] as? String ?? "" }
        func time(_ r: [String: Any]) -> Double { r["time"] as? Double ?? 0 }
    }

    static func throttledRun(_ stream: LiveLadder, _ source: AdaptiveBitrateEndToEndTests.Source, agent: String,
                             options: [String] = [], quitAt: Double) throws -> ThrottledRun {
        let slowFrom = 10.0, fastFrom = 22.0
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorder = try SinkRecorder(.own)
        let t0 = MonotonicTime.now()
        let run = try AdaptiveBitrateEndToEndTests.start(stream.url, options + ["--user-agent=\(agent)", "--log-file=\(dir)/log"],
                                                         socket: dir + "/l.sock", stats: dir + "/l.jsonl",
                                                         environment: recorder.environment)
        // measurement window: the throttling schedule, at fixed times from the start
        func waitUntil(_ t: Double) { let left = t0 + t - MonotonicTime.now(); if left > 0 { Thread.sleep(forTimeInterval: left) } }
        waitUntil(slowFrom)
        try stream.server.setRules(AdaptiveBitrateEndToEndTests.rules(source, bitsPerSecond: 1_000_000))
        let slowedAt = Date().timeIntervalSince1970
        waitUntil(fastFrom)
        try stream.server.setRules(AdaptiveBitrateEndToEndTests.rules(source, bitsPerSecond: 6_000_000))
        let recoveredAt = Date().timeIntervalSince1970
        waitUntil(quitAt)
        let hlsBitrate = run.client.request(#"{"command":["get_property","hls-bitrate"]}"#)?["data"] as? Double
        _ = run.client.request(#"{"command":["quit"]}"#)
        let result = run.player.wait(timeout: 30)
        let quitTook = MonotonicTime.now() - t0 - quitAt
        let sound = recorder.stop().left
        #expect(result?.status == 0, "\(result?.stderr ?? "did not end")")
        let log = (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? ""
        let (switches, summary) = try AdaptiveBitrateEndToEndTests.read(run.stats)
        let stats = (try? String(contentsOfFile: run.stats, encoding: .utf8)) ?? ""
        let requests = try stream.server.requests().filter { ($0["headers"] as? [String: String])?["User-Agent"] == agent }
        return ThrottledRun(switches: switches,
                            moves: switches.map { "\($0["fromVariant"] ?? "?")→\($0["toVariant"] ?? "?") at \($0["position"] ?? "?") s: \($0["reason"] ?? "")" },
                            rebuffers: summary?["rebuffers"] as? Int, abrLog: log.split(separator: "\n").filter { $0.hasPrefix("[abr ") },
                            log: log, stats: stats, hlsBitrate: hlsBitrate, requests: requests, slowedAt: slowedAt, recoveredAt: recoveredAt,
                            sound: sound, t0: t0, quitTook: quitTook)
    }

    /// What every throttled live run must show: no rebuffer (`rebufferNote` added to the
    /// message), 2–6 switches (a climb may take the middle rung on the way, at the start and
    /// after the recovery, when the buffer is still short) and at most two changes of direction, down to the lowest and up
    /// to the top (`hls-bitrate` 3.6 Mb/s at the end), no decode error, a lowest-rung segment
    /// fetched while throttled, the top again within 15 s of the recovery, no silence over
    /// 20 ms. Returns the seconds to the top and the longest silence (ms).
    static func expectRidesTheThrottle(_ r: ThrottledRun, _ source: AdaptiveBitrateEndToEndTests.Source,
                                       rebufferNote: String = "") -> (after: Double, silence: Double) {
        #expect(r.rebuffers == 0, "rebuffered \(String(describing: r.rebuffers)) times; switches \(r.moves)\(rebufferNote)")
        #expect((2...6).contains(r.switches.count), "\(r.switches.count) switches: \(r.moves); \(r.abrLog)")
        let ups = r.switches.map { ($0["toBandwidth"] as? Int ?? 0) > ($0["fromBandwidth"] as? Int ?? 0) }
        #expect(zip(ups, ups.dropFirst()).filter { $0 != $1 }.count <= 2, "oscillates: \(r.moves)")
        #expect(r.switches.contains { $0["toVariant"] as? Int == 1 }, "never went down: \(r.moves)")
        #expect(r.hlsBitrate == 3_600_000, "hls-bitrate \(String(describing: r.hlsBitrate)); switches \(r.moves); \(r.abrLog)")
        let decodeErrors = r.stats.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { ($0["telemetry"] as? [String: Any])?["decodeErrors"] as? Int }.max()
        #expect(decodeErrors == 0, "decode errors across the switches: \(String(describing: decodeErrors))")
        #expect(r.requests.contains { r.path($0).hasPrefix(source.lowest) && r.time($0) > r.slowedAt && r.time($0) < r.recoveredAt },
                "no lowest-rung segment fetched while throttled")
        let backOnTop = r.requests.filter { r.path($0).hasPrefix(source.top) && r.time($0) > r.recoveredAt }.map(r.time).min()
        let after = backOnTop.map { $0 - r.recoveredAt } ?? .infinity
        #expect(after <= 15, "back on the top rung \(after) s after the recovery; switches \(r.moves)")
        let (gaps, silence) = AdaptiveBitrateEndToEndTests.silences(r.sound, longerThan: 20)
        #expect(gaps.isEmpty && silence < 20, "gaps over 20 ms (s from the first sound, ms): \(gaps); switches \(r.moves)")
        return (after, silence)
    }

    /// Live DASH: the `dash-abr` ladder as a dynamic MPD (`live_ladder.py --dash`: a window of 6
    /// segments, one more and a new manifest every 2 s, minimumUpdatePeriod 2 s) behind the proxy
    /// at 6 Mb/s, 1 Mb/s from 10 s, 6 Mb/s from 22 s, quit at 36 s (the suite's time: 45 s at
    /// most). `auto` switches the video representations by `$Number$` (the translated
    /// playlists' media sequence) while the audio set plays on: down while throttled, back on the
    /// top within 15 s of the recovery, at most 5 switches and two changes of direction, no
    /// rebuffer, no decode error, no silence over 20 ms; one video segment per number (a switch
    /// replaces, never adds), every audio segment once; the manifest read again no sooner than
    /// its minimumUpdatePeriod.
    @Test func aLiveDASHLadderSwitchesDownAndBackUpByNumber() throws {
        let begun = MonotonicTime.now()
        #expect(TestEnvironment.requirePulse(), "no PulseAudio null sink")
        let source = AdaptiveBitrateEndToEndTests.Source(manifest: "live.mpd", segments: #"\\.m4s$"#, lowest: "/chunk-stream0-",
                                                         top: "/chunk-stream2-")
        let stream = try LiveLadder(seconds: 60, dash: true, rules: AdaptiveBitrateEndToEndTests.rules(source, bitsPerSecond: 6_000_000))
        defer { stream.stop() }
        let r = try Self.throttledRun(stream, source, agent: "abr-live-dash", quitAt: 36)
        #expect(r.abrLog.first?.hasSuffix("DASH representations: 600000, 1500000, 3600000 b/s (live: segments matched by media sequence number)") == true,
                "\(r.abrLog)")
        let (after, silence) = Self.expectRidesTheThrottle(r, source)
        // One video segment per number (after the probe's first), each audio segment once, in order.
        let video = r.requests.map(r.path).filter { $0.range(of: #"^/chunk-stream[0-2]-[0-9]{5}\.m4s$"#, options: .regularExpression) != nil }
        let places = video.map { String($0.suffix(9)) }
        let abandoned = r.switches.filter { ($0["reason"] as? String)?.hasPrefix("abandoned") == true }.count
        #expect(Set(places.dropFirst(1)).count == places.count - 1 - abandoned, "video segments \(video); switches \(r.moves)")
        let audio = r.requests.map(r.path).filter { $0.hasPrefix("/chunk-stream3-") }
        let numbers = audio.compactMap { Int($0.dropFirst("/chunk-stream3-".count).prefix(5)) }
        #expect(audio.count >= 12 && numbers == Array((numbers.first ?? 0)..<((numbers.first ?? 0) + numbers.count)), "audio segments \(audio)")
        // The manifest: followed, never read again within its minimumUpdatePeriod.
        let manifestTimes = r.requests.filter { r.path($0) == "/live.mpd" }.map(r.time).sorted()
        let closest = zip(manifestTimes.dropFirst(), manifestTimes).map { $0 - $1 }.min() ?? .infinity
        #expect(manifestTimes.count >= 8 && closest >= 1.9, "live.mpd read \(manifestTimes.count) times, two within \(closest) s")
        print("abr live DASH: switches \(r.moves); rebuffers \(r.rebuffers ?? -1); top again \(String(format: "%.1f", after)) s after recovery; longest silence \(String(format: "%.1f", silence)) ms; manifest reads \(manifestTimes.count); \(video.count) video and \(audio.count) audio segments; set up in \(String(format: "%.1f", r.t0 - begun)) s, quit in \(String(format: "%.1f", r.quitTook)) s, checked after \(String(format: "%.1f", MonotonicTime.now() - begun)) s")
    }

    /// Live DASH addressed by `$Time$` with a `startNumber` that never moves while the window
    /// slides (as `$Time$` servers write it), the top representation's 7 higher: 12 s played on
    /// loopback (`live_ladder.py --dash --time --offset 2:7`). The translated playlists' numbers
    /// carry on from one manifest to the next (every frame of the 12 s decoded, each place on
    /// the timeline fetched once), and the top representation is matched by program date-time
    /// (logged) when the player switches up to it.
    @Test func aLiveTimeTemplateDASHNumbersOnAndSwitchesByDate() throws {
        let stream = try LiveLadder(seconds: 40, dash: true, arguments: ["--time", "--offset", "2:7"])
        defer { stream.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = Process.run([TestEnvironment.binary, stream.url, "--vo=null", "--ao=null", "--length=12", "--user-agent=abr-live-time",
                             "--log-file=\(dir)/log", "--stats-file=\(dir)/s.jsonl"], timeout: 40)
        #expect(r.status == 0, "\(r.stderr)")
        let log = (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? ""
        let abr = log.split(separator: "\n").filter { $0.hasPrefix("[abr ") }
        #expect(abr.contains { $0.hasSuffix("variant 3: its media sequence numbers do not line up with the playing variant's; matched by EXT-X-PROGRAM-DATE-TIME") },
                "\(abr)")
        #expect(!abr.contains { $0.contains("left out") }, "\(abr)")
        let switches = try AdaptiveBitrateEndToEndTests.read(dir + "/s.jsonl").switches
        #expect(switches.contains { $0["toVariant"] as? Int == 3 }, "\(switches)")
        let summary = try #require(try PlayerRuns.summaries(dir + "/s.jsonl").first)
        #expect(summary.frames.decoded >= 12 * 24 - 2 && summary.frames.dropped == 0, "\(summary)")
        let decodeErrors = try String(contentsOfFile: dir + "/s.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { ($0["telemetry"] as? [String: Any])?["decodeErrors"] as? Int }.max()
        #expect(decodeErrors == 0, "\(String(describing: decodeErrors))")
        // Video segments by their time: each place once (after the probe's first), in order.
        let times = try stream.server.requests().filter { ($0["headers"] as? [String: String])?["User-Agent"] == "abr-live-time" }
            .compactMap { $0["path"] as? String }.filter { $0.range(of: #"^/chunk-stream[0-2]-t[0-9]+\.m4s$"#, options: .regularExpression) != nil }
            .compactMap { Int($0.split(separator: "t").last?.dropLast(4) ?? "") }
        let places = Array(times.dropFirst())
        #expect(places.count >= 5 && places == places.sorted() && Set(places).count == places.count
                && zip(places.dropFirst(), places).allSatisfy { $0 - $1 == 24576 }, "segment times \(times)")
    }
}
