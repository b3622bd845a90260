import CTerminalTestSupport
import Foundation
import Testing

/// CTerminal's crash path, in a forked child on a real pty whose stdin is read-only (as with
/// `aether-tui movie.mkv < /dev/tty`): the restore bytes must reach the terminal's output and the
/// saved termios must come back, however the process dies.
@Suite struct TerminalRestoreTests {
    static let enter = "\u{1B}[?1049h\u{1B}[?25l"
    static let restore = "\u{18}\u{1B}\\\u{1B}[?25h\u{1B}[?1049l"

    static func crash(_ how: aether_crash, previousHandler: Bool = false) -> (output: String, result: aether_crash_result) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var result = aether_crash_result()
        let rc = aether_crash_in_pty(Int32(how.rawValue), previousHandler ? 1 : 0, enter, restore, &buffer, buffer.count, &result)
        #expect(rc == 0, "no pty or no fork")
        return (String(decoding: buffer.prefix(result.length), as: UTF8.self), result)
    }

    @Test(arguments: [(AETHER_CRASH_STACK_OVERFLOW, SIGSEGV), (AETHER_CRASH_NULL_WRITE, SIGSEGV),
                      (AETHER_CRASH_KILL_SEGV, SIGSEGV), (AETHER_CRASH_ABORT, SIGABRT)])
    func aCrashRestoresTheTerminal(how: aether_crash, signal: Int32) {
        let (output, result) = Self.crash(how)
        #expect(result.exit_status == 0, "the child exited \(result.exit_status) instead of crashing")
        // The process still dies of its own signal (exit status and core dump stay truthful).
        #expect(result.term_signal == signal, "died of \(result.term_signal), not \(signal)")
        // The restore bytes came after the screen was taken, on the terminal's output.
        let entered = output.range(of: Self.enter)
        #expect(entered != nil, "nothing reached the terminal: \(output.debugDescription)")
        if let entered {
            #expect(output[entered.upperBound...].contains(Self.restore),
                    "no restore sequence after the crash: \(output.debugDescription)")
        }
        #expect(result.echo_and_icanon != 0, "echo/icanon left off")
    }

    /// The handler that was there before (the Swift runtime's backtracer) runs after the restore,
    /// so its report lands on the normal screen; when it returns — as the backtracer does for a
    /// signal sent with kill — the process still dies of the signal instead of carrying on.
    @Test(arguments: [(AETHER_CRASH_KILL_SEGV, SIGSEGV), (AETHER_CRASH_NULL_WRITE, SIGSEGV), (AETHER_CRASH_ABORT, SIGABRT)])
    func thePreviousHandlerRunsAfterTheRestoreAndTheProcessStillDies(how: aether_crash, signal: Int32) {
        let (output, result) = Self.crash(how, previousHandler: true)
        #expect(result.term_signal == signal, "died of \(result.term_signal) (exit \(result.exit_status)), not \(signal)")
        let restored = output.range(of: Self.restore)
        let report = output.range(of: "PREVIOUS")
        #expect(restored != nil && report != nil, "\(output.debugDescription)")
        if let restored, let report { #expect(restored.upperBound <= report.lowerBound, "the report came before the restore") }
    }
}
