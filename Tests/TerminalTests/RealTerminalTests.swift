import AetherTestSupport
import EndToEndSupport
import Foundation
import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

/// The sixel stream checked by real decoders from Debian's packages, not only by our own.
///
/// Needs: `libsixel-bin` (sixel2png), `ffmpeg` (PNG/XWD → RGB), `xvfb` + `xterm` + `x11-apps` (xwd).
/// Skipped when missing on a developer machine; fails when missing in CI (see ``ExternalTools``).
@Suite(.serialized) struct RealTerminalTests {
    func encodedNatural(width: Int, height: Int) throws -> (PixelImage, [UInt8]) {
        let image = try TestImages.natural(width: width, height: height)
        let out = ByteBuffer()
        try SixelEncoder(options: .init(colors: 256, dither: .ordered)).encode(image, into: out)
        return (image, out.bytes)
    }

    @Test(.enabled(if: ExternalTools.shouldRun(["sixel2png", "ffmpeg", "ffprobe"])))
    func libsixelDecodesOurStream() throws {
        let (image, sixel) = try encodedNatural(width: 320, height: 240)
        let input = ExternalTools.temporaryPath("in.six"), output = ExternalTools.temporaryPath("out.png")
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        try Data(sixel).write(to: URL(fileURLWithPath: input))
        try ExternalTools.run("sixel2png", ["-i", input, "-o", output])
        let decoded = try ExternalTools.decodeImage(at: output)
        #expect(decoded.width == 320 && decoded.height == 240)
        let psnr = TestImages.psnr(image, decoded.pixels, width: 320, height: 240)
        print("sixel2png PSNR: \(psnr) dB")
        #expect(psnr >= 30)
    }

    @Test(.enabled(if: ExternalTools.shouldRun(["Xvfb", "xterm", "xwd", "ffmpeg", "ffprobe"])))
    func xtermVT340ShowsTheImage() throws {
        let (image, sixel) = try encodedNatural(width: 240, height: 120)
        // Clear, home, the image, then park the shell so the window stays.
        let best = try xtermPSNR(Array("\u{1B}[2J\u{1B}[H".utf8) + sixel, against: image)
        print("xterm -ti vt340 screenshot PSNR: \(best) dB")
        #expect(best >= 30)
    }

    /// A partial update (only a changed box painted, `P2=1`) drawn over the previous frame:
    /// xterm must keep the unpainted pixels, so the screen shows the new frame.
    @Test(.enabled(if: ExternalTools.shouldRun(["Xvfb", "xterm", "xwd", "ffmpeg", "ffprobe"])))
    func xtermKeepsWhatAPartialUpdateDoesNotPaint() throws {
        let a = try TestImages.natural(width: 240, height: 120)
        // A box of the picture's own colours, mirrored: the palette fits, so no rebuild.
        let b = try TestImages.image(width: 240, height: 120) { x, y in
            let inside = (100..<160).contains(x) && (40..<70).contains(y)
            let p = a.pixel(x: inside ? 239 - x : x, y: y)
            return (p.r, p.g, p.b)
        }
        let encoder = SixelEncoder(options: .init(colors: 256, dither: .ordered))
        let first = ByteBuffer(), second = ByteBuffer()
        try encoder.encode(a, into: first)
        try encoder.encode(b, into: second)
        #expect(second.count * 5 < first.count, "the second image paints only the box")
        let home = Array("\u{1B}[H".utf8)
        let best = try xtermPSNR(Array("\u{1B}[2J".utf8) + home + first.bytes + home + second.bytes, against: b)
        print("xterm partial update screenshot PSNR: \(best) dB")
        #expect(best >= 30)
    }

