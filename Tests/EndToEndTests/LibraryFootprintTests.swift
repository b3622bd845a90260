import AetherTestSupport
import Foundation
import Testing

/// libavfilter (and the thirty-odd libraries only it needs, ~12 MB resident) is loaded by the
/// first filter graph, not at start: progressive playback at normal speed never loads it;
/// interlaced video and a speed other than 1 do, and still play.
@Suite(.serialized) struct LibraryFootprintTests {
    /// Plays `arguments` headless for a second with a log file; returns the exit status and the log.
    func play(_ arguments: [String]) throws -> (Int32, String) {
        let dir = NSTemporaryDirectory() + "aether-footprint-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log.txt"
        let r = Process.run([TestEnvironment.binary] + arguments + ["--vo=null", "--ao=null", "--length=1", "--log-file", log],
                            timeout: 30)
        #expect(!r.timedOut)
        return (r.status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test func progressivePlaybackNeverLoadsLibavfilter() throws {
        let (status, log) = try play([TestEnvironment.fixture("h264-720p.mkv")])
        #expect(status == 0)
        #expect(log.contains("first frame of serial"), "the log was written")
        #expect(!log.contains("libavfilter loaded"), "\(log.split(separator: "\n").filter { $0.contains("filter") })")
    }

    @Test func interlacedVideoAndOtherSpeedsLoadItAndPlay() throws {
        let (status, log) = try play([TestEnvironment.fixture("mpeg2-interlaced-mp2.ts")])
        #expect(status == 0)
        #expect(log.contains("libavfilter loaded for bwdif"))
        let (fast, fastLog) = try play([TestEnvironment.fixture("sine-1k.mkv"), "--speed=1.5"])
        #expect(fast == 0)
        #expect(fastLog.contains("libavfilter loaded for atempo"))
    }
}
