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

    /// Path of a generated fixture, generating the corpus first if needed.
    public static func fixture(_ name: String) -> String {
        precondition(fixturesReady, "Tests/Fixtures/make-fixtures.sh failed")
        return fixtureDirectory.appendingPathComponent(name).path
    }

    /// The `aether-tui` binary SwiftPM built next to the test bundle.
    public static var binary: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("aether-tui").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/aether-tui").path
    }

    private static let pulseReady: Bool = {
        let runtime = "/tmp/aether-test-xdg"
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        let result = Process.run(["/usr/bin/env", "bash", scripts.appendingPathComponent("pulse-null-sink.sh").path, runtime],
                                 timeout: 60)
        return result.status == 0
    }()

    /// Starts (once) a PulseAudio daemon with a null sink, so ALSA's `pulse`/`default` devices play
    /// in real time, and points this process at it.
    public static func requirePulse() -> Bool { pulseReady }
}

public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let timedOut: Bool
}

extension Process {
    /// Runs `arguments` (argv[0] is the executable path), capturing output, killing it after `timeout` s.
    public static func run(_ arguments: [String], environment: [String: String]? = nil,
                           timeout: Double = 60) -> ProcessResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: arguments[0])
        p.arguments = Array(arguments.dropFirst())
        if let environment {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        let outData = DataCollector(out.fileHandleForReading)
        let errData = DataCollector(err.fileHandleForReading)
        do { try p.run() } catch {
            return ProcessResult(status: -1, stdout: "", stderr: "\(error)", timedOut: false)
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var timedOut = false
        // Poll rather than waitUntilExit(), which can miss the exit when called off the main thread.
        while p.isRunning {
            if Date() > deadline, !timedOut { timedOut = true; kill(p.processIdentifier, SIGKILL) }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return ProcessResult(status: p.terminationStatus, stdout: outData.finish(), stderr: errData.finish(),
                             timedOut: timedOut)
    }
}

/// Drains a pipe on a background thread so a chatty child never blocks on a full pipe.
final class DataCollector: @unchecked Sendable {  // `data` is only read after the reader finished
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
