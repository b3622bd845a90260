import AetherEngine
import AetherTestSupport
import Foundation

/// Running the built player the way the end-to-end tiers do (command line, real time, network,
/// real terminals): headless with a stats file, in the background beside an IPC client, and
/// reading what it left (summaries, the transport bar's time).
public enum PlayerRuns {
    struct Line: Decodable { let summary: PlaybackSummary? }

    /// The summaries (one per playlist item) in a `--stats-file`.
    public static func summaries(_ path: String) throws -> [PlaybackSummary] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8)).summary
        }
    }

    /// A path named `name` in a directory of its own.
    public static func temp(_ name: String) -> String {
        let dir = NSTemporaryDirectory() + "aether-e2e-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/" + name
    }

    /// Plays `arguments` headless (`--vo=null --ao=null`) for at most `timeout` s; returns the
    /// result and the summaries.
    public static func headless(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) throws
        -> (ProcessResult, [PlaybackSummary]) {
        let stats = temp("stats.jsonl")
        var argv = [TestEnvironment.binary] + arguments + ["--vo=null", "--ao=null", "--stats-file", stats]
        if !environment.isEmpty {
            argv = ["/usr/bin/env"] + environment.map { "\($0)=\($1)" } + argv
        }
        let r = Process.run(argv, timeout: timeout)
        return (r, (try? summaries(stats)) ?? [])
    }

    /// A short directory for IPC sockets (a socket path must fit in 108 bytes).
    public static func socketDirectory() -> String {
        var template = Array("/tmp/aether-ipc-e2e-XXXXXX".utf8CString)
        _ = mkdtemp(&template)
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A configuration home (`$XDG_CONFIG_HOME`) with an empty `aether-tui/` in it.
    public static func configHome() -> String {
        let dir = NSTemporaryDirectory() + "aether-config-e2e-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir + "/aether-tui", withIntermediateDirectories: true)
        return dir
    }

    /// Plays a short clip headless with `dir` as `$XDG_CONFIG_HOME`.
    public static func play(config dir: String, _ args: [String] = [], timeout: Double = 20) -> ProcessResult {
        Process.run([TestEnvironment.binary, TestEnvironment.fixture("sine-1k.mkv"), "--vo=null", "--ao=null", "--length=0.2"] + args,
                    environment: ["XDG_CONFIG_HOME": dir, "XDG_STATE_HOME": dir + "/state"], timeout: timeout)
    }

    /// The played time the transport bar shows (`MM:SS / …`), in seconds.
    public static func time(in screen: String) -> Int? {
        guard let r = screen.range(of: #"(\d\d):(\d\d) / "#, options: .regularExpression) else { return nil }
        let parts = screen[r].prefix(5).split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
    }
}

/// Runs the player in the background; `wait()` returns how it ended.
public final class BackgroundPlayer: Sendable {
    private let result = Guarded<ProcessResult?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// `environment`: added to the test process's own (a recorder's sink, say).
    public init(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) {
        Thread.detachNewThread { [self] in
            let r = Process.run(arguments, environment: environment, timeout: timeout)
            result.withLock { $0 = r }
            done.signal()
        }
    }

    public func wait(timeout: Double = 30) -> ProcessResult? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return result.withLock { $0 }
    }
}

/// The stand-in kitty terminal (`Tests/Scripts/kitty_pty.py`: a pty that answers the probe,
/// kitty's `a=q` included, and decodes every kitty image it receives).
public enum KittyPty {
    public struct Transmission: Decodable, Sendable {
        public var keys: [String: String]
        public var chunks: Int
        public var bytes: Int
        public var mean: [Double]
        /// The cursor (row, column, 0-based) where the picture was placed.
        public var at: [Int]
        public var max_chunk: Int
        /// When it was complete, in seconds from the stand-in's start.
        public var t: Double
    }

    public struct Report: Decodable, Sendable {
        public var transmissions: [Transmission]
        public var deletes: [[String: String]]
        public var queries: Int
        /// kitty's `t=s` queries (asked only where the terminal is local).
        public var shm_queries: Int
        public var status: Int?
        public var errors: [String]
        /// DA1 queries answered, and left unanswered (`--drop-da1-after-image`).
        public var da1_answered: Int
        public var da1_dropped: Int
        /// When each answered DA1 came, in seconds from the stand-in's start.
        public var da1_times: [Double]
    }

    /// Runs `command` on the stand-in terminal (`extra`: kitty_pty.py's own options). The keys
    /// (`q`) go once an image came and the terminal was quiet for half a second (the player has
    /// drawn), or after 10 s.
    public static func run(_ command: [String], extra: [String] = []) throws -> Report {
        let script = TestEnvironment.scripts.appendingPathComponent("kitty_pty.py").path
        let r = Process.run(["/usr/bin/python3", script, "--keys-after", "10", "--keys-when-quiet", "0.5", "--timeout", "25"] + extra + ["--"] + command,
                            timeout: 45)
        return try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
    }
}
