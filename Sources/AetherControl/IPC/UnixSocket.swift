import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Why the IPC socket could not be set up: the failing call and the system's words for it.
public struct IPCServerError: Error, Equatable, CustomStringConvertible {
    public let description: String

    init(_ message: String) { description = message }

    /// `strerror(code)` after `call`'s name, for `path`.
    init(_ call: String, _ path: String, errno code: Int32) {
        description = "\(path): \(String(cString: strerror(code))) (\(call))"
    }
}

/// A file descriptor with exactly one owner, closed when the owner lets it go.
final class OwnedDescriptor: Sendable {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }
    deinit { close(fd) }
}

/// A socket file's identity, so stopping removes the socket only while it is still ours.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    /// The identity of whatever is at `path` (not following a symlink), nil if nothing is.
    static func of(_ path: String) -> (FileIdentity, isSocket: Bool)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (FileIdentity(st), (st.st_mode & S_IFMT) == S_IFSOCK)
    }
}

enum UnixSocket {
    /// Room for a path in `sockaddr_un` (its NUL included).
    static let pathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// A listening Unix stream socket at `path`, mode 0600 from the moment it has a name.
    ///
    /// The socket is bound inside a fresh private directory (mode 0700, `mkdtemp`) beside
    /// `path`, so nobody else can reach it while it is set up; it is made 0600 there (Linux also
    /// gives a bound socket the mode set on its descriptor with `fchmod` before `bind`, minus the
    /// umask — done as well), then moved to `path` by a rename, which replaces a stale socket in
    /// one step. Something at `path` that is not a socket is never replaced. The descriptor is
    /// non-blocking and close-on-exec.
    /// Returns the socket, its identity, and `given` made absolute (where it was put).
    static func listen(at given: String, backlog: Int32 = 16) throws(IPCServerError)
        -> (OwnedDescriptor, FileIdentity, path: String) {
        guard !given.isEmpty else { throw IPCServerError("an empty path") }
        // A client connects by this path, so it must fit in sun_path itself.
        guard given.utf8.count < pathCapacity else {
            throw IPCServerError("\(given): too long for a Unix socket (\(given.utf8.count) bytes, at most \(pathCapacity - 1))")
        }
        // Absolute from here on, so removing it later does not depend on the working directory.
        let path = given.hasPrefix("/") ? given : FileManager.default.currentDirectoryPath + "/" + given
        let replacing: Bool
        if let existing = FileIdentity.of(path) {
            guard existing.isSocket else { throw IPCServerError("\(path): exists and is not a socket; not replacing it") }
            replacing = true
        } else {
            guard errno == ENOENT else { throw IPCServerError("lstat", path, errno: errno) }
            replacing = false
        }

        let directory = Paths.deletingLastComponent(path)
        var template = Array((directory + "/.aether-ipc-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw IPCServerError("mkdtemp", directory, errno: errno) }
        let privateDirectory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let staged = privateDirectory + "/socket"
        defer {
            unlink(staged)  // still there only when something failed
            rmdir(privateDirectory)
        }

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw IPCServerError("socket", path, errno: errno) }
        let socket = OwnedDescriptor(fd)
        guard fchmod(fd, 0o600) == 0 else { throw IPCServerError("fchmod", path, errno: errno) }

        // Bind by the staged path, or, when the private directory's name makes it too long for
        // sun_path, through /proc's link to the open directory.
        let directoryFD = open(privateDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw IPCServerError("open", privateDirectory, errno: errno) }
        let directoryHandle = OwnedDescriptor(directoryFD)
        let bindPath = staged.utf8.count < pathCapacity ? staged : "/proc/self/fd/\(directoryHandle.fd)/socket"
        guard bindPath.utf8.count < pathCapacity else { throw IPCServerError("\(path): the private directory's path is too long") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bindPath.utf8)
            raw[bindPath.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw IPCServerError("bind", path, errno: errno) }
        guard fchmodat(directoryHandle.fd, "socket", 0o600, 0) == 0 else { throw IPCServerError("chmod", path, errno: errno) }
        guard Glibc.listen(fd, backlog) == 0 else { throw IPCServerError("listen", path, errno: errno) }

        // Into place: rename over a stale socket; link (which fails rather than replace) when
        // nothing was there, so a file that appeared meanwhile is not clobbered.
        if replacing {
            guard renameat(directoryHandle.fd, "socket", AT_FDCWD, path) == 0 else { throw IPCServerError("rename", path, errno: errno) }
        } else {
            guard linkat(directoryHandle.fd, "socket", AT_FDCWD, path, 0) == 0 else { throw IPCServerError("link", path, errno: errno) }
        }
        guard let placed = FileIdentity.of(path), placed.isSocket else {
            throw IPCServerError("\(path): the socket vanished while it was set up")
        }
        let identity = placed.0
        return (socket, identity, path)
    }

    /// `accept4(2)` with `SOCK_CLOEXEC`: a connection must never leak into a child another
    /// thread spawns between `accept` and `fcntl`. Swift's Glibc does not declare accept4 (a GNU
    /// extension), so it is looked up in the C library once.
    static func acceptCloseOnExec(_ listener: Int32) -> Int32 {
        guard let accept4 = accept4Function else {
            let fd = accept(listener, nil, nil)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fd
        }
        return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
    }

    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private static let accept4Function: Accept4? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "accept4") else { return nil }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    /// Removes the socket at `path` if it is still the one `identity` names (another player may
    /// have taken the path over since).
    static func remove(_ path: String, ifStill identity: FileIdentity) {
        guard let current = FileIdentity.of(path), current.0 == identity else { return }
        unlink(path)
    }
}
