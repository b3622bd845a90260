#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child started now and collected later (TerminalGraphics' `TmuxQuery`: started before the
/// probe's queries go out, collected after the terminal's sentinel): its standard output read
/// through a pipe until it ends or a deadline passes, and the child reaped by a ``ChildReaper``,
/// killed if still running then.
///
/// Not thread-safe: one owner starts and collects it.
public final class PendingChild {
    private let pid: pid_t
    private var readEnd: Int32
    private let reaper: ChildReaper

    /// Starts `arguments[0]` (looked up on `PATH`) with its output to a pipe (see
    /// ``ChildProcess/spawn(_:searchPath:input:errors:)``); nil when it cannot be started.
    /// - Parameter reaperName: the name of the thread that waits for its exit.
    public init?(_ arguments: [String], reaperName: String) {
        guard let child = try? ChildProcess.spawn(arguments, searchPath: true) else { return nil }
        pid = child.pid
        readEnd = child.output
        reaper = ChildReaper(pid: child.pid, name: reaperName)
    }

    deinit { if readEnd >= 0 { _ = collect(timeout: .zero, limit: 0) } }

    /// Reads the child's output (until it ends, or past `limit` bytes) for at most `timeout`,
    /// then reaps the child, killed if it is still running. Its output when it ended and the
    /// child exited 0, else nil. Once: a later call answers nil.
    public func collect(timeout: Duration, limit: Int) -> [UInt8]? {
        guard readEnd >= 0 else { return nil }
        // A wait on `poll` and on the child: in the system's clock.
        let deadline = SystemDeadline(after: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        var eof = false
        while !eof, output.count < limit {
            var pfd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, deadline.millisecondsLeft)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if n <= 0 { eof = true } else { output += buffer.prefix(n) }
        }
        close(readEnd)
        readEnd = -1
        // After its output ends the child exits at once; a little grace past the deadline for that.
        let seconds = Double(deadline.microsecondsLeft) / 1e6 + 0.02
        guard let status = reaper.status(waitingFor: seconds) else {
            // Late (a server that does not answer): our own child, ended by its pid (the reaper
            // thread then collects it).
            kill(pid, SIGKILL)
            _ = reaper.status(waitingFor: nil)
            return nil
        }
        guard eof, status == 0 else { return nil }   // exited 0 (WIFEXITED, code 0)
        return output
    }
}

/// Collects a child's exit on a thread of its own, blocked in `waitpid`, so that its parent can
/// wait for the exit with a deadline instead of polling with `WNOHANG`.
public final class ChildReaper: Sendable {
    /// Whether `waitpid` returned, and the wait status: nil until the child has been collected
    /// (or when `waitpid` failed).
    private let reaped = GuardedCondition<(exited: Bool, status: Int32?)>((false, nil))

    /// - Parameter name: the waiting thread's name.
    public init(pid: pid_t, name: String) {
        OSThread.start(name: name) { [reaped] in
            var status: Int32 = 0
            var r: pid_t
            repeat { r = waitpid(pid, &status, 0) } while r < 0 && errno == EINTR
            let collected: Int32? = r == pid ? status : nil
            reaped.update { $0 = (true, collected) }
        }
    }

    /// The child's wait status once it has exited, waiting `timeout` seconds at most (nil: as
    /// long as it takes); nil when it has not exited by then (or could not be waited for).
    public func status(waitingFor timeout: Double?) -> Int32? {
        reaped.withLock(when: { $0.exited }, timeout: timeout) { r, exited in
            exited ? r.status : nil
        }
    }
}
