import AetherLoopback
import ArgumentParser
import Foundation

/// `aether-bench network --parts throughput`: a 1 GiB progressive file (Matroska of 1 MiB raw
/// frames, so demuxing costs next to nothing) read whole over loopback HTTP and HTTPS: the
/// player's `probe --packets --count all` (every byte through its transport and the demuxer),
/// the baseline player's (`--baseline-player`, the commit before) and `curl -o /dev/null`, in
/// turn in one loop. Wall seconds give the throughput (MiB/s, and the player's against curl's);
/// user + system CPU seconds give the cost per GiB. The server is the suite's `range_http.py`,
/// read directly (its `--tls` with the self-signed certificate, which each client is told to
/// accept), not through the fault proxy.
extension NetworkBenchmark {
    func throughput() throws {
        let dir = workDir + "/gib"
        let file = dir + "/gib.mkv"
        if !FileManager.default.fileExists(atPath: file) {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            // 1024 frames of 1024 × 1024 grey bytes: 1 GiB of payload (and a little Matroska).
            let made = Spawn.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=1024x1024:r=25",
                                  "-frames:v", "1024", "-pix_fmt", "gray", "-c:v", "rawvideo", "-y", file])
            guard made.status == 0 else { throw ValidationError("ffmpeg could not make the 1 GiB file") }
        }
        let bytes = Double((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        guard bytes > 0 else { throw ValidationError("cannot read \(file)") }
        let tls = "Tests/Fixtures/out-tls"
        if !FileManager.default.fileExists(atPath: tls + "/self-signed.pem") {
            _ = Spawn.run(["bash", "Tests/Scripts/test-ca.sh", tls])
        }
        let plain = try LoopbackHTTP(root: dir)
        defer { plain.stop() }
        let secure = try LoopbackHTTPS(root: dir, certificate: tls + "/self-signed.pem", key: tls + "/self-signed.key")
        defer { secure.stop() }
        print("\n== \(String(format: "%.2f", bytes / Double(1 << 30))) GiB progressive file read whole over loopback (median of \(repeats)) ==")
        print("scheme  client        MiB/s    of curl's   CPU s per GiB")
        // Straight to the server, over HTTP as over HTTPS: the suite's fault proxy in front of it
        // (`plain.url`) is a third Python process on the machine's cores, and set the pace.
        let baselineAccepts = baselinePlayer.map(Self.acceptAnyCertificate) ?? []
        for (scheme, url) in [("http", "http://127.0.0.1:\(plain.serverPort)/gib.mkv"), ("https", secure.url("gib.mkv"))] {
            var clients: [(String, [String])] = [("aether-tui", [player, "probe", "--packets", "--count", "all", "--tls-verify=no", url])]
            if let baselinePlayer {
                clients.append(("baseline", [baselinePlayer, "probe", "--packets", "--count", "all"] + baselineAccepts + [url]))
            }
            clients.append(("curl", ["curl", "-s", "-k", "-o", "/dev/null", url]))
            var wall: [String: [Double]] = [:], cpu: [String: [Double]] = [:]
            for _ in 0..<repeats {
                for (name, argv) in clients {
                    let m = Spawn.run(argv, stdoutPath: "/dev/null")
                    guard m.status == 0 else { continue }
                    wall[name, default: []].append(m.wallSeconds)
                    cpu[name, default: []].append(m.cpuSeconds)
                }
            }
            let curl = Stats.median(wall["curl"] ?? [])
            for (name, _) in clients {
                let w = Stats.median(wall[name] ?? [])
                let rate = w > 0 ? bytes / Double(1 << 20) / w : 0
                let ofCurl = name == "curl" || w <= 0 ? "" : Stats.fmt(curl / w, 2) + "×"
                print(scheme.padding(toLength: 8, withPad: " ", startingAt: 0) + name.padding(toLength: 14, withPad: " ", startingAt: 0)
                      + Stats.fmt(rate, 0).padding(toLength: 9, withPad: " ", startingAt: 0)
                      + ofCurl.padding(toLength: 12, withPad: " ", startingAt: 0)
                      + Stats.fmt(Stats.median(cpu[name] ?? []) * Double(1 << 30) / bytes, 2))
            }
        }
    }
}
