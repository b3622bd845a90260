import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Ctrl-Z, `bg` and `fg` from an interactive shell in tmux: the terminal is the shell's while
/// the player is stopped (main screen, cooked modes, no picture bytes) and the player's again
/// after `fg` (keys act at once, everything repainted).
@Suite(.serialized) struct JobControlTests {
    init() {
        #expect(TestEnvironment.requirePulse())
    }

    /// An interactive bash in tmux with the player started from it.
    func startFromShell(_ args: [String]) throws -> TmuxSession {
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "LANG": "C.UTF-8", "PS1": "shell$ ",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        let s = try TmuxSession(["/bin/bash", "--norc", "--noprofile", "-i"], columns: 100, rows: 30, environment: env)
        #expect(s.waitFor(5) { $0.contains("shell$") }, "no shell prompt:\n\(s.screen())")
        func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        s.send(([TestEnvironment.binary] + args).map(quote).joined(separator: " "), "Enter")
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        return s
    }

    /// Whether the pane shows picture cells (half-block glyphs).
    static func hasPicture(_ screen: String) -> Bool { screen.contains("▀") || screen.contains("▄") }

    /// Whether `pid`'s process group is the terminal's foreground group (/proc stat: pgrp, tpgid).
    static func inForeground(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 5 else { return false }
        return fields[2] == fields[5]
    }

