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

    /// The crash report (CrashReport.h), however the process dies (a stack overflow included),
    /// with or without a handler before ours: after the restore, a new file in the directory
    /// (made with its parents) holds the signal and how it came, the header, the last item
    /// given, the crashing thread's frames and what the previous handler wrote on stderr; then
    /// one line on stderr says where it is.
    @Test(arguments: [(AETHER_CRASH_STACK_OVERFLOW, SIGSEGV, false), (AETHER_CRASH_NULL_WRITE, SIGSEGV, true),
                      (AETHER_CRASH_KILL_SEGV, SIGSEGV, true), (AETHER_CRASH_ABORT, SIGABRT, false)])
    func aCrashWritesTheReport(how: aether_crash, signal: Int32, previousHandler: Bool) throws {
        let base = NSTemporaryDirectory() + "aether-crash-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let directory = base + "/state/crashes"
        var buffer = [UInt8](repeating: 0, count: 65536)
        var result = aether_crash_result()
        let rc = aether_crash_in_pty_reporting(Int32(how.rawValue), previousHandler ? 1 : 0, Self.enter, Self.restore, directory,
                                               &buffer, buffer.count, &result)
        #expect(rc == 0, "no pty or no fork")
        #expect(result.term_signal == signal, "died of \(result.term_signal) (exit \(result.exit_status)), not \(signal)")
        let output = String(decoding: buffer.prefix(result.length), as: UTF8.self)
        let line = try #require(output.range(of: "crashtest crashed; report: "), "no line: \(output.debugDescription)")
        let restored = try #require(output.range(of: Self.restore), "no restore: \(output.debugDescription)")
        #expect(restored.upperBound <= line.lowerBound, "the line came before the restore")
        let path = String(output[line.upperBound...].prefix { !$0.isNewline })
        let name = try Regex(#"crash-\d{8}-\d{6}-\d+\.txt"#)
        #expect(path.hasPrefix(directory + "/") && path.dropFirst(directory.count + 1).wholeMatch(of: name) != nil, "\(path)")
        let report = try String(contentsOfFile: path, encoding: .utf8)
        let cause = how == AETHER_CRASH_NULL_WRITE ? "signal 11, a fault at address 0x0 (code 1)"
            : how == AETHER_CRASH_STACK_OVERFLOW ? "signal 11, a fault at address 0x" : "raised by the process itself"
        #expect(report.hasPrefix("crashtest crashed: \(signal == SIGSEGV ? "SIGSEGV" : "SIGABRT")") && report.contains(cause),
                "\(report.prefix(200))")
        #expect(report.contains(" UTC, process ") && report.contains("\n\nHEADER-MARKER\n\nplaying: ITEM-MARKER\n"), "\(report)")
        #expect(report.contains("The crashing thread's frames") && report.contains("\n  #00  0x"), "\(report)")
        #expect(report.contains("before ours") == previousHandler, "\(report)")
        if previousHandler {
            #expect(report.hasSuffix("PREVIOUS") && !output.contains("PREVIOUS"), "the previous handler's output went astray")
        }
        let file = try FileManager.default.attributesOfItem(atPath: path)
        let folder = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((file[.posixPermissions] as? Int) == 0o600 && (folder[.posixPermissions] as? Int) == 0o700)
    }
}
