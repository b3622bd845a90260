import AetherTestSupport
import Foundation
import Testing

/// The player in `xterm -ti vt340` under Xvfb, keys typed with xdotool, the screen read back
/// with xwd. Owns both X processes; `stop()` (and deinit) ends them.
final class XtermSession {
    let display: String
    private let xvfb = Process()
    private var xterm = Process()
    private var xtermArguments: [String] = []
    private var restarts = 0
    /// The xterm window's size in pixels (no border, no scrollbar) and its cell grid.
    private(set) var windowSize = (width: 0, height: 0)
    let cells: (columns: Int, rows: Int)

    static var toolsPresent: Bool {
        ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xwd", "/usr/bin/ffmpeg", "/usr/bin/xdotool"]
            .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(command: String, columns: Int = 100, rows: Int = 30) throws {
        cells = (columns, rows)
        // A display number no server holds (one of our own choosing can still be held by a
        // server that is going away, which made a later test talk to the wrong one).
        var number = 100
        for _ in 0..<50 {
            number = Int.random(in: 100...999)
            // Neither a lock nor a socket: a socket left by a killed server would make the wait
            // below end at once and xterm connect before the new server listens.
            if !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock"),
               !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { break }
        }
        display = ":\(number)"
        xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xvfb.arguments = [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"]
        xvfb.standardOutput = FileHandle.nullDevice
        xvfb.standardError = FileHandle.nullDevice
        try xvfb.run()
        // A loaded two-core machine can take seconds to bring the server up.
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        xterm.executableURL = URL(fileURLWithPath: "/usr/bin/xterm")
        xtermArguments = ["-display", display, "-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 256",
                          "-xrm", "XTerm*maxGraphicSize: 2000x2000", "-geometry", "\(columns)x\(rows)+0+0",
                          "-bw", "0", "-b", "0", "-e", "sh", "-c", command + "; sleep 60"]
        xterm.arguments = xtermArguments
        xterm.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        xterm.standardOutput = FileHandle.nullDevice
        xterm.standardError = FileHandle.nullDevice
        Thread.sleep(forTimeInterval: 0.3)
        try xterm.run()
        for attempt in 0..<80 {
            // xterm that could not open the display yet (the server still starting) exits at
            // once: start it again, twice at most (a clean-clone CI run once saw "xterm gone").
            if !xterm.isRunning, windowSize.width == 0, attempt % 20 == 19, restarts < 2 {
                restarts += 1
                Thread.sleep(forTimeInterval: 0.5)
                xterm = Process()
                xterm.executableURL = URL(fileURLWithPath: "/usr/bin/xterm")
                xterm.arguments = xtermArguments
                xterm.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
                xterm.standardOutput = FileHandle.nullDevice
                xterm.standardError = FileHandle.nullDevice
                try xterm.run()
            }
            let r = Process.run(["/usr/bin/xdotool", "search", "--class", "xterm", "getwindowgeometry", "--shell"],
                                environment: ["DISPLAY": display], timeout: 2)
            let values = Dictionary(r.stdout.split(separator: "\n").compactMap { line -> (String, Int)? in
                let kv = line.split(separator: "=")
                guard kv.count == 2, let v = Int(kv[1]) else { return nil }
                return (String(kv[0]), v)
            }, uniquingKeysWith: { a, _ in a })
            // Not the 1×1 window xterm has before it is mapped.
            if let w = values["WIDTH"], let h = values["HEIGHT"], w > 50, h > 50 { windowSize = (w, h); break }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    var cellHeight: Int { windowSize.height / cells.rows }

    /// For failure messages: whether the X server and the terminal are still up.
    var state: String { "display \(display), Xvfb \(xvfb.isRunning ? "up" : "gone"), xterm \(xterm.isRunning ? "up" : "gone"), window \(windowSize)" }

    /// The player paused on the solid red fixture in sixel.
    static func playingSolidRed() throws -> XtermSession {
        try XtermSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null --pause")
    }

    /// Waits up to 10 s for at least `minimum` red pixels on screen; their bounding box and count.
    func waitForRedPicture(minimum: Int = 20_000) -> (x0: Int, y0: Int, x1: Int, y1: Int, count: Int) {
        var picture = (x0: 0, y0: 0, x1: -1, y1: -1, count: 0)
        for _ in 0..<40 where picture.count < minimum {
            Thread.sleep(forTimeInterval: 0.25)
            if let shot = screenshot() { picture = shot.redBox() }
        }
        return picture
    }

    /// Types `keys` (xdotool key names) into the window under the pointer.
    func press(_ keys: String...) {
        _ = Process.run(["/usr/bin/xdotool", "mousemove", "20", "20"], environment: ["DISPLAY": display], timeout: 5)
        _ = Process.run(["/usr/bin/xdotool", "key"] + keys, environment: ["DISPLAY": display], timeout: 5)
    }

    /// The whole screen as RGB24 rows, or nil when xwd or the conversion failed.
    func screenshot() -> Screenshot? {
        let base = NSTemporaryDirectory() + "aether-xterm-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            try? FileManager.default.removeItem(atPath: base + ".xwd")
            try? FileManager.default.removeItem(atPath: base + ".rgb")
        }
        let xwd = Process.run(["/usr/bin/xwd", "-root", "-display", display, "-silent", "-out", base + ".xwd"], timeout: 10)
        guard xwd.status == 0 else { return nil }
        let conv = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", base + ".xwd", "-f", "rawvideo",
                                "-pix_fmt", "rgb24", base + ".rgb"], timeout: 20)
        guard conv.status == 0, let data = FileManager.default.contents(atPath: base + ".rgb"),
              data.count == 1024 * 768 * 3 else { return nil }
        return Screenshot(width: 1024, height: 768, rgb: [UInt8](data))
    }

    func stop() {
        if xterm.isRunning { kill(xterm.processIdentifier, SIGKILL); xterm.waitUntilExit() }
        // SIGKILL (the test runner's ignored SIGTERM is inherited), then what Xvfb would have
        // removed on a clean exit.
        if xvfb.isRunning { kill(xvfb.processIdentifier, SIGKILL); xvfb.waitUntilExit() }
        let number = display.dropFirst()
        try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
        try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
    }

    deinit { stop() }
}

struct Screenshot {
    let width: Int, height: Int
    let rgb: [UInt8]

