import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// A Blu-ray plays its main title (cli tier): the generated disc (make-bluray.py: playlist 00001
/// plays clip 00001, 4 s, then clip 00002, 6 s, each recorded with its clock from ~1.4 s; 00002
/// plays clip 00002 alone; 00000 is a 1 s loop and 00003 a duplicate) as a UDF 2.50 image, as
/// the folder holding BDMV and as BDMV. Before, the image was no file libavformat could open,
/// and the folder a playlist of its files.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: TestEnvironment.fixture("disc/bluray.iso")), "no disc fixtures (make-disc-fixtures.sh)"))
struct BlurayPlaybackTests {
    static var iso: String { TestEnvironment.fixture("disc/bluray.iso") }

    /// Both clips, 10 s, every frame shown: the second clip's clock, which starts again, is
    /// moved to where the first ends.
    @Test(arguments: ["disc/bluray.iso", "disc/bluray", "disc/bluray/BDMV"])
    func theMainTitlePlaysAndNothingElse(path: String) throws {
        let log = PlayerRuns.temp("bluray.log")
        let (r, summaries) = try PlayerRuns.headless([TestEnvironment.fixture(path), "--log-file", log], timeout: 60)
        #expect(r.status == 0, "\(path): exit \(r.status): \(r.stderr)")
        #expect(summaries.count == 1, "\(path): \(summaries.count) items played")
        let s = try #require(summaries.last, "\(path): no summary")
        #expect(abs(s.mediaSeconds - 10.0) < 0.3, "\(path): played \(s.mediaSeconds) s")
        // Every frame of it decoded (10 s at 24 fps); a frame dropped as late beside the cli
        // tier's other suites is the real-time tier's matter (a run here: 238 of 240 shown).
        #expect(s.frames.decoded == 240 && s.frames.presented >= 235, "\(path): \(s.frames)")
        // The join is one stream to the demuxer: continuity counters go on, no damaged packet.
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(!said.isEmpty && !said.contains("Packet corrupt") && !said.contains("Continuity"), "\(path): \(said.prefix(400))")
    }

    /// A stream file that cannot be read where the title needs it (a failing drive, a file cut
    /// under the player; here clip 00002 of a copy of the folder, emptied once playback is under
    /// way): the player ends with a line naming the clip and the title, not libavformat's
    /// "Input/output error". An image cut before its streams has no title that plays, and
    /// says so (it was libavformat's "End of file").
    @Test func aClipThatCannotBeReadIsNamed() throws {
        let copy = NSTemporaryDirectory() + "aether-bd-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("disc/bluray"), toPath: copy)
        let log = PlayerRuns.temp("bluray-cut.log")
        let player = Process()
        player.executableURL = URL(fileURLWithPath: TestEnvironment.binary)
        player.arguments = [copy, "--vo=null", "--ao=null", "--log-file", log]
        let errors = Pipe()
        player.standardError = errors
        player.standardOutput = FileHandle.nullDevice
        try player.run()
        defer { if player.isRunning { player.terminate() } }
        // Clip 00002 is read from 4 s; the demuxer keeps about a second ahead.
        #expect(waitUntil(20, interval: 0.02) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("seek to 0.000") })
        #expect(truncate(copy + "/BDMV/STREAM/00002.m2ts", 0) == 0)
        #expect(waitUntil(30, interval: 0.05) { !player.isRunning }, "the player did not end")
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(player.terminationStatus != 0)
        #expect(said.hasPrefix("aether-tui: '\(copy)': read error at ") && said.hasSuffix(": the disc ends inside clip 00002 of title 1: 0 bytes of its 210 KiB could be read\n"),
                "\(said)")

        let image = NSTemporaryDirectory() + "aether-bd-cut-\(UUID().uuidString).iso"
        defer { try? FileManager.default.removeItem(atPath: image) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.iso))
        bytes.count = bytes.count * 2 / 3 / 2048 * 2048
        try bytes.write(to: URL(fileURLWithPath: image))
        let cut = Process.run([TestEnvironment.binary, image, "--vo=null", "--ao=null"], timeout: 30)
        #expect(cut.status == 1 && cut.stderr.hasPrefix("aether-tui: cannot open '\(image)': the Blu-ray has no title that plays (")
                && cut.stderr.hasSuffix(" of its directory records cannot be read: a cut or damaged image?)\n"), "\(cut.status): \(cut.stderr)")
    }

    @Test func probeListsTheTitlesTheirChaptersAndLanguages() throws {
        let r = Process.run([TestEnvironment.binary, "probe", "--json", Self.iso], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(r.stdout.utf8))
        #expect(info.titles.map(\.number) == [1, 2] && info.titles.map(\.playing) == [true, false])
        #expect(info.titles.map { ($0.duration * 10).rounded() / 10 } == [10.0, 6.0] && info.titles.map(\.playlist) == ["00001.MPLS", "00002.MPLS"])
        #expect(info.chapters.map { ($0.start * 10).rounded() / 10 } == [0, 4, 6], "\(info.chapters)")
        #expect(abs((info.duration ?? 0) - 10.0) < 0.01 && info.audio.first?.tags.language == "eng")
        let text = Process.run([TestEnvironment.binary, "probe", Self.iso], timeout: 30).stdout
        #expect(text.contains("Titles      2 (a disc") && text.contains("#1  00:00:10.000  3 chapters  00001.MPLS  (playing)"), "\(text)")
    }

    /// `--edition=2` plays the other playlist (clip 00002 alone, its own languages); a start
    /// inside the second clip of the main title lands there (a seek across the clip boundary).
    @Test func editionAndSeekingAcrossClips() throws {
        let (r, summaries) = try PlayerRuns.headless([Self.iso, "--edition=2"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(abs((summaries.last?.mediaSeconds ?? 0) - 6.0) < 0.3 && summaries.last?.frames.dropped == 0, "\(String(describing: summaries.last))")
        let (later, after) = try PlayerRuns.headless([Self.iso, "--start=6.5"], timeout: 60)
        #expect(later.status == 0, "\(later.stderr)")
        let s = try #require(after.last)
        #expect(abs(s.mediaSeconds - 3.5) < 0.3 && s.frames.dropped == 0 && s.frames.presented >= 80, "\(s.mediaSeconds) s, \(s.frames)")
        let missing = Process.run([TestEnvironment.binary, Self.iso, "--edition=3", "--vo=null", "--ao=null"], timeout: 30)
        #expect(missing.status == 1 && missing.stderr == "aether-tui: cannot open '\(Self.iso)': the disc has no title 3 (titles 1–2)\n",
                "\(missing.status): \(missing.stderr)")
    }
}
