import Foundation

/// The suite's misbehaving HTTP server on 127.0.0.1 (`Tests/Scripts/hostile_http.py`: endless
/// bodies, compression bombs, entity expansion, broken manifests, redirect loops, stalls, endless
/// headers), and a runner that measures the player's peak memory (`run_measured.py`). The server
/// ends with ``stop()`` (or when this is released).
public final class HostileHTTP: Sendable {
    private let server: ScriptServer
    public var port: Int { server.port }

    /// `media` is served as plain files under `/media/`.
    public init(media: String? = nil) throws {
        server = try ScriptServer("hostile_http.py", media.map { [$0] } ?? [])
    }

    public func stop() { server.stop() }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/" + path }

    /// One measured run (see run_measured.py).
    public struct Measured: Sendable {
        public let status: Int32
        public let peakRSSKiB: Int
        public let timedOut: Bool
        /// User and system CPU seconds.
        public let cpuSeconds: Double
        /// What the player wrote on stderr (headless) or on the terminal (`pty`).
        public let output: [UInt8]
        public var text: String { String(decoding: output, as: UTF8.self) }
        public var lines: [String] { text.split(separator: "\n").map(String.init).filter { !$0.isEmpty } }
    }

    /// Runs the player with `arguments` (headless, or in a 120×40 pseudo-terminal with `pty`),
    /// killed after `timeout` s, and reports its exit, its peak RSS and its output.
    /// `background`: at the lowest CPU priority (`nice -n 19`), for a long run whose CPU time is
    /// what is judged and which must not slow the timing-sensitive suites running beside it.
    public static func measure(_ arguments: [String], pty: Bool = false, timeout: Double = 40,
                               environment: [String: String] = [:], background: Bool = false) -> Measured {
        let capture = NSTemporaryDirectory() + "aether-measured-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: capture) }
        var argv = (background ? ["/usr/bin/nice", "-n", "19"] : []) + ["/usr/bin/env", "python3", TestEnvironment.scripts.appendingPathComponent("run_measured.py").path]
        if pty { argv += ["--pty", capture] }
        argv += ["--timeout", String(timeout), "--", TestEnvironment.binary] + arguments
        let r = Process.run(argv, environment: environment, timeout: timeout + 10)
        let summary = r.stdout.split(separator: "\n").last { $0.hasPrefix("run_measured:") } ?? ""
        var fields: [String: Int] = [:]
        for pair in summary.split(separator: " ").dropFirst() {
            let kv = pair.split(separator: "=")
            if kv.count == 2, let v = Int(kv[1]) { fields[String(kv[0])] = v }
        }
        let output = pty ? ((try? Data(contentsOf: URL(fileURLWithPath: capture))).map { [UInt8]($0) } ?? []) : Array(r.stderr.utf8)
        return Measured(status: Int32(fields["exit"] ?? -1), peakRSSKiB: fields["peak_rss_kib"] ?? -1,
                        timedOut: fields["timed_out"] != 0, cpuSeconds: Double(fields["cpu_ms"] ?? -1) / 1000, output: output)
    }
}
