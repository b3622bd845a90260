import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Why an HTTP(S) open failed, when libavformat's words say nothing: its http protocol follows
/// redirects by itself and, past 8 of them, fails with "Input/output error"; a redirect to
/// another scheme (a local file) fails with "Invalid argument". This walks the chain again, one
/// request per hop over libavformat's `tcp`/`tls` protocols (with the source's headers), reading
/// only each response's head (``HTTPResponseHead``, within its budgets), for at most ``maxHops`` hops, and names
/// the cause: `redirect loop after 10 hops`, `redirect to a local file refused`, … Nil when the
/// chain is not the cause (no redirect, or the server cannot be reached).
package enum RedirectProbe {
    static let maxHops = 10

    /// Explains `error` (an open of `url` that failed) when a redirect caused it.
    package static func explain(error: Int32, url: String, options: [String: String], interrupt: InterruptToken,
                        timeout: Double) -> String? {
        guard error == aether_AVERROR(EIO) || error == aether_AVERROR(EINVAL),
              ["http", "https"].contains(NetworkSettings.scheme(of: url) ?? "") else { return nil }
        var current = url
        var seen: Set<String> = [url]
        var looped = false
        for hop in 1...maxHops {
            guard let location = location(of: current, options: options, interrupt: interrupt, timeout: timeout) else {
                return nil
            }
            let next = URLReference.resolve(location, against: current)
            switch NetworkSettings.scheme(of: next) ?? "file" {
            case "http", "https": break
            case "file": return "redirect to a local file refused"
            case let other: return "redirect to '\(TextSanitizer.clean(other)):' refused (only http and https)"
            }
            if !seen.insert(next).inserted { looped = true }
            current = next
            if hop == maxHops { break }
        }
        return looped ? "redirect loop after \(maxHops) hops" : "more than \(maxHops) redirects"
    }

    /// Whether an https `url`'s port answers TCP but its TLS handshake fails (libavformat says
    /// "Input/output error" for both a handshake that failed and much else).
    package static func handshakeFails(url: String, interrupt: InterruptToken, timeout: Double) -> Bool {
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "https",
              let host = parts.host, !host.isEmpty else { return false }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let address = "\(hostPart):\(parts.port ?? 443)"
        func opens(_ target: String) -> Bool {
            var pb = connect(target, interrupt: interrupt, timeout: timeout)
            defer { if pb != nil { avio_closep(&pb) } }
            return pb != nil
        }
        return opens("tcp://\(address)") && !opens("tls://\(address)")
    }

    /// A connection over libavformat's `tcp` or `tls` protocol to `target` (`tcp://host:port`),
    /// each read within `timeout` (at most 60 s); nil when it cannot be made. The caller closes it.
    private static func connect(_ target: String, interrupt: InterruptToken, timeout: Double) -> UnsafeMutablePointer<AVIOContext>? {
        var dict: OpaquePointer? = nil
        av_dict_set(&dict, "rw_timeout", String(Int64(saturating: max(0.1, min(timeout, 60)) * 1e6)), 0)
        defer { av_dict_free(&dict) }
        var callback = interrupt.callback
        var pb: UnsafeMutablePointer<AVIOContext>?
        guard avio_open2(&pb, target, AVIO_FLAG_READ_WRITE, &callback, &dict) >= 0 else {
            if pb != nil { avio_closep(&pb) }
            return nil
        }
        return pb
    }

    /// The `Location` of a 3xx answer to a GET of `url`, nil for any other answer or failure.
    private static func location(of url: String, options: [String: String], interrupt: InterruptToken,
                                 timeout: Double) -> String? {
        guard let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty else { return nil }
        let secure = parts.scheme?.lowercased() == "https"
        let port = parts.port ?? (secure ? 443 : 80)
        let hostPart = host.contains(":") ? "[\(host)]" : host
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        guard !(path + hostPart).contains(where: { $0 == "\r" || $0 == "\n" || $0 == " " }) else { return nil }
        guard let pb = connect("\(secure ? "tls" : "tcp")://\(hostPart):\(port)", interrupt: interrupt, timeout: timeout) else { return nil }
        defer { var doomed: UnsafeMutablePointer<AVIOContext>? = pb; avio_closep(&doomed) }
        var request = "GET \(path) HTTP/1.1\r\nHost: \(hostPart)\(parts.port.map { ":\($0)" } ?? "")\r\n"
        if let agent = options["user_agent"] { request += "User-Agent: \(agent)\r\n" }
        if let referrer = options["referer"] { request += "Referer: \(referrer)\r\n" }
        request += options["headers"] ?? ""
        request += "Connection: close\r\n\r\n"
        let bytes = Array(request.utf8)
        avio_write(pb, bytes, Int32(bytes.count))
        avio_flush(pb)
        var head = HTTPResponseHead()
        var chunk = [UInt8](repeating: 0, count: 4096)
        reading: while true {
            let n = avio_read_partial(pb, &chunk, Int32(chunk.count))
            guard n > 0 else { return nil }
            switch chunk.withUnsafeBytes({ head.feed(UnsafeRawBufferPointer(rebasing: $0[..<Int(n)])) }) {
            case .incomplete: continue
            case .complete: break reading
            case .refused: return nil
            }
        }
        guard [301, 302, 303, 307, 308].contains(head.status) else { return nil }
        return head.value("location")
    }
}
