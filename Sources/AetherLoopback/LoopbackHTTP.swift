import AetherBase
import Foundation

/// A real HTTP server on 127.0.0.1 (`Tests/Scripts/range_http.py`, Range requests) serving a
/// directory, with the suite's fault proxy (`Tests/Scripts/fault_proxy.py`) in front of it:
/// tests fetch through ``url(_:)`` (the proxy), replace the proxy's fault rules at run time and
/// read which requests it saw. Both processes end with ``stop()`` (or when this is released).
/// The loopback server harness the suite (through AetherTestSupport) and `aether-bench network`
/// share; it is in no shipped product.
public final class LoopbackHTTP: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The proxy's port (what the player is given), and the server's behind it.
    public var port: Int { proxy.port }
    public var serverPort: Int { server.port }
    private let server: ScriptServer
    private let proxy: ScriptServer

    /// The repository's `Tests/Scripts`, where the server and the proxy live (three levels above
    /// this file).
    public static let scripts: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Scripts")

    /// Serves `root`; `rules` is the proxy's initial rule list (JSON).
    public init(root: String, rules: String = "[]") throws {
        let dir = NSTemporaryDirectory() + "aether-http-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let rulesFile = dir + "/rules.json"
        try rules.write(toFile: rulesFile, atomically: true, encoding: .utf8)
        server = try ScriptServer("range_http.py", [root, dir + "/server.jsonl"])
        proxy = try ScriptServer("fault_proxy.py", [String(server.port), dir + "/proxy.jsonl", rulesFile])
    }

    deinit { stop() }

    /// Ends the proxy and the server and waits for them.
    public func stop() {
        proxy.stop()
        server.stop()
    }

    /// `http://127.0.0.1:PORT/path` through the proxy.
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// Replaces the proxy's rules (a JSON list; see fault_proxy.py).
    public func setRules(_ json: String) throws {
        let status = try request("POST", "/__rules", body: json).status
        guard status == 204 else { throw Failure(description: "the proxy refused the rules (\(status)): \(json)") }
    }

    /// The requests the proxy has finished answering, in the order they started (fault_proxy.py's
    /// log objects: method, path, range, headers, rule, status, bytes, length, cut, seq, …). The
    /// proxy logs in the order responses end, and the last bytes of one response may reach the
    /// client (which then asks for the next) before the proxy has logged it.
    ///
    /// The proxy logs a request once its response has ended, a moment after the client has the
    /// last byte: a test that reads the log as soon as its client is done could miss the last
    /// request (seen once in the suite). So the log is read until two reads 50 ms apart agree
    /// (at most 1 s).
    public func requests() throws -> [[String: Any]] {
        func read() throws -> [[String: Any]] {
            let body = try request("GET", "/__log").body
            guard let list = try JSONSerialization.jsonObject(with: body) as? [[String: Any]] else {
                throw Failure(description: "the proxy's log is not a JSON list")
            }
            return list.sorted { ($0["seq"] as? Int ?? 0) < ($1["seq"] as? Int ?? 0) }
        }
        return try Self.settled(read)
    }

    /// A server's request log read until two reads 50 ms apart agree, at most 1 s: a line is
    /// logged when its answer has ended, a moment after the client has the last byte. (Another
    /// process's file or endpoint: there is no condition of ours to wait on.)
    static func settled(_ read: () throws -> [[String: Any]]) rethrows -> [[String: Any]] {
        var list = try read()
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.05)
            let again = try read()
            if again.count == list.count { return again }
            list = again
        }
        return list
    }

    /// Forgets the requests logged so far.
    public func clearRequests() throws { _ = try request("DELETE", "/__log") }

    /// One HTTP/1.0 exchange with the proxy's control endpoints over a plain socket.
    private func request(_ method: String, _ path: String, body: String = "") throws -> (status: Int, body: Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "cannot reach the proxy on port \(port)") }
        let payload = Array(body.utf8)
        let head = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + payload
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "write to the proxy failed") }
            sent += n
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)),
              let statusLine = String(data: response[..<split.lowerBound], encoding: .utf8)?.split(separator: "\r\n").first,
              let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw Failure(description: "no HTTP response from the proxy") }
        return (status, Data(response[split.upperBound...]))
    }
}
