#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard output and error by write(2), whole (short writes and EINTR retried). A reader that
/// went away (`| head`) ends the program as it ends `cat` (SIGPIPE), not with a Swift trap.
public enum StandardStream {
    public static func write(_ text: String, to fd: Int32 = STDOUT_FILENO) { FileBytes.writeAll(Array(text.utf8), to: fd) }

    public static func error(_ text: String) { write(text, to: STDERR_FILENO) }
}

/// The running program's own file.
public enum ExecutablePath {
    /// `/proc/self/exe`'s target (links resolved, as the kernel started it); nil where /proc is missing.
    public static var current: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
