import AetherBase
import Foundation

/// `range_http.py --tls` on 127.0.0.1: an HTTPS file server with a certificate chain of the
/// caller's (Tests/Scripts/test-ca.sh makes them), logging each request with the client
/// connection it came on, so a test or `aether-bench` can count the connections a player opened.
/// The process ends with ``stop()`` (or when this is released).
public final class LoopbackHTTPS: Sendable {
    public let port: Int
    private let log: String
    private let process: Guarded<(Process, Pipe)?>

    /// Serves `root` with `certificate` (PEM, the leaf first) and its `key`.
    public init(root: String, certificate: String, key: String) throws {
        log = NSTemporaryDirectory() + "aether-https-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", LoopbackHTTP.scripts.appendingPathComponent("range_http.py").path,
                             "--tls", certificate, key, root, log]
        let out = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        self.process = Guarded((process, input))
        var text = ""
        while !text.hasSuffix("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Self.end(process, input)
            throw LoopbackHTTP.Failure(description: "range_http.py --tls printed no port: \(text)")
        }
        self.port = port
    }

    deinit { stop() }

    public func stop() {
        if let (process, input) = process.withLock({ p in defer { p = nil }; return p }) { Self.end(process, input) }
        try? FileManager.default.removeItem(atPath: log)
    }

    private static func end(_ process: Process, _ input: Pipe) {
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// `https://HOST:PORT/path` (`host`: what the player is told, 127.0.0.1 or localhost).
    public func url(_ path: String, host: String = "127.0.0.1") -> String {
        "https://\(host):\(port)/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// The requests answered so far (range_http.py's log lines: method, path, status, bytes,
    /// client), read until two reads 50 ms apart agree (a line is written as its answer ends).
    public func requests() -> [[String: Any]] {
        func read() -> [[String: Any]] {
            guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        var list = read()
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.05)
            let again = read()
            if again.count == list.count { return again }
            list = again
        }
        return list
    }

    /// The client connections the requests came on.
    public func connections() -> Int { Set(requests().compactMap { $0["client"] as? String }).count }
}
