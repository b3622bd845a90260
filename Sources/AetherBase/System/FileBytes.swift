#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// read(2), out of reach of ``FileBytes/read(path:limit:truncating:followLinks:regularOnly:)``'s name.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Files read with open(2)/read(2), under a budget: the program's one file reader (playlists,
/// config and input.conf through ``TextBudget``, watch-later entries, sidecar lyrics, ID3 heads,
/// local manifests and small documents, terminals.json, a file's head for a sniffer or a
/// scanner, `/proc` files whose size stat does not tell, a theme, a download's saved
/// segments), and the write-all loop for a descriptor (whole files are written atomically with
/// `Data.write`: the watch-later entry, the terminal memory, a PNG).
public enum FileBytes {
    /// Why a file was not read.
    public enum ReadError: Error, Equatable, Sendable {
        /// open(2), read(2) or fstat(2) failed with this `errno` (reading a directory: EISDIR;
        /// a link where links are refused: ELOOP).
        case system(Int32)
        /// Not a regular file, where only regular files are read.
        case notARegularFile
        /// Longer than the budget.
        case overLimit

        /// The reason in the system's words (strerror), or ours.
        public var reason: String {
            switch self {
            case .system(let code): String(cString: strerror(code))
            case .notARegularFile: "not a regular file"
            case .overLimit: "too large"
            }
        }
    }

    /// The bytes of the file at `path`: all of them, failing past `limit`, or (`truncating`)
    /// the first `limit`.
    /// - Parameters:
    ///   - followLinks: false refuses a link (`O_NOFOLLOW`: a file the program wrote itself,
    ///     which a link put in its place must not redirect).
    ///   - regularOnly: refuses what is not a regular file (a device, a pipe, a directory); the
    ///     open does not wait for a FIFO's writer (`O_NONBLOCK`, which a regular file ignores).
    public static func read(path: String, limit: Int, truncating: Bool = false, followLinks: Bool = true,
                            regularOnly: Bool = false) -> Result<[UInt8], ReadError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW) | (regularOnly ? O_NONBLOCK : 0))
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        if regularOnly {
            var info = stat()
            guard fstat(fd, &info) == 0 else { return .failure(.system(errno)) }
            guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notARegularFile) }
        }
        let budget = max(0, limit)
        // One byte past the budget tells a file of exactly `limit` from a longer one.
        let wanted = truncating || budget == .max ? budget : budget + 1
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(64 << 10, max(1, wanted)))
        while bytes.count < wanted {
            let room = min(chunk.count, wanted - bytes.count)
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress!, room) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        if bytes.count > budget { return .failure(.overLimit) }
        return .success(bytes)
    }

    /// Up to `limit` bytes from the start of the file at `path` (fewer at its end); nil when it
    /// cannot be opened or read.
    public static func prefix(path: String, limit: Int) -> [UInt8]? {
        try? read(path: path, limit: limit, truncating: true).get()
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
    /// All of `bytes` to a blocking `fd` (short writes and EINTR retried): a download's state
    /// files, the stats file, a child's input, standard output. (The terminal, which may not
    /// block, has ``OutputWriter``'s loop, which polls.) False when a
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