    /// Shows `stream` in xterm -ti vt340 under Xvfb; the best PSNR of `image` against
    /// screenshots near the top-left corner.
    func xtermPSNR(_ stream: [UInt8], against image: PixelImage) throws -> Double {
        let display = ":\(90 + Int(ProcessInfo.processInfo.processIdentifier % 9))"
        let file = ExternalTools.temporaryPath("xterm.six"), shot = ExternalTools.temporaryPath("shot.xwd")
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: shot)
        }
        try Data(stream).write(to: URL(fileURLWithPath: file))
        let xvfb = try ExternalTools.start("Xvfb", [display, "-screen", "0", "640x480x24", "-nolisten", "tcp"])
        defer { ExternalTools.stop(xvfb) }
        let socket = "/tmp/.X11-unix/X\(display.dropFirst())"
        _ = waitUntil(5, interval: 0.05) { FileManager.default.fileExists(atPath: socket) }
        // The server may take a moment to accept clients: until one opens it.
        _ = waitUntil(10, interval: 0.05) {
            Process.run(["/usr/bin/xdotool", "getdisplaygeometry"], environment: ["DISPLAY": display], timeout: 2, capture: false).status == 0
        }
        // Restart xterm if it exits at once all the same (within 0.3 s), five times at most.
        var xterm = try startXterm(display: display, file: file)
        var restarts = 0
        while restarts < 5, waitUntil(0.3, interval: 0.05, { !xterm.isRunning }) {
            restarts += 1
            xterm = try startXterm(display: display, file: file)
        }
        defer { ExternalTools.stop(xterm) }
        #expect(xterm.isRunning, "xterm did not start on \(display)")
        // Poll screenshots until the picture is there (xterm starts in well under a second).
        var best = 0.0
        var failure: Error?
        _ = waitUntil(10, interval: 0.25) {
            do {
                let xwd = try ExternalTools.run("xwd", ["-root", "-display", display, "-silent"])
                try Data(xwd).write(to: URL(fileURLWithPath: shot))
                let screen = try ExternalTools.decodeImage(at: shot)
                best = max(best, bestPSNR(image, screen.pixels, screenWidth: screen.width, screenHeight: screen.height))
            } catch {
                failure = error
                return true
            }
            return best >= 30
        }
        if let failure { throw failure }
        return best
    }

    func startXterm(display: String, file: String) throws -> Process {
        try ExternalTools.start("xterm", [
            "-display", display, "-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 256",
            "-xrm", "XTerm*maxGraphicSize: 1000x1000", "-geometry", "80x24+0+0", "-bw", "0", "-b", "0",
            "-e", "sh", "-c", "cat '\(file)'; sleep 30",
        ])
    }

    /// PSNR of `image` against the screenshot at the best offset near the top-left corner.
    func bestPSNR(_ image: PixelImage, _ screen: [UInt8], screenWidth: Int, screenHeight: Int) -> Double {
        var best = 0.0
        let source = TestImages.make(width: image.width, height: image.height) { x, y in
            let p = image.pixel(x: x, y: y)
            return (p.r, p.g, p.b)
        }
        for oy in 0..<4 {
            for ox in 0..<4 where ox + image.width <= screenWidth && oy + image.height <= screenHeight {
                var crop = [UInt8]()
                crop.reserveCapacity(image.width * image.height * 3)
                for y in 0..<image.height {
                    let start = ((oy + y) * screenWidth + ox) * 3
                    crop += screen[start..<(start + image.width * 3)]
                }
                var se = 0.0
                for i in 0..<crop.count {
                    let d = Double(crop[i]) - Double(source[i])
                    se += d * d
                }
                let mse = se / Double(crop.count)
                best = max(best, mse == 0 ? 99 : 10 * log10(255 * 255 / mse))
            }
        }
        return best
    }
}

/// In CI the tools must be there: this fails instead of letting the suite above skip.
@Test func realTerminalToolsArePresentInCI() {
    guard ExternalTools.isCI else { return }
    for tool in ["sixel2png", "ffmpeg", "ffprobe", "Xvfb", "xterm", "xwd"] {
        #expect(ExternalTools.path(tool) != nil, "\(tool) missing in CI: install Tests/Scripts/test-packages.txt")
    }
}
