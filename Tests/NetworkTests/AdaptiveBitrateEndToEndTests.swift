import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--hls-bitrate=auto` through the real binary on a link that slows down and comes back: the
/// three-variant `hls-abr` fixture (600k/1.5M/3.6M, 100 s) behind the fault proxy, paced at
/// 6 Mb/s, 1 Mb/s from 20 s, 6 Mb/s again from 50 s, both players quit at 90 s (the issue's
/// schedule). `auto` plays through
/// the pulse null sink, recorded; `max` plays beside it in the same run (no sound). The same
/// for DASH: `dash-abr` (the same encodes as fMP4 with in-band parameter sets, the audio in an
/// adaptation set of its own) through our reader. One real throttled run per protocol, for what
/// only the binary shows (sound across a switch, decoding, IPC, the proxy's clock); ladders
/// without a throttle are `AdaptiveLadderTests`; the other ladders on the same schedule (audio
/// renditions, HLS and DASH byte ranges) are trace replays of the switcher on a manual clock
/// (`ABRReplayTests`).
@Suite(.serialized) struct AdaptiveBitrateEndToEndTests {
    static let slowFrom = 20.0, fastFrom = 50.0, quitAt = 90.0

    /// One source to throttle: its manifest, the segments the proxy paces (a path pattern),
    /// and the path prefixes of the lowest and the top variant's segments.
    struct Source {
        var manifest: String
        var segments: String
        var lowest: String
        var top: String
    }
    static let hls = Source(manifest: "hls-abr/master.m3u8", segments: #"\\.ts$"#, lowest: "/hls-abr/v0/seg", top: "/hls-abr/v2/seg")
    static let dash = Source(manifest: "dash-abr/manifest.mpd", segments: #"\\.m4s$"#, lowest: "/dash-abr/chunk-stream0-",
                             top: "/dash-abr/chunk-stream2-")

    /// Body pacing in bytes per second (the proxy paces each response).
    static func rules(_ source: Source, bitsPerSecond: Int) -> String {
        #"[{"path": "\#(source.segments)", "throttle_bps": \#(bitsPerSecond / 8)}]"#
    }

    struct Run {
        let player: BackgroundPlayer
        let client: IPCTestClient
        let stats: String
    }

    /// `environment`: the recorder's (its own sink).
    static func start(_ url: String, _ arguments: [String], socket: String, stats: String,
                      environment: [String: String] = [:]) throws -> Run {
        let player = BackgroundPlayer([TestEnvironment.binary, url, "--vo=null", "--stats-file", stats,
                                       "--input-ipc-server=\(socket)"] + arguments, environment: environment, timeout: 150)
        return Run(player: player, client: try IPCTestClient(path: socket, timeout: 15), stats: stats)
    }

    /// The stats file's switch lines and its summary.
    static func read(_ path: String) throws -> (switches: [[String: Any]], summary: [String: Any]?) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (objects.compactMap { $0["switch"] as? [String: Any] }, objects.last { $0["summary"] != nil }?["summary"] as? [String: Any])
    }

    /// Runs of samples quieter than -40 dBFS between the first and the last sound longer than
    /// `ms`: where each starts (seconds from the first sound) and its length in ms; and the
    /// longest run of all (ms).
    static func silences(_ x: [Double], longerThan ms: Double) -> (gaps: [(at: Double, ms: Double)], longest: Double) {
        guard let first = x.firstIndex(where: { abs($0) > 0.05 }), let last = x.lastIndex(where: { abs($0) > 0.05 }) else { return ([], .infinity) }
        var longest = 0, run = 0
        var gaps: [(at: Double, ms: Double)] = []
        for i in first...last {
            if abs(x[i]) < 0.01 {
                run += 1
                longest = max(longest, run)
            } else {
                if Double(run) / 48 > ms { gaps.append((Double(i - run - first) / 48000, Double(run) / 48)) }
                run = 0
            }
        }
        return (gaps, Double(longest) / 48)
    }

    @Test func aThrottledLinkSwitchesDownWithoutRebufferingAndBackUpAfterwards() throws {
        try Self.throttledRun(Self.hls)
    }

    static func throttledRun(_ source: Source) throws {
        #expect(TestEnvironment.requirePulse(), "no PulseAudio null sink")
        let server = try LoopbackHTTP(root: NetworkTests.root, rules: Self.rules(source, bitsPerSecond: 6_000_000))
        defer { server.stop() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.url(source.manifest)
        let recorder = try SinkRecorder(.own)
        let t0 = MonotonicTime.now()
        let auto = try Self.start(url, ["--user-agent=abr-auto"], socket: dir + "/auto.sock", stats: dir + "/auto.jsonl",
                                  environment: recorder.environment)
        let fixed = try Self.start(url, ["--hls-bitrate=max", "--ao=null", "--user-agent=abr-max"], socket: dir + "/max.sock", stats: dir + "/max.jsonl")
        // measurement window: the throttling schedule, at fixed times from the start
        func waitUntil(_ t: Double) { let left = t0 + t - MonotonicTime.now(); if left > 0 { Thread.sleep(forTimeInterval: left) } }

        waitUntil(Self.slowFrom)
        try server.setRules(Self.rules(source, bitsPerSecond: 1_000_000))
        let slowedAt = Date().timeIntervalSince1970
        waitUntil(Self.fastFrom)
        try server.setRules(Self.rules(source, bitsPerSecond: 6_000_000))
        let recoveredAt = Date().timeIntervalSince1970
        waitUntil(Self.quitAt)
        // What IPC says after the recovery: the top variant, an estimate above its rate.
        let hlsBitrate = auto.client.request(#"{"command":["get_property","hls-bitrate"]}"#)?["data"] as? Double
        let estimate = auto.client.request(#"{"command":["get_property","estimated-throughput"]}"#)?["data"] as? Double
        let videoBitrate = auto.client.request(#"{"command":["get_property","video-bitrate"]}"#)?["data"] as? Double
        let maxEstimate = fixed.client.request(#"{"command":["get_property","estimated-throughput"]}"#)
        for run in [auto, fixed] { _ = run.client.request(#"{"command":["quit"]}"#) }
        let results = [auto, fixed].map { $0.player.wait(timeout: 30) }
        let sound = recorder.stop().left
        #expect(results.allSatisfy { $0?.status == 0 }, "\(results.map { $0?.stderr ?? "did not end" })")

        #expect(hlsBitrate == 3_600_000, "hls-bitrate \(String(describing: hlsBitrate))")
        #expect((estimate ?? 0) > 3_600_000, "estimated-throughput \(String(describing: estimate))")
        #expect((videoBitrate ?? 0) > 0, "video-bitrate \(String(describing: videoBitrate))")
        #expect(maxEstimate?["error"] as? String == "property unavailable", "a fixed choice has no estimate: \(String(describing: maxEstimate))")

        let (switches, autoSummary) = try Self.read(auto.stats)
        let (maxSwitches, maxSummary) = try Self.read(fixed.stats)
        let autoRebuffers = autoSummary?["rebuffers"] as? Int, maxRebuffers = maxSummary?["rebuffers"] as? Int
        let moves = switches.map { "\($0["fromVariant"] ?? "?")→\($0["toVariant"] ?? "?") at \($0["position"] ?? "?") s: \($0["reason"] ?? "")" }
        #expect(autoRebuffers == 0, "auto rebuffered \(String(describing: autoRebuffers)) times; switches \(moves)")
        #expect((maxRebuffers ?? 0) >= 1, "max did not rebuffer: \(String(describing: maxSummary))")
        #expect(maxSwitches.isEmpty)
        #expect((2...4).contains(switches.count), "\(switches.count) switches: \(moves)")
        #expect(autoSummary?["variantSwitches"] as? Int == switches.count)
        // Down to the lowest while throttled, and back on the top within 15 s of the recovery
        // (by the proxy's clock: the first top-variant segment the auto player asked for).
        #expect(switches.contains { $0["toVariant"] as? Int == 1 }, "never went down: \(moves)")
        let requests = try server.requests().filter { ($0["headers"] as? [String: String])?["User-Agent"] == "abr-auto" }
        func path(_ r: [String: Any]) -> String { r["path"] as? String ?? "" }
        func time(_ r: [String: Any]) -> Double { r["time"] as? Double ?? 0 }
        let lowWhileSlow = requests.contains { path($0).hasPrefix(source.lowest) && time($0) > slowedAt && time($0) < recoveredAt }
        #expect(lowWhileSlow, "no lowest-variant segment fetched while throttled")
        let backOnTop = requests.filter { path($0).hasPrefix(source.top) && time($0) > recoveredAt }.map(time).min()
        let after = backOnTop.map { $0 - recoveredAt } ?? .infinity
        #expect(after <= 15, "back on the top variant \(after) s after the recovery; switches \(moves)")
        let decodeErrors = try String(contentsOfFile: auto.stats, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { ($0["telemetry"] as? [String: Any])?["decodeErrors"] as? Int }.max()
        #expect(decodeErrors == 0, "decode errors across the switches: \(String(describing: decodeErrors))")

        // No audio gap at a switch.
        let (gaps, silence) = Self.silences(sound, longerThan: 20)
        let xruns = try String(contentsOfFile: auto.stats, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { ($0["telemetry"] as? [String: Any])?["audioXruns"] as? Int }.max()
        // With no rebuffer, seconds from the first sound are media seconds: each switch heard is
        // at its position. No silence over 20 ms within a second of any of them.
        let heard = switches.compactMap { ($0["position"] as? Double) }.filter { $0 > 0 && $0 < Double(sound.count) / 48000 - 2 }
        #expect(heard.count >= 2, "switches heard: \(heard) of \(moves)")
        let atSwitch = gaps.filter { gap in heard.contains { abs(gap.at - $0) <= 1 } }
        #expect(atSwitch.isEmpty, "silence at a switch: \(atSwitch); every gap over 20 ms (s from the first sound, ms): \(gaps); device underruns \(String(describing: xruns)); switches \(moves)")
        print("abr \(source.manifest): switches \(moves); auto rebuffers \(autoRebuffers ?? -1), max \(maxRebuffers ?? -1); top again \(String(format: "%.1f", after)) s after recovery; longest silence \(String(format: "%.1f", silence)) ms")
    }

}

/// The throttled run over DASH, a suite of its own so that test.sh runs it in a process beside
/// the HLS one (each records a sink of its own).
@Suite struct ThrottledDASHTests {
    @Test func aThrottledDASHLinkSwitchesDownWithoutRebufferingAndBackUpAfterwards() throws {
        try AdaptiveBitrateEndToEndTests.throttledRun(AdaptiveBitrateEndToEndTests.dash)
    }
}
