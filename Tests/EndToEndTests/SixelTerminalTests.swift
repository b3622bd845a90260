import AetherTestSupport
import Foundation
import Testing

/// The TUI in a real sixel terminal: `xterm -ti vt340` under Xvfb, checked by screenshot.
/// Needs xvfb, xterm, x11-apps (xwd) and ffmpeg — installed by Tests/Scripts/install-deps.sh.
@Suite struct SixelTerminalTests {
    static var toolsPresent: Bool {
        ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xwd", "/usr/bin/ffmpeg"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Fails in CI (where install-deps.sh put the tools) rather than skipping.
    @Test(.enabled(if: toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func solidRedPlaysAsSixelInXterm() throws {
        #expect(SixelTerminalTests.toolsPresent, "Xvfb, xterm, xwd or ffmpeg missing")
        let display = ":\(70 + Int(getpid() % 9))"
        let xvfb = Process()
        xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xvfb.arguments = [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"]
        xvfb.standardOutput = FileHandle.nullDevice
        xvfb.standardError = FileHandle.nullDevice
        try xvfb.run()
        defer { kill(xvfb.processIdentifier, SIGKILL) }
        let socket = "/tmp/.X11-unix/X\(display.dropFirst())"
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }

        let command = "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null --pause; sleep 60"
        let xterm = Process()
        xterm.executableURL = URL(fileURLWithPath: "/usr/bin/xterm")
        xterm.arguments = ["-display", display, "-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 256",
                           "-xrm", "XTerm*maxGraphicSize: 2000x2000", "-geometry", "100x30+0+0", "-bw", "0", "-b", "0",
                           "-e", "sh", "-c", command]
        xterm.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        xterm.standardOutput = FileHandle.nullDevice
        xterm.standardError = FileHandle.nullDevice
        Thread.sleep(forTimeInterval: 0.3)
        try xterm.run()
        defer { kill(xterm.processIdentifier, SIGKILL) }

        var redPixels = 0
        for _ in 0..<40 where redPixels < 20_000 {
            Thread.sleep(forTimeInterval: 0.25)
            let shot = NSTemporaryDirectory() + "aether-sixel-\(getpid()).xwd"
            defer { try? FileManager.default.removeItem(atPath: shot) }
            let xwd = Process.run(["/usr/bin/xwd", "-root", "-display", display, "-silent", "-out", shot], timeout: 10)
            guard xwd.status == 0 else { continue }
            let rgb = NSTemporaryDirectory() + "aether-sixel-\(getpid()).rgb"
            defer { try? FileManager.default.removeItem(atPath: rgb) }
            let conv = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-i", shot, "-f", "rawvideo", "-pix_fmt", "rgb24", rgb], timeout: 20)
            guard conv.status == 0, let data = FileManager.default.contents(atPath: rgb) else { continue }
            redPixels = stride(from: 0, to: data.count - 2, by: 3).reduce(0) { n, i in
                n + (data[i] > 200 && data[i + 1] < 60 && data[i + 2] < 60 ? 1 : 0)
            }
        }
        // The picture at 100×30 cells is several hundred pixels on a side: far more than 20 000 red pixels.
        #expect(redPixels >= 20_000, "only \(redPixels) red pixels on screen")
    }
}
