import Foundation

/// A private D-Bus session bus for one test: `dbus-daemon --session --nofork` listening in a
/// fresh temporary directory, a child of this process. ``close()`` (also run by `deinit`)
/// terminates and reaps it, ends the monitors started on it and removes the directory, so a
/// test leaves nothing running whether it passes, fails or throws.
public final class SessionBus: @unchecked Sendable {  // used from one test at a time
    public let address: String
    private let directory: String
    private var children: [pid_t] = []
    private var daemonOutput: Int32 = -1
    private var closed = false

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        directory = NSTemporaryDirectory() + "aether-bus-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        address = "unix:path=\(directory)/bus"
        // dbus-daemon prints its address once it listens: the sign that it is ready.
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe failed") }
        // Other children started meanwhile must not hold the write end (the child gets a dup).
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let pid = SessionBus.spawn(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile",
                                    "--address=\(address)", "--print-address"], stdout: .fd(fds[1]))
        Glibc.close(fds[1])
        daemonOutput = fds[0]
        guard let pid else {
            throw Failure(description: "cannot start dbus-daemon")
        }
        children.append(pid)
        var line = [UInt8]()
        let deadline = MonotonicTime.now() + 10
        while !line.contains(UInt8(ascii: "\n")), MonotonicTime.now() < deadline {
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) >= 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 512)
            let n = read(fds[0], &chunk, chunk.count)
            if n > 0 { line += chunk[0..<n] } else if n == 0 { break }
        }
        guard line.contains(UInt8(ascii: "\n")) else {
            close()
            throw Failure(description: "dbus-daemon did not start")
        }
    }

    deinit { close() }

    /// The variables a child needs to use this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Runs `arguments` on this bus (DBUS_SESSION_BUS_ADDRESS set) and waits for it.
    public func run(_ arguments: [String], timeout: Double = 10) -> ProcessResult {
        Process.run(arguments, environment: environment, timeout: timeout)
    }

    /// `playerctl ARGS` on this bus.
    public func playerctl(_ arguments: String...) -> ProcessResult {
        run(["/usr/bin/playerctl"] + arguments)
    }

    /// Starts `dbus-monitor` for the signals from `path`, writing into a file; it ends with the
    /// bus. The monitor is listening when this returns.
    public func monitorSignals(path: String) throws -> SignalLog {
        let file = "\(directory)/monitor-\(children.count).log"
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        guard let pid = SessionBus.spawn(["/usr/bin/dbus-monitor", "--address", address,
                                          "type='signal',path='\(path)'"], stdout: .file(file)) else {
            throw Failure(description: "cannot start dbus-monitor")
        }
        children.append(pid)
        let log = SignalLog(file: file)
        // dbus-monitor prints the NameAcquired signal of its own connection once it is in.
        guard waitUntil(10, interval: 0.02, { log.text.contains("NameAcquired") }) else { throw Failure(description: "dbus-monitor did not start") }
        return log
    }

    /// What a monitor printed so far.
    public struct SignalLog: Sendable {
        public let file: String
        public var text: String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
    }

    /// Terminates (then kills) the daemon and monitors, reaps them and removes the directory.
    /// Safe to call more than once.
    public func close() {
        guard !closed else { return }
        closed = true
        for pid in children { kill(pid, SIGTERM) }
        for pid in children {
            var status: Int32 = 0
            // Reaped (or not ours to reap) within 3 s, or killed.
            if !waitUntil(3, interval: 0.01, { waitpid(pid, &status, WNOHANG) != 0 }) {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
            }
        }
        if daemonOutput >= 0 { Glibc.close(daemonOutput) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The daemon's and the monitors' process ids.
    public var processes: [pid_t] { children }

    enum Output {
        case fd(Int32)
        case file(String)
    }

    /// posix_spawn with stdin and stderr on /dev/null and default signal handling (the test
    /// runner blocks and ignores signals its children would inherit).
    private static func spawn(_ arguments: [String], stdout: Output) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch stdout {
        case .fd(let fd):
            posix_spawn_file_actions_adddup2(&actions, fd, 1)
            posix_spawn_file_actions_addclose(&actions, fd)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_APPEND, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = ChildSignals.attributes()
        defer { posix_spawnattr_destroy(&attributes) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ) == 0 else { return nil }
        return pid
    }
}

/// Polls `condition` every 20 ms until it holds; throws ``TimedOut`` after `timeout` seconds.
public enum Poll {
    public struct TimedOut: Error, CustomStringConvertible {
        public let description: String
    }

    public static func until(timeout: Double = 3, _ what: String = "condition",
                             _ condition: () -> Bool) throws {
        guard waitUntil(timeout, interval: 0.02, condition) else {
            throw TimedOut(description: "\(what): not after \(timeout) s")
        }
    }
}
