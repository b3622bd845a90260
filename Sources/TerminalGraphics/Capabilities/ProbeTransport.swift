import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// The probe's connection to the terminal: send the queries, then read replies with a deadline.
/// Tests script replies with their own transport; ``FileDescriptorTransport`` talks to a tty.
public protocol ProbeTransport {
    /// Sends all of `bytes`.
    mutating func send(_ bytes: [UInt8]) throws(SystemCallError)
    /// Returns the bytes available within `timeout` (empty when none came in time).
    mutating func receive(timeout: Duration) throws(SystemCallError) -> [UInt8]
}

/// A tty: writes to `output`, reads `input` with `poll(2)`.
///
/// While it exists (from ``init(input:output:)`` to ``restore()``) the input is in
/// non-canonical, no-echo mode so replies are neither echoed to the screen nor held back
/// waiting for a newline; ``restore()`` puts back the saved `termios` exactly.
public struct FileDescriptorTransport: ProbeTransport {
    public let input: Int32
    public let output: Int32
    private var saved: termios?

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
        var attributes = termios()
        if isatty(input) == 1, tcgetattr(input, &attributes) == 0 {
            saved = attributes
            var raw = attributes
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            _ = tcsetattr(input, TCSANOW, &raw)
        }
    }

    /// Restores the terminal attributes saved at creation.
    public mutating func restore() {
        guard var attributes = saved else { return }
        _ = tcsetattr(input, TCSANOW, &attributes)
        saved = nil
    }

    public mutating func send(_ bytes: [UInt8]) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(output, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if n > 0 {
                offset += n
            } else if n < 0 && (errno == EINTR || errno == EAGAIN) {
                continue
            } else {
                throw SystemCallError(errno: n < 0 ? errno : EIO, function: "write")
            }
        }
    }

    public mutating func receive(timeout: Duration) throws(SystemCallError) -> [UInt8] {
        let ms = Int32(clamping: max(0, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        var pfd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, ms)
        if ready < 0 {
            if errno == EINTR { return [] }
            throw SystemCallError(errno: errno, function: "poll")
        }
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return [] }
            throw SystemCallError(errno: errno, function: "read")
        }
        return Array(buffer.prefix(n))
    }

    /// Cells and pixels from `TIOCGWINSZ` on `fd` (pixels are 0 when the terminal does not fill them in).
    public static func windowSize(_ fd: Int32) -> (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? {
        var ws = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row), Int(ws.ws_xpixel), Int(ws.ws_ypixel))
    }
}
