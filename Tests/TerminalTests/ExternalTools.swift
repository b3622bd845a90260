import AetherTestSupport
import EndToEndSupport
import Foundation

/// Runs Debian tools the real-terminal tests use (sixel2png, ffmpeg, Xvfb, xterm, xwd).
///
/// Skipping rule: a test that needs a missing tool is skipped on a developer machine, but in CI
/// (`CI` set) a missing tool is a failure, so CI can never pass without running it.
enum ExternalTools {
    static var isCI: Bool {
        let v = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
        return !v.isEmpty && v != "0" && v != "false"
    }

    static func path(_ name: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for dir in dirs + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func available(_ names: [String]) -> Bool { names.allSatisfy { path($0) != nil } }

    /// Whether a test needing `names` should run: when they are installed, and always in CI.
    static func shouldRun(_ names: [String]) -> Bool { available(names) || isCI }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `tool` to completion with `input` on stdin; returns stdout.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], input: [UInt8] = [], timeout: TimeInterval = 30) throws -> [UInt8] {
        guard let executable = path(tool) else {
            throw Failure(description: "\(tool) is not installed (apt-get install the packages listed in Tests/Scripts/test-packages.txt)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let input = Data(input)
        let stdinHandle = stdin.fileHandleForWriting
        let writer = Thread {
            stdinHandle.write(input)
            try? stdinHandle.close()
        }
        writer.start()
        nonisolated(unsafe) let watched = process
        let watchdog = DispatchWorkItem { if watched.isRunning { watched.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        if process.terminationReason == .uncaughtSignal {
            throw Failure(description: "\(tool) was killed (timeout \(timeout) s)")
        }
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) exited \(process.terminationStatus): \(err)")
        }
        return [UInt8](output)
    }

    /// Starts a long-running process (Xvfb, xterm); the caller terminates it.
    static func start(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        guard let executable = path(tool) else { throw Failure(description: "\(tool) is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Stops a process started with ``start(_:_:environment:)``: SIGTERM, then SIGKILL after
    /// two seconds (Xvfb and xterm may ignore SIGTERM when started from a test runner).
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        _ = waitUntil(2, interval: 0.02) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Decodes any image file ffmpeg reads (PNG, XWD) into RGB24; returns bytes, width, height.
    static func decodeImage(at path: String) throws -> (pixels: [UInt8], width: Int, height: Int) {
        let probe = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                        "-of", "csv=p=0", path])
        let dims = String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: ",").compactMap { Int($0) }
        guard dims.count == 2 else { throw Failure(description: "ffprobe could not size \(path)") }
        let pixels = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard pixels.count == dims[0] * dims[1] * 3 else { throw Failure(description: "short decode of \(path)") }
        return (pixels, dims[0], dims[1])
    }

    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "aether-tg-\(ProcessInfo.processInfo.processIdentifier)-\(name)"
    }
}
