import AetherBase
import Foundation

/// `range_http.py --tls` on 127.0.0.1: an HTTPS file server with a certificate chain of the
/// caller's (Tests/Scripts/test-ca.sh makes them), logging each request with the client
/// connection it came on, so a test or `aether-bench` can count the connections a player opened.
/// The process ends with ``stop()`` (or when this is released).
public final class LoopbackHTTPS: Sendable {
    private let server: ScriptServer
    private let log: String
    public var port: Int { server.port }

    /// Serves `root` with `certificate` (PEM, the leaf first) and its `key`.
    public init(root: String, certificate: String, key: String) throws {
        let log = NSTemporaryDirectory() + "aether-https-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        server = try ScriptServer("range_http.py", ["--tls", certificate, key, root, log])
        self.log = log
    }

    deinit { stop() }

    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: log)
    }

    /// `https://HOST:PORT/path` (`host`: what the player is told, 127.0.0.1 or localhost).
    public func url(_ path: String, host: String = "127.0.0.1") -> String {
        "https://\(host):\(port)/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// The requests answered so far (range_http.py's log lines: method, path, status, bytes,
    /// client), read as ``LoopbackHTTP/settled(_:)`` reads a log.
    public func requests() -> [[String: Any]] {
        func read() -> [[String: Any]] {
            guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        return LoopbackHTTP.settled(read)
    }

    /// The client connections the requests came on.
    public func connections() -> Int { Set(requests().compactMap { $0["client"] as? String }).count }
}
