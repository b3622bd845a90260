import AetherBase
import Foundation

/// One of the suite's helper servers (`Tests/Scripts/*.py`) run as a child: it prints the port
/// it listens on as its first line and ends when its standard input closes. The one way the
/// suite and `aether-bench` start one (the loopback server and fault proxy, the HTTPS server,
/// the hostile server, the delay proxy); ``stop()`` (or releasing it) ends it and waits.
public final class ScriptServer: Sendable {
    public let port: Int
    private let child: Guarded<(Process, Pipe)?>

    /// Runs `script` (a file of `Tests/Scripts`) with `arguments` and reads its port.
    public init(_ script: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", LoopbackHTTP.scripts.appendingPathComponent(script).path] + arguments
        let out = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        var text = ""
        while !text.hasSuffix("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        child = Guarded((process, input))
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            port = 0
            stop()
            throw LoopbackHTTP.Failure(description: "\(script) printed no port: \(text)")
        }
        self.port = port
    }

    deinit { stop() }

    /// Closes its standard input, kills it if it is still there, and waits for it.
    public func stop() {
        guard let (process, input) = child.withLock({ c in defer { c = nil }; return c }) else { return }
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
