import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--audio-file` through the real binary (headless): a local file, one over HTTP with the
/// user's headers (the network rules of the main source), and a missing one.
@Suite(.serialized) struct AudioFileTests {
    @Test func aLocalAudioFilePlaysWithTheVideoAfterAStart() throws {
        let (r, s) = try PlayerRuns.headless([TestEnvironment.fixture("video-only.mkv"),
                                                        "--audio-file=\(TestEnvironment.fixture("tones-stepped.mka"))",
                                                        "--start=5", "--length=1.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first)
        #expect(summary.sync.clockSource == "audio" && summary.audio.device == "null", "\(summary.sync.clockSource) \(summary.audio.device)")
        #expect(abs(summary.mediaSeconds - 1.5) < 0.2 && summary.frames.presented >= 30, "\(summary.mediaSeconds) s, \(summary.frames.presented) frames")
        #expect(abs(summary.sync.gapMeanMs) < 40 && summary.sync.gapP95Ms < 80, "A/V gap \(summary.sync.gapMeanMs) / \(summary.sync.gapP95Ms) ms")
    }

    @Test func anAudioFileOverHTTPGoesWithTheUsersHeaders() throws {
        let server = try LoopbackHTTP(root: YtdlTests.site)
        defer { server.stop() }
        let (r, s) = try PlayerRuns.headless([server.url("v.mp4"), "--audio-file", server.url("a.m4a"), "--length=1.5",
                                                        "--http-header-fields", "X-Aether-Test: af-1", "--user-agent", "aether-test/af"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.first?.sync.clockSource == "audio")
        let audio = try server.requests().filter { ($0["path"] as? String) == "/a.m4a" }
        #expect(!audio.isEmpty)
        for request in audio {
            let headers = request["headers"] as? [String: String] ?? [:]
            #expect(headers["X-Aether-Test"] == "af-1" && headers["User-Agent"] == "aether-test/af", "\(headers)")
        }
    }

    @Test func aMissingAudioFileIsOneWarningAndThePicturePlays() throws {
        let (r, s) = try PlayerRuns.headless([TestEnvironment.fixture("video-only.mkv"), "--audio-file=/nonexistent/x.mka",
                                                        "--length=1"])
        #expect(r.status == 0)
        #expect(r.stderr == "aether-tui: warning: cannot open audio file '/nonexistent/x.mka': No such file or directory\n", "\(r.stderr)")
        #expect(s.first.map { $0.frames.presented >= 20 } == true)
    }
}
