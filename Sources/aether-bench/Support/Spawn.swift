import AetherLoopback
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process measured with `wait4`: CPU (user + system) and wall time.
struct Measured {
    var status: Int32
    var cpuSeconds: Double
    var wallSeconds: Double
}

enum Spawn {
    /// Finds `name` on PATH.
    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Runs `argv` with stdout to `stdoutPath` (or /dev/null) and stderr to /dev/null.
    static func run(_ argv: [String], stdoutPath: String? = nil) -> Measured {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var cargs = argv.map { strdup($0) }
        cargs.append(nil)
        defer { for p in cargs { free(p) } }
        var pid: pid_t = 0
        let start = MonotonicTime.now()
        guard posix_spawnp(&pid, argv[0], &actions, nil, cargs, environ) == 0 else {
            return Measured(status: -1, cpuSeconds: 0, wallSeconds: 0)
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return Measured(status: status, cpuSeconds: cpu, wallSeconds: MonotonicTime.now() - start)
    }

    /// Runs `argv` and returns its stdout as text.
    static func output(_ argv: [String]) -> String? {
        let path = NSTemporaryDirectory() + "aether-bench-\(getpid())-out.txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard run(argv, stdoutPath: path).status == 0 else { return nil }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }
}

/// Medians and friends.
enum Stats {
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The nearest-rank percentile (`p` in 0–100).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        return s[min(s.count - 1, max(0, Int((Double(s.count) * p / 100).rounded(.up)) - 1))]
    }

    static func fmt(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
}
