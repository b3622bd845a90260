import AetherEngine
@testable import AetherMedia
@testable import AetherSubtitles
import CLibass
import Foundation
import Testing

/// ASS headers and events as the cell outputs read them, libass's logging, and a sidecar
/// through FFmpeg's decoder into styled cues.
@Suite(.serialized) struct ASSScriptTests {
    static let header = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 640
        PlayResY: 360
        WrapStyle: 2

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,24,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,20,20,18,1
        Style: Sign,DejaVu Sans,20,&H0000FFFF,&H000000FF,&H00000000,&H00000000,-1,1,0,0,100,100,0,0,1,1,0,8,10,10,36,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        """

    @Test func headerGivesPlayResWrapStyleAndStyles() {
        let s = ASSScript.parse(Self.header)
        #expect(s.playResX == 640 && s.playResY == 360 && s.wrapStyle == 2)
        let sign = s.style(named: "Sign")
        #expect(sign.bold && sign.italic && sign.alignment == 8 && sign.marginVertical == 36)
        #expect(sign.color == StyledSubtitle.RGB(r: 255, g: 255, b: 0), "&H0000FFFF is yellow (BGR)")
        #expect(s.style(named: "Default").color == nil, "white is the theme's own colour")
        #expect(s.style(named: "*Sign") == sign && s.style(named: "Unknown") == s.style(named: "Default"))
    }

    @Test func missingPlayResFollowsLibass() {
        #expect(ASSScript.parse("[Script Info]\nPlayResX: 1280\n").playResY == 1024)
        #expect(ASSScript.parse("[Script Info]\nPlayResY: 720\n").playResX == 960)
        let none = ASSScript.parse("garbage\n[V4+ Styles]\nStyle: broken")
        #expect(none.playResX == 384 && none.playResY == 288)
    }

    @Test func ssaStylesUseLegacyAlignment() {
        let s = ASSScript.parse("[V4 Styles]\nFormat: Name, Alignment\nStyle: Top,6\nStyle: Mid,9\n")
        #expect(s.style(named: "Top").alignment == 8 && s.style(named: "Mid").alignment == 4)
    }

    @Test func overrideTagsPlaceAndStyleTheText() {
        let s = ASSScript.parse(Self.header)
        let e = ASSEvent.parse(#"3,0,Default,,0,0,0,,{\pos(320,90)\an5}Hello {\b1\c&H0000FF&}red{\r} end"#, script: s)
        #expect(e.position == StyledSubtitle.Point(x: 0.5, y: 0.25))
        #expect(e.alignment == 5 && e.readOrder == 3)
        #expect(e.runs == [StyledSubtitle.Run(text: "Hello "),
                           StyledSubtitle.Run(text: "red", bold: true, color: StyledSubtitle.RGB(r: 255, g: 0, b: 0)),
                           StyledSubtitle.Run(text: " end")])
        let sign = ASSEvent.parse("0,0,Sign,,0,0,0,,Top sign", script: s)
        #expect(sign.alignment == 8 && sign.runs.first?.bold == true && sign.runs.first?.italic == true)
        #expect(abs(sign.marginVertical - 36.0 / 360) < 1e-9)
    }

    @Test func breaksDrawingsAndAnimationsAreHandledNotShown() {
        var s = ASSScript.parse(Self.header)
        let e = ASSEvent.parse(#"0,0,Default,,0,0,0,,{\k20}One\Ntwo\hthree{\p1}m 0 0 l 100 0 100 100{\p0}{\t(0,500,\fscx200\frz30)\fad(100,100)\move(10,20,30,40)}!"#, script: s)
        #expect(e.plainText == "One\ntwo\u{A0}three!")
        #expect(e.position == StyledSubtitle.Point(x: 10.0 / 640, y: 20.0 / 360), "\\move places at its start")
        #expect(ASSEvent.parse(#"0,0,Default,,0,0,0,,a\nb"#, script: s).plainText == "a\nb", "WrapStyle 2: \\n breaks")
        s.wrapStyle = 0
        #expect(ASSEvent.parse(#"0,0,Default,,0,0,0,,a\nb"#, script: s).plainText == "a b")
        #expect(ASSEvent.parse(#"0,0,Default,,0,0,0,,Shown{\an8 never closed"#, script: s).plainText == "Shown")
        #expect(ASSEvent.parse(#"0,0,Default,,0,0,0,,{\alpha&HFF&}hidden{\alpha&H00&}seen"#, script: s).plainText == "seen")
    }

    @Test func textIsSanitised() {
        let s = ASSScript.parse(Self.header)
        let e = ASSEvent.parse("0,0,Default,,0,0,0,,a\u{1B}[31mb\u{202E}c\u{200B}d\u{07}", script: s)
        #expect(!e.plainText.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x202E || $0.value == 0x200B })
        #expect(e.plainText.contains("a") && e.plainText.contains("d"))
    }

    @Test func hostileEventsAreBounded() {
        let s = ASSScript.parse(Self.header)
        let many = String(repeating: #"{\b1}x{\b0}y"#, count: 5_000)
        let e = ASSEvent.parse("0,0,Default,,0,0,0,," + many, script: s)
        #expect(e.runs.count <= ASSEvent.maxRuns)
        let deep = ASSEvent.parse("0,0,Default,,0,0,0,,{" + String(repeating: "(", count: 30_000) + "}z", script: s)
        #expect(deep.plainText == "z")
        // Past maxEventBytes the event is cut: the block is left open and dropped whole.
        let huge = ASSEvent.parse("0,0,Default,,0,0,0,,y{" + String(repeating: "(", count: 100_000) + "}z", script: s)
        #expect(huge.plainText == "y")
        let nan = ASSEvent.parse(#"0,0,Default,,0,0,0,,{\pos(nan,1e999)\an99}q"#, script: s)
        #expect(nan.position == nil && nan.alignment == 2)
    }

    @Test func anASSSidecarDecodesIntoStyledCues() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ass-sidecar-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.ass").path
        let body = Self.header + "\n" + #"""
            Dialogue: 0,0:00:01.00,0:00:04.00,Sign,,0,0,0,,{\an8}Top line
            Dialogue: 0,0:00:01.00,0:00:04.00,Default,,0,0,0,,{\i1}Bottom{\i0}\Nsecond
            """#.replacingOccurrences(of: "    ", with: "") + "\n"
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        let store = SubtitleStore(info: MediaInfo(url: "x", container: "matroska", containerLongName: "", title: nil, duration: 10,
                                                  bitRate: nil, chapters: [], video: [], audio: [], subtitles: [], attachments: []))
        let id = try store.addSidecar(path: path)
        store.select(id)
        let cues = store.active(at: 2)
        #expect(cues.count == 2)
        let top = cues.first { $0.text == "Top line" }
        #expect(top?.styled?.alignment == 8)
        let bottom = cues.first { $0.text == "Bottom\nsecond" }
        #expect(bottom?.styled?.runs.first == StyledSubtitle.Run(text: "Bottom", italic: true))
        #expect(bottom?.styled?.alignment == 2)
    }

    /// libass speaks through the log, never the terminal: a font it cannot open is reported once.
    @Test func libassMessagesGoToTheLogOnce() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("ass-log-\(getpid()).log").path
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("ass-stderr-\(getpid()).txt").path
        defer { try? FileManager.default.removeItem(atPath: log); try? FileManager.default.removeItem(atPath: err) }
        try AppLog.configure(path: log)
        defer { try? AppLog.configure(path: nil) }
        // stderr goes to a file while libass runs.
        fflush(nil)
        let saved = dup(2)
        let file = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        dup2(file, 2)
        do {
            let library = try #require(ASSLibrary())
            let name = "broken-\(getpid()).ttf"
            library.addFont(name: name, data: Array("not a font at all".utf8))
            library.addFont(name: name, data: Array("not a font at all".utf8))
            let renderer = try #require(ASSRenderer(library: library))
            renderer.setFonts(fontconfig: false)
            renderer.setFonts(fontconfig: false)
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(file)
        // The descriptor is the process's: the suites running beside this one report on it
        // meanwhile (the test harness's `◇`/`✔`/`✘`/`↳` lines); what is left is libass's.
        let harness = ["◇", "✔", "✘", "↳", "Test Suite ", "Test Case ", "Executed "]
        let printed = try String(contentsOfFile: err, encoding: .utf8).split(separator: "\n").filter { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            return !text.isEmpty && !harness.contains { text.hasPrefix($0) }
        }
        #expect(printed.isEmpty, "libass printed: \(printed)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.contains("broken-\(getpid()).ttf") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("[libass ") == true)
    }
}
