import Foundation

/// A client of the JSON IPC socket for tests: sends lines, reads lines with a deadline, and
/// tells replies (objects with `error`) from events (objects with `event`).
public final class IPCTestClient {
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// Events read while waiting for a reply, oldest first.
    public private(set) var events: [[String: Any]] = []

    public struct ConnectError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects to the socket at `path`, retrying until `timeout` s (the server may still be
    /// starting).
    public init(path: String, timeout: Double = 5) throws {
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw ConnectError(description: "path too long")
        }
        var connected: Int32 = -1
        var failure: ConnectError?
        _ = waitUntil(timeout, interval: 0.02) {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                failure = ConnectError(description: "socket: \(String(cString: strerror(errno)))")
                return true
            }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let r = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if r == 0 {
                connected = fd
                return true
            }
            failure = ConnectError(description: "connect \(path): \(String(cString: strerror(errno)))")
            close(fd)
            return false
        }
        guard connected >= 0 else { throw failure ?? ConnectError(description: "connect \(path): timed out") }
        self.fd = connected
    }

    deinit { close(fd) }

    /// Sends raw bytes.
    public func send(bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Sends `line` and a newline.
    public func send(_ line: String) { send(bytes: Array(line.utf8) + [0x0A]) }

    /// Closes the sending side (the server sees end of input).
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next line (without its newline), nil at end of input or after `timeout` s.
    public func readLine(timeout: Double = 5) -> String? {
        let deadline = MonotonicTime.now() + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline - MonotonicTime.now()
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, left * 1000))) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// True when the server closes the connection within `timeout` s (lines still coming are
    /// read and dropped).
    public func closedByServer(timeout: Double = 5) -> Bool {
        let deadline = MonotonicTime.now() + timeout
        while MonotonicTime.now() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
        return false
    }

    /// The next line as a JSON object (nil: none in time, or not an object).
    public func readObject(timeout: Double = 5) -> [String: Any]? {
        guard let line = readLine(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// Sends `request` (one line of JSON) and returns the next reply, keeping events read
    /// meanwhile in ``events``.
    public func request(_ request: String, timeout: Double = 5) -> [String: Any]? {
        send(request)
        return nextReply(timeout: timeout)
    }

    /// The next object that is not an event.
    public func nextReply(timeout: Double = 5) -> [String: Any]? {
        let deadline = MonotonicTime.now() + timeout
        while let object = readObject(timeout: max(0, deadline - MonotonicTime.now())) {
            if object["event"] != nil { events.append(object) } else { return object }
        }
        return nil
    }

    /// The first event (already read or arriving within `timeout` s) that `matches`; it and
    /// the events before it are consumed.
    public func waitForEvent(timeout: Double = 5, _ matches: ([String: Any]) -> Bool) -> [String: Any]? {
        if let i = events.firstIndex(where: matches) {
            let found = events[i]
            events.removeSubrange(...i)
            return found
        }
        events.removeAll()
        let deadline = MonotonicTime.now() + timeout
        while let object = readObject(timeout: max(0, deadline - MonotonicTime.now())) {
            if object["event"] != nil, matches(object) { return object }
        }
        return nil
    }
}
