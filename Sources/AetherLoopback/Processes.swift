import AetherBase
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Child processes and waits, for the suite (through AetherTestSupport) and `aether-bench`.

public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let timedOut: Bool
}

extension Process {
    /// Runs `arguments` (argv[0] is the executable path), capturing output, killing it after
    /// `timeout` s. Built on posix_spawn + waitpid: Foundation's Process can miss the exit of a
    /// child that forks a daemon (tmux), and a daemon that inherits the output pipe must not make
    /// us wait for it — output is read until the child itself has exited, then drained.
    /// `capture: false` sends output to /dev/null.
    public static func run(_ arguments: [String], environment: [String: String]? = nil,
                           timeout: Double = 60, capture: Bool = true) -> ProcessResult {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture {
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
                return ProcessResult(status: -1, stdout: "", stderr: "pipe failed", timedOut: false)
            }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attributes = ChildSignals.attributes()
        defer { posix_spawnattr_destroy(&attributes) }

        var env = ProcessInfo.processInfo.environment
        if let environment { env.merge(environment) { $1 } }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        if capture { close(outPipe[1]); close(errPipe[1]) }
        guard spawned == 0 else {
            if capture { close(outPipe[0]); close(errPipe[0]) }
            return ProcessResult(status: -1, stdout: "", stderr: String(cString: strerror(spawned)), timedOut: false)
        }
        var out = [UInt8](), err = [UInt8]()
        func drain(_ fd: Int32, into buffer: inout [UInt8]) {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { return }
                buffer += chunk[0..<n]
            }
        }
        if capture {
            for fd in [outPipe[0], errPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        var status: Int32 = 0
        var timedOut = false
        // Reaped (or not ours to reap any more).
        func exited() -> Bool {
            let r = waitpid(pid, &status, WNOHANG)
            return r == pid || (r < 0 && errno != EINTR)
        }
        // Until the child exits: with output, the pipes' poll (5 ms) paces the loop; without, 2 ms.
        let inTime = waitUntil(timeout, interval: capture ? 0 : 0.002) {
            if capture {
                var fds = [pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0),
                           pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 2, 5)
                drain(outPipe[0], into: &out)
                drain(errPipe[0], into: &err)
            }
            return exited()
        }
        if !inTime {
            timedOut = true
            kill(pid, SIGKILL)
            _ = waitUntil(.infinity, interval: 0.002) {
                if capture { drain(outPipe[0], into: &out); drain(errPipe[0], into: &err) }
                return exited()
            }
        }
        if capture {
            drain(outPipe[0], into: &out)
            drain(errPipe[0], into: &err)
            close(outPipe[0])
            close(errPipe[0])
        }
        // WIFEXITED/WEXITSTATUS by hand (the macros do not import).
        let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ProcessResult(status: code, stdout: String(decoding: out, as: UTF8.self),
                             stderr: String(decoding: err, as: UTF8.self), timedOut: timedOut)
    }
}

/// What a spawned child starts with: a test runner may ignore SIGTERM/SIGINT and blocks nearly
/// every signal on its threads, and both survive exec, so children get default dispositions and
/// an empty mask back (else a tmux pane's shell never sees the SIGHUP of `kill-server` and
/// outlives the test). The one setup of ``Process/run(_:environment:timeout:capture:)`` and
/// the suite's other spawns.
public enum ChildSignals {
    /// Initialised spawn attributes; the caller destroys them (`posix_spawnattr_destroy`).
    public static func attributes() -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        return attributes
    }
}

/// Polls `condition` every 2 ms until it holds or `timeout` seconds pass; true when it held.
/// For state with no event to wait on (a flag another thread sets); prefer a real wait where one
/// exists (a queue's, a process's exit, a tmux pane's ``TmuxSession/waitFor(_:_:)``).
public func waitUntil(_ timeout: Double, interval: Double = 0.002, _ condition: () -> Bool) -> Bool {
    let end = MonotonicTime.now() + timeout
    while MonotonicTime.now() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return condition()
}

/// The harness's one clock (its composition root): the suite's and the bench's waits and
/// measurements on the system's monotonic time.
public enum MonotonicTime {
    static let clock = TimeSource.monotonic
    public static func now() -> Double { clock.seconds }
}
