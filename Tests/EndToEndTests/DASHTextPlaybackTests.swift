import AetherEngine
import AetherTestSupport
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
}
