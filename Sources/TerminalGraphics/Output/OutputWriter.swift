import AetherBase
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The only writer to the terminal: one buffer per frame, one `write(2)` loop that drains it.
///
/// Retries `EINTR`, waits with `poll` on `EAGAIN` (a non-blocking tty), and counts bytes and
/// the time spent inside `write`. Frames are bracketed with synchronized update
/// (`CSI ?2026h … l`) when the terminal supports it, so it never shows half a frame.
///
/// Not thread-safe: owned by the present/render thread.
public final class OutputWriter {
    /// Statistics since creation (habit 11: count what you skip, time each phase).
    public struct Statistics: Sendable, Equatable {
        public var frames = 0
        public var bytesWritten = 0
        public var writeCalls = 0
        /// Times `write` returned EAGAIN and the writer had to wait for the terminal.
        public var stalls = 0
    }

    public let fileDescriptor: Int32
    public var synchronizedUpdate: Bool
    public private(set) var statistics = Statistics()
    /// The frame being composed; renderers append into it between ``beginFrame()`` and ``endFrame()``.
    public let frame = ByteBuffer(capacity: 256 * 1024)

    /// - Parameters:
    ///   - fileDescriptor: the terminal (not closed by the writer; its owner closes it).
    ///   - synchronizedUpdate: bracket frames with `CSI ?2026h/l` (``TerminalCapabilities/synchronizedOutput``).
    public init(fileDescriptor: Int32, synchronizedUpdate: Bool) {
        self.fileDescriptor = fileDescriptor
        self.synchronizedUpdate = synchronizedUpdate
    }

    /// Starts a frame: clears ``frame`` and opens the synchronized-update bracket.
    public func beginFrame() {
        frame.removeAll()
        if synchronizedUpdate { frame.append(Escape.beginSynchronizedUpdate) }
    }

    /// Closes the bracket and writes the whole frame. Returns the bytes written.
    @discardableResult
    public func endFrame() throws(SystemCallError) -> Int {
        if synchronizedUpdate { frame.append(Escape.endSynchronizedUpdate) }
        let n = try write(frame)
        statistics.frames += 1
        frame.removeAll()
        return n
    }

    /// Writes `buffer` completely (outside the frame protocol, e.g. a terminal reset).
    @discardableResult
    public func write(_ buffer: ByteBuffer) throws(SystemCallError) -> Int {
        let outcome = buffer.withUnsafeBytes { Self.writeFully($0, to: fileDescriptor, pollMilliseconds: 1000) }
        statistics.writeCalls += outcome.writeCalls
        statistics.bytesWritten += outcome.written
        statistics.stalls += outcome.stalls
        if let error = outcome.error { throw error }
        return outcome.written
    }

    /// What ``writeFully(_:to:pollMilliseconds:abandon:)`` did.
    public struct WriteOutcome: Sendable, Equatable {
        public var written = 0
        public var writeCalls = 0
        /// Times `write` returned EAGAIN and the caller waited for the terminal.
        public var stalls = 0
        /// The failing call (`write`, `poll`), if one failed.
        public var error: SystemCallError?
        /// `abandon` said to stop before everything was written.
        public var abandoned = false
    }

    /// Writes all of `raw` to `fd`: retries `EINTR`, waits with `poll` (up to
    /// `pollMilliseconds` at a time) on `EAGAIN` from a non-blocking terminal, and stops early
    /// when `abandon` says so (asked before every `write`). The terminal's write loop (a
    /// blocking descriptor's is `FileBytes.writeAll`).
    public static func writeFully(_ raw: UnsafeRawBufferPointer, to fd: Int32, pollMilliseconds: Int32,
                                  abandon: () -> Bool = { false }) -> WriteOutcome {
        var outcome = WriteOutcome()
        guard let base = raw.baseAddress else { return outcome }
        while outcome.written < raw.count {
            if abandon() { outcome.abandoned = true; return outcome }
            outcome.writeCalls += 1
            let n = Glibc.write(fd, base + outcome.written, raw.count - outcome.written)
            if n > 0 {
                outcome.written += n
                continue
            }
            let err = n < 0 ? errno : EIO
            switch err {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                outcome.stalls += 1
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&pfd, 1, pollMilliseconds) < 0 && errno != EINTR {
                    outcome.error = SystemCallError(errno: errno, function: "poll")
                    return outcome
                }
            default:
                outcome.error = SystemCallError(errno: err, function: "write")
                return outcome
            }
        }
        return outcome
    }
}
