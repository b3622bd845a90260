import AetherTestSupport
import Foundation
import Testing

/// A test's tmux server and everything in its panes end with the test (they used to run on for
/// ten minutes after the suite).
@Suite struct TmuxCleanupTests {
    static func alive(_ pid: Int32) -> Bool { TmuxSession.isRunning(pid) }

    @Test func closeEndsTheServerAndThePanesEvenWhenTheyIgnoreHangup() throws {
        // The pane's shell ignores SIGHUP, so kill-server alone would leave it (and its sleep) running.
        let s = try TmuxSession(["/bin/sh", "-c", "trap '' HUP; sleep 300 & wait"])
        #expect(s.waitFor(3) { _ in s.paneProcesses.count >= 3 }, "the pane's processes did not start")
        let server = try #require(Int32(s.tmux(["display-message", "-p", "#{pid}"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let panes = s.paneProcesses
        s.close()
        #expect(!Self.alive(server), "tmux server \(server) still running")
        for pid in panes { #expect(!Self.alive(pid), "pane process \(pid) still running") }
        let ls = Process.run(["/usr/bin/tmux", "-L", s.socket, "ls"], timeout: 5)
        #expect(ls.status != 0, "the server still answers: \(ls.stdout)")
    }

    /// The test runner blocks nearly every signal on its threads, and a blocked mask survives
    /// fork and exec: a pane that inherited it would never see kill-server's SIGHUP (nor a
    /// test's SIGTERM, SIGQUIT or SIGSEGV). Processes the tests start get an empty mask.
    @Test func panesStartWithNoSignalsBlockedOrIgnored() throws {
        let s = try TmuxSession(["/bin/sleep", "30"])
        defer { s.close() }
        #expect(s.waitFor(3) { _ in s.paneProcesses.count >= 2 })
        // The pane's own shell is skipped: it blocks SIGCHLD while it waits and ignores SIGQUIT
        // by itself. What it runs must start clean.
        for pid in s.paneProcesses.dropFirst() {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            func mask(_ field: String) -> UInt64? {
                status.split(separator: "\n").first { $0.hasPrefix(field) }
                    .flatMap { UInt64($0.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16) }
            }
            let blocked = try #require(mask("SigBlk:")), ignored = try #require(mask("SigIgn:"))
            for sig in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGSEGV] {
                let bit = UInt64(1) << UInt64(sig - 1)
                #expect(blocked & bit == 0, "pid \(pid) has signal \(sig) blocked")
                #expect(ignored & bit == 0, "pid \(pid) has signal \(sig) ignored")
            }
        }
    }
}
