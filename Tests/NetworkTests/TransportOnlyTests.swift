import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// No HTTP byte through libavformat (issue 59, network tier): its `http`, `https` and
/// `httpproxy` are on no protocol whitelist, so what reaches the player over HTTP came through
/// the transport (libcurl), whoever asked for it.
@Suite struct TransportOnlyTests {
    /// libavformat asked to open an http URL itself refuses before it connects: the server
    /// sees no request.
    @Test func libavformatOpensNoHTTPItself() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        #expect(!SourceOptions.protocolWhitelist.split(separator: ",").contains { ["http", "https", "httpproxy"].contains($0) })
        #expect(throws: FFmpegError.self) { try FormatContext(url: server.url("progressive.mp4"), timeout: 5, interrupt: InterruptToken(clock: .monotonic)) }
        #expect(try server.requests().isEmpty, "libavformat reached the server")
        // Through the network layer the same URL opens, over the transport.
        let format = try FormatContext(url: server.url("progressive.mp4"), timeout: 5, interrupt: InterruptToken(clock: .monotonic),
                                       network: NetworkSettings())
        #expect(format.streamCount == 2)
        let requests = try server.requests()
        #expect(!requests.isEmpty && NetworkTests.libavformatRequests(requests).isEmpty, "\(NetworkTests.libavformatRequests(requests))")
    }

    /// A local playlist naming segments over HTTP plays: its session serves the playlist from
    /// the file and fetches the segments through the transport (before, libavformat's http).
    @Test func aLocalPlaylistsRemoteSegmentsComeThroughTheTransport() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = NSTemporaryDirectory() + "aether-local-m3u8-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let original = try String(contentsOfFile: NetworkTests.root + "/hls-vod/v0/index.m3u8", encoding: .utf8)
        let playlist = original.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix(".ts") && !line.hasPrefix("#") ? server.url("hls-vod/v0/" + line) : String(line)
        }.joined(separator: "\n")
        try playlist.write(toFile: dir + "/local.m3u8", atomically: true, encoding: .utf8)
        let (r, s) = try NetworkTests.headless([dir + "/local.m3u8", "--length=3"])
        #expect(r.status == 0 && (s.first?.mediaSeconds ?? 0) > 2.5, "\(r.status) \(r.stderr)")
        let requests = try server.requests()
        #expect(requests.compactMap { $0["path"] as? String }.filter { $0.hasSuffix(".ts") }.count >= 2, "\(requests.count) requests")
        #expect(NetworkTests.libavformatRequests(requests).isEmpty, "libavformat's: \(NetworkTests.libavformatRequests(requests))")
    }
}
