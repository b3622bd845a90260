import AetherLoopback
import ArgumentParser
import Foundation

/// `aether-bench network`: network sources on loopback, through the suite's HTTP server and
/// fault proxy (``LoopbackHTTP``: `Tests/Scripts/range_http.py`, `fault_proxy.py`), on the
/// network fixtures (`Tests/Fixtures/make-network-fixtures.sh`).
///
/// 1. Startup: seconds from exec to the first frame presented (the headless player's
///    `first frame of serial 1` log line), per source (progressive MP4, the HLS masters hls-vod
///    and hls-abr with `--hls-bitrate=auto`, the default, and with `max`, DASH), with
///    no added latency and with 100 ms added to every response by the proxy (each request pays
///    it, as a 100 ms round trip would). Beside it, the same for `ffmpeg -i URL -frames:v 1 -f null -`
///    (open, probe, first decoded frame), alternating in the same loop.
/// 2. Rebuffers on a throttled link: the progressive clip (≈ 80 kB/s) played in real time with
///    the proxy pacing the body at a fraction of that and at a margin above it; rebuffers and
///    wall time from the summary.
/// 3. Connections (`--parts connections`, ConnectionsBenchmark.swift): an HLS VOD over HTTPS with
///    each new connection held 50 ms, against the commit before and mpv.
/// 4. Throughput (`--parts throughput`, ThroughputBenchmark.swift): a 1 GiB file read whole over
///    HTTP and HTTPS, against the commit before and curl; CPU seconds per GiB.
/// 5. First sound (`--parts firstsound`, FirstSoundBenchmark.swift): exec to the first sound a
///    PulseAudio null sink plays, for a station, a live HLS stream and a progressive file, against
///    the commit before and mpv.
struct NetworkBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "network",
        abstract: "Startup to first frame over loopback (plain and +100 ms per request), rebuffers on a throttled link, connections over HTTPS, throughput, and the first sound of a station, a live stream and a file.")

    @Option(help: "The aether-tui binary.") var player = ".build/release/aether-tui"
    @Option(help: "Runs per case (medians reported).") var repeats = 5
    @Option(help: ArgumentHelp("Parts to run, comma-separated.", valueName: "startup,throttle,connections,throughput,firstsound")) var parts = "startup,throttle"
    @Option(help: "A second aether-tui (the commit before) beside the player in the connections, throughput and firstsound parts.") var baselinePlayer: String?
    @Option(help: "The network fixtures (make-network-fixtures.sh output).") var fixtures = "Tests/Fixtures/out/net"
    @Option(help: "Scratch directory.") var workDir = "/tmp/aether-bench-network"

    func run() async throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: player) else { throw ValidationError("no player at \(player)") }
        guard FileManager.default.fileExists(atPath: fixtures + "/progressive.mp4") else {
            throw ValidationError("no network fixtures in \(fixtures) (run Tests/Fixtures/make-network-fixtures.sh)")
        }
        let loopback = try LoopbackHTTP(root: fixtures)
        defer { loopback.stop() }
        print("aether-bench network: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(EngineBenchmark.loadAverage()); player \(player)")
        let list = parts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if list.contains("startup") { try startup(loopback) }
        if list.contains("throttle") { try throttle(loopback) }
        if list.contains("connections") { try connections() }
        if list.contains("throughput") { try throughput() }
        if list.contains("firstsound") { try firstSound(loopback) }
    }

    /// Seconds from exec to the first presented frame, from the player's log.
    func playerStartup(_ url: String, _ arguments: [String] = [], binary: String? = nil) -> Double? {
        let log = workDir + "/startup.log"
        try? FileManager.default.removeItem(atPath: log)
        let m = Spawn.run([binary ?? player, url, "--vo=null", "--ao=null", "--length=0.5", "--log-file=\(log)"] + arguments)
        guard m.status == 0, let text = try? String(contentsOfFile: log, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.contains("first frame of serial 1 at") }),
              let close = line.firstIndex(of: "]"), let space = line.firstIndex(of: " ") else { return nil }
        return Double(line[line.index(after: space)..<close])
    }

    /// Wall seconds of `ffmpeg -i URL -frames:v 1 -f null -` (open, probe, first frame).
    func ffmpegStartup(_ url: String) -> Double? {
        let m = Spawn.run(["ffmpeg", "-nostdin", "-v", "error", "-protocol_whitelist", "http,https,tcp,tls,crypto,hls,data",
                           "-i", url, "-frames:v", "1", "-f", "null", "-"])
        return m.status == 0 ? m.wallSeconds : nil
    }

    func startup(_ loopback: LoopbackHTTP) throws {
        print("\n== startup to the first frame, s (median of \(repeats); p95) ==")
        print("source".padding(toLength: 30, withPad: " ", startingAt: 0) + "latency   aether-tui        ffmpeg (open+probe+1 frame)   ratio")
        // HLS masters with the default `--hls-bitrate=auto` (bit-rate switching) and with `max`.
        let sources: [(String, [String])] = [
            ("progressive.mp4", []), ("hls-vod/master.m3u8", []), ("hls-vod/master.m3u8", ["--hls-bitrate=max"]),
            ("hls-abr/master.m3u8", []), ("hls-abr/master.m3u8", ["--hls-bitrate=max"]), ("dash-vod/manifest.mpd", []),
        ].filter { FileManager.default.fileExists(atPath: fixtures + "/" + $0.0) }
        for latency in [0, 100] {
            try loopback.setRules(latency == 0 ? "[]" : "[{\"latency_ms\": \(latency)}]")
            for (source, arguments) in sources {
                let url = "http://127.0.0.1:\(loopback.port)/\(source)"
                var ours: [Double] = [], theirs: [Double] = []
                for _ in 0..<repeats {
                    if let t = playerStartup(url, arguments) { ours.append(t) }
                    if let t = ffmpegStartup(url) { theirs.append(t) }
                }
                let a = Stats.median(ours), b = Stats.median(theirs)
                let name = source + (source.hasSuffix(".m3u8") ? (arguments.isEmpty ? " auto" : " max") : "")
                print(name.padding(toLength: 30, withPad: " ", startingAt: 0)
                      + "\(latency) ms".padding(toLength: 10, withPad: " ", startingAt: 0)
                      + "\(Stats.fmt(a, 3)) (p95 \(Stats.fmt(Stats.percentile(ours, 95), 3)))".padding(toLength: 18, withPad: " ", startingAt: 0)
                      + "\(Stats.fmt(b, 3)) (p95 \(Stats.fmt(Stats.percentile(theirs, 95), 3)))".padding(toLength: 30, withPad: " ", startingAt: 0)
                      + (b > 0 ? Stats.fmt(a / b, 2) : "-") + (ours.count < repeats ? "  (\(repeats - ours.count) runs failed)" : ""))
            }
        }
        try loopback.setRules("[]")
    }

    struct Summary: Decodable {
        var summary: Fields?
        struct Fields: Decodable {
            var mediaSeconds: Double
            var wallSeconds: Double
            var rebuffers: Int?
            var framesDecoded: Int
            var endedEarly: String?
        }
    }

    /// The summary a player's stats file ends with (nil: none, or not one).
    static func summary(_ stats: String) -> Summary.Fields? {
        guard let line = ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").split(separator: "\n").last else { return nil }
        return try? JSONDecoder().decode(Summary.self, from: Data(line.utf8)).summary
    }

    func throttle(_ loopback: LoopbackHTTP) throws {
        let file = fixtures + "/progressive.mp4"
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let rate = Double(bytes) / 20  // bytes per media second (a 20 s clip)
        print("\n== progressive.mp4 (\(Int(rate / 1000)) kB/s average) in real time over a paced link, --cache-secs=5 ==")
        print("link".padding(toLength: 22, withPad: " ", startingAt: 0) + "rebuffers (runs)      wall s (median)   frames")
        for factor in [0.8, 1.5] {
            let bps = Int(rate * factor)
            try loopback.setRules("[{\"path\": \"progressive\", \"throttle_bps\": \(bps)}]")
            var rebuffers: [Int] = [], walls: [Double] = [], frames: [Int] = []
            for _ in 0..<max(1, repeats / 2) {
                let stats = workDir + "/throttle.jsonl"
                try? FileManager.default.removeItem(atPath: stats)
                _ = Spawn.run([player, "http://127.0.0.1:\(loopback.port)/progressive.mp4", "--vo=null", "--ao=null",
                               "--cache-secs=5", "--stats-file=\(stats)"])
                guard let s = Self.summary(stats) else { continue }
                rebuffers.append(s.rebuffers ?? 0)
                walls.append(s.wallSeconds)
                frames.append(s.framesDecoded)
            }
            print("\(Int(factor * 100)) % (\(bps / 1000) kB/s)".padding(toLength: 22, withPad: " ", startingAt: 0)
                  + "\(rebuffers)".padding(toLength: 22, withPad: " ", startingAt: 0)
                  + Stats.fmt(Stats.median(walls), 1).padding(toLength: 18, withPad: " ", startingAt: 0) + "\(frames)")
        }
        try loopback.setRules("[]")
    }
}

extension NetworkBenchmark {
    /// What tells `binary` to play the loopback servers' self-signed certificate:
    /// `--tls-verify=no`, or nothing for a commit before issue 59, which checked no certificate
    /// (and has no such option).
    static func acceptAnyCertificate(_ binary: String) -> [String] {
        Spawn.output([binary, "probe", "--help"])?.contains("--tls-verify") == true ? ["--tls-verify=no"] : []
    }
}
