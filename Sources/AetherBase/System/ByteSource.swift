#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Random-access bytes of a file (the inspector's parsers, a disc image's readers). Reads are
/// bounded by the caller; a short result means the end of the source (or a read error, which is
/// treated as the end).
public protocol ByteSource: AnyObject {
    /// The source's length in bytes.
    var length: Int64 { get }
    /// Up to `count` bytes at `offset` (fewer at the end; none past it or for a negative offset).
    func read(at offset: Int64, count: Int) -> [UInt8]
}

/// A file read with `pread`: nothing is read until asked, so a 2 GB file opens at once.
public final class FileByteSource: ByteSource {
    private let fd: Int32
    public let length: Int64
    /// Largest single read (callers' budgets are smaller; this is the last guard).
    static let maxRead = 16 << 20

    /// Opens a regular file (`followLinks` false: not through a symbolic link).
    public init(path: String, followLinks: Bool = true) throws(FileBytes.ReadError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw .system(errno) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .notARegularFile
        }
        self.fd = fd
        length = Int64(st.st_size)
    }

    deinit { close(fd) }

    public func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < length, count > 0 else { return [] }
        let n = Int(min(Int64(min(count, Self.maxRead)), length - offset))
        var out = [UInt8](repeating: 0, count: n)
        var done = 0
        while done < n {
            let got = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, n - done, off_t(offset) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            done += got
        }
        if done < n { out.removeSubrange(done...) }
        return out
    }
}

/// Bytes in memory (fuzzing, tests).
public final class MemoryByteSource: ByteSource {
    public let bytes: [UInt8]
    public var length: Int64 { Int64(bytes.count) }
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < length, count > 0 else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + min(count, bytes.count - start))])
    }
}
