import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// `aether-tui probe` on every fixture reports the streams exactly as the generator made them.
@Suite struct ProbeTests {
    func probe(_ name: String) throws -> MediaInfo {
        let r = Process.run([TestEnvironment.binary, "probe", "--json", TestEnvironment.fixture(name)], timeout: 30)
        #expect(r.status == 0, "probe \(name) failed: \(r.stderr)")
        return try JSONDecoder().decode(MediaInfo.self, from: Data(r.stdout.utf8))
    }

    @Test func mkvWithTwoAudioTracksSubtitlesAndChapters() throws {
        let info = try probe("h264-aac-2audio-srt-ass.mkv")
        #expect(info.container == "matroska,webm")
        #expect(info.containerLongName == "Matroska / WebM")
        #expect(info.title == "Demo Title", "the ESC [31m in the title must be stripped")
        #expect(abs((info.duration ?? 0) - 4.032) < 0.01)
        #expect(info.chapters.map(\.title) == ["Opening", "Middle", "End"])
        #expect(info.chapters.map(\.start) == [0, 1, 2.5])
        #expect(info.chapters.map(\.end) == [1, 2.5, 4])
        let v = try #require(info.video.first)
        #expect(info.video.count == 1)
        #expect(v.codec == "h264" && v.width == 320 && v.height == 240)
        #expect(v.colour.pixelFormat == "yuv420p" && v.colour.bitDepth == 8)
        #expect(v.profile == "Constrained Baseline")
        #expect(v.frameRate == 24)
        #expect(v.fieldOrder == "progressive" && !v.isInterlaced)
        #expect(v.format == .sdr)
        #expect(info.audio.map(\.codec) == ["aac", "aac"])
        #expect(info.audio.map(\.tags.language) == ["eng", "fra"])
        #expect(info.audio.map(\.tags.title) == ["English Stereo", "Français"])
        #expect(info.audio.map(\.tags.isDefault) == [true, false])
        #expect(info.audio.map(\.layoutShort) == ["2.0", "2.0"])
        #expect(info.audio.map(\.sampleRate) == [48000, 48000])
        #expect(info.subtitles.map(\.codec) == ["subrip", "ass"])
        #expect(info.subtitles.map(\.kind) == [.text, .text])
        #expect(info.subtitles.map(\.tags.language) == ["eng", "fra"])
    }

