import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

extension XtermSession {
    /// Moves the pointer to the middle of cell (`column`, `row`) of the xterm window.
    func hover(column: Double, row: Int) {
        let cellWidth = Double(windowSize.width) / Double(cells.columns)
        let x = Int(column * cellWidth), y = row * cellHeight + cellHeight / 2
        _ = Process.run(["/usr/bin/xdotool", "mousemove", "\(x)", "\(y)"], environment: ["DISPLAY": display], timeout: 5)
    }
}

/// The mouse in a real xterm, whose terminfo makes ncurses ask only for press and release
/// (mode 1000): the player turns on any-motion reports (1003) in SGR encoding (1006) itself, so
/// hovering over the transport bar shows the scrub preview, leaving the bar takes it away, and
/// after quitting the terminal reports nothing more when the pointer moves.
@Suite(.serialized) struct XtermMouseTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func hoveringTheBarShowsThePreviewAndQuitTurnsMotionOff() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let work = NSTemporaryDirectory() + "aether-xterm-mouse-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // After the player: the shell's modes (no echo, bytes as they come), then whatever the
        // terminal sends within 6 s is kept (dd stops at the first byte; `--foreground`, or dd
        // would be stopped by SIGTTIN in timeout's own process group and read nothing). Then the
        // control: the same with any-motion SGR reports turned on by hand must catch the moves.
        let dd = "timeout --foreground 6 dd bs=1 count=1 status=none of="
        let command = "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null --pause"
            + "; touch '\(work)/exited'; stty -icanon -echo; \(dd)'\(work)/after'; touch '\(work)/done'"
            + "; printf '\\033[?1003h\\033[?1006h'; \(dd)'\(work)/control'; printf '\\033[?1003l\\033[?1006l'; touch '\(work)/controlled'"
        let x = try XtermSession(command: command)
        defer { x.stop() }
        /// Whether a dd writing `file` runs (pgrep -f: its arguments name the file).
        func reading(_ file: String) -> Bool {
            Process.run(["/usr/bin/pgrep", "-f", "of=\(file)"], timeout: 5).status == 0
        }
        let picture = x.waitForRedPicture()
        try #require(picture.count >= 20_000, "no sixel picture on screen (\(picture.count) red pixels; \(x.state))")
        try #require(picture.x0 > 40, "the 4:3 picture should leave a pillarbox: \(picture)")
        /// Red pixels left of the video picture (where only the preview can be).
        func leftOfPicture(_ shot: Screenshot) -> Int { shot.redPixels(leftOf: picture.x0 - 2) }
        func waitForPreview(_ done: (Int) -> Bool) -> Int {
            var n = -1
            _ = waitUntil(6, interval: 0.25) {
                if let shot = x.screenshot() { n = leftOfPicture(shot) }
                return n >= 0 && done(n)
            }
            return n
        }
        // The pointer over the picture first (no preview), then over the start of the progress
        // bar (the row above the status line): hovering alone, no button.
        x.hover(column: 50, row: 10)
        let before = waitForPreview { $0 == 0 }
        #expect(before == 0, "\(before) red pixels left of the picture before hovering")
        x.hover(column: 1.5, row: x.cells.rows - 2)
        let hovered = waitForPreview { $0 >= 500 }
        #expect(hovered >= 500, "hovering over the bar showed no preview (\(hovered) red pixels in the pillarbox)")
        // Moving along the bar keeps it; leaving the bar takes it away.
        x.hover(column: 3.5, row: x.cells.rows - 2)
        x.hover(column: 50, row: 10)
        let left = waitForPreview { $0 == 0 }
        #expect(left == 0, "\(left) preview pixels stayed after the pointer left the bar")

        x.press("q")
        let exited = waitUntil(10, interval: 0.25) { FileManager.default.fileExists(atPath: work + "/exited") }
        try #require(exited, "the player did not quit (\(x.state))")
        // The shell's modes set: its dd reading what the terminal sends.
        #expect(waitUntil(10, interval: 0.05) { reading(work + "/after") }, "no dd after the player")
        // Motion over the window, with the shell's modes back: a terminal still reporting the
        // mouse would send CSI < 35;x;y M for every move.
        for step in 0..<12 { x.hover(column: Double(10 + step * 6), row: 5 + step) }
        let finished = waitUntil(10, interval: 0.25) { FileManager.default.fileExists(atPath: work + "/done") }
        #expect(finished, "the check after the player did not finish")
        let after = FileManager.default.contents(atPath: work + "/after") ?? Data()
        #expect(after.isEmpty, "the terminal still reports the mouse after quit: \(Array(after))")
        // The control: with the modes on by hand (its dd reading), the same moves are caught.
        #expect(waitUntil(10, interval: 0.05) { reading(work + "/control") }, "no dd for the control")
        var step = 0
        // A move every 0.25 s, 40 at most, until the control has caught one.
        _ = waitUntil(.infinity, interval: 0.25) {
            guard step < 40, !FileManager.default.fileExists(atPath: work + "/controlled") else { return true }
            x.hover(column: Double(10 + step % 12 * 6), row: 5 + step % 12)
            step += 1
            return false
        }
        let control = FileManager.default.contents(atPath: work + "/control") ?? Data()
        #expect(control.first == 0x1B, "the control caught no mouse report, so the check above proves nothing: \(Array(control))")
        print("xterm mouse: hover preview \(hovered) px, \(left) after leaving, \(after.count) bytes after quit, control \(control.count) byte")
    }
}
