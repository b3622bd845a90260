#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the C function's name and `strerror` text.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public let errno: Int32
    public let function: String

    public init(errno: Int32, function: String) {
        self.errno = errno
        self.function = function
    }

    public var description: String { "\(function): \(String(cString: strerror(errno))) (errno \(errno))" }
}

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
        public var writeNanoseconds: UInt64 = 0
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
        let start = Self.monotonicNanoseconds()
        defer { statistics.writeNanoseconds &+= Self.monotonicNanoseconds() &- start }
        let result: Result<Int, SystemCallError> = buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return .success(0) }
            var offset = 0
            while offset < raw.count {
                statistics.writeCalls += 1
                let n = Glibc.write(fileDescriptor, base + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                    statistics.bytesWritten += n
                    continue
                }
                let err = n < 0 ? errno : EIO
                switch err {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    statistics.stalls += 1
                    var pfd = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
                    let p = poll(&pfd, 1, 1000)
                    if p < 0 && errno != EINTR { return .failure(SystemCallError(errno: errno, function: "poll")) }
                default:
                    return .failure(SystemCallError(errno: err, function: "write"))
                }
            }
            return .success(offset)
        }
        return try result.get()
    }

    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
