import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// Files not made for the happy path (Tests/Scripts/hostile-corpus.sh): broadcast timelines,
/// damaged and undecodable streams, encryption, mid-stream format changes, number traps and
/// unbounded inputs. Each runs the real binary headless; none may crash, hang or fail silently.
@Suite(.serialized) struct HostileMediaTests {
    init() {
        #expect(TestEnvironment.requirePulse())
    }

    struct Run {
        let result: ProcessResult
        let summary: PlaybackSummary?
        let telemetry: [TelemetrySnapshot]
    }

    /// Plays `name` headless with a stats file; fails the test on a hang or a death by signal.
    func play(_ name: String, _ args: [String] = [], timeout: Double = 40) throws -> Run {
        let stats = NSTemporaryDirectory() + "aether-hostile-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("hostile/" + name), "--vo=null",
                             "--stats-file", stats] + args, timeout: timeout)
        #expect(!r.timedOut, "\(name) hung")
        #expect(r.status >= 0 && r.status < 128, "\(name) died: status \(r.status)\n\(r.stderr)")
        struct Line: Decodable { let summary: PlaybackSummary?; let telemetry: TelemetrySnapshot? }
        let lines = ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").split(separator: "\n")
        let decoded = lines.compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        return Run(result: r, summary: decoded.compactMap(\.summary).last, telemetry: decoded.compactMap(\.telemetry))
    }

    // MARK: broadcast timelines

    @Test func aStreamStartingAnHourInPlaysFromZero() throws {
        let run = try play("ts-offset-3600.ts", ["--ao=null", "--length=3"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        #expect(abs(s.mediaSeconds - 3) < 0.1, "played \(s.mediaSeconds) s")
        #expect((70...74).contains(s.frames.presented), "\(s.frames.presented) frames for 3 s at 24 fps")
        #expect(run.telemetry.allSatisfy { $0.position < 4 }, "positions: \(run.telemetry.map(\.position))")
    }

    @Test func startIsMeasuredFromTheFilesStart() throws {
        let run = try play("ts-offset-3600.ts", ["--ao=null", "--start=5", "--length=2"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let first = try #require(run.telemetry.first)
        #expect(first.position >= 5 && first.position < 6.5, "first position \(first.position)")
        let s = try #require(run.summary)
        #expect((46...50).contains(s.frames.presented), "\(s.frames.presented) frames for 2 s")
    }

    @Test func chaptersAndDurationAreOnTheMediaTimeline() throws {
        let r = Process.run([TestEnvironment.binary, "probe", "--json", TestEnvironment.fixture("hostile/mkv-offset-chapters.mkv")], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(r.stdout.utf8))
        #expect(abs(info.startTime - 3600) < 1, "start \(info.startTime)")
        let starts = info.chapters.map(\.start)
        #expect(starts.count == 3 && starts[0] < 0.1, "chapters \(starts)")
        #expect(starts.allSatisfy { $0 < (info.duration ?? 0) }, "chapters \(starts) beyond \(info.duration ?? 0)")
    }

    @Test func a33BitTimestampWrapPlaysThrough() throws {
        let run = try play("ts-pts-wrap.ts", ["--ao=null", "--speed=4"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        #expect(s.mediaSeconds > 9, "stopped at \(s.mediaSeconds) s")
        #expect(s.frames.presented + s.frames.dropped >= 230, "\(s.frames.presented) shown, \(s.frames.dropped) dropped")
    }

    @Test func videoStartingAfterTheAudioPlays() throws {
        let run = try play("ts-video-late.ts", ["--ao=null", "--speed=4"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect((run.summary?.frames.presented ?? 0) > 100)
    }

    // MARK: decoder errors

    @Test func aDamagedFrameIsSkippedAndPlaybackReachesTheEnd() throws {
        let run = try play("damaged-frame.mkv", ["--ao=null", "--speed=4"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        #expect(s.mediaSeconds > 23, "ended at \(s.mediaSeconds) s")
    }

    @Test func anUndecodableVideoStreamIsReportedWhileTheAudioPlays() throws {
        let run = try play("vp9-invalid.webm", ["--audio-device=pulse"])
        #expect(run.result.stderr.contains("cannot decode video stream #0 (vp9)"), "\(run.result.stderr)")
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        #expect(s.mediaSeconds > 3, "the audio did not play on: \(s.mediaSeconds) s")
    }

    @Test func invalidNALUnitsAndAMissingKeyframeStillPlay() throws {
        for name in ["h264-bad-nal.ts", "no-keyframe-start.ts"] {
            let run = try play(name, ["--ao=null", "--speed=4"])
            #expect(run.result.status == 0 || run.result.status == 2, "\(name): \(run.result.stderr)")
            #expect((run.summary?.frames.presented ?? 0) > 0, "\(name): no picture")
        }
    }

    @Test func aLyingDurationEndsAtTheRealEnd() throws {
        let run = try play("fmp4-huge-duration.mp4", ["--ao=null", "--speed=4"], timeout: 30)
        #expect(run.result.status == 0 || run.result.status == 2, "\(run.result.stderr)")
    }

    @Test func encryptedStreamsAreRefusedClearly() throws {
        for name in ["cenc.mp4", "cenc-frag.mp4"] {
            let run = try play(name, ["--ao=null"])
            #expect(run.result.status == 1, "\(name): \(run.result.stderr)")
            #expect(run.result.stderr.contains("is encrypted (cenc); cannot play it"), "\(name): \(run.result.stderr)")
        }
    }

    @Test func interlacedVideoChangingSizeAndFormatPlaysToTheEnd() throws {
        let run = try play("interlaced-switch.ts", ["--ao=null", "--speed=4"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        // 225 frames, read through both switches to the end (9.03 s). At 4× a loaded machine
        // skips and drops many (38 shown in one CI run, 193 decoded in another); what is judged
        // is that the decoder got through, not the pace.
        #expect(s.mediaSeconds > 8.5 && s.frames.decoded > 100 && s.frames.presented > 0,
                "\(s.frames.decoded) decoded, \(s.frames.presented) shown, \(s.mediaSeconds) s")
    }

    // MARK: number traps and unbounded input

    @Test func absurdTimestampsNeverTrap() throws {
        for name in ["nut-chapter-9e18.nut", "mkv-huge-ts.mkv", "wav-huge-rate.wav"] {
            let probe = Process.run([TestEnvironment.binary, "probe", TestEnvironment.fixture("hostile/" + name)], timeout: 20)
            #expect(probe.status >= 0 && probe.status < 128, "probe \(name) died: \(probe.status)")
            let run = try play(name, ["--ao=null", "--length=2"])
            #expect(run.result.status != 0 ? !run.result.stderr.isEmpty : true, "\(name) failed silently")
        }
    }

    @Test func manyCuesPlayInRealTime() throws {
        let run = try play("many-cues.mkv", ["--ao=null", "--sid=1"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        #expect(s.wallSeconds < s.mediaSeconds + 3, "\(s.mediaSeconds) s of media took \(s.wallSeconds) s")
    }

    @Test func aHugeBitmapCanvasStaysSmall() throws {
        let run = try play("pgs-huge-canvas.mkv", ["--ao=null", "--sid=1"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let s = try #require(run.summary)
        #expect(s.peakRSSKiB < 600_000, "peak RSS \(s.peakRSSKiB) KiB")
    }

    @Test func aSubtitleTrackOutlastingThePictureIsNotTruncation() throws {
        let run = try play("sub-outlasts.mkv", ["--ao=null", "--speed=4"])
        #expect(run.result.status == 0, "\(run.result.stderr)")
    }

    // MARK: things that block, hostile options

    @Test func aFIFOSubtitleFileDoesNotBlock() throws {
        let dir = NSTemporaryDirectory() + "aether-fifo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/movie.srt"
        #expect(mkfifo(fifo, 0o600) == 0)
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--vo=null", "--ao=null",
                             "--length=1", "--sub-file", fifo], timeout: 15)
        #expect(!r.timedOut, "a FIFO blocked the player")
        #expect(r.status == 0)
        #expect(r.stderr.contains("is not a regular file"), "\(r.stderr)")
    }

    /// Inputs the fuzzers found (Tests/Fuzz/Regressions) plus the hostile corpus, replayed
    /// through the fuzz entry points by the normally built `aether-fuzz`.
    @Test func fuzzRegressionsReplayWithoutACrash() throws {
        let fuzz = URL(fileURLWithPath: TestEnvironment.binary).deletingLastPathComponent().appendingPathComponent("aether-fuzz").path
        let regressions = TestEnvironment.root.appendingPathComponent("Tests/Fuzz/Regressions")
        func files(_ dir: String) -> [String] {
            let path = regressions.appendingPathComponent(dir).path
            return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                .filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
        }
        let hostile = TestEnvironment.fixtureDirectory.appendingPathComponent("hostile").path
        _ = TestEnvironment.fixture("hostile/ts-offset-3600.ts")
        let corpus = ((try? FileManager.default.contentsOfDirectory(atPath: hostile)) ?? [])
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".srt") }.sorted().map { hostile + "/" + $0 }
        let themes = ((try? FileManager.default.contentsOfDirectory(atPath: TestEnvironment.root.appendingPathComponent("themes").path)) ?? [])
            .map { TestEnvironment.root.appendingPathComponent("themes/" + $0).path }
        // Every target directory is replayed (a directory whose target aether-fuzz lacks fails).
        let extra = ["media": corpus, "theme": themes, "ebml": corpus.filter { $0.hasSuffix(".mkv") || $0.hasSuffix(".webm") }]
        let targets = ((try? FileManager.default.contentsOfDirectory(atPath: regressions.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        #expect(Set(["media", "subtitle", "ass", "theme", "hls", "dash", "mpd", "download", "inputconf", "config", "playlist", "watchlater", "ipc", "replies", "ytdl", "ebml", "wvtt", "lrc", "terminals"]).isSubset(of: targets), "\(targets)")
        for (target, inputs) in targets.map({ ($0, files($0) + (extra[$0] ?? [])) }) where !inputs.isEmpty {
            let r = Process.run([fuzz, target] + inputs, timeout: 300)
            #expect(r.status == 0, "aether-fuzz \(target): status \(r.status)\n\(r.stderr.suffix(2000))")
            #expect(r.stdout.contains("\(inputs.count) input(s) replayed"), "\(r.stdout)")
        }
    }

    @Test func headerInjectionIsRefused() {
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--vo=null", "--ao=null",
                             "--length=1", "--http-header-fields", "X-A: 1\r\nEvil: yes"], timeout: 15)
        #expect(r.status == 1)
        #expect(r.stderr.contains("invalid HTTP header 'X-A'"), "\(r.stderr)")
    }
}