    func isRed(_ x: Int, _ y: Int) -> Bool {
        let i = (y * width + x) * 3
        return rgb[i] > 200 && rgb[i + 1] < 60 && rgb[i + 2] < 60
    }

    /// The bounding box of the red pixels and how many there are.
    func redBox() -> (x0: Int, y0: Int, x1: Int, y1: Int, count: Int) {
        var box = (x0: width, y0: height, x1: -1, y1: -1, count: 0)
        for y in 0..<height {
            for x in 0..<width where isRed(x, y) {
                box.x0 = min(box.x0, x); box.x1 = max(box.x1, x)
                box.y0 = min(box.y0, y); box.y1 = max(box.y1, y)
                box.count += 1
            }
        }
        return box
    }
}

/// Overlays over a sixel picture in a real terminal: terminals draw graphics above text, so a
/// box the chrome draws is only readable if the picture leaves its cells alone (transparent
/// sixel pixels there). Read back from the screen: inside the picture's area, the pixel rows
/// the box covers must be one unbroken band as tall as the box, with no picture inside it.
@Suite(.serialized) struct XtermOverlayTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil),
          arguments: [("question", "help"), ("i", "stats")])
    func overlayRowsAreNotCoveredByTheSixelPicture(key: String, box: String) throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let x = try XtermSession.playingSolidRed()
        defer { x.stop() }

        // The picture: a red rectangle filling most of the video area.
        let picture = x.waitForRedPicture()
        try #require(picture.count >= 20_000, "no sixel picture on screen (\(picture.count) red pixels; \(x.state))")
        #expect(x.cellHeight >= 8, "xterm geometry unknown: \(x.windowSize)")

        x.press(key)
        // Rows of the picture's area with a wide stretch of something other than picture: the box.
        var band: [Int] = []
        var redInside = 0
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.25)
            guard let shot = x.screenshot() else { continue }
            let width = picture.x1 - picture.x0 + 1
            var rows: [Int] = []
            for y in picture.y0...picture.y1 {
                var plain = 0
                for px in picture.x0...picture.x1 where !shot.isRed(px, y) { plain += 1 }
                if plain >= width / 5 { rows.append(y) }
            }
            guard let first = rows.first, let last = rows.last, last - first > 4 * x.cellHeight else { continue }
            band = rows
            // The box's columns: the longest stretch of non-picture pixels on the band's middle
            // row; then red pixels down the middle of that stretch (the picture painted over it).
            let y = (first + last) / 2
            var best = (start: picture.x0, length: 0), run = (start: picture.x0, length: 0)
            for px in picture.x0...picture.x1 {
                if shot.isRed(px, y) { run = (px + 1, 0) } else { run.length += 1 }
                if run.length > best.length { best = run }
            }
            let column = best.start + best.length / 2
            redInside = (first...last).filter { shot.isRed(column, $0) }.count
            if redInside == 0, rows.count == last - first + 1 { break }
        }
        try #require(!band.isEmpty, "no \(box) box appeared over the picture")
        let gaps = (band.last! - band.first! + 1) - band.count
        #expect(gaps == 0, "\(gaps) pixel rows inside the \(box) box are covered by the picture (band \(band.first!)…\(band.last!))")
        #expect(redInside == 0, "\(redInside) picture pixels inside the \(box) box")
        // Help lists every key (clipped by the video area); stats has several lines: both are
        // many cell rows tall, and all of those rows must be visible.
        let minimumRows = box == "help" ? 12 : 6
        #expect(band.count >= minimumRows * x.cellHeight,
                "the \(box) box shows \(band.count) pixel rows, expected at least \(minimumRows) cell rows of \(x.cellHeight) px")
        print("xterm \(box) box: \(band.count) pixel rows unbroken over the picture, cell height \(x.cellHeight) px")
    }
}

