#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program run to its end as a child (`posix_spawn`): its input given whole (or /dev/null),
/// its output and errors read through pipes on threads of their own, each within a budget,
/// under a deadline and a cancel check. A child that is late, cancelled or (when asked) over
/// its output budget is killed; every child is reaped.
public enum ChildProcess {
    public struct Result: Sendable {
        /// The exit code; nil when it ended by a signal (killed here, or crashed).
        public var exitCode: Int32?
        /// Standard output, at most the budget.
        public var output: [UInt8]
        /// The last `errorTail` bytes of standard error.
        public var errors: [UInt8]
        public var outputOverBudget = false
        public var timedOut = false
        public var cancelled = false
    }

    public struct SpawnError: Error, Sendable {
        public var code: Int32
        public var message: String { String(cString: strerror(code)) }
    }

    /// Runs `program` (a path) with `arguments` (not counting argv[0]).
    /// - Parameters:
    ///   - outputLimit: standard output kept; past it the rest is read and dropped (and the child
    ///     killed when `killOverBudget`).
    ///   - errorTail: how much of the end of standard error is kept (0: it goes to /dev/null).
    ///   - timeout: seconds until the child is killed.
    ///   - cancelled: looked at every 50 ms; true kills the child.
    public static func run(_ program: String, _ arguments: [String], input: [UInt8]? = nil, outputLimit: Int,
                           killOverBudget: Bool = false, errorTail: Int = 0, timeout: Double,
                           cancelled: @escaping () -> Bool = { false }) throws(SpawnError) -> Result {
        let child = try spawn([program] + arguments, searchPath: false, input: input != nil, errors: errorTail > 0)
        let pid = child.pid
        let state = GuardedCondition(Streams(open: errorTail > 0 ? 2 : 1))
        if let input {
            let fd = child.input
            OSThread.start(name: "aether.child-in") {
                // A child that exits without reading all: EPIPE here, not SIGPIPE for the process.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                FileBytes.writeAll(input, to: fd)
                close(fd)
            }
        }
        let outRead = child.output, errRead = child.errors
        OSThread.start(name: "aether.child-out") {
            drain(outRead, state: state) { s, chunk in
                let room = outputLimit - s.output.count
                if chunk.count > room {
                    s.output += chunk.prefix(max(0, room))
                    if !s.overBudget, killOverBudget { kill(pid, SIGKILL) }
                    s.overBudget = true
                } else {
                    s.output += chunk
                }
            }
            state.update { $0.open -= 1 }
        }
        if errorTail > 0 {
            OSThread.start(name: "aether.child-err") {
                drain(errRead, state: state) { s, chunk in
                    s.errors += chunk
                    if s.errors.count > errorTail { s.errors.removeFirst(s.errors.count - errorTail) }
                }
                state.update { $0.open -= 1 }
            }
        }
        let deadline = MonotonicClock.seconds() + max(0, timeout)
        var result = Result(exitCode: nil, output: [], errors: [])
        while !state.wait(until: { $0.open == 0 }, deadline: min(deadline, MonotonicClock.seconds() + 0.05)) {
            let late = MonotonicClock.seconds() >= deadline, stop = cancelled()
            guard late || stop else { continue }
            result.timedOut = late && !stop
            result.cancelled = stop
            kill(pid, SIGKILL)
            // A grandchild may hold the pipes open: the readers give up after 5 s more.
            if !state.wait(until: { $0.open == 0 }, timeout: 5) { state.update { $0.abandoned = true } }
            break
        }
        var status: Int32 = 0
        var r: pid_t
        repeat { r = waitpid(pid, &status, 0) } while r < 0 && errno == EINTR
        // WIFEXITED / WEXITSTATUS.
        if r == pid, status & 0x7F == 0 { result.exitCode = (status >> 8) & 0xFF }
        state.withLock { s in
            result.output = s.output
            result.errors = s.errors
            result.outputOverBudget = s.overBudget
        }
        return result
    }

    /// A started child: its pid and this process's ends of the pipes asked for (-1 where none).
    public struct Started: Sendable {
        public var pid: pid_t
        public var input: Int32 = -1
        public var output: Int32 = -1
        public var errors: Int32 = -1
    }

    /// Starts `arguments[0]` (looked up on `PATH` when `searchPath`) with its standard output to
    /// a pipe, its input from a pipe or /dev/null and its errors to a pipe or /dev/null; the
    /// program's one `posix_spawn` (``run(_:_:input:outputLimit:killOverBudget:errorTail:timeout:cancelled:)``
    /// and ``PendingChild``, which collects its child later). The caller owns the ends returned
    /// and reaps the child.
    public static func spawn(_ arguments: [String], searchPath: Bool, input: Bool = false, errors: Bool = false) throws(SpawnError) -> Started {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        func closeAll() { for fd in inPipe + outPipe + errPipe where fd >= 0 { close(fd) } }
        guard !arguments.isEmpty else { throw SpawnError(code: EINVAL) }
        // Close-on-exec from the start: none of them is inherited by anything else this
        // process starts meanwhile.
        guard SystemPipe.make(&outPipe), !errors || SystemPipe.make(&errPipe), !input || SystemPipe.make(&inPipe) else {
            let code = errno
            closeAll()
            throw SpawnError(code: code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input {
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO)
        if errors {
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        }
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
            searchPath ? posix_spawnp(&pid, arguments[0], &actions, nil, buffer.baseAddress!, environ)
                       : posix_spawn(&pid, arguments[0], &actions, nil, buffer.baseAddress!, environ)
        }
        // The child's ends are the child's now.
        for fd in [inPipe[0], outPipe[1], errPipe[1]] where fd >= 0 { close(fd) }
        guard rc == 0 else {
            for fd in [inPipe[1], outPipe[0], errPipe[0]] where fd >= 0 { close(fd) }
            throw SpawnError(code: rc)
        }
        return Started(pid: pid, input: inPipe[1], output: outPipe[0], errors: errPipe[0])
    }

    private struct Streams {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var overBudget = false
        /// Readers still reading (output, and errors when they are kept).
        var open: Int
        /// Set when the parent stopped waiting: the readers end at their next look.
        var abandoned = false
    }

    /// Reads `fd` to its end (or until the parent gives up), handing each chunk to `take`
    /// under the lock; closes it.
    private static func drain(_ fd: Int32, state: GuardedCondition<Streams>, take: (inout Streams, ArraySlice<UInt8>) -> Void) {
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !state.withLock({ $0.abandoned }) {
            let ready = poll(&poller, 1, 100)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            if n <= 0 { return }
            state.withLock { take(&$0, buffer[..<n]) }
        }
    }
}
