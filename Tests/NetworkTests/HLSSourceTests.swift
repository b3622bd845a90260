import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// HLS through the real binary against `range_http.py` on loopback: the variant `--hls-bitrate`
/// chooses, audio renditions as tracks, AES-128, and remote playlists that name local files.
/// (NetworkTests' helpers; a suite of its own so that test.sh runs it beside the others.)
@Suite(.serialized) struct HLSSourceTests {
    /// Which HLS variant directories the proxy saw segment requests for.
    static func variantsFetched(_ server: LoopbackHTTP) throws -> Set<String> {
        Set(try server.requests().compactMap { ($0["path"] as? String).flatMap { path -> String? in
            let parts = path.split(separator: "/")
            return parts.count == 3 && parts[2].hasSuffix(".ts") ? String(parts[1]) : nil
        } })
    }

    @Test(arguments: [("min", "v0"), ("max", "v2"), ("800k", "v1")])
    func hlsBitrateFetchesOnlyTheChosenVariant(choice: String, variant: String) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("hls-vod/master.m3u8"), "--hls-bitrate=\(choice)", "--length=6"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first.map { $0.mediaSeconds > 5 } == true)
        #expect(try Self.variantsFetched(server) == [variant])
    }

    /// Separate audio renditions (English, French) are audio tracks; `--alang` chooses, and once
    /// playing only the chosen rendition and variant are fetched (libavformat reads one segment
    /// of each to probe it).
    @Test(arguments: [("eng", "English", "Francais", 1), ("fra", "Francais", "English", 2)])
    func hlsAudioRenditionsAreTracks(language: String, chosen: String, other: String, track: Int) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url("hls-renditions/master.m3u8"), "--hls-bitrate=min", "--alang=\(language)", "--length=6"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.item.audioTrack == track)
        #expect(summary.mediaSeconds > 5)
        let segments = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasSuffix(".ts") }
        func count(_ dir: String) -> Int { segments.filter { $0.contains("/\(dir)/") }.count }
        #expect(count(chosen) >= 3 && count(other) <= 1, "\(chosen) \(count(chosen)), \(other) \(count(other))")
        #expect(count("2") >= 3 && count("3") <= 1, "low variant \(count("2")), high \(count("3"))")
    }

    @Test(arguments: ["hls-aes/index.m3u8", "dash-number/manifest.mpd"])
    func encryptedHLSAndNumberedDASHPlayEveryFrame(path: String) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url(path), "--speed=4"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.frames.decoded == NetworkTests.progressiveFrames, "decoded \(summary.frames.decoded)")
        #expect(summary.endedEarly == nil)
    }

    /// A station list named by URL (issue 48) is a playlist of its network entries: its
    /// `file:///etc/passwd` is left out (one log line), its `../progressive.mp4` (against the
    /// list's URL) plays.
    @Test func aRemoteListPlaysItsNetworkEntriesOnly() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let log = PlayerRuns.temp("list.log")
        let (r, s) = try NetworkTests.headless([server.url("hostile/remote-list.m3u"), "--length=1", "--log-file=\(log)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.count == 1 && s.first?.item.source == server.url("progressive.mp4"), "\(s.map { $0.item.source ?? "?" })")
        #expect(!r.stdout.contains("root:") && !r.stderr.contains("root:"))
        #expect(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("1 entry not on the network left out"))
    }

    @Test(arguments: ["hostile/passwd.m3u8", "hostile/passwd-master.m3u8"])
    func aRemotePlaylistCannotReadLocalFiles(path: String) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url(path)], timeout: 20)
        #expect(r.status != 0)
        #expect(s.allSatisfy { $0.frames.decoded == 0 })
        #expect(!r.stdout.contains("root:") && !r.stderr.contains("root:"))
        #expect(NetworkTests.errorLines(r).count == 1, "\(r.stderr)")
    }
}
