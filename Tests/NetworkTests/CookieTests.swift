import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Cookies through libcurl's engine (network tier): what an answer sets goes back by RFC 6265's
/// rules on the requests that follow (the open's segments and the switcher's playlists alike:
/// they share the open's store), and the store keeps within its budget. The server is the
/// suite's `range_http.py` behind `fault_proxy.py`, whose `set_cookies` rule adds the fields.
@Suite(.serialized) struct CookieTests {
    /// The cookie names each logged request sent, after the first request for `first`.
    static func sent(_ requests: [[String: Any]], after first: String) -> [(path: String, names: Set<String>)] {
        let ordered = requests.sorted { ($0["seq"] as? Int ?? 0) < ($1["seq"] as? Int ?? 0) }
        guard let start = ordered.firstIndex(where: { ($0["path"] as? String)?.hasSuffix(first) == true }) else { return [] }
        return ordered[(start + 1)...].map { request in
            let headers = request["headers"] as? [String: String] ?? [:]
            let field = headers.first { $0.key.lowercased() == "cookie" }?.value ?? ""
            let names = field.split(separator: ";").compactMap { $0.split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces) } }
            return (request["path"] as? String ?? "?", Set(names))
        }
    }

    @Test func cookiesGoBackByTheirDomainAndPath() throws {
        let cookies = [
            "host=1",                              // host-only: back to 127.0.0.1
            "scoped=2; Path=/hls-vod/",            // under /hls-vod/: every playlist and segment
            "elsewhere=3; Path=/other/",           // another path: never
            "foreign=4; Domain=example.com",       // a domain 127.0.0.1 is not in: refused
            "gone=5; Max-Age=0",                   // deleted as it is set
            // (A `Secure` one is sent over http here too: loopback is a trustworthy origin to
            // libcurl, as to RFC 6265bis and browsers.)
        ]
        let rules = try String(decoding: JSONSerialization.data(withJSONObject: [["path": "master\\.m3u8$", "set_cookies": cookies]]), as: UTF8.self)
        let server = try LoopbackHTTP(root: NetworkTests.root, rules: rules)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("hls-vod/master.m3u8"), "--length=4"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 3 } == true)
        let after = Self.sent(try server.requests(), after: "master.m3u8")
        #expect(after.contains { $0.path.hasSuffix(".ts") } && after.contains { $0.path.hasSuffix("index.m3u8") }, "\(after.map(\.path))")
        for request in after {
            #expect(request.names == ["host", "scoped"], "\(request.path) sent \(request.names.sorted())")
        }
    }

    @Test func theStoreKeepsAtMost32Cookies() throws {
        let dir = PlayerRuns.temp("cookies")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let cookies = (0..<40).map { "c\($0)=\(String(repeating: "v", count: 100))" }
        let rules = try String(decoding: JSONSerialization.data(withJSONObject: [["path": "master\\.m3u8$", "set_cookies": cookies]]), as: UTF8.self)
        let server = try LoopbackHTTP(root: NetworkTests.root, rules: rules)
        defer { server.stop() }
        let (r, _) = try NetworkTests.headless([server.url("hls-vod/master.m3u8"), "--length=2", "--log-file=\(dir)/log"])
        #expect(r.status == 0, "\(r.stderr)")
        let after = Self.sent(try server.requests(), after: "master.m3u8")
        #expect(!after.isEmpty)
        for request in after {
            #expect(request.names.count == 32 && request.names.isSubset(of: Set((0..<40).map { "c\($0)" })), "\(request.path) sent \(request.names.count)")
        }
        let log = (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? ""
        #expect(log.contains("8 cookies left out (at most 32 are kept)"), "\(log.suffix(2000))")
    }
}
