import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// A DVD plays its main title (cli tier): the generated disc (make-disc-fixtures.sh: a menu,
/// title 1 of 3 s, title 2 of 8 s with chapters at 0 and 4.2 s) as an ISO image, as the folder
/// holding VIDEO_TS and as VIDEO_TS. Before, libavformat read the image as one program stream:
/// the menu and both titles back to back, with a jump between them, and no chapters.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: TestEnvironment.fixture("disc/dvd.iso")), "no disc fixtures (dvdauthor, genisoimage)"))
struct DiscPlaybackTests {
    static var iso: String { TestEnvironment.fixture("disc/dvd.iso") }

    @Test(arguments: ["disc/dvd.iso", "disc/dvd", "disc/dvd/VIDEO_TS"])
    func theMainTitlePlaysAndNothingElse(path: String) throws {
        let (r, summaries) = try PlayerRuns.headless([TestEnvironment.fixture(path)], timeout: 60)
        #expect(r.status == 0, "\(path): exit \(r.status): \(r.stderr)")
        // One item: a folder is the disc, not a playlist of its VOB files.
        #expect(summaries.count == 1, "\(path): \(summaries.count) items played")
        let s = try #require(summaries.last, "\(path): no summary")
        // The main title's 8 s (the IFO's playback time), not the menu's 2 s and the other title's 3 s too.
        #expect(abs(s.mediaSeconds - 8.0) < 0.3, "\(path): played \(s.mediaSeconds) s")
        // Every frame of it decoded (8 s at 30 fps); one dropped as late beside the tier's other
        // suites is the real-time tier's matter (a CI run saw 239 of 240 shown), not this test's.
        #expect(s.frames.decoded == 240 && s.frames.presented >= 230, "\(path): \(s.frames)")
    }

    @Test func probeListsTheTitlesAndTheMainTitlesChapters() throws {
        let r = Process.run([TestEnvironment.binary, "probe", "--json", Self.iso], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(r.stdout.utf8))
        #expect(info.titles.map(\.number) == [1, 2] && info.titles.map(\.playing) == [false, true])
        #expect(info.titles.map { ($0.duration * 10).rounded() / 10 } == [3.0, 8.0])
        #expect(info.chapters.count == 2 && abs((info.chapters.last?.start ?? 0) - 4.2) < 0.05, "\(info.chapters)")
        #expect(abs((info.duration ?? 0) - 8.0) < 0.01 && info.audio.first?.tags.language == "fr")
        let text = Process.run([TestEnvironment.binary, "probe", Self.iso], timeout: 30).stdout
        #expect(text.contains("Titles      2") && text.contains("#2  00:00:08.000  2 chapters  (playing)"), "\(text)")
        // Numbered as a Blu-ray's and a file's streams are (#62 item 17): the navigation packets
        // make no stream of their own (they were #0, and the video #1).
        #expect(info.video.first?.index == 0 && info.audio.first?.index == 1, "\(info.video.map(\.index)) \(info.audio.map(\.index))")
        #expect(text.contains("Video    #0  mpeg2video") && text.contains("Audio    #1  ac3"), "\(text)")
    }

    /// #62 item 13, in tmux: the title bar says which of the disc's titles plays, and the stats
    /// box (`i`) shows the `--af` chain the sound goes through.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theTitleBarNamesTheTitleAndTheStatsTheFilterChain() throws {
        #expect(TestEnvironment.requirePulse())
        let s = try TmuxSession([TestEnvironment.binary, "--audio-device=pulse", "--vo=halfblock", "--no-config", "--pause",
                                 "--af=volume=0.5,aecho=0.8:0.9:40:0.3", Self.iso],
                                columns: 120, rows: 30, environment: ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color"])
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains("dvd.iso · title 2 of 2") }, "\(s.screen())")
        s.send("i")
        #expect(s.waitFor(5) { $0.contains("Filters    volume=0.5,aecho=0.8:0.9:40:0.3") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
    }

    /// `--edition=N` plays another title; one the disc does not have is one line and exit 1.
    /// Title 1's two cells come from separate recordings: the second's clock starts again, and
    /// is moved onto the title's timeline (before: 1.5 s played, the second cell dropped as early,
    /// "file ends … (truncated?)"); a start inside it lands there.
    @Test func editionPicksAnotherTitle() throws {
        let (r, summaries) = try PlayerRuns.headless([Self.iso, "--edition=1"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(abs((summaries.last?.mediaSeconds ?? 0) - 3.0) < 0.3, "played \(summaries.last?.mediaSeconds ?? -1) s")
        let frames = try #require(summaries.last?.frames)
        #expect(frames.decoded >= 88 && frames.dropped == 0 && summaries.last?.endedEarly == nil, "\(frames)")
        let (later, after) = try PlayerRuns.headless([Self.iso, "--edition=1", "--start=2"], timeout: 60)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(abs((after.last?.mediaSeconds ?? 0) - 1.0) < 0.3 && after.last?.frames.dropped == 0, "\(String(describing: after.last?.frames))")
        let missing = Process.run([TestEnvironment.binary, Self.iso, "--edition=5", "--vo=null", "--ao=null"], timeout: 30)
        #expect(missing.status == 1 && missing.stderr == "aether-tui: cannot open '\(Self.iso)': the disc has no title 5 (titles 1–2)\n",
                "\(missing.status): \(missing.stderr)")
    }
}
