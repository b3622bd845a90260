import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// mpv's JSON IPC (`--input-ipc-server=PATH`): a Unix socket, mode 0600, where scripts get and
/// set properties, observe them, run commands and receive events (``IPCSession`` speaks the
/// protocol). One thread of its own polls the listening socket, every client and a wake pipe;
/// it talks to the player only through the ``RemoteHub``. Clients and lines are bounded
/// (``Limits``): a client past a limit is dropped, never the server.
public final class IPCServer: Sendable {
    public struct Limits: Sendable {
        /// Clients at once; one more is closed as soon as it is accepted.
        public var clients = 32
        /// Bytes in one line; a client sending a longer one gets one `line too long` error
        /// reply and is closed. A client's unread input is bounded by this too (twice it, for
        /// the lines already sent by a client that closed while a command ran).
        public var lineBytes = 1 << 20
        /// Bytes waiting to be sent to one client; a client that reads none of its replies and
        /// events while they pile up past this is dropped.
        public var pendingOutputBytes = 4 << 20
        public init() {}
    }

    /// Where the socket is (absolute), until ``stop()`` removes it.
    public let path: String
    private let hub: RemoteHub
    private let mailbox: IPCMailbox
    private let subscription: Int
    /// The server's thread has ended.
    private let finished = GuardedCondition(false)
    private let stopped = Atomic<Bool>(false)

    /// Creates the socket at `path` (replacing a stale socket, never another kind of file) and
    /// starts serving on a new thread.
    /// `time`: what the loop's pauses, the final flush and `get_time_us` read.
    public init(path: String, hub: RemoteHub, limits: Limits = Limits(), time: TimeSource) throws(IPCServerError) {
        let mailbox = try IPCMailbox()
        let (listener, identity, absolute) = try UnixSocket.listen(at: path)
        self.path = absolute
        self.hub = hub
        self.mailbox = mailbox
        subscription = hub.subscribe { event in mailbox.post(.event(event)) }
        let done = finished
        // The thread takes the listening socket out of this box: the closure, which Foundation
        // keeps a moment after the thread ends, must not hold it open past `stop()`.
        let handOff = Guarded<OwnedDescriptor?>(listener)
        OSThread.start(name: "aether-ipc") {
            if let listener = handOff.withLock({ box in defer { box = nil }; return box }) {
                IPCLoop(listener: listener, identity: identity, path: absolute, hub: hub, mailbox: mailbox, limits: limits,
                        time: time).run()
            }   // the loop and its sockets are released here, before the thread says it has ended
            done.update { $0 = true }
        }
    }

    deinit { stop() }

    /// Sends what is already queued (a last `shutdown` event, the reply to `quit`) as far as the
    /// clients take it within a moment, closes every connection and the socket, removes the
    /// socket file, and returns once the thread has ended. Safe to call more than once.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mailbox.post(.stop)
        finished.wait(until: { $0 }, deadline: nil)
        hub.unsubscribe(subscription)
        mailbox.close()
    }
}

/// The server's thread: the one owner of the listening socket and of every client connection.
/// Made on that thread (``IPCServer/init(path:hub:limits:)`` hands it the socket) and touched by
/// it alone.
private final class IPCLoop {
    private var listener: OwnedDescriptor?
    private let identity: FileIdentity
    private let path: String
    private let hub: RemoteHub
    private let mailbox: IPCMailbox
    private let limits: IPCServer.Limits
    private var connections: [Connection] = []
    private var nextClient = 1
    private var timers = IPCTimers()
    private let time: TimeSource

    private static let readChunk = 64 * 1024

    init(listener: OwnedDescriptor, identity: FileIdentity, path: String, hub: RemoteHub, mailbox: IPCMailbox,
         limits: IPCServer.Limits, time: TimeSource) {
        self.time = time
        self.listener = listener
        self.identity = identity
        self.path = path
        self.hub = hub
        self.mailbox = mailbox
        self.limits = limits
    }

