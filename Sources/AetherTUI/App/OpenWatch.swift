import AetherBase
import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Keeps the quit keys answering while the host's thread is blocked opening a source (a server
/// that drips a byte every few seconds holds `avformat_open_input` until the open deadline).
///
/// A thread reads the terminal itself for as long as the open lasts: plain key bytes go to
/// `onKey` (which submits a quit to the controller's hub, cancelling the open through the
/// interrupt callback); escape sequences (arrow keys, mouse reports, late terminal replies) are
/// skipped whole, so a `q` inside a reply is never taken for a key. Other keys pressed while a
/// source opens are dropped, as there is nothing yet for them to act on.
///
/// Before the screen is up the terminal is still in its own (canonical, echoing) mode: the
/// watch waits for the capability probe to hand the terminal back, then turns off canonical
/// input and echo (signals stay on: Ctrl-C is still SIGINT) and restores the modes when the
/// open ends. With the screen up ncurses' cbreak/noecho modes are already in force.
final class OpenWatch: Sendable {
    /// The self-pipe that ends the watch (-1 when it could not be made).
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The thread ended (or never started); the pipe was closed.
    private let state = GuardedCondition<(done: Bool, closed: Bool)>((false, false))

    /// - Parameters:
    ///   - input: the terminal's input descriptor.
    ///   - takeModes: turn off canonical input and echo while watching (the screen is not up).
    ///   - before: runs first on the watch thread (waits for the probe to release the terminal).
    ///   - onKey: a plain key byte; runs on the watch thread.
    init(input: Int32, takeModes: Bool, before: @escaping @Sendable () -> Void, onKey: @escaping @Sendable (UInt8) -> Void) {
        var wake: [Int32] = [-1, -1]
        guard SystemPipe.make(&wake) else {
            wakeRead = -1
            wakeWrite = -1
            state.withLock { $0.done = true }
            return
        }
        wakeRead = wake[0]
        wakeWrite = wake[1]
        OSThread.start(name: "aether.open-watch") { [self] in
            defer { state.update { $0.done = true } }
            var skipper = EscapeSkipper()
            before()
            var saved = termios()
            var tookModes = false
            if takeModes, isatty(input) == 1, tcgetattr(input, &saved) == 0 {
                var raw = saved
                raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
                withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                    cc[Int(VMIN)] = 1
                    cc[Int(VTIME)] = 0
                }
                tookModes = tcsetattr(input, TCSANOW, &raw) == 0
            }
            defer { if tookModes { _ = tcsetattr(input, TCSANOW, &saved) } }
            var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let n = poll(&fds, nfds_t(fds.count), -1)
                if n < 0 { if errno == EINTR { continue } else { return } }
                if fds[1].revents != 0 { return }
                guard fds[0].revents != 0 else { continue }
                let got = read(input, &buffer, buffer.count)
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                if got <= 0 {
                    // The terminal is gone or closed: wait for the open to end without it.
                    fds[0].fd = -1
                    continue
                }
                for byte in buffer[0..<got] where skipper.isKey(byte) { onKey(byte) }
            }
        }
    }

    /// Ends the watch and waits for its thread (the terminal's modes are back when it returns).
    func stop() {
        state.withLock { s in
            guard !s.closed, wakeWrite >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
        state.withLock(when: { $0.done }) { s, _ in
            guard !s.closed else { return }
            s.closed = true
            for fd in [wakeRead, wakeWrite] where fd >= 0 { close(fd) }
        }
    }
}

/// Tells key bytes from the bytes of escape sequences, across reads: CSI (`ESC [` … final byte),
/// SS3 (`ESC O` + one byte), strings (DCS, OSC, APC, PM, SOS: up to ST or BEL), and any other
/// `ESC x` pair. A string longer than ``maxString`` bytes is given up on (a lost terminator must
/// not swallow every later key).
struct EscapeSkipper {
    private enum State { case ground, escape, csi, ss3, string, stringEscape }
    private var state = State.ground
    private var length = 0
    static let maxString = 4096

    /// True when `byte` is a key of its own (printable ASCII, Ctrl-letters other than ESC).
    mutating func isKey(_ byte: UInt8) -> Bool {
        switch state {
        case .ground:
            if byte == 0x1B { state = .escape; return false }
            return byte < 0x80
        case .escape:
            switch byte {
            case UInt8(ascii: "["): state = .csi; length = 0
            case UInt8(ascii: "O"): state = .ss3
            case UInt8(ascii: "P"), UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X"):
                state = .string; length = 0
            case 0x1B: state = .escape
            default: state = .ground
            }
            return false
        case .csi:
            length += 1
            if (0x40...0x7E).contains(byte) || length > 64 { state = .ground }
            return false
        case .ss3:
            state = .ground
            return false
        case .string, .stringEscape:
            length += 1
            if byte == 0x07 || (state == .stringEscape && byte == UInt8(ascii: "\\")) || length > Self.maxString {
                state = .ground
            } else {
                state = byte == 0x1B ? .stringEscape : .string
            }
            return false
        }
    }
}
