import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Tier: network. HTTPS through libcurl against `range_http.py --tls` on loopback, with the
/// certificates of Tests/Scripts/test-ca.sh (issue 59): a certificate nobody trusted signed is
/// refused, as one for another host is; one from a test authority in the system store (test.sh
/// puts it there for the run) plays, as one from `--tls-ca-file` does; `--tls-verify=no` plays
/// what would be refused; and an HLS VOD's playlists and segments share a few connections.
@Suite(.serialized) struct TLSTests {
    static func server(_ leaf: String) throws -> LoopbackHTTPS {
        try LoopbackHTTPS(root: NetworkTests.root, certificate: TestEnvironment.tlsFile("\(leaf).pem"),
                          key: TestEnvironment.tlsFile("\(leaf).key"))
    }

    /// Whether the test authority is in the system store (test.sh installs it as root).
    static var authorityInstalled: Bool {
        let installed = try? String(contentsOfFile: "/usr/local/share/ca-certificates/aether-test-ca.crt", encoding: .utf8)
        return installed != nil && installed == (try? String(contentsOfFile: TestEnvironment.tlsFile("ca.pem"), encoding: .utf8))
    }

    @Test func aSelfSignedServerIsRefusedAndPlaysWithTLSVerifyNo() throws {
        let server = try Self.server("self-signed")
        defer { server.stop() }
        var (r, s) = try NetworkTests.headless([server.url("progressive.mp4"), "--length=1"])
        #expect(r.status == 1 && s.isEmpty, "\(r.status) \(r.stderr)")
        #expect(NetworkTests.errorLines(r) == ["aether-tui: cannot open '\(server.url("progressive.mp4"))': the certificate of '127.0.0.1' is not trusted (SSL certificate problem: self-signed certificate); --tls-verify=no would play it anyway"],
                "\(r.stderr)")
        #expect(server.requests().isEmpty, "no request went to a server whose certificate was refused")
        (r, s) = try NetworkTests.headless([server.url("progressive.mp4"), "--length=1", "--tls-verify=no"])
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) >= 0.9, "\(r.status) \(r.stderr)")
    }

    @Test func theSystemStoresAuthorityIsTrustedAndAWrongHostIsNot() throws {
        try #require(Self.authorityInstalled, "the test authority is not in the system store (test.sh puts it there as root)")
        let good = try Self.server("localhost"), evil = try Self.server("evil")
        defer { good.stop(); evil.stop() }
        for host in ["127.0.0.1", "localhost"] {
            let (r, s) = try NetworkTests.headless([good.url("progressive.mp4", host: host), "--length=1"])
            #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) >= 0.9, "\(host): \(r.status) \(r.stderr)")
        }
        // Signed by the trusted authority, but for evil.example.
        let (r, _) = try NetworkTests.headless([evil.url("progressive.mp4"), "--length=1"])
        #expect(r.status == 1 && r.stderr.contains("the certificate of '127.0.0.1' is not trusted")
                && r.stderr.contains("no alternative certificate subject name matches target host name '127.0.0.1'"), "\(r.status) \(r.stderr)")
        #expect(evil.requests().isEmpty)
    }

    @Test func aCAFileIsTrustedInsteadOfTheSystemsAndGarbageIsOneLine() throws {
        let good = try Self.server("localhost")
        defer { good.stop() }
        var (r, s) = try NetworkTests.headless([good.url("progressive.mp4"), "--length=1", "--tls-ca-file=\(TestEnvironment.tlsFile("ca.pem"))"])
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) >= 0.9, "\(r.status) \(r.stderr)")
        // A chain of garbage: one line, no hang.
        (r, _) = try NetworkTests.headless([good.url("progressive.mp4"), "--length=1", "--tls-ca-file=\(TestEnvironment.tlsFile("garbage.pem"))"], timeout: 20)
        #expect(r.status != 0 && NetworkTests.errorLines(r).count == 1 && r.stderr.contains("is not trusted"), "\(r.status) \(r.stderr)")
        (r, _) = try NetworkTests.headless([good.url("progressive.mp4"), "--tls-ca-file=/nonexistent/ca.pem"], timeout: 20)
        #expect(r.status != 0 && r.stderr.contains("--tls-ca-file: '/nonexistent/ca.pem' is not a file that can be read"), "\(r.status) \(r.stderr)")
    }

    /// An HLS VOD of 10 one-second segments over HTTPS: its playlist and segments share
    /// connections (before libcurl: a connection a request, 12 for 12).
    @Test func anHLSVODsRequestsShareConnections() throws {
        let server = try Self.server("self-signed")
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("hls-vod/v0/index.m3u8"), "--tls-verify=no"], timeout: 60)
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) > 9, "\(r.status) \(r.stderr)")
        let requests = server.requests()
        let segments = requests.filter { ($0["path"] as? String)?.hasSuffix(".ts") == true }.count
        #expect(segments >= 10 && server.connections() <= 4, "\(requests.count) requests (\(segments) segments) on \(server.connections()) connections")
    }

    /// An AES-128 HLS over HTTPS: the key and the encrypted segments come through the transport
    /// too (libavformat's own http, behind its `crypto` protocol, asked for a new connection
    /// each time with `Connection: close`), on a few connections, and every frame plays.
    @Test func anEncryptedHLSsKeyAndSegmentsComeThroughTheTransport() throws {
        let server = try Self.server("self-signed")
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("hls-aes/index.m3u8"), "--tls-verify=no", "--speed=4"], timeout: 60)
        #expect(r.status == 0 && s.first?.frames.decoded == NetworkTests.progressiveFrames, "\(r.status) \(r.stderr)")
        let requests = server.requests()
        let paths = requests.compactMap { $0["path"] as? String }
        #expect(paths.contains("/hls-aes/enc.key") && paths.filter { $0.hasSuffix(".ts") }.count >= 8, "\(paths)")
        let closing = requests.filter { (($0["headers"] as? [String: String]) ?? [:]).contains { $0.key.lowercased() == "connection" && $0.value.lowercased() == "close" } }
        #expect(closing.isEmpty, "asked to close: \(closing.compactMap { $0["path"] as? String })")
        #expect(server.connections() <= 4, "\(requests.count) requests on \(server.connections()) connections")
    }
}
