#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The first bytes of a file, read with open(2)/read(2): a file's head for a sniffer or a
/// scanner, `/proc` files (whose size stat does not tell).
public enum FileBytes {
    /// Up to `limit` bytes from the start of the file at `path` (fewer at its end); nil when it
    /// cannot be opened or read.
    public static func prefix(path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: max(0, limit))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            filled += n
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}

extension FileBytes {
    /// The size of what `path` names (links followed), by stat(2); nil when there is nothing
    /// there. (FileManager's attribute came back as a type `as? Int` no longer took once the
    /// product left Foundation: every local manifest read as an I/O error.)
    public static func size(path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}

extension FileBytes {
    /// All of `bytes` to `fd` (short writes and EINTR retried): the program's one such loop (a
    /// download's state files, the stats file, a child's input, standard output). False when a
    /// write failed (`errno` says why) or wrote nothing.
    @discardableResult
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }
}