    /// One client: its socket, protocol state and buffers.
    final class Connection {
        let id: Int
        let socket: OwnedDescriptor
        var session: IPCSession
        var input: [UInt8] = []
        /// Bytes of `input` already searched for a newline.
        var scanned = 0
        var output: [UInt8] = []
        var outputStart = 0
        /// A command is with the host; further lines wait (replies keep request order).
        var waiting = false
        /// Bytes of `input` already looked at for a quit while a command waits.
        var peeked = 0
        /// The client shut its sending side: answer what it sent, then close.
        var readClosed = false
        /// Its receiving side is gone (a send failed): replies are dropped, but the lines it
        /// sent before closing still run, as in mpv.
        var writeBroken = false
        var dead = false

        init(id: Int, socket: OwnedDescriptor, time: TimeSource) {
            self.id = id
            self.socket = socket
            session = IPCSession(name: "ipc-\(id)", time: time)
        }

        var pendingOutput: Int { output.count - outputStart }
    }

    func run() {
        var running = true
        while running {
            let now = time.seconds
            let accepting = timers.accepts(now: now)
            var fds = [pollfd(fd: mailbox.wakeFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: accepting ? (listener?.fd ?? -1) : -1, events: Int16(POLLIN), revents: 0)]
            let polled = connections
            for c in polled {
                var events: Int32 = 0
                // While a command waits, read on only up to one line's budget: enough to see a
                // quit queued behind it, and the back-pressure stays.
                if !c.readClosed && (!c.waiting || c.input.count < limits.lineBytes) { events |= Int32(POLLIN) }
                if c.pendingOutput > 0 { events |= Int32(POLLOUT) }
                // A client that closed is not polled while its last commands run (its hang-up
                // would be reported again and again).
                let fd = c.readClosed && c.pendingOutput == 0 ? -1 : c.socket.fd
                fds.append(pollfd(fd: fd, events: Int16(events), revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), timers.pollTimeout(now: now))
            if n < 0 {
                if errno == EINTR { continue }
                break  // EFAULT/EINVAL/ENOMEM: nothing sensible left to wait on
            }
            if fds[0].revents != 0 {
                for item in mailbox.take() {
                    switch item {
                    case .event(let event): deliver(event)
                    case .result(let client, let pending, let result): finish(client: client, pending: pending, result)
                    case .stop: running = false
                    }
                }
            }
            for (i, c) in polled.enumerated() where !c.dead {
                let revents = Int32(fds[i + 2].revents)
                if revents & Int32(POLLIN) != 0 { receive(c) }
                if revents & Int32(POLLNVAL) != 0 { c.dead = true }
                // Hung up (or an error) while a command runs: what it sent before closing is
                // still read and run once the command is answered.
                if revents & (Int32(POLLHUP) | Int32(POLLERR)) != 0 && revents & Int32(POLLIN) == 0 {
                    if !c.readClosed {
                        drain(c)
                    } else if revents & Int32(POLLOUT) == 0 {
                        c.writeBroken = true   // both ways closed: nothing it is owed can be sent
                        c.output.removeAll()
                        c.outputStart = 0
                    }
                }
                if revents & Int32(POLLOUT) != 0 { flush(c) }
            }
            if fds[1].revents & Int16(POLLIN) != 0 { accept() }
            reap()
        }
        finalFlush()
        connections.removeAll()
        UnixSocket.remove(path, ifStill: identity)
        listener = nil
    }

    // MARK: clients

    private func accept() {
        guard let listener else { return }
        while true {
            // Blocking sockets: reads follow POLLIN and sends say MSG_DONTWAIT, so none waits.
            let fd = UnixSocket.acceptCloseOnExec(listener.fd)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: timers.pauseAccepting(now: time.seconds)
                default: break  // EAGAIN: all taken
                }
                return
            }
            let socket = OwnedDescriptor(fd)
            guard connections.count < limits.clients else { continue }  // closed as `socket` goes
            connections.append(Connection(id: nextClient, socket: socket, time: time))
            nextClient += 1
        }
    }

    private func receive(_ c: Connection) {
        var chunk = [UInt8](repeating: 0, count: Self.readChunk)
        let n = chunk.withUnsafeMutableBytes { recv(c.socket.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if n < 0 {
            if errno != EAGAIN && errno != EINTR { c.dead = true }
            return
        }
        if n == 0 {
            c.readClosed = true
        } else {
            c.input += chunk[0..<n]
        }
        if c.waiting { peekForLeave(c) }
        process(c)
    }

    /// Reads what a client that hung up had sent (within twice the line budget), without
    /// running it yet if a command of its is with the host.
    private func drain(_ c: Connection) {
        var chunk = [UInt8](repeating: 0, count: Self.readChunk)
        while !c.readClosed && !c.dead {
            let n = chunk.withUnsafeMutableBytes { recv(c.socket.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 {
                if errno == EINTR { continue }
                c.readClosed = true   // EAGAIN after a hang-up, or a reset: nothing more will come
                break
            }
            if n == 0 { c.readClosed = true; break }
            c.input += chunk[0..<n]
            if c.input.count > 2 * limits.lineBytes { refuse(c); return }
        }
        if c.waiting { peekForLeave(c) } else { process(c) }
    }

    /// A line past the budget: one error reply, and the connection closes once it is sent.
    private func refuse(_ c: Connection) {
        c.input.removeAll()
        c.scanned = 0
        c.peeked = 0
        c.readClosed = true
        shutdown(c.socket.fd, Int32(SHUT_RD))
        send(IPCSession.reply(requestID: .int(0), status: .lineTooLong), to: c)
        flush(c)
    }

    /// While a command is with the host (a `loadfile` of a stalled server can hold it for
    /// seconds), a `quit` or `stop` queued behind it must not wait: the hub is told at once,
    /// which cancels the open; the quit itself still runs in its turn, right after.
    private func peekForLeave(_ c: Connection) {
        var start = max(c.peeked, c.scanned)
        while let newline = c.input[start...].firstIndex(of: 0x0A) {
            let line = c.input[start..<newline]
            start = newline + 1
            if line.count <= limits.lineBytes, IPCSession.leaves(line: line) { hub.leaveSoon() }
        }
        c.peeked = start
    }

    /// Runs the client's complete lines until one needs the host.
    private func process(_ c: Connection) {
        var start = 0
        while !c.waiting && !c.dead {
            guard let newline = c.input[max(start, c.scanned)...].firstIndex(of: 0x0A) else {
                c.scanned = c.input.count
                // The last line of a client that stopped sending needs no newline.
                if c.readClosed && start < c.input.count {
                    guard c.input.count - start <= limits.lineBytes else { refuse(c); return }
                    run(c, line: c.input[start...])
                    start = c.input.count
                    continue
                }
                break
            }
            let line = c.input[start..<newline]
            start = newline + 1
            c.scanned = start
            guard line.count <= limits.lineBytes else { refuse(c); return }
            run(c, line: line)
        }
        if start > 0 {
            c.input.removeSubrange(0..<start)
            c.scanned -= start
            c.peeked = max(0, c.peeked - start)
        }
        // Not waiting, what is left is one unfinished line; waiting, it may hold several.
        if c.input.count > (c.waiting ? 2 : 1) * limits.lineBytes { refuse(c); return }
        flush(c)
    }

    private func run(_ c: Connection, line: ArraySlice<UInt8>) {
        let hub = self.hub
        for action in c.session.handle(line: line, snapshot: { hub.snapshot }) {
            switch action {
            case .send(let text): send(text, to: c)
            case .run(let command, let pending):
                c.waiting = true
                let mailbox = self.mailbox, id = c.id
                hub.submit(command) { result in mailbox.post(.result(client: id, pending: pending, result)) }
            }
        }
    }

    /// The host ran a client's command: answer, and go on with the lines that waited.
    private func finish(client: Int, pending: IPCSession.Pending?, _ result: CommandResult) {
        guard let c = connections.first(where: { $0.id == client && !$0.dead }) else { return }
        c.waiting = false
        if let pending { send(IPCSession.reply(to: pending, result: result), to: c) }
        process(c)
    }

    private func deliver(_ event: PlayerEvent) {
        for c in connections where !c.dead {
            for line in c.session.lines(for: event) { send(line, to: c) }
            flush(c)
        }
    }

    private func send(_ line: String, to c: Connection) {
        guard !c.dead, !c.writeBroken else { return }
        c.output += line.utf8
        c.output.append(0x0A)
        if c.pendingOutput > limits.pendingOutputBytes { c.dead = true }
    }

    /// Writes what the socket takes now.
    private func flush(_ c: Connection) {
        while !c.dead && c.pendingOutput > 0 {
            let n = c.output.withUnsafeBytes { raw in
                Glibc.send(c.socket.fd, raw.baseAddress.map { $0 + c.outputStart }, c.pendingOutput,
                           Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN {
                    // The client stopped reading (EPIPE): drop its replies, keep running what it sent.
                    c.writeBroken = true
                    c.output.removeAll()
                    c.outputStart = 0
                }
                break
            }
            c.outputStart += n
        }
        if c.outputStart == c.output.count {
            c.output.removeAll(keepingCapacity: c.output.count <= Self.readChunk)
            c.outputStart = 0
        } else if c.outputStart > Self.readChunk && c.outputStart * 2 > c.output.count {
            c.output.removeSubrange(0..<c.outputStart)
            c.outputStart = 0
        }
    }

    /// Closes dead clients, and those that stopped sending once everything is answered.
    private func reap() {
        for c in connections where c.readClosed && !c.waiting && c.input.isEmpty && c.pendingOutput == 0 { c.dead = true }
        connections.removeAll { $0.dead }
    }

    /// Lets the clients take what is queued for them, for a short while at most.
    private func finalFlush() {
        let start = time.seconds
        while true {
            let waiting = connections.filter { !$0.dead && $0.pendingOutput > 0 }
            guard !waiting.isEmpty, let left = IPCTimers.flushTimeout(start: start, now: time.seconds) else { return }
            var fds = waiting.map { pollfd(fd: $0.socket.fd, events: Int16(POLLOUT), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), left) >= 0 || errno == EINTR else { return }
            for (i, c) in waiting.enumerated() where fds[i].revents != 0 {
                if fds[i].revents & Int16(POLLOUT) != 0 { flush(c) } else { c.dead = true }
            }
        }
    }
}

/// The IPC loop's decisions by time, on the loop's clock (tested on a manual one: `IPCTimersTests`):
/// after accept ran out of descriptors it pauses accepting (the listener stays readable, so
/// polling it meanwhile would spin), and a stopping server flushes for a moment at most.
struct IPCTimers {
    static let acceptPauseSeconds = 0.1
    /// Time to deliver what is queued when stopping.
    static let finalFlushSeconds = 0.25
    private(set) var acceptPausedUntil: Double?

    /// Accept failed for want of descriptors or memory at `now`: try again a pause later.
    mutating func pauseAccepting(now: Double) { acceptPausedUntil = now + Self.acceptPauseSeconds }

    /// Whether the listener is polled at `now` (a pause that is over ends here).
    mutating func accepts(now: Double) -> Bool {
        if let until = acceptPausedUntil, now >= until { acceptPausedUntil = nil }
        return acceptPausedUntil == nil
    }

    /// `poll`'s timeout at `now`: until the pause ends (whole milliseconds, at least 1), or none (-1).
    func pollTimeout(now: Double) -> Int32 {
        acceptPausedUntil.map { Int32(clamping: max(1, Int64((($0 - now) * 1000).rounded(.up)))) } ?? -1
    }

    /// Milliseconds a final flush begun at `start` may still wait at `now` (at least 1); nil when
    /// its time is up.
    static func flushTimeout(start: Double, now: Double) -> Int32? {
        let left = start + finalFlushSeconds - now
        return left > 0 ? Int32(clamping: max(1, Int64((left * 1000).rounded(.up)))) : nil
    }
}
