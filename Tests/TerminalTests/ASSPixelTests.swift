import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// libass in a real sixel terminal (xterm under Xvfb, checked by screenshot) and the kitty
/// stand-in (images decoded from the bytes): a positioned sign
/// (`\an7\pos(240,160)`, a red 60×60 drawing on a green 320×240 picture) is drawn at its place in
/// the picture; with `--sub-ass=no` text cells keep subtitles and the drawing is not shown.
@Suite(.serialized) struct ASSPixelTests {
    static let enabled = XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil

    struct Box { var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1, count = 0 }

    static func box(_ shot: Screenshot, _ test: (UInt8, UInt8, UInt8) -> Bool) -> Box {
        var b = Box()
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let i = (y * shot.width + x) * 3
                guard test(shot.rgb[i], shot.rgb[i + 1], shot.rgb[i + 2]) else { continue }
                b.x0 = min(b.x0, x); b.x1 = max(b.x1, x); b.y0 = min(b.y0, y); b.y1 = max(b.y1, y); b.count += 1
            }
        }
        return b
    }

    static func green(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { g > 140 && r < 90 && b < 90 }
    static func red(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { r > 180 && g < 90 && b < 90 }

    /// The picture (green and what is in it) and the red pixels, once the picture is up and
    /// (when `expectRed`) the sign too, or after 10 s.
    static func look(_ x: XtermSession, expectRed: Bool) -> (picture: Box, red: Box) {
        var last = (Box(), Box())
        _ = waitUntil(10, interval: 0.25) {
            guard let shot = x.screenshot() else { return false }
            last = (box(shot, green), box(shot, red))
            return last.0.count > 20_000 && (!expectRed || last.1.count > 1_000)
        }
        return last
    }

    @Test(.enabled(if: enabled)) func aPositionedSignIsAtItsPlaceInTheSixelPicture() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-sign-e2e.mkv")
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(fixture)' --vo=sixel --ao=null --pause --sid=1 --start=1")
        defer { x.stop() }
        let (picture, red) = Self.look(x, expectRed: true)
        try #require(picture.count > 20_000, "no green picture on screen (\(x.state))")
        #expect(red.count > 1_000, "the sign is not drawn: \(red.count) red pixels")
        // Where the script puts it: x 240–300 and y 160–220 of 320×240.
        let w = Double(picture.x1 - picture.x0 + 1), h = Double(picture.y1 - picture.y0 + 1)
        let place = (x0: Double(red.x0 - picture.x0) / w, y0: Double(red.y0 - picture.y0) / h,
                     x1: Double(red.x1 + 1 - picture.x0) / w, y1: Double(red.y1 + 1 - picture.y0) / h)
        print(String(format: "sign at %.3f,%.3f–%.3f,%.3f of the picture (script: 0.750,0.667–0.938,0.917)",
                     place.x0, place.y0, place.x1, place.y1))
        #expect(abs(place.x0 - 0.75) < 0.03 && abs(place.x1 - 0.9375) < 0.03, "across: \(place)")
        #expect(abs(place.y0 - 160.0 / 240) < 0.04 && abs(place.y1 - 220.0 / 240) < 0.04, "down: \(place)")
        // A square: libass kept the aspect at the render size.
        let ratio = Double(red.x1 - red.x0 + 1) / Double(red.y1 - red.y0 + 1)
        #expect(abs(ratio - 1) < 0.1, "width/height \(ratio)")
        // `v` (sub-visibility) while paused: the sign goes, and comes back.
        func redAfterPressingV(until done: (Int) -> Bool) -> Int {
            x.press("v")
            var count = -1
            _ = waitUntil(5, interval: 0.25) {
                if let shot = x.screenshot() { count = Self.box(shot, Self.red).count }
                return done(count)
            }
            return count
        }
        let hidden = redAfterPressingV { $0 >= 0 && $0 < 100 }
        #expect(hidden >= 0 && hidden < 100, "\(hidden) red pixels after v")
        let shown = redAfterPressingV { $0 > 1_000 }
        #expect(shown > 1_000, "\(shown) red pixels after v again")
    }

    /// LRC lyrics in the video view (issue 35, item 3) are a subtitle track like any other:
    /// libass draws the line sung now into the sixel picture (white text on the green).
    @Test(.enabled(if: enabled)) func lrcLyricsAreDrawnByLibassInTheSixelPicture() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-sign-e2e.mkv")
        let lrc = PlayerRuns.temp("lyrics.lrc")
        defer { try? FileManager.default.removeItem(atPath: (lrc as NSString).deletingLastPathComponent) }
        try "[ti:Test]\n[00:00.00]WWWW MMMM WWWW\n[00:30.00]end\n".write(toFile: lrc, atomically: true, encoding: .utf8)
        func white(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { r > 200 && g > 200 && b > 200 }
        /// White pixels inside the green picture once it is up (and, `expectText`, the text too).
        func whiteInPicture(_ subtitles: String, expectText: Bool) throws -> Int {
            let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(fixture)' --vo=sixel --ao=null --pause \(subtitles) --start=1")
            defer { x.stop() }
            var picture = Box(), text = 0
            _ = waitUntil(10, interval: 0.25) {
                guard let shot = x.screenshot() else { return false }
                picture = Self.box(shot, Self.green)
                guard picture.count > 20_000 else { return false }
                text = 0
                for y in picture.y0...picture.y1 {
                    for xx in picture.x0...picture.x1 {
                        let i = (y * shot.width + xx) * 3
                        if white(shot.rgb[i], shot.rgb[i + 1], shot.rgb[i + 2]) { text += 1 }
                    }
                }
                return !expectText || text > 300
            }
            try #require(picture.count > 20_000, "no green picture on screen (\(x.state))")
            return text
        }
        let text = try whiteInPicture("--sub-file='\(lrc)' --sid=2", expectText: true)
        let none = try whiteInPicture("--sid=no", expectText: false)
        #expect(text > 300 && none < 50, "the lyric line is not in the picture: \(text) white pixels (\(none) without it)")
        print("lyrics in the sixel picture: \(text) white pixels, \(none) without them")
    }

    @Test(.enabled(if: enabled)) func withSubAssNoTheDrawingStaysOutOfThePicture() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-sign-e2e.mkv")
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(fixture)' --vo=sixel --ao=null --pause --sid=1 --start=1 --sub-ass=no")
        defer { x.stop() }
        var (picture, _) = Self.look(x, expectRed: false)
        try #require(picture.count > 20_000, "no green picture on screen (\(x.state))")
        // Paused: the picture drawn whole once two screenshots 0.25 s apart are alike.
        let shot = try #require(x.waitForStillScreenshot(), "the screen never settled (\(x.state))")
        picture = Self.box(shot, Self.green)
        let red = Self.box(shot, Self.red)
        #expect(red.count < 100, "\(red.count) red pixels: the text-cell path draws no drawings")
    }

    /// kitty (the stand-in terminal decodes every image): the red square is 60×60 of a 320×240
    /// green picture, 4.7 % of it: the image's mean red is about 12 with libass, 0 without.
    @Test func kittyImagesCarryTheSignAndNotWithSubAssNo() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-sign-e2e.mkv")
        let player = [TestEnvironment.binary, "--ao=null", "--pause", "--sid=1", "--start=1", "--vo=kitty", "--vo-kitty-use-shm=no", fixture]
        let with = try KittyPty.run(player)
        let without = try KittyPty.run(player + ["--sub-ass=no"])
        let last = try #require(with.transmissions.last, "no kitty image: \(with)")
        print("kitty mean RGB with libass \(last.mean), with --sub-ass=no \(without.transmissions.last?.mean ?? [])")
        #expect((8...17).contains(last.mean[0]) && last.mean[1] > 160, "mean \(last.mean)")
        #expect(!without.transmissions.isEmpty && without.transmissions.allSatisfy { $0.mean[0] < 3 })
    }

    /// aether-tui.conf shares the options: good lines apply quietly (`#` in a colour is no
    /// comment), a bad one is reported in one line and left out, and the player still plays.
    @Test func theConfigFileTakesTheSameOptions() throws {
        let dir = PlayerRuns.configHome()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "sub-ass=yes\nsub-color=#FFFF00\nsub-font=DejaVu Serif\nsub-ass-override=force\nsub-scale=1.5\nsub-pos=151\n"
            .write(toFile: dir + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let r = PlayerRuns.play(config: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "aether-tui: warning: aether-tui.conf:6: --sub-pos must be between 0 and 150\n", "\(r.stderr)")
    }

    /// `s` burns the sign in at source resolution where the script puts it (x 240–300, y
    /// 160–220 of 320×240), whatever the output (here half-block in tmux, which shows it as
    /// nothing: drawings have no cells).
    @Test func theScreenshotHasTheSignAtItsPlace() throws {
        #expect(TestEnvironment.requirePulse())
        let dir = NSTemporaryDirectory() + "aether-shots-ass-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor"]
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.subtitleFixture("ass-sign-e2e.mkv"), "--audio-device=pulse",
                                 "--vo=halfblock", "--pause", "--sid=1", "--start=1", "--screenshot-directory=\(dir)"],
                                columns: 100, rows: 30, environment: env)
        defer { s.close() }
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "\(s.screen())")
        s.send("s")
        #expect(s.waitFor(8) { $0.contains("screenshot: ") }, "\(s.screen())")
        s.send("q")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") })
        let png = dir + "/aether-tui-ass-sign-e2e-00-00-01.000.png"
        let out = png + ".rgb"
        _ = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", out], timeout: 20)
        let rgb = FileManager.default.contents(atPath: out).map { [UInt8]($0) } ?? []
        try #require(rgb.count == 320 * 240 * 3, "\(rgb.count) bytes")
        var red = Box()
        for y in 0..<240 { for x in 0..<320 {
            let i = (y * 320 + x) * 3
            guard Self.red(rgb[i], rgb[i + 1], rgb[i + 2]) else { continue }
            red.x0 = min(red.x0, x); red.x1 = max(red.x1, x); red.y0 = min(red.y0, y); red.y1 = max(red.y1, y); red.count += 1
        } }
        #expect(abs(red.x0 - 240) <= 2 && abs(red.x1 - 299) <= 2 && abs(red.y0 - 160) <= 2 && abs(red.y1 - 219) <= 2, "\(red)")
        #expect(red.count > 3000)
    }

    @Test func badSubtitleOptionsAreRefused() {
        for (argument, says) in [("--sub-ass=maybe", "The value 'maybe' is invalid for '--sub-ass <yes|no>'"),
                                 ("--sub-ass-override=strip", "The value 'strip' is invalid for '--sub-ass-override <yes|force|no>'"),
                                 ("--sub-color=red", "--sub-color must be #RRGGBB or #AARRGGBB"),
                                 ("--sub-font-size=nan", "--sub-font-size must be between"),
                                 ("--sub-font-size=1e300", "--sub-font-size must be between"),
                                 ("--sub-scale=-1", "--sub-scale must be between"),
                                 ("--sub-pos=151", "--sub-pos must be between"),
                                 ("--sub-border-size=inf", "--sub-border-size must be between"),
                                 ("--sub-font=a,b", "--sub-font must be a font family name")] {
            let r = Process.run([TestEnvironment.binary, "--no-config", argument, "/nonexistent.mkv"], timeout: 30)
            #expect(r.status != 0, "\(argument)")
            #expect(r.stderr.contains(says), "\(argument): \(r.stderr)")
        }
    }
}
