import AetherTestSupport
import EndToEndSupport
import Foundation
import Synchronization
import TerminalGraphics
import TerminalPictures
import Testing

/// kitty pictures inside a real tmux through Unicode placeholders (cli tier): the player runs in
/// tmux, whose client is attached to the stand-in kitty (`kitty_pty.py`, answering XTVERSION as
/// kitty 0.35.2). The pane is decoded from `tmux capture-pane -e`: its placeholder cells name
/// the video's image and cover the picture's cells. A switch to another window and back leaves
/// the image in the terminal (no delete, not sent again while paused) and tmux redraws the
/// cells to it from its own grid.
@Suite(.serialized) struct KittyPlaceholderTmuxTests {
    static let imageID = KittyDriver.defaultImageID

    /// The pane as tmux holds it, decoded (capture lines end with LF only: CR added).
    static func pane(_ socket: String, target: String = ":0") -> CellStreamDecoder {
        let r = Process.run(["/usr/bin/tmux", "-L", socket, "capture-pane", "-e", "-p", "-t", target], timeout: 10)
        var decoder = CellStreamDecoder(columns: 100, rows: 30)
        decoder.feed(Array(r.stdout.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        return decoder
    }

    /// The rectangle the image's placeholder cells span (nil: none).
    static func span(_ screen: CellStreamDecoder) -> CellRect? {
        let cells = screen.placeholders(of: imageID)
        guard let c0 = cells.map(\.column).min(), let c1 = cells.map(\.column).max(),
              let r0 = cells.map(\.row).min(), let r1 = cells.map(\.row).max() else { return nil }
        return CellRect(column: c0, row: r0, width: c1 - c0 + 1, height: r1 - r0 + 1)
    }

    static func dumped(_ path: String) -> [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [] }
    static let placeholderBytes: [UInt8] = [0xF4, 0x8E, 0xBB, 0xAE]   // U+10EEEE in UTF-8

    @Test func aNewKittyBehindTmuxGetsPlaceholderCellsThatSurviveAWindowSwitch() throws {
        let socket = "aether-ph-\(getpid())-\(UUID().uuidString.prefix(6))"
        let conf = NSTemporaryDirectory() + socket + ".conf", dump = NSTemporaryDirectory() + socket + ".dump"
        let log = NSTemporaryDirectory() + socket + ".log"
        try "set -g allow-passthrough on\nset -g escape-time 10\nset -g status off\n".write(toFile: conf, atomically: true, encoding: .utf8)
        defer {
            _ = Process.run(["/usr/bin/tmux", "-L", socket, "kill-server"], timeout: 10)
            try? FileManager.default.removeItem(atPath: conf)
            try? FileManager.default.removeItem(atPath: dump)
            try? FileManager.default.removeItem(atPath: log)
        }
        // --vo=kitty: the placeholders are the subject; auto's trial measures the stand-in
        // through tmux first, and under load (suites run side by side) may choose cells.
        // The suite's own config and state homes (no config, no saved position, no remembered
        // terminal): the suites that run beside it share nothing with it.
        let player = ["/usr/bin/env", "XDG_CONFIG_HOME=\(TestEnvironment.isolatedHomes.config)", "XDG_STATE_HOME=\(TestEnvironment.isolatedHomes.state)",
                      TestEnvironment.binary, "--log-file=" + log, "--ao=null", "--pause", "--vo=kitty", "--no-config", TestEnvironment.fixture("solid-red.mkv")]
        let quoted = player.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let finished = DispatchSemaphore(value: 0)
        let report = Mutex<KittyPty.Report?>(nil)
        Thread {
            // The test quits the player itself (send-keys); the stand-in's own keys come too late.
            let r = try? KittyPty.run(["/usr/bin/env", "LANG=C.UTF-8", "/usr/bin/tmux", "-L", socket, "-f", conf, "new-session", quoted],
                                      extra: ["--version", "kitty(0.35.2)", "--keys-after", "19", "--keys-when-quiet", "0", "--dump", dump])
            report.withLock { $0 = r }
            finished.signal()
        }.start()
        var joined = false
        defer { if !joined { _ = Process.run(["/usr/bin/tmux", "-L", socket, "kill-server"], timeout: 10); _ = finished.wait(timeout: .now() + 30) } }

        // The placeholders drawn and no longer changing: tmux takes the player's rows in pieces,
        // and a capture between two (the full run, under load, read part of the picture's rows)
        // would hold part of them.
        var before = Self.pane(socket)
        #expect(waitUntil(10, interval: 0.05) {
            let now = Self.pane(socket)
            defer { before = now }
            return Self.span(now) != nil && Self.span(now) == Self.span(before) && now.placeholdersCover(Self.span(now)!, imageID: Self.imageID)
        }, "no placeholder cells in the pane that cover the picture as a placement shows it")
        guard let rect = Self.span(before) else { return }
        #expect(before.placeholdersCover(rect, imageID: Self.imageID), "the cells do not cover \(rect) as a placement shows it")
        #expect(rect.width > 40 && rect.height > 10, "\(rect)")

        // The player's start-up is over before the switch: inside tmux it sends the picture
        // again 0.5 s after it came up unless a delivery check says first that the
        // terminal has it (under load, CI saw such a repaint come after the switch and count as
        // a resend); its log says when it knows. Then nothing more arrives for 0.2 s.
        #expect(waitUntil(10, interval: 0.05) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("pictures through tmux: the terminal has the picture")
        }, "the player never knew the terminal had its picture: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "no log")")
        func settled(_ why: String) {
            var size = -1, unchanged = 0
            #expect(waitUntil(5, interval: 0.05) {
                let now = Self.dumped(dump).count
                unchanged = now == size ? unchanged + 1 : 0
                size = now
                return unchanged >= 4
            }, "the terminal kept receiving \(why)")
        }
        settled("after the player started")
        // Another window in front: tmux draws it over the picture's cells; then back.
        _ = Process.run(["/usr/bin/tmux", "-L", socket, "new-window", "sleep 60"], timeout: 10)
        #expect(waitUntil(5, interval: 0.05) { Self.span(Self.pane(socket, target: ":1")) == nil && Self.dumped(dump).count > 0 })
        // tmux's redraw of the new window has reached the terminal.
        settled("after the window switch")
        let mark = Self.dumped(dump).count
        _ = Process.run(["/usr/bin/tmux", "-L", socket, "select-window", "-t", ":0"], timeout: 10)
        #expect(waitUntil(5, interval: 0.05) { Self.dumped(dump).dropFirst(mark).firstRange(of: Self.placeholderBytes) != nil },
                "tmux did not redraw the placeholder cells to the terminal after the switch back")
        let after = Self.pane(socket)
        #expect(after.placeholdersCover(rect, imageID: Self.imageID), "the cells are not the same after the switch")
        let sinceSwitch = Self.dumped(dump).dropFirst(mark)
        let resent = sinceSwitch.firstRange(of: Array("_Ga=T".utf8)) != nil
        let received = String(decoding: sinceSwitch.prefix(400).map { $0 < 0x20 || $0 > 0x7E ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
        // The other window goes (the session ends with the player), then the player quits.
        _ = Process.run(["/usr/bin/tmux", "-L", socket, "kill-window", "-t", ":1"], timeout: 10)
        _ = Process.run(["/usr/bin/tmux", "-L", socket, "send-keys", "-t", ":0", "q"], timeout: 10)
        joined = finished.wait(timeout: .now() + 20) == .success
        #expect(joined, "the player did not quit")
        let r = try #require(report.withLock { $0 }, "the stand-in terminal gave no report")
        #expect(r.status == 0 && r.errors.isEmpty, "\(r)")
        let video = r.transmissions.filter { $0.keys["i"] == "\(Self.imageID)" }
        #expect(!video.isEmpty && video.allSatisfy { $0.keys["U"] == "1" && $0.keys["C"] == nil }, "\(video.map(\.keys))")
        #expect(video.first.map(KittyTerminalTests.isRed) == true, "the picture is not the fixture's red")
        let playerLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? "none"
        #expect(!resent, "the image was sent again after the switch: the terminal had lost it; received: \(received); the player's log: \(playerLog)")
        // Deleted once, at the exit (not at the window switch).
        #expect(r.deletes.filter { $0["i"] == "\(Self.imageID)" }.count == 1, "\(r.deletes); transmissions \(r.transmissions.map(\.keys))")
    }
}
