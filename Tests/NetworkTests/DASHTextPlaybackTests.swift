import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// DASH text adaptation sets while playing through our reader: dash-vod's manifest with an
/// English WebVTT set and a German TTML one (`DASHDownloadTests.languages`, the download tests'
/// site), in tmux with half blocks.
@Suite(.serialized) struct DASHTextPlaybackTests {
    /// `--slang=eng` shows the English WebVTT cue's text on screen at its time, the TTML set is
    /// left out with one log line (libavformat 5.1 reads no TTML) and never fetched, and the
    /// subtitle track carries the set's language.
    @Test func aWebVTTTextSetIsASubtitleTrackAndTTMLIsLeftOut() throws {
        let dir = try DASHDownloadTests.site(DASHDownloadTests.languages)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "WEBVTT\n\n00:00:02.000 --> 00:00:09.000\nEnglish words here\n\n00:00:12.000 --> 00:00:18.000\n<b>Second</b> line\u{1B}]0;x\u{07}\n"
            .write(toFile: dir + "/subs.vtt", atomically: true, encoding: .utf8)
        try "<tt/>".write(toFile: dir + "/subs.ttml", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let log = dir + "/player.log"
        let session = try TmuxSession([TestEnvironment.binary, server.url("manifest.mpd"), "--ao=null", "--vo=halfblock", "--slang=eng",
                                       "--log-file=\(log)"], columns: 100, rows: 30)
        defer { session.close() }
        #expect(session.waitFor(15) { $0.contains("English words here") }, "no English cue:\n\(session.screen())")
        #expect(session.waitFor(15) { $0.contains("Second line") }, "no second cue:\n\(session.screen())")
        #expect(!session.screen().contains("]0;x"), "\(session.screen())")
        session.send("q")
        #expect(session.waitFor(5) { $0.contains("EXIT=0") })
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("[dash ") && $0.contains("text adaptation set") }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("text adaptation set 5 (language de) left out: only WebVTT can be read (not TTML or stpp)") }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("text adaptation set 4 (language en): 2 cues from 1 WebVTT file(s), subtitle track 1") }, "\(lines)")
        let paths = try server.requests().compactMap { $0["path"] as? String }
        #expect(paths.filter { $0 == "/subs.vtt" }.count == 1 && !paths.contains("/subs.ttml"), "\(paths)")
    }

    /// A DASH text set is the item's own track, not a subtitle file: with a `--slang` it does not
    /// match, nothing is shown (mpv's `compare_track` prefers files only; before, a text set was
    /// taken for one and shown whatever the language).
    @Test func aTextSetInAnotherLanguageIsNotChosen() throws {
        let dir = try DASHDownloadTests.site(DASHDownloadTests.languages)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "WEBVTT\n\n00:00:00.500 --> 00:00:09.000\nEnglish words here\n".write(toFile: dir + "/subs.vtt", atomically: true, encoding: .utf8)
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let directory = PlayerRuns.socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/mpv.sock"
        for (slang, chosen) in [("fre", false), ("eng", true)] {
            let player = BackgroundPlayer([TestEnvironment.binary, server.url("manifest.mpd"), "--vo=null", "--ao=null", "--no-config", "--pause",
                                           "--slang=\(slang)", "--input-ipc-server=\(socket)"], timeout: 60)
            let client = try IPCTestClient(path: socket, timeout: 20)
            var sid: Any?
            #expect(waitUntil(20, interval: 0.05) {
                guard client.request(#"{"command":["get_property","duration"]}"#)?["data"] is Double else { return false }
                sid = client.request(#"{"command":["get_property","sid"]}"#)?["data"]
                return true
            })
            #expect(chosen ? (sid as? Int) == 1 : (sid as? Bool) == false, "--slang=\(slang): sid \(String(describing: sid))")
            client.send(#"{"command":["quit"]}"#)
            #expect(player.wait(timeout: 20)?.status == 0)
        }
    }

    /// Hostile text sets: a `.vtt` that is not WebVTT, one that cannot be read (404), one with
    /// an impossible cue time: each left out in one log line without control characters, the
    /// video plays.
    @Test func hostileWebVTTSetsAreLeftOutInOneLineEach() throws {
        for (body, says) in [("NOT VTT\n00:01.000 --> 00:02.000\nx\n", "left out: a subtitle segment is not WebVTT"),
                             (nil, "left out: its files cannot be read"),
                             ("WEBVTT\n\n99:99:99.000 --> 00:00:01.000\nx\n", "left out: ")] {
            let dir = try DASHDownloadTests.site(DASHDownloadTests.languages)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            if let body { try body.write(toFile: dir + "/subs.vtt", atomically: true, encoding: .utf8) }
            let server = try LoopbackHTTP(root: dir)
            defer { server.stop() }
            let log = dir + "/player.log"
            let r = Process.run([TestEnvironment.binary, server.url("manifest.mpd"), "--vo=null", "--ao=null", "--length=2", "--slang=eng",
                                 "--log-file=\(log)"], timeout: 40)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.hasPrefix("[dash ") && $0.contains("text adaptation set 4") }
            #expect(lines.count == 1 && lines[0].contains(says), "\(body ?? "404"): \(lines)")
            #expect(!lines.joined().unicodeScalars.contains { $0.value < 0x20 }, "\(lines)")
        }
    }

    /// dash-vod with a WebVTT-in-MP4 text set (`application/mp4`, codecs `wvtt`: an init
    /// section and ten 2 s segments written by `wvtt_segments.py`, a SegmentTimeline), its cues
    /// spanning samples and segments. With `hostile`, segment 1 is broken that way.
    static func wvttSite(hostile: String? = nil) throws -> String {
        let dir = try DASHDownloadTests.site { manifest in
            manifest.replacingOccurrences(of: "<Period", with: "<BaseURL>dash-vod/</BaseURL>\n<Period")
                .replacingOccurrences(of: "</Period>", with: """
                    <AdaptationSet id="3" contentType="text" mimeType="application/mp4" codecs="wvtt" lang="en">
                    <SegmentTemplate timescale="1000" initialization="../wvtt/init.mp4" media="../wvtt/seg-$Number$.m4s" startNumber="1">
                    <SegmentTimeline><S t="0" d="2000" r="9"/></SegmentTimeline></SegmentTemplate>
                    <Representation id="wv" bandwidth="256"/></AdaptationSet>
                    </Period>
                    """)
        }
        let cues = #"[{"start": 2, "end": 9, "text": "Words from MP4 here", "id": "1"}, "#
            + #"{"start": 12, "end": 18, "text": "<b>Second</b> mp4 line\u001b]0;x\u0007", "settings": "line:0"}]"#
        try cues.write(toFile: dir + "/cues.json", atomically: true, encoding: .utf8)
        let r = Process.run(["/usr/bin/env", "python3", TestEnvironment.scripts.appendingPathComponent("wvtt_segments.py").path,
                             dir + "/cues.json", dir + "/wvtt", "2", "10"] + (hostile.map { ["--hostile", $0] } ?? []), timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        return dir
    }

    /// A `wvtt` text set is a subtitle track: its init section and segments fetched once each,
    /// the cue spanning four segments shown once at its time and gone after it, the second cue
    /// with its control characters stripped; the log line counts the cues joined.
    @Test func aWebVTTInMP4TextSetIsASubtitleTrack() throws {
        let dir = try Self.wvttSite()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try LoopbackHTTP(root: dir)
        defer { server.stop() }
        let log = dir + "/player.log"
        let session = try TmuxSession([TestEnvironment.binary, server.url("manifest.mpd"), "--ao=null", "--vo=halfblock", "--slang=eng",
                                       "--log-file=\(log)"], columns: 100, rows: 30)
        defer { session.close() }
        #expect(session.waitFor(15) { $0.contains("Words from MP4 here") }, "no first cue:\n\(session.screen())")
        #expect(session.waitFor(15) { !$0.contains("Words from MP4 here") && $0.contains("Second mp4 line") }, "no second cue:\n\(session.screen())")
        #expect(!session.screen().contains("]0;x"), "\(session.screen())")
        session.send("q")
        #expect(session.waitFor(5) { $0.contains("EXIT=0") })
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("[dash ") && $0.contains("text adaptation set") }
        #expect(lines.count == 1 && lines[0].hasSuffix("text adaptation set 3 (language en): 2 cues from 10 WebVTT in MP4 segment(s), subtitle track 1"), "\(lines)")
        let paths = try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasPrefix("/wvtt/") }
        #expect(paths.sorted() == (["/wvtt/init.mp4"] + (1...10).map { "/wvtt/seg-\($0).m4s" }).sorted(), "\(paths)")
    }

    /// Hostile `wvtt` segments (a run declaring 2^31 samples, a sample past the data, a box
    /// past the file, a sample lasting 49 days): the set is left out in one log line without
    /// control characters, the video plays.
    @Test func hostileWebVTTInMP4SetsAreLeftOutInOneLineEach() throws {
        for (kind, says) in [("count", "left out: a track run declares 2147483648 samples its box cannot hold"),
                             ("pastend", "left out: a sample runs past the segment"),
                             ("size", "left out: box 'moof' has a size of"),
                             ("time", "left out: a cue time is not one in 0…360000 s")] {
            let dir = try Self.wvttSite(hostile: kind)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let server = try LoopbackHTTP(root: dir)
            defer { server.stop() }
            let log = dir + "/player.log", stats = dir + "/stats.jsonl"
            let r = Process.run([TestEnvironment.binary, server.url("manifest.mpd"), "--vo=null", "--ao=null", "--length=2", "--slang=eng",
                                 "--log-file=\(log)", "--stats-file=\(stats)"], timeout: 40)
            #expect(r.status == 0, "\(kind): \(r.stderr)")
            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.hasPrefix("[dash ") && $0.contains("text adaptation set 3") }
            #expect(lines.count == 1 && lines[0].contains(says), "\(kind): \(lines)")
            #expect(!lines.joined().unicodeScalars.contains { $0.value < 0x20 }, "\(lines)")
            let summary = try PlayerRuns.summaries(stats).first
            #expect((summary?.frames.decoded ?? 0) >= 47, "\(kind): \(String(describing: summary))")
        }
    }
}
