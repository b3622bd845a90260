import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where an http(s) URL's request goes and what it says: the host, the connection
/// (`tcp://host:port`, `tls://host:port`, or the proxy's), and the request's text. A proxy is
/// libavformat's: `http_proxy` from the environment (unless `no_proxy` names the host), an
/// absolute-form request through it for http, a `CONNECT` tunnel (the `tls` protocol's
/// `http_proxy` option) for https.
struct HTTPTarget {
    let host: String
    /// What libavformat opens: `tcp://…` or `tls://…`.
    let connection: String
    /// The request line's target: the path and query, or the whole URL through a proxy.
    let requestTarget: String
    /// `Host:`.
    let hostField: String
    /// A TLS connection's CONNECT proxy (nil: none).
    let tlsProxy: String?
    /// The server's `host:port` (an IPv6 address in brackets).
    let address: String

    /// An IPv6 address in brackets, as a URL's authority writes it (URLComponents gives it
    /// with them or without).
    static func bracketed(_ host: String) -> String { host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host }

    /// Nil for a URL that is not http(s), has no host, or holds a byte no request line may.
    init?(_ url: String, environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = parts.host, !host.isEmpty else { return nil }
        let secure = scheme == "https"
        let hostPart = Self.bracketed(host)
        let port = parts.port ?? (secure ? 443 : 80)
        var path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { path += "?" + query }
        guard !(path + hostPart).utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }), port > 0, port < 65536 else { return nil }
        self.host = host
        address = "\(hostPart):\(port)"
        hostField = hostPart + (parts.port.map { ":\($0)" } ?? "")
        let proxy = Self.proxy(for: host, environment: environment)
        if secure {
            connection = "tls://\(hostPart):\(port)"
            requestTarget = path
            tlsProxy = proxy
        } else if let proxy, let p = URLComponents(string: proxy), let proxyHost = p.host, !proxyHost.isEmpty {
            connection = "tcp://\(Self.bracketed(proxyHost)):\(p.port ?? 80)"
            requestTarget = "http://\(hostField)\(path)"
            tlsProxy = nil
        } else {
            connection = "tcp://\(hostPart):\(port)"
            requestTarget = path
            tlsProxy = nil
        }
    }

    /// The proxy for `host` (`http_proxy`), unless `no_proxy` names it (a comma-separated list of
    /// host names or domain suffixes; `*`: every host), as libavformat reads them.
    static func proxy(for host: String, environment: (String) -> String?) -> String? {
        guard let proxy = environment("http_proxy"), !proxy.isEmpty else { return nil }
        let skipped = (environment("no_proxy") ?? "").split(separator: ",").contains { entry in
            let name = entry.trimmingWhitespace().lowercased()
            let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
            return name == "*" || (!bare.isEmpty && (host.lowercased() == bare || host.lowercased().hasSuffix("." + bare)))
        }
        return skipped ? nil : proxy
    }

    /// libavformat's own `User-Agent` (`Lavf59.27.100`), sent when the user set none.
    static let defaultAgent: String = {
        let v = avformat_version()
        return "Lavf\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }()

    /// The request's text; nil when an option holds a byte no header may (a line break).
    func request(_ request: HTTPConnection.Request, cookies: String?) -> String? {
        var text = "GET \(requestTarget) HTTP/1.1\r\nHost: \(hostField)\r\n"
        var fields = [("User-Agent", request.options["user_agent"] ?? Self.defaultAgent), ("Accept", "*/*")]
        if let range = request.range { fields.append(("Range", "bytes=\(range)-")) }
        if request.icy { fields.append(("Icy-MetaData", "1")) }
        if let referrer = request.options["referer"] { fields.append(("Referer", referrer)) }
        if let cookies { fields.append(("Cookie", cookies)) }
        for (name, value) in fields {
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return nil }
            text += "\(name): \(value)\r\n"
        }
        if let lines = request.options["headers"], !lines.isEmpty {
            // Whole lines (validated by SourceOptions), each ended by CRLF.
            let bytes = Array(lines.utf8)
            guard bytes.count >= 2, bytes.suffix(2) == [0x0D, 0x0A], bytes.indices.allSatisfy({ i in
                bytes[i] == 0x0D ? i + 1 < bytes.count && bytes[i + 1] == 0x0A : bytes[i] != 0x0A || (i > 0 && bytes[i - 1] == 0x0D)
            }) else { return nil }
            text += lines
        }
        return text + "Connection: close\r\n\r\n"
    }
}

/// The cookies the answers of one reader's exchanges set (`Set-Cookie`), sent back to the same
/// host (as libavformat's http protocol keeps them over one resource's redirects and
/// reconnects). Within budgets: ``maxCookies`` cookies of at most ``maxCookieBytes`` bytes each;
/// one more is left out. Attributes other than `Max-Age=0` (a deletion) are not read.
package struct HTTPCookieJar {
    package static let maxCookies = 32
    package static let maxCookieBytes = 4096
    private var cookies: [(host: String, name: String, value: String)] = []
    /// Cookies left out (over a budget, or not a `name=value` of visible characters).
    package private(set) var leftOut = 0

    package init() {}

    /// Takes the `Set-Cookie` fields of an answer from `host`.
    package mutating func take(_ head: HTTPResponseHead, host: String) {
        for (name, value) in head.fields where name == "set-cookie" {
            let pair = value.prefix { $0 != ";" }
            guard pair.utf8.count <= Self.maxCookieBytes, let equals = pair.firstIndex(of: "="),
                  !pair.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { leftOut += 1; continue }
            let key = String(pair[..<equals]), cookie = String(pair[pair.index(after: equals)...])
            guard !key.isEmpty else { leftOut += 1; continue }
            cookies.removeAll { $0.host == host && $0.name == key }
            if value.lowercased().contains("max-age=0") { continue }
            guard cookies.count < Self.maxCookies else { leftOut += 1; continue }
            cookies.append((host, key, cookie))
        }
    }

    /// The `Cookie` field for a request to `host` (nil: none).
    package func header(for host: String) -> String? {
        let mine = cookies.filter { $0.host == host }
        return mine.isEmpty ? nil : mine.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