    /// A picture turned by its display matrix (a phone's) is reported upright, as it plays:
    /// the human report and the transport bar's badge say 240×320, the JSON keeps the coded size
    /// and the rotation (issue 48, 5).
    @Test func aRotatedVideoIsReportedUpright() throws {
        let name = "frames-rotate90.mp4"
        let r = Process.run([TestEnvironment.binary, "probe", TestEnvironment.fixture(name)], timeout: 30)
        #expect(r.status == 0 && r.stdout.contains("  240×320 (rotated 90°, coded 320×240)  "), "\(r.stdout)")
        let v = try #require(try probe(name).video.first)
        #expect(v.width == 320 && v.height == 240 && v.rotation == 90)
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture(name), "--vo=halfblock", "--ao=null", "--pause", "--no-config"],
                                columns: 120, rows: 30)
        defer { s.close() }
        #expect(s.waitFor(10) { $0.contains(" 240×320 ") && !$0.contains("320×240") }, "\(s.screen())")
    }

    @Test func hevcMain10HDR10WithAC3AndMovText() throws {
        let info = try probe("hevc10-hdr10-ac3-51-movtext.mp4")
        #expect(info.container == "mov,mp4,m4a,3gp,3g2,mj2")
        let v = try #require(info.video.first)
        #expect(v.codec == "hevc" && v.profile == "Main 10")
        #expect(v.colour.pixelFormat == "yuv420p10le" && v.colour.bitDepth == 10)
        #expect(v.colour.primaries == "bt2020" && v.colour.transfer == "smpte2084" && v.colour.matrix == "bt2020nc")
        #expect(v.format == .hdr10)
        let a = try #require(info.audio.first)
        #expect(a.codec == "ac3" && a.channels == 6)
        #expect(a.layoutShort == "5.1" && a.layout == "5.1(side)")
        #expect(a.isAtmos == false)
        #expect(info.subtitles.map(\.codec) == ["mov_text"])
        #expect(info.subtitles.first?.tags.language == "eng")
    }

    @Test func hevcHLG() throws {
        let v = try #require(try probe("hevc-hlg.mp4").video.first)
        #expect(v.colour.transfer == "arib-std-b67")
        #expect(v.format == .hlg)
    }

    static let codecCases: [(String, String, String)] = [
        ("vp9-opus.webm", "vp9", "opus"), ("av1-opus.webm", "av1", "opus"), ("vp8-vorbis.webm", "vp8", "vorbis"),
        ("mpeg4-mp3.avi", "mpeg4", "mp3"), ("theora-vorbis.ogg", "theora", "vorbis"), ("h264-aac.flv", "h264", "aac"),
    ]

    @Test(arguments: codecCases)
    func codecMatrix(file: String, video: String, audio: String) throws {
        let info = try probe(file)
        #expect(info.video.map(\.codec) == [video])
        #expect(info.audio.map(\.codec) == [audio])
        #expect(info.video.first?.width == 320)
        #expect(info.video.first?.height == 240)
        #expect(info.video.first?.format == .sdr)
        let fps = try #require(info.video.first?.frameRate)
        #expect(fps == (file.hasSuffix(".avi") ? 25 : 24))
    }

    @Test func interlacedMPEG2TransportStream() throws {
        let info = try probe("mpeg2-interlaced-mp2.ts")
        #expect(info.container == "mpegts")
        let v = try #require(info.video.first)
        #expect(v.codec == "mpeg2video" && v.width == 720 && v.height == 576)
        #expect(v.frameRate == 25)
        #expect(v.fieldOrder == "tt")
        #expect(v.isInterlaced)
        #expect(info.audio.map(\.codec) == ["mp2"])
    }

    @Test func multichannelAudioTracks() throws {
        let info = try probe("multi-audio.mkv")
        #expect(info.audio.map(\.codec) == ["eac3", "flac", "truehd", "dts"])
        #expect(info.audio.map(\.layoutShort) == ["5.1", "2.0", "5.1", "5.1"])
        #expect(info.audio.map(\.channels) == [6, 2, 6, 6])
        #expect(info.audio.map(\.tags.language) == ["eng", "ger", "jpn", "spa"])
        #expect(info.audio.map(\.isAtmos) == [false, false, false, false])
        #expect(info.audio.map(\.tags.isDefault) == [true, false, false, false])
    }

    static let bitmapCases: [(String, String)] = [("dvdsub.mkv", "dvd_subtitle"), ("dvbsub.ts", "dvb_subtitle")]

    @Test(arguments: bitmapCases)
    func bitmapSubtitles(file: String, codec: String) throws {
        let info = try probe(file)
        #expect(info.subtitles.map(\.codec) == [codec])
        #expect(info.subtitles.map(\.kind) == [.bitmap])
        #expect(info.subtitles.first?.tags.language == "eng")
    }

    @Test(arguments: ["srt", "ass", "vtt"])
    func sidecarSubtitleFiles(ext: String) throws {
        let info = try probe("h264-aac-2audio-srt-ass.\(ext)")
        #expect(info.video.isEmpty && info.audio.isEmpty)
        #expect(info.subtitles.map(\.kind) == [.text])
        #expect(info.subtitles.first?.codec == ["srt": "subrip", "ass": "ass", "vtt": "webvtt"][ext])
    }

    @Test func wrongExtensionIsProbedByContent() throws {
        let info = try probe("wrong-extension.mkv")
        #expect(info.container == "flv")
        #expect(info.video.map(\.codec) == ["h264"])
    }

    @Test func truncatedFileStillProbesItsHeader() throws {
        let info = try probe("truncated.mkv")
        #expect(info.video.count == 1 && info.audio.count == 2 && info.chapters.count == 3)
    }

    static let badCases: [(String, String)] = [
        ("empty.mkv", "Invalid data found when processing input"),
        ("random.mkv", "Invalid data found when processing input"),
        ("truncated-header.mkv", "Input/output error"),
        ("does-not-exist.mkv", "No such file or directory"),
    ]

    @Test(arguments: badCases)
    func badFilesGiveOneClearLine(file: String, message: String) {
        let path = file == "does-not-exist.mkv" ? "/nonexistent/\(file)" : TestEnvironment.fixture(file)
        let r = Process.run([TestEnvironment.binary, "probe", path], timeout: 20)
        #expect(!r.timedOut)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "aether-tui: cannot open '\(path)': \(message)\n")
    }

    @Test func humanReportIsSanitisedAndComplete() {
        let r = Process.run([TestEnvironment.binary, "probe", TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")], timeout: 20)
        #expect(r.status == 0)
        #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B || ($0.value < 0x20 && $0 != "\n") })
        for needle in ["Matroska / WebM", "Title       Demo Title", "Chapters    3", "Opening", "h264 (Constrained Baseline)",
                       "320×240", "24 fps", "eng  \"English Stereo\"  [default]", "fra  \"Français\"", "subrip (text)"] {
            #expect(r.stdout.contains(needle), "missing \(needle)")
        }
    }
}
