import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Shapes third-party servers write that mainstream players play (issue 49, item 3), each a
/// generated stream (`dash-shapes` of `Tests/Fixtures/make-network-fixtures.sh`) served from
/// loopback: each plays headless and downloads, the download's packets the source's. Tier: network.
@Suite struct ServerShapesTests {
    typealias D = DownloadTests
    static var root: String { NetworkTests.root }

    /// Every packet of `map` as it is (`-c copy`): size and MD5 (a download remuxes them unchanged).
    static func packets(_ input: String, map: String) -> [String] {
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-i", input, "-map", map, "-c", "copy", "-f", "framemd5", "-"], timeout: 60)
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").suffix(2).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",") }
    }

    /// Plays `path` headless (`arguments` more) and downloads it into `name`; returns the
    /// last summary's media seconds, the download and the output's path.
    static func playAndDownload(_ server: LoopbackHTTP, _ path: String, _ arguments: [String] = [], into name: String) throws
        -> (played: Double, download: ProcessResult, output: String) {
        let (r, summaries) = try PlayerRuns.headless([server.url(path)] + arguments, timeout: 60)
        #expect(r.status == 0, "\(path): \(r.stderr)")
        let s = try #require(summaries.last, "\(path): no summary")
        #expect(s.endedEarly == nil, "\(path): ended early: \(String(describing: s.endedEarly))")
        let out = try D.scratch() + "/" + name
        return (s.mediaSeconds, D.download([server.url(path), "-o", out]), out)
    }

    /// Opus in MP4 by SegmentBase whose Initialization range holds the index, with a
    /// presentationTimeOffset (its media from 10 s) and a period of 0.9 s; and the same with the
    /// range past the index, into the first fragment (issue 59, item 6: the init section is what
    /// comes before the index; before, the fragment's head in it made every segment fail to
    /// rewrite, `cannot rewrite the segment as Matroska`).
    @Test(arguments: ["dash-shapes/init-holds-index.mpd", "dash-shapes/init-past-index.mpd"])
    func anInitializationRangeOverTheIndex(manifest: String) throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (played, d, out) = try Self.playAndDownload(server, manifest, into: "opus.mkv")
        defer { try? FileManager.default.removeItem(atPath: (out as NSString).deletingLastPathComponent) }
        #expect((0.85...0.95).contains(played), "\(manifest): played \(played) s of 0.9")
        #expect(d.status == 0 && d.stderr.isEmpty, "\(manifest): \(d.stderr)")
        #expect(Self.packets(out, map: "0:a") == Self.packets(Self.root + "/dash-shapes/opus.mp4", map: "0:a"), "\(manifest)")
    }

    /// A sidx whose last reference runs one byte past its file: the request for it is answered
    /// one byte short. Playback reads to the file's end; so does the download (one note), with
    /// every packet of the file.
    @Test func aLastRangeOneBytePastTheFile() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (played, d, out) = try Self.playAndDownload(server, "dash-shapes/past-end.mpd", into: "past.mkv")
        defer { try? FileManager.default.removeItem(atPath: (out as NSString).deletingLastPathComponent) }
        #expect((0.85...0.95).contains(played), "played \(played) s of 0.9")
        #expect(d.status == 0, "\(d.stderr)")
        #expect(d.stderr == "aether-tui: note: 1 byte range(s) ran past the end of their resource: taken to its end, as playback does\n", "\(d.stderr)")
        let source = Self.packets(Self.root + "/dash-shapes/opus-past-end.mp4", map: "0:a")
        #expect(source.count > 40 && Self.packets(out, map: "0:a") == source)
    }

    /// Two periods on one media timeline (Period@start 10 s, presentationTimeOffset 10 s), the
    /// audio segment that straddles the boundary listed in both: played across it, and
    /// downloaded into Matroska and MP4 with dash-vod's frames (the repeat written once).
    @Test func aSegmentListedInTwoPeriods() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (played, d, out) = try Self.playAndDownload(server, "dash-shapes/periods.mpd", ["--start=8", "--speed=4"], into: "periods.mkv")
        let dir = (out as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(abs(played - 12) < 0.6, "played \(played) s of 12")
        let mp4 = D.download([server.url("dash-shapes/periods.mpd"), "-o", dir + "/periods.mp4"])
        for (path, r) in [(out, d), (dir + "/periods.mp4", mp4)] {
            #expect(r.status == 0, "\(path): \(r.stderr)")
            let (streams, duration) = try D.streams(path)
            #expect(streams.map(\.type) == ["video", "audio"] && abs(duration - 20) < 0.1, "\(path): \(streams) \(duration) s")
            #expect(D.frames(path, map: "0:v") == (try DASHDownloadTests.reference(1)), "\(path)")
            #expect(D.frames(path, map: "0:a") == (try DASHDownloadTests.reference(2)), "\(path)")
        }
    }

    /// An HLS playlist whose first segment says `#EXTINF:1000000,`: kept, played to its end
    /// (every segment read: not "truncated" short of the length it declares), and downloaded
    /// with its five segments' frames.
    @Test func aSegmentFarPastAnHour() throws {
        let server = try LoopbackHTTP(root: Self.root)
        defer { server.stop() }
        let (played, d, out) = try Self.playAndDownload(server, "dash-shapes/long.m3u8", ["--speed=4"], into: "long.mkv")
        defer { try? FileManager.default.removeItem(atPath: (out as NSString).deletingLastPathComponent) }
        #expect(abs(played - 10) < 0.5, "played \(played) s of 10")
        #expect(d.status == 0 && d.stderr.isEmpty, "\(d.stderr)")
        let source = "concat:" + (0...4).map { String(format: "%@/hls-vod/v0/seg%03d.ts", Self.root, $0) }.joined(separator: "|")
        let frames = D.frames(out, map: "0:v")
        #expect(frames.count == 240 && frames == D.frames(source, map: "0:v"))
    }
}
