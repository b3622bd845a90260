import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What other threads hand the IPC server's thread: the host's events and command results
/// (posted from the host's thread, which must never wait on a socket) and the order to stop.
/// Posting wakes the server's `poll` through a socket pair. Thread-safe.
final class IPCMailbox: Sendable {
    enum Item: Sendable {
        case event(PlayerEvent)
        /// The host ran client `client`'s command.
        case result(client: Int, pending: IPCSession.Pending?, CommandResult)
        case stop
    }

    /// The socket pair's read end, which the server's thread polls; valid until ``close()``, which is
    /// called only after that thread has ended.
    let wakeFD: Int32

    private struct State {
        var items: [Item] = []
        /// Both ends of the socket pair belong to the mailbox; -1 once closed.
        var readFD: Int32
        var writeFD: Int32
    }
    private let state: Guarded<State>

    init() throws(IPCServerError) {
        // A socket pair rather than a pipe: created close-on-exec in one call (pipe2 is a GNU
        // extension Swift's Glibc does not declare), and a send to it never raises SIGPIPE.
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw IPCServerError("socketpair", "wake pipe", errno: errno) }
        wakeFD = fds[0]
        state = Guarded(State(readFD: fds[0], writeFD: fds[1]))
    }

    deinit { close() }

    /// Queues `item` and wakes the server (one byte waiting while anything is queued).
    /// Dropped once the mailbox is closed.
    func post(_ item: Item) {
        state.withLock { s in
            guard s.writeFD >= 0 else { return }
            s.items.append(item)
            if s.items.count == 1 {
                var byte: UInt8 = 1
                _ = send(s.writeFD, &byte, 1, Int32(MSG_NOSIGNAL))
            }
        }
    }

    /// Everything queued, oldest first; takes the wake-up byte.
    func take() -> [Item] {
        state.withLock { s in
            guard s.readFD >= 0 else { return [] }
            var sink = [UInt8](repeating: 0, count: 64)
            while read(s.readFD, &sink, sink.count) > 0 {}
            defer { s.items.removeAll() }
            return s.items
        }
    }

    /// Closes the socket pair; later posts are dropped.
    func close() {
        state.withLock { s in
            guard s.readFD >= 0 else { return }
            Glibc.close(s.readFD)
            Glibc.close(s.writeFD)
            s.readFD = -1
            s.writeFD = -1
            s.items.removeAll()
        }
    }
}
