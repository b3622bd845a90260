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

    /// The player links FoundationEssentials only: Foundation, FoundationInternationalization and
    /// the ICU they bring cost 7.1 MB resident at start (a program importing Foundation: 18.7 MB,
    /// FoundationEssentials: 11.5), and peak RSS on the 1080p grain clip in sixel went from
    /// 108.1 to 100.6 MB. A new `import Foundation` in a product target would bring them back.
    @Test func theProductLinksFoundationEssentialsOnly() throws {
        let r = Process.run(["/usr/bin/readelf", "-d", TestEnvironment.binary], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let needed = r.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last.map { String($0.dropLast()) }
        }
        #expect(needed.contains("libFoundationEssentials.so") && needed.contains { $0.hasPrefix("libavcodec.so") }, "\(needed)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libFoundationNetworking.so"] {
            #expect(!needed.contains(library), "\(library) is linked: \(needed)")
        }
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
