import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// HLS spliced the way a server inserts an ad (network tier), against `range_http.py` on
/// loopback: `spliced/hls/index.m3u8` of `Tests/Fixtures/make-spliced-fixtures.sh`, a 4 s
/// programme at 640x360 25 fps stereo, a discontinuity, a 3 s ad at 960x720 30 fps mono whose
/// timestamps start again and whose PIDs differ, a discontinuity, 3 s of the programme.
@Suite(.serialized) struct SplicedStreamTests {
    static let path = "spliced/hls/index.m3u8"
    /// The same splice as three DASH periods.
    static let dash = "spliced/dash/spliced.mpd"
    /// 100 + 90 + 75 frames.
    static let frames = 265
    static let seconds = 10.0

    /// Before (HLS): 7.04 s of 10 played, the ad's 90 frames dropped as early (the issue saw
    /// "file ends … (truncated?)" at 6.13 s). DASH's periods played before; their boundaries
    /// were not counted.
    @Test(arguments: [path, dash])
    func theWholeStreamPlaysOnOneTimeline(path: String) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        // At 1×: at 2× a loaded tier's start dropped 165 frames late (the decoder of a debug
        // build behind the clock), which is the player keeping time, not this test's subject.
        let (r, s) = try NetworkTests.headless([server.url(path)])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first, "\(r.stderr)")
        #expect(summary.endedEarly == nil, "\(summary.endedEarly ?? "")")
        #expect(abs(summary.mediaSeconds - Self.seconds) < 0.3, "played \(summary.mediaSeconds) s")
        #expect(summary.frames.decoded == Self.frames, "decoded \(summary.frames.decoded)")
        #expect(summary.frames.presented + summary.frames.dropped == Self.frames)
        // The bug dropped a whole period (the ad's 90 frames); beside the tier's other suites
        // late frames are dropped as the clock says (13 and 23 at 2× in loaded full runs here):
        // half a period is the bound.
        #expect(summary.frames.dropped <= 45, "dropped \(summary.frames.dropped) (early \(summary.frames.droppedEarly))")
        #expect(summary.network.discontinuities == 2)
    }

    /// Real time through ALSA into a PulseAudio null sink of its own, recorded from its monitor:
    /// the programme's 440 Hz, the ad's 880 Hz (mono, on both channels) from 4 s to 7 s, 440 Hz
    /// again, with no silence at either boundary, and the picture on the sound's clock (what
    /// only the device path shows: the audio device's format stays while the ad's layout changes).
    @Test func theSoundFollowsTheSpliceWithoutAGapAndInSync() throws {
        #expect(TestEnvironment.requirePulse(), "no PulseAudio null sink")
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let stats = PlayerRuns.temp("spliced.jsonl")
        let recorder = try SinkRecorder(.own)
        let r = Process.run([TestEnvironment.binary, server.url(Self.path), "--vo=null", "--stats-file", stats],
                            environment: recorder.environment, timeout: 40)
        let (left, right) = recorder.stop()
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(try PlayerRuns.summaries(stats).first)
        #expect(summary.sync.clockSource == "audio" && summary.frames.dropped <= 3, "\(summary.sync.clockSource), dropped \(summary.frames.dropped)")
        #expect(abs(summary.sync.gapMeanMs) < 40 && summary.sync.gapP95Ms < 80, "A/V gap \(summary.sync.gapMeanMs) / \(summary.sync.gapP95Ms) ms")
        let first = try #require(left.firstIndex { abs($0) > 0.05 }, "nothing was heard")
        func tone(_ at: Double, _ channel: [Double]) -> Double {
            let from = first + Int(at * 48000)
            guard from + 4800 <= channel.count else { return 0 }
            return Signal.dominantFrequency(channel[from..<(from + 4800)])
        }
        for (at, hz) in [(1.0, 440.0), (3.5, 440), (4.3, 880), (6.5, 880), (7.3, 440), (9.5, 440)] {
            #expect(abs(tone(at, left) - hz) < 5 && abs(tone(at, right) - hz) < 5,
                    "at \(at) s: \(tone(at, left)) / \(tone(at, right)) Hz, wanted \(hz)")
        }
        let heard = Array(left[first...])
        // The ad's own sound starts with 21.4 ms of its encoder's priming (AAC in MPEG-TS has no
        // edit list to take it off): a silence up to that long is the source's.
        let silences = AdaptiveBitrateEndToEndTests.silences(heard, longerThan: 30)
        #expect(silences.gaps.isEmpty, "silent at \(silences.gaps)")
        #expect(abs(Double((heard.lastIndex { abs($0) > 0.05 } ?? 0)) / 48000 - Self.seconds) < 0.2, "the sound lasted \(Double(heard.count) / 48000) s")
    }

    /// In the TUI (half-block cells in tmux, 100x30): the picture is as wide as a 16:9 one, as
    /// narrow as a 4:3 one while the ad plays, then wide again (the widest run of picture
    /// cells in any row, `▀`).
    @Test func thePictureTakesTheAdsShapeAndBack() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let session = try TmuxSession([TestEnvironment.binary, server.url(Self.path), "--ao=null", "--vo=halfblock", "--no-config"],
                                      columns: 100, rows: 30, environment: ["TERM": "screen-256color", "COLORTERM": "truecolor"])
        defer { session.close() }
        // The most cells with a 24-bit background in one row: the picture's width.
        var widths: [Int] = []
        func width() -> Int { let w = session.colours().extent { _ in true }.columns; widths.append(w); return w }
        func waitFor(_ predicate: (Int) -> Bool) -> Bool { waitUntil(10, interval: 0.1) { predicate(width()) } }
        #expect(waitFor { $0 > 80 }, "no wide picture: \(widths.suffix(5))")
        let wide = max(widths.last ?? 0, 48)
        #expect(waitFor { (40..<Int(Double(wide) * 0.85)).contains($0) }, "the picture did not narrow for the ad (\(wide) columns wide): \(widths.suffix(5))")
        let narrow = widths.last ?? 0
        #expect(abs(Double(narrow) / Double(wide) - 0.75) < 0.06, "\(narrow) columns against \(wide): not 4:3 against 16:9")
        #expect(waitFor { $0 >= wide - 1 }, "the picture did not widen again after the ad: \(widths.suffix(5))")
    }

    /// A seek into the ad lands there (the ad's own timestamps are 1.4…4.4 s: without the
    /// timeline the demuxer looked for 5 s in them), and the programme after it plays.
    @Test func aStartInsideTheAdLandsThere() throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let (r, s) = try NetworkTests.headless([server.url(Self.path), "--start=5", "--speed=2"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first, "\(r.stderr)")
        #expect(summary.endedEarly == nil, "\(summary.endedEarly ?? "")")
        #expect(abs(summary.mediaSeconds - (Self.seconds - 5)) < 0.3, "played \(summary.mediaSeconds) s")
        // The ad from 5 s (60 frames at 30 fps, and the one on screen at 5 s), then the
        // programme (75 at 25).
        #expect((135...136).contains(summary.frames.presented + summary.frames.dropped), "\(summary.frames)")
    }

    /// The same segments as a live stream: a window of three, moved on as each segment's time
    /// passes (`EXT-X-DISCONTINUITY-SEQUENCE` counting the breaks that left it), then ended.
    /// Each reload is read whole and the segments that come in later are placed by their media
    /// sequence numbers: every frame plays, on one timeline.
    @Test func aLiveSplicedStreamPlaysOnOneTimeline() throws {
        let root = NSTemporaryDirectory() + "aether-spliced-live-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = NetworkTests.root + "/spliced/hls"
        // (name, duration, a discontinuity before it) from the VOD playlist.
        var segments: [(name: String, seconds: Double, breaks: Bool)] = []
        var pending: Double?, breaks = false
        for line in try String(contentsOfFile: source + "/index.m3u8", encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") { pending = Double(line.dropFirst(8).prefix { $0 != "," }) }
            else if line == "#EXT-X-DISCONTINUITY" { breaks = true }
            else if !line.hasPrefix("#"), let seconds = pending {
                try FileManager.default.copyItem(atPath: source + "/" + line, toPath: root + "/" + line)
                segments.append((String(line), seconds, breaks))
                pending = nil
                breaks = false
            }
        }
        #expect(segments.count == 6 && segments.filter(\.breaks).count == 2)
        let list = segments
        try Self.publish(list, upTo: 3, ended: false, in: root)
        let server = try LoopbackHTTP(root: root)
        defer { server.stop() }
        let stopped = DispatchSemaphore(value: 0)
        defer { stopped.signal() }
        let first = list[0].name
        let writer = Thread {
            // The live edge moves on as each listed segment's time passes from the player's first
            // segment request (the test's clock is the stream's: a measurement window per
            // segment; a loaded full run started the player 2 s late and the window had moved
            // past its first segment); the test's end stops it.
            var ended = false
            _ = waitUntil(30, interval: 0.02) {
                if stopped.wait(timeout: .now()) == .success { ended = true }
                return ended || ((try? server.requests()) ?? []).contains { ($0["path"] as? String)?.hasSuffix(first) == true }
            }
            if ended { return }
            for end in 4...list.count {
                guard stopped.wait(timeout: .now() + list[end - 4].seconds) == .timedOut else { return }
                try? Self.publish(list, upTo: end, ended: end == list.count, in: root)
            }
        }
        writer.start()
        let (r, s) = try NetworkTests.headless([server.url("live.m3u8"), "--live-start-index=0"], timeout: 40)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(s.first, "\(r.stderr)")
        #expect(summary.frames.decoded == Self.frames, "decoded \(summary.frames.decoded)")
        // The bug dropped a whole period (the ad's 90 frames); at 2× beside the tier's other
        // suites, late frames are dropped as the clock says (13 and 23 in loaded full runs
        // here): half a period is the bound.
        #expect(summary.frames.dropped <= 45, "dropped \(summary.frames.dropped) (early \(summary.frames.droppedEarly))")
        #expect(summary.network.discontinuities == 2)
        #expect(abs(summary.mediaSeconds - Self.seconds) < 0.5, "played \(summary.mediaSeconds) s")
    }

    /// The stall watchdog: a live playlist that names the same two segments again and again
    /// under new sequence numbers delivers bytes but no newer timestamp. The player says so
    /// and opens the stream again at its live edge, within the watchdog's 10 s and a reload.
    @Test func aWedgedLiveStreamIsReopenedAtItsEdge() throws {
        let root = NSTemporaryDirectory() + "aether-wedged-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for name in ["p0.ts", "p1.ts"] { try FileManager.default.copyItem(atPath: NetworkTests.root + "/spliced/hls/" + name, toPath: root + "/" + name) }
        @Sendable func publish(_ n: Int) {
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(n)\n"
            for k in n..<(n + 3) { text += "#EXTINF:2.0,\np\(k % 2).ts\n" }
            try? text.write(toFile: root + "/live.m3u8.tmp", atomically: false, encoding: .utf8)
            _ = rename(root + "/live.m3u8.tmp", root + "/live.m3u8")
        }
        publish(0)
        let server = try LoopbackHTTP(root: root)
        defer { server.stop() }
        let stopped = DispatchSemaphore(value: 0)
        let writer = Thread {
            // A new sequence number each 2 s (the segments' time: a measurement window), the same
            // old media in it, until the test's end stops it.
            var n = 0
            while stopped.wait(timeout: .now() + 2) == .timedOut { n += 1; publish(n) }
        }
        writer.start()
        defer { stopped.signal() }
        let dir = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log"
        let player = BackgroundPlayer([TestEnvironment.binary, server.url("live.m3u8"), "--vo=null", "--ao=null", "--log-file=\(log)",
                                       "--input-ipc-server=\(dir)/sock"], timeout: 60)
        let said = waitUntil(30, interval: 0.2) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("reopened at the live edge") }
        let client = try IPCTestClient(path: dir + "/sock", timeout: 10)
        _ = client.request(#"{"command":["quit"]}"#)
        let r = player.wait(timeout: 20)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(said, "no reopen: \(text.split(separator: "\n").suffix(8))")
        #expect(text.contains("the stream is wedged ("), "\(text.split(separator: "\n").suffix(8))")
        #expect(r?.status == 0, "\(r?.stderr ?? "did not end")")
        // The reopen fetched the playlist again (a second first open of it).
        let opens = try server.requests().filter { ($0["path"] as? String) == "/live.m3u8" }.count
        #expect(opens >= 2)
    }

    /// Writes the live playlist of `segments` whose edge is `end` (the last three), atomically.
    static func publish(_ segments: [(name: String, seconds: Double, breaks: Bool)], upTo end: Int, ended: Bool, in root: String) throws {
        let first = max(0, end - 3)
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(segments[...first].dropFirst().filter(\.breaks).count)\n"
        for (k, segment) in segments.enumerated() where k >= first && k < end {
            if segment.breaks && k > first { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXTINF:\(segment.seconds),\n\(segment.name)\n"
        }
        if ended { text += "#EXT-X-ENDLIST\n" }
        try text.write(toFile: root + "/live.m3u8.tmp", atomically: false, encoding: .utf8)
        _ = rename(root + "/live.m3u8.tmp", root + "/live.m3u8")
    }

    /// The download is one file whose timestamps go on across both boundaries and which plays
    /// every frame. The ad's mono sound cannot go on in the programme's stereo stream of a
    /// Matroska file: it is left out with a note (the picture kept).
    @Test(arguments: [path, dash])
    func theDownloadIsOneFileOnOneTimeline(path: String) throws {
        let server = try LoopbackHTTP(root: NetworkTests.root)
        defer { server.stop() }
        let dir = try DownloadTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let output = dir + "/spliced.mkv"
        let r = DownloadTests.download([server.url(path), "-o", output])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try DownloadTests.streams(output)
        #expect(probe.streams.map(\.type).sorted() == ["audio", "video"], "\(probe.streams)")
        #expect(abs(probe.duration - Self.seconds) < 0.3, "\(probe.duration) s")
        for stream in ["v:0", "a:0"] {
            let times = Process.run(["/usr/bin/ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=dts",
                                     "-of", "csv=p=0", output], timeout: 30).stdout.split(separator: "\n").compactMap { Double($0) }
            #expect(!times.isEmpty && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(stream): timestamps go back")
        }
        let decoded = Process.run(["/usr/bin/ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                   "stream=nb_read_frames", "-of", "csv=p=0", output], timeout: 60).stdout
        #expect(Int(decoded.trimmingCharacters(in: .whitespacesAndNewlines)) == Self.frames, "\(decoded) frames")
        #expect(r.stderr.contains("from 4.0 s left out: its sound (48000 Hz, 1 channels)"), "\(r.stderr)")
    }
}
