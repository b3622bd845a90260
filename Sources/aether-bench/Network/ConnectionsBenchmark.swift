import AetherLoopback
import ArgumentParser
import Foundation

/// `aether-bench network --parts connections`: an HLS VOD of 30 one-second segments over HTTPS
/// (`range_http.py --tls`, the suite's self-signed certificate, which each player is told to
/// accept), through `delay_proxy.py` holding each new connection 50 ms before its first byte (a
/// far server's round trip, as a new connection's handshakes pay it). For the player, the
/// baseline player (`--baseline-player`, the commit before) and mpv, in turn in one loop:
/// the TCP connections each run opened, the seconds to the first frame (aether-tui: its log's
/// `first frame of serial 1`; mpv: the wall time of `--frames=1`, its exit included), and the
/// wall time of the whole VOD at `--speed=4` with the rebuffers in it (the players' stats
/// file; mpv counts none).
extension NetworkBenchmark {
    struct Player {
        let name: String
        let argv: [String]
        let startup: (String) -> Double?
    }

    func connections() throws {
        let vod = workDir + "/hls-30"
        if !FileManager.default.fileExists(atPath: vod + "/index.m3u8") {
            try FileManager.default.createDirectory(atPath: vod, withIntermediateDirectories: true)
            let made = Spawn.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=24:d=30",
                                  "-f", "lavfi", "-i", "sine=f=440:d=30", "-c:v", "libx264", "-preset", "veryfast", "-g", "24",
                                  "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                                  "-hls_segment_filename", vod + "/seg%03d.ts", "-y", vod + "/index.m3u8"])
            guard made.status == 0 else { throw ValidationError("ffmpeg could not make the 30-segment HLS") }
        }
        let tls = "Tests/Fixtures/out-tls"
        if !FileManager.default.fileExists(atPath: tls + "/self-signed.pem") {
            _ = Spawn.run(["bash", "Tests/Scripts/test-ca.sh", tls])
        }
        let server = try LoopbackHTTPS(root: vod, certificate: tls + "/self-signed.pem", key: tls + "/self-signed.key")
        defer { server.stop() }
        let counter = workDir + "/connections.count"
        // Tests/Scripts/delay_proxy.py: holds each new connection, counts them.
        let proxy = try ScriptServer("delay_proxy.py", [String(server.port), "50", counter])
        defer { proxy.stop() }
        let url = "https://127.0.0.1:\(proxy.port)/index.m3u8"
        var players = [Player(name: "aether-tui", argv: [player, "--tls-verify=no"], startup: { playerStartup($0, ["--tls-verify=no"]) })]
        if let baselinePlayer {
            let accept = Self.acceptAnyCertificate(baselinePlayer)
            players.append(Player(name: "baseline", argv: [baselinePlayer] + accept, startup: { playerStartup($0, accept, binary: baselinePlayer) }))
        }
        if let mpv = Spawn.which("mpv") {
            let base = [mpv, "--no-config", "--vo=null", "--ao=null", "--tls-verify=no", "--ytdl=no"]
            players.append(Player(name: "mpv", argv: base, startup: { url in
                let m = Spawn.run(base + ["--frames=1", url])
                return m.status == 0 ? m.wallSeconds : nil
            }))
        }
        print("\n== HLS VOD, 30 × 1 s segments over HTTPS, each new connection held 50 ms (median of \(repeats)) ==")
        print("player".padding(toLength: 14, withPad: " ", startingAt: 0) + "connections (whole VOD)   first frame s   whole VOD at 4× s   connections to the first frame   rebuffers")
        var rows: [String: (whole: [Double], first: [Double], wall: [Double], atFirst: [Double])] = [:]
        // The players' own count of rebuffers in the whole VOD (their stats file; mpv keeps none).
        var rebuffers: [String: [Int]] = [:]
        let stats = workDir + "/connections-stats.jsonl"
        for _ in 0..<repeats {
            for p in players {
                // The proxy counts every connection it accepted: a run's are the difference.
                var before = Self.count(counter)
                let first = p.startup(url)
                let atFirst = Double(Self.count(counter) - before)
                before = Self.count(counter)
                try? FileManager.default.removeItem(atPath: stats)
                let run = Spawn.run(p.argv + (p.name == "mpv" ? [] : ["--vo=null", "--ao=null", "--stats-file=\(stats)"]) + ["--speed=4", url])
                if p.name != "mpv", run.status == 0, let summary = Self.summary(stats) {
                    rebuffers[p.name, default: []].append(summary.rebuffers ?? 0)
                }
                var row = rows[p.name] ?? ([], [], [], [])
                if run.status == 0 {
                    row.whole.append(Double(Self.count(counter) - before))
                    row.wall.append(run.wallSeconds)
                }
                if let first {
                    row.first.append(first)
                    row.atFirst.append(atFirst)
                }
                rows[p.name] = row
            }
        }
        for p in players {
            let r = rows[p.name] ?? ([], [], [], [])
            print(p.name.padding(toLength: 14, withPad: " ", startingAt: 0)
                  + "\(Stats.fmt(Stats.median(r.whole), 0)) \(r.whole.map { Int($0) })".padding(toLength: 26, withPad: " ", startingAt: 0)
                  + Stats.fmt(Stats.median(r.first), 3).padding(toLength: 16, withPad: " ", startingAt: 0)
                  + Stats.fmt(Stats.median(r.wall), 2).padding(toLength: 20, withPad: " ", startingAt: 0)
                  + Stats.fmt(Stats.median(r.atFirst), 0).padding(toLength: 33, withPad: " ", startingAt: 0)
                  + (rebuffers[p.name].map { "\($0)" } ?? "-"))
        }
    }

    static func count(_ file: String) -> Int {
        Int(((try? String(contentsOfFile: file, encoding: .utf8)) ?? "0").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