/// The scrub preview in a real sixel terminal is a picture of its own (not cells): with the
/// marker at the start it sits over the left pillarbox of a 4:3 clip, and goes with Esc.
@Suite struct XtermScrubPreviewTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func scrubPreviewIsASixelPictureThatGoesOnEsc() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let x = try XtermSession.playingSolidRed()
        defer { x.stop() }
        let picture = x.waitForRedPicture()
        try #require(picture.count >= 20_000, "no sixel picture on screen (\(picture.count) red pixels; \(x.state))")
        try #require(picture.x0 > 40, "the 4:3 picture should leave a pillarbox: \(picture)")
        /// Red pixels left of the video picture (where only the preview can be).
        func leftOfPicture(_ shot: Screenshot) -> Int {
            var n = 0
            for y in 0..<shot.height { for px in 0..<(picture.x0 - 2) where shot.isRed(px, y) { n += 1 } }
            return n
        }
        x.press("b")
        var preview = 0
        for _ in 0..<20 where preview < 500 {
            Thread.sleep(forTimeInterval: 0.25)
            if let shot = x.screenshot() { preview = leftOfPicture(shot) }
        }
        #expect(preview >= 500, "no preview picture left of the video (\(preview) red pixels)")
        x.press("Escape")
        var left = preview
        for _ in 0..<20 where left > 0 {
            Thread.sleep(forTimeInterval: 0.25)
            if let shot = x.screenshot() { left = leftOfPicture(shot) }
        }
        #expect(left == 0, "\(left) preview pixels stayed after Esc")
        print("xterm scrub preview: \(preview) red pixels in the pillarbox, \(left) after Esc")
    }
}
