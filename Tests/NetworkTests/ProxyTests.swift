import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Proxies from the environment, as curl reads them (issue 59; tier: network): `https_proxy`,
/// `HTTPS_PROXY` (HTTP CONNECT) and `ALL_PROXY` (SOCKS5, names resolved here or by the proxy)
/// carry an HTTPS stream through `tunnel_proxy.py`; a proxy variable of garbage, one naming a
/// port where nothing listens, or a host that does not resolve, is one line and the network's
/// exit status, and no request reaches the server.
@Suite struct ProxyTests {
    /// The proxy's tunnels so far (`tunnel_proxy.py`'s log: kind and target).
    static func tunnels(_ log: String) -> [(kind: String, target: String)] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String], let kind = o["kind"] else { return nil }
            return (kind, o["target"] ?? "")
        }
    }

    /// Nothing the machine sets may send the test's requests around the proxy.
    static let noBypass = ["no_proxy": "", "NO_PROXY": ""]

    @Test(arguments: [("https_proxy", "http", "connect"), ("HTTPS_PROXY", "http", "connect"),
                      ("ALL_PROXY", "socks5", "socks5"), ("ALL_PROXY", "socks5h", "socks5")])
    func aProxyFromTheEnvironmentCarriesTheStream(variable: String, scheme: String, kind: String) throws {
        let log = NSTemporaryDirectory() + "aether-proxy-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let proxy = try ScriptServer("tunnel_proxy.py", [log])
        defer { proxy.stop() }
        let server = try TLSTests.server("localhost")
        defer { server.stop() }
        var environment = Self.noBypass
        environment[variable] = "\(scheme)://127.0.0.1:\(proxy.port)"
        let (r, s) = try PlayerRuns.headless([server.url("hls-vod/master.m3u8"), "--length=2",
                                                "--tls-ca-file=\(TestEnvironment.tlsFile("ca.pem"))"], environment: environment)
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) > 1.5, "\(variable)=\(scheme): \(r.status) \(r.stderr)")
        let tunnels = Self.tunnels(log)
        #expect(!tunnels.isEmpty && tunnels.allSatisfy { $0.kind == kind && $0.target == "127.0.0.1:\(server.port)" },
                "\(variable)=\(scheme): \(tunnels)")
        #expect(server.connections() == tunnels.count, "\(server.connections()) connections, \(tunnels.count) tunnels")
    }

    @Test(arguments: [("http_proxy", "::garbage::", "cannot resolve the proxy's host (Unsupported proxy syntax in '::garbage::')"),
                      ("http_proxy", "http://no-such-proxy.invalid:3128", "cannot resolve the proxy's host (Could not resolve proxy: no-such-proxy.invalid)"),
                      ("http_proxy", "http://127.0.0.1:1", "cannot connect to the proxy at 127.0.0.1 port 1: Connection refused"),
                      ("ALL_PROXY", "socks5://127.0.0.1:1", "cannot connect to the proxy at 127.0.0.1 port 1: Connection refused")])
    func aProxyOfGarbageOrPointingNowhereIsOneLine(variable: String, value: String, words: String) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        var environment = Self.noBypass
        environment[variable] = value
        let (r, _) = try PlayerRuns.headless([server.url("progressive.mp4"), "--length=1", "--network-timeout=3"],
                                               environment: environment, timeout: 20)
        #expect(!r.timedOut && r.status == 5, "\(variable)=\(value): \(r.status) \(r.stderr)")
        #expect(NetworkTests.errorLines(r) == ["aether-tui: cannot open '\(server.url("progressive.mp4"))': \(words)"], "\(r.stderr)")
        #expect(try server.requests().isEmpty)
    }
}
