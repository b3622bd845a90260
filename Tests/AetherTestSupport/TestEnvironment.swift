import Foundation

/// Paths of the repository, its generated fixtures and the built binary.
public enum TestEnvironment {
    /// The repository root (three levels above this file).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let fixtureDirectory = root.appendingPathComponent("Tests/Fixtures/out")
    public static let scripts = root.appendingPathComponent("Tests/Scripts")

    private static let fixturesReady: Bool = {
        let result = Process.run(["/usr/bin/env", "flock", "/tmp/aether-fixtures.lock", "bash",
                                  root.appendingPathComponent("Tests/Fixtures/make-fixtures.sh").path,
                                  fixtureDirectory.path], timeout: 600)
        return result.status == 0
    }()

    /// The ASS typesetting fixtures (Tests/Fixtures/make-subtitle-fixtures.sh), in their own
    /// directory so that they do not make make-fixtures.sh's corpus out of date.
    public static let subtitleFixtureDirectory = root.appendingPathComponent("Tests/Fixtures/out-subtitles")
    private static let subtitleFixturesReady: Bool = {
        let result = Process.run(["/usr/bin/env", "flock", "/tmp/aether-fixtures.lock", "bash",
                                  root.appendingPathComponent("Tests/Fixtures/make-subtitle-fixtures.sh").path,
                                  subtitleFixtureDirectory.path], timeout: 300)
        return result.status == 0
    }()

    public static func subtitleFixture(_ name: String) -> String {
        precondition(subtitleFixturesReady, "Tests/Fixtures/make-subtitle-fixtures.sh failed")
        return subtitleFixtureDirectory.appendingPathComponent(name).path
    }

    /// The TLS tests' certificates (Tests/Scripts/test-ca.sh: a test authority, leaves for
    /// 127.0.0.1 and for evil.example, a self-signed one, a garbage chain), made on first use.
    public static let tlsDirectory = root.appendingPathComponent("Tests/Fixtures/out-tls")
    private static let tlsReady: Bool = {
        Process.run(["/usr/bin/env", "flock", "/tmp/aether-fixtures.lock", "bash",
                     scripts.appendingPathComponent("test-ca.sh").path, tlsDirectory.path], timeout: 120).status == 0
    }()

    public static func tlsFile(_ name: String) -> String {
        precondition(tlsReady, "Tests/Scripts/test-ca.sh failed")
        return tlsDirectory.appendingPathComponent(name).path
    }

    /// Path of a generated fixture, generating the corpus first if needed.
    public static func fixture(_ name: String) -> String {
        precondition(fixturesReady, "Tests/Fixtures/make-fixtures.sh failed")
        return fixtureDirectory.appendingPathComponent(name).path
    }

    /// An empty config and state home for every player the tests start (the tests' own
    /// environment and tmux sessions): no user's aether-tui.conf, input.conf or saved
    /// positions can change what a test sees, and a test's saved positions stay out of the
    /// others' way unless it sets its own.
    public static let isolatedHomes: (config: String, state: String) = {
        let base = NSTemporaryDirectory() + "aether-test-home-\(getpid())"
        let config = base + "/config", state = base + "/state"
        try? FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        setenv("XDG_CONFIG_HOME", config, 1)
        setenv("XDG_STATE_HOME", state, 1)
        return (config, state)
    }()

    /// The `aether-tui` binary SwiftPM built next to the test bundle.
    public static var binary: String {
        _ = isolatedHomes
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("aether-tui").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/aether-tui").path
    }

    private static let pulseReady: Bool = {
        // AETHER_PULSE_RUNTIME gives a run its own daemon (a shared one mixes other runs' sound in).
        let runtime = ProcessInfo.processInfo.environment["AETHER_PULSE_RUNTIME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp/aether-test-xdg"
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        let result = Process.run(["/usr/bin/env", "bash", scripts.appendingPathComponent("pulse-null-sink.sh").path, runtime],
                                 timeout: 60, capture: false)
        return result.status == 0
    }()

    /// Starts (once) a PulseAudio daemon with a null sink, so ALSA's `pulse`/`default` devices play
    /// in real time, and points this process at it.
    public static func requirePulse() -> Bool { pulseReady }
}

/// The whole of a file read to its end, "" when it cannot be opened: for /proc files, whose
/// size is 0 and which come a page per read (a table such as /proc/net/tcp is longer).
public func readToEnd(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
}
