import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Tier: network. HTTPS through libcurl against `range_http.py --tls` on loopback, with the
/// certificates of Tests/Scripts/test-ca.sh (issue 59): a certificate nobody trusted signed is
/// refused, as one for another host is; one from a test authority in the system store (test.sh
/// puts it there for the run) plays, as one from `--tls-ca-file` does; `--tls-verify=no` plays
/// what would be refused; an HLS VOD's playlists and segments share a few connections, and one
/// connection of HTTP/2 where the server offers it (nghttpd).
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
        #expect(r.status == 5 && s.isEmpty, "\(r.status) \(r.stderr)")
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
        #expect(r.status == 5 && r.stderr.contains("the certificate of '127.0.0.1' is not trusted")
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
        #expect(NetworkTests.libavformatRequests(requests).isEmpty, "libavformat's: \(NetworkTests.libavformatRequests(requests))")
        #expect(server.connections() <= 4, "\(requests.count) requests on \(server.connections()) connections")
    }

    /// HTTP/2 where the server offers it by ALPN (issue 59): a real h2 server (nghttpd) gets the
    /// HLS VOD's playlists and segments as streams of one connection with one variant
    /// (`--hls-bitrate=max`); with bit-rate switching the switcher's playlists come on a second
    /// connection of its own (it fetches on its own thread while the demuxer reads).
    @Test(.enabled(if: ["/usr/sbin/nghttpd", "/usr/bin/nghttpd"].contains { FileManager.default.isExecutableFile(atPath: $0) }
                   || ProcessInfo.processInfo.environment["CI"] != nil))
    func anHTTP2ServerGetsTheRequestsAsStreamsOfOneConnection() throws {
        for (arguments, connections) in [(["--hls-bitrate=max"], 1), ([], 2)] {
            let requests = try Self.http2Requests(arguments)
            #expect(requests.contains { $0.path.hasSuffix(".ts") } && requests.contains { $0.path.hasSuffix(".m3u8") }, "\(requests.map(\.path))")
            let used = Set(requests.map(\.connection)).count
            #expect(used == connections, "\(arguments): \(requests.count) requests on \(used) connections")
            print("HTTP/2 \(arguments): \(requests.count) requests on \(used) connection(s)")
        }
    }

    /// The requests nghttpd got while the player played 3 s of hls-vod with `arguments`: each
    /// with its connection (`[id=C] [  0.002] recv (stream_id=N) :path: /hls-vod/v0/seg000.ts`).
    static func http2Requests(_ arguments: [String]) throws -> [(connection: String, path: String)] {
        let log = NSTemporaryDirectory() + "aether-h2-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let server = try ScriptServer("h2_server.py", [TestEnvironment.tlsFile("localhost.pem"), TestEnvironment.tlsFile("localhost.key"),
                                                       NetworkTests.root, log])
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless(["https://localhost:\(server.port)/hls-vod/master.m3u8", "--length=3",
                                                "--tls-ca-file=\(TestEnvironment.tlsFile("ca.pem"))"] + arguments)
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) > 2.5, "\(r.status) \(r.stderr)")
        server.stop()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> (connection: String, path: String)? in
            guard let p = line.range(of: ":path: "), line.hasPrefix("[id="), let close = line.firstIndex(of: "]") else { return nil }
            return (String(line[line.index(line.startIndex, offsetBy: 4)..<close]), String(line[p.upperBound...]))
        }
    }
}
