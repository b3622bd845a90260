import AetherBase
import CTerminal
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The UI loop's wake-up: a non-blocking self-pipe the loop polls beside the terminal's input.
/// Anything that changes what the screen should show signals it from its own thread: the
/// engine's state (``AetherEngine/ChangeNotifier``), remote commands, the render thread's
/// governor, thumbnails and screenshots that arrived, signals. Writing one byte is all a
/// signal does (safe from any thread, never blocks: a full pipe already means "wake up").
final class WakeUp: Sendable {
    /// The pipe's read and write ends (set in init, closed in deinit).
    private let fds: [Int32]

    init() {
        // Close-on-exec, the read end non-blocking (CTerminal), then the write end too.
        var pair: [Int32] = [-1, -1]
        if aether_terminal_capture_pipe(&pair, 4096) != 0 {
            pair = [-1, -1]
        } else {
            _ = fcntl(pair[1], F_SETFL, fcntl(pair[1], F_GETFL) | O_NONBLOCK)
        }
        fds = pair
    }

    deinit {
        for fd in fds where fd >= 0 { close(fd) }
    }

    /// The fd to poll for reading.
    var fd: Int32 { fds[0] }

    func signal() {
        guard fds[1] >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(fds[1], &byte, 1)
    }

    /// Empties the pipe (after a wake).
    func drain() {
        guard fds[0] >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(fds[0], $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// A value posted from background work for the UI thread, with a wake-up.
final class MessageBox: Sendable {
    private let messages = Guarded<[String]>([])
    private let wake = Guarded<WakeUp?>(nil)
    func wakes(_ w: WakeUp) { wake.withLock { $0 = w } }
    func post(_ message: String) {
        messages.withLock { $0.append(message) }
        wake.withLock { $0 }?.signal()
    }
    func take() -> [String] { messages.withLock { m in defer { m.removeAll() }; return m } }
}