    /// The process state letter from /proc (T: stopped).
    static func processState(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).first
    }

    @Test func ctrlZGivesTheTerminalBackAndFgTakesItAgain() throws {
        let s = try startFromShell([TestEnvironment.fixture("h264-720p.mkv"), "--audio-device=pulse", "--vo=halfblock"])
        defer { s.close() }
        let pid = try #require(s.pid(of: "aether-tui"))
        #expect(s.waitFor(3) { JobControlTests.hasPicture($0) })
        #expect(s.display("#{alternate_on}") == "1")
        #expect(s.display("#{mouse_any_flag}") == "1" && s.display("#{mouse_sgr_flag}") == "1", "no any-motion SGR mouse while playing")

        // Ctrl-Z: the shell's screen, its prompt, the player stopped.
        s.send("C-z")
        #expect(s.waitFor(3) { $0.contains("Stopped") && $0.contains("shell$") }, "no job-control stop:\n\(s.screen())")
        #expect(s.display("#{alternate_on}") == "0", "still in the alternate screen after Ctrl-Z")
        #expect(s.display("#{mouse_any_flag}") == "0" && s.display("#{mouse_sgr_flag}") == "0"
                && s.display("#{mouse_standard_flag}") == "0", "mouse reporting left on for the shell after Ctrl-Z")
        #expect(JobControlTests.processState(pid) == "T")
        #expect(!JobControlTests.hasPicture(s.screen()), "picture cells on the shell's screen:\n\(s.screen())")
        // Nothing reaches the terminal while stopped: every byte the pane gets is recorded.
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("jobctl-\(getpid()).bytes").path
        try? FileManager.default.removeItem(atPath: record)
        s.tmux(["pipe-pane", "-t", s.name, "-o", "cat >> \(record)"])
        Thread.sleep(forTimeInterval: 1.5)   // measurement window: 1.5 s stopped, no byte may arrive
        s.tmux(["pipe-pane", "-t", s.name])
        let stoppedBytes = (try? Data(contentsOf: URL(fileURLWithPath: record)))?.count ?? 0
        try? FileManager.default.removeItem(atPath: record)
        #expect(stoppedBytes == 0, "\(stoppedBytes) bytes reached the terminal while stopped")
        // The shell's modes: what is typed is echoed (cooked), as a shell expects.
        s.send("echo cooked-ok", "Enter")
        #expect(s.waitFor(3) { $0.contains("\ncooked-ok") }, "the shell did not get its modes back:\n\(s.screen())")

        // `bg`: running again but in the background, the terminal stays the shell's.
        s.send("bg", "Enter")
        Thread.sleep(forTimeInterval: 1)   // measurement window: 1 s running in the background, not painting
        #expect(JobControlTests.processState(pid) != "T", "bg did not continue the player")
        #expect(s.display("#{alternate_on}") == "0", "the player took the terminal while in the background")
        #expect(!JobControlTests.hasPicture(s.screen()), "painted while in the background:\n\(s.screen())")

        // `fg`: the alternate screen, a full repaint, keys act at once (not echoed, no Enter).
        s.send("fg", "Enter")
        #expect(s.waitFor(3) { _ in s.display("#{alternate_on}") == "1" }, "fg did not take the alternate screen")
        #expect(s.waitFor(3) { _ in s.display("#{mouse_any_flag}") == "1" && s.display("#{mouse_sgr_flag}") == "1" },
                "fg did not turn the mouse back on")
        #expect(s.waitFor(3) { JobControlTests.hasPicture($0) && PlayerRuns.time(in: $0) != nil },
                "no full repaint after fg:\n\(s.screen())")
        let t0 = try #require(PlayerRuns.time(in: s.screen()))
        #expect(s.waitFor(4) { (PlayerRuns.time(in: $0) ?? 0) >= t0 + 1 }, "playback did not go on after fg")
        s.send("i")
        #expect(s.waitFor(2) { $0.contains("Stats") }, "the key did not act after fg:\n\(s.screen())")
        #expect(!s.lines().contains { $0.hasPrefix("i") }, "the key was echoed")

        // q: back to the shell with nothing of the picture left on its screen.
        s.send("q")
        #expect(s.waitFor(4) { $0.contains("shell$") && !$0.contains("Stats") })
        #expect(s.display("#{alternate_on}") == "0")
        #expect(s.display("#{mouse_any_flag}") == "0" && s.display("#{mouse_sgr_flag}") == "0", "mouse reporting left on after q")
        #expect(!JobControlTests.hasPicture(s.screen()), "picture fragments on the shell's screen:\n\(s.screen())")
        s.send("stty -a | grep -q -- ' icanon ' && stty -a | grep -q -- ' echo ' && echo MODES-COOKED", "Enter")
        #expect(s.waitFor(3) { $0.contains("\nMODES-COOKED") }, "terminal left raw:\n\(s.screen())")
    }

    /// SIGSTOP/SIGCONT from outside, still in the foreground (no job-control shell): no chance
    /// to restore anything, so everything is repainted on continue.
    @Test func externalStopAndContinueRepaintsEverything() throws {
        let env = ["XDG_RUNTIME_DIR": "/tmp/aether-test-xdg", "TERM": "screen-256color", "COLORTERM": "truecolor",
                   "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--audio-device=pulse",
                                 "--vo=halfblock", "--pause"], columns: 100, rows: 30, environment: env)
        defer { s.close() }
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil && JobControlTests.hasPicture($0) })
        let pid = try #require(s.pid(of: "aether-tui"))
        kill(pid, SIGSTOP)
        #expect(s.waitFor(3) { _ in JobControlTests.processState(pid) == "T" })
        // Someone scribbles over the screen meanwhile (straight to the pane's terminal).
        let tty = s.display("#{pane_tty}")
        let scribble = try #require(FileHandle(forWritingAtPath: tty), "cannot open \(tty)")
        scribble.write(Data("\u{1B}[2J\u{1B}[Hscribbled over".utf8))
        try? scribble.close()
        #expect(s.waitFor(2) { $0.contains("scribbled over") && PlayerRuns.time(in: $0) == nil })
        kill(pid, SIGCONT)
        #expect(s.waitFor(3) { !$0.contains("scribbled over") && PlayerRuns.time(in: $0) != nil && JobControlTests.hasPicture($0) },
                "not repainted after SIGCONT:\n\(s.screen())")
        s.send("q")
        #expect(s.waitFor(4) { $0.contains("EXIT=0") }, "did not quit cleanly:\n\(s.screen())")
    }

    /// Stopped from outside while a job-control shell watches: the shell takes the terminal, so
    /// SIGCONT leaves the player in the background: it gives the terminal back, and `fg` brings
    /// it back whole.
    @Test func externalStopUnderAShellWaitsForFg() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("jobctl-\(getpid()).log").path
        let s = try startFromShell([TestEnvironment.fixture("h264-720p.mkv"), "--audio-device=pulse", "--vo=halfblock", "--log-file=\(log)"])
        defer { s.close(); try? FileManager.default.removeItem(atPath: log) }
        let pid = try #require(s.pid(of: "aether-tui"))
        kill(pid, SIGSTOP)
        #expect(s.waitFor(3) { _ in JobControlTests.processState(pid) == "T" && !JobControlTests.inForeground(pid) },
                "the shell did not take the terminal")
        kill(pid, SIGCONT)
        #expect(s.waitFor(3) { _ in s.display("#{alternate_on}") == "0" }, "the background player kept the alternate screen")
        Thread.sleep(forTimeInterval: 0.5)   // measurement window: 0.5 s continued in the background, not painting
        #expect(!JobControlTests.hasPicture(s.screen()), "painted while in the background:\n\(s.screen())")
        s.send("fg", "Enter")
        #expect(s.waitFor(3) { JobControlTests.hasPicture($0) && PlayerRuns.time(in: $0) != nil }, "no repaint after fg:\n\(s.screen())\n\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        s.send("q")
        #expect(s.waitFor(4) { _ in s.pid(of: "aether-tui") == nil }, "did not quit:\n\(s.screen())")
        s.send("echo EXIT=$?", "Enter")
        #expect(s.waitFor(3) { $0.contains("EXIT=0") }, "did not quit cleanly:\n\(s.screen())")
    }
}
