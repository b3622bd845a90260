import AetherBase
import CSystemd
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The MPRIS server: `org.mpris.MediaPlayer2` and `org.mpris.MediaPlayer2.Player` on the
/// session bus, so media keys, desktop widgets and `playerctl` drive the player.
///
/// One thread ("aether-mpris") owns the bus connection from start to end: it connects, takes
/// the name, answers calls and emits signals, and nothing else touches sd-bus. The player is
/// reached only through the ``RemoteHub``: method calls queue a command and are answered when
/// the host has run it (the bus thread never waits for the host); property reads come from the
/// hub's published snapshot; property writes queue their commands and are answered at once.
/// Hub events (on the host's thread) only note what happened and wake the bus thread through
/// an eventfd, which then signals PropertiesChanged (coalesced per wake) and Seeked.
public final class MPRISServer: Sendable {
    /// The name the server owns: `org.mpris.MediaPlayer2.aether-tui`, or with `.instance<PID>`.
    public let busName: String
    private let core: MPRISCore
    private let thread: BusThread
    private let observer: Int
    private let stopped = Atomic<Bool>(false)

    /// How long a method call waits for the player's answer before it fails, on the server's clock.
    static let commandTimeout = 2.0

    /// Connects to the session bus (or to the bus at `address`) and registers. Returns nil when
    /// there is no bus to connect to (the player goes on silently without MPRIS); throws when a
    /// bus is there but registering fails. `clock`: what a method call's deadline is kept on
    /// (the host's clock).
    public static func start(hub: RemoteHub, address: String? = nil, clock: TimeSource) throws(BusError) -> MPRISServer? {
        let core = try MPRISCore(hub: hub)
        let thread = BusThread(core: core, address: address, clock: clock)
        switch thread.waitUntilStarted() {
        case .running(let name): return MPRISServer(busName: name, core: core, thread: thread)
        case .noBus: return nil
        case .failed(let error): throw error
        }
    }

    private init(busName: String, core: MPRISCore, thread: BusThread) {
        self.busName = busName
        self.core = core
        self.thread = thread
        observer = core.hub.subscribe { [core] event in core.note(event) }
        // Whatever changed between the bus thread's first look and the subscription.
        core.recheck()
    }

    /// Releases the name and closes the connection; returns once the bus thread has ended.
    /// Calls still waiting for the player are answered with an error.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        core.hub.unsubscribe(observer)
        core.requestStop()
        thread.join()
    }

    deinit { stop() }
}

/// What the host's thread and the bus thread share: the hub, the noted events and the eventfd
/// that wakes the bus thread. The eventfd is closed when the last holder lets go (the bus
/// thread has ended and the observer is gone by then).
final class MPRISCore: Sendable {
    let hub: RemoteHub
    private let wakeFD: Int32

    struct Inbox {
        /// A property other than the position changed, an item started or ended.
        var changed = false
        /// The position the player last jumped to.
        var seeked: Double?
        /// Command results for pending calls, by call number.
        var results: [(call: UInt64, result: CommandResult)] = []
        var stopping = false
        /// The eventfd holds a wake-up the bus thread has not taken yet.
        var woken = false
    }
    private let inbox = Guarded(Inbox())

    /// Properties that change on every tick while playing (MPRIS never signals the position).
    private static let tickProperties: Set<String> = ["time-pos", "playback-time", "percent-pos"]

    init(hub: RemoteHub) throws(BusError) {
        self.hub = hub
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if wakeFD < 0 { throw BusError(function: "eventfd", code: -errno) }
    }

    deinit { close(wakeFD) }

    /// A hub event (host's thread).
    func note(_ event: PlayerEvent) {
        if case .propertyChanged(let name, _) = event, Self.tickProperties.contains(name) { return }
        post { inbox in
            inbox.changed = true
            if case .seeked(let position) = event { inbox.seeked = position }
        }
    }

    /// A command's result for pending call `call` (host's thread, or any thread that fails it).
    func deliver(_ result: CommandResult, to call: UInt64) {
        post { $0.results.append((call, result)) }
    }

    func requestStop() { post { $0.stopping = true } }

    /// Has the bus thread compare the snapshot with what it last signalled.
    func recheck() { post { $0.changed = true } }

    private func post(_ change: (inout Inbox) -> Void) {
        let wake = inbox.withLock { inbox in
            change(&inbox)
            defer { inbox.woken = true }
            return !inbox.woken
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// The fd the bus thread polls.
    var fd: Int32 { wakeFD }

    /// Everything noted since the last call (bus thread).
    func take() -> Inbox {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        return inbox.withLock { inbox in
            defer { inbox = Inbox(stopping: inbox.stopping) }
            return inbox
        }
    }
}

/// The bus thread and how it started. `join()` returns once it has freed the connection.
final class BusThread: Sendable {
    enum Start: Sendable {
        case running(String)
        case noBus
        case failed(BusError)
    }
    /// How it started (nil until it has), and whether the thread has ended.
    private let state = GuardedCondition<(started: Start?, finished: Bool)>((nil, false))

    init(core: MPRISCore, address: String?, clock: TimeSource) {
        OSThread.start(name: "aether-mpris") { [self] in
            run(core: core, address: address, clock: clock)
            state.update { $0.finished = true }
        }
    }

    func waitUntilStarted() -> Start {
        state.withLock(when: { $0.started != nil }) { s, _ in s.started } ?? .noBus
    }

    func join() {
        state.wait(until: { $0.finished }, deadline: nil)
    }

    private func report(_ start: Start) {
        state.update { $0.started = start }
    }

    private func run(core: MPRISCore, address: String?, clock: TimeSource) {
        let server: MPRISBus
        do {
            server = try MPRISBus(core: core, address: address, clock: clock)
        } catch {
            switch error {
            case .noBus: report(.noBus)
            case .failed(let error): report(.failed(error))
            }
            return
        }
        report(.running(server.name))
        server.run()
    }
}

/// The bus thread's side: the connection, the object's handlers and the calls waiting for the
/// player. Lives and dies on the bus thread.
final class MPRISBus {
    let core: MPRISCore
    /// What the calls' deadlines are kept on.
    private let clock: TimeSource
    /// Set to nil (freeing the connection) before `handlers` is freed.
    private var connection: BusConnection?
    private let bus: OpaquePointer
    private let handlers: UnsafeMutablePointer<aether_mpris_handlers>
    private(set) var name = ""

    /// Method calls waiting for the player's answer (each message referenced once, released
    /// when answered).
    private var pending: [UInt64: PendingCall] = [:]
    private var nextCall: UInt64 = 1
    /// The snapshot the last PropertiesChanged described.
    private var signalled: PlayerSnapshot
    /// While emitting PropertiesChanged: the snapshot the getters read, so the signal carries
    /// the values the comparison saw.
    private var pinned: PlayerSnapshot?

    enum StartError: Error {
        /// No bus to talk to (none running, no address, nothing listening): MPRIS is off.
        case noBus
        case failed(BusError)
    }

    /// Connects, adds the object and takes the name (the plain one, else the instance one).
    init(core: MPRISCore, address: String?, clock: TimeSource) throws(StartError) {
        // The connection has no other owner: freeing it in deinit is what frees the bus.
        do { connection = try BusConnection(address: address) } catch { throw .noBus }
        self.core = core
        self.clock = clock
        bus = connection!.bus
        signalled = core.hub.snapshot
        handlers = .allocate(capacity: 1)
        handlers.initialize(to: aether_mpris_handlers(context: nil, method: methodThunk, get: getThunk, set: setThunk))
        handlers.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        do {
            try busCall("sd_bus_add_object_vtable", aether_mpris_add_object(bus, handlers))
            do {
                try requestName(MPRIS.busName)
                name = MPRIS.busName
            } catch where error.code == -EEXIST {
                let instance = MPRIS.instanceBusName(pid: getpid())
                try requestName(instance)
                name = instance
            }
        } catch {
            throw .failed(error)
        }
    }

    deinit {
        connection = nil
        handlers.deinitialize(count: 1)
        handlers.deallocate()
    }

    /// `sd_bus_request_name` without queueing: throws `-EEXIST` when another owner has it.
    private func requestName(_ name: String) throws(BusError) {
        try busCall("sd_bus_request_name", name.withCString { sd_bus_request_name(bus, $0, 0) })
    }

    /// Answers calls and sends signals until stopped or the bus goes away.
    func run() {
        var stopping = false
        while !stopping {
            var r: Int32 = 1
            while r > 0 { r = sd_bus_process(bus, nil) }
            if r < 0 { break }  // the connection is gone (the bus daemon left)
            let inbox = core.take()
            stopping = inbox.stopping
            for (call, result) in inbox.results { answer(call, result) }
            if inbox.changed { signalChanges(seeked: inbox.seeked) }
            expireCalls()
            if !stopping { waitForWork() }
        }
        for (call, _) in pending { answer(call, .failure("the player is leaving")) }
    }

    /// Polls the bus and the wake fd until either has work, a bus timeout or a call's deadline.
    private func waitForWork() {
        var timeoutMS: Int32 = -1
        var busTimeout: UInt64 = 0
        if sd_bus_get_timeout(bus, &busTimeout) >= 0, busTimeout != UInt64.max {
            timeoutMS = SystemDeadline(microseconds: busTimeout).millisecondsLeft
        }
        if let deadline = pending.values.map(\.deadline).min() {
            // Whole milliseconds, rounded up; 0 once it has passed.
            let ms = Int32(clamping: Int64((max(0, deadline - clock.seconds) * 1000).rounded(.up)))
            timeoutMS = timeoutMS < 0 ? ms : min(timeoutMS, ms)
        }
        var fds = [
            pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: max(0, sd_bus_get_events(bus))), revents: 0),
            pollfd(fd: core.fd, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&fds, 2, timeoutMS)
    }

    // MARK: signals

    private func signalChanges(seeked: Double?) {
        let now = core.hub.snapshot
        let changed = MPRIS.changedProperties(from: signalled, to: now)
        signalled = now
        if !changed.isEmpty {
            pinned = now
            defer { pinned = nil }
            var names = changed.map { strdup($0) } + [nil]
            defer { names.forEach { free($0) } }
            _ = sd_bus_emit_properties_changed_strv(bus, AETHER_MPRIS_PATH, AETHER_MPRIS_PLAYER_INTERFACE, &names)
        }
        if let seeked { _ = aether_mpris_emit_seeked(bus, MPRIS.microseconds(seeked)) }
    }

    // MARK: calls

    fileprivate func method(_ call: OpaquePointer, interface: String, member: String) -> Int32 {
        let reader = BusReader(message: call)
        let method: MPRIS.Method
        do throws(BusError) {
            switch (interface, member) {
            case (AETHER_MPRIS_ROOT_INTERFACE, "Raise"): method = .raise
            case (AETHER_MPRIS_ROOT_INTERFACE, "Quit"): method = .quit
            case (_, "PlayPause"): method = .playPause
            case (_, "Play"): method = .play
            case (_, "Pause"): method = .pause
            case (_, "Stop"): method = .stop
            case (_, "Next"): method = .next
            case (_, "Previous"): method = .previous
            case (_, "Seek"): method = .seek(try reader.int64())
            case (_, "SetPosition"): method = .setPosition(trackID: try reader.text("o"), try reader.int64())
            case (_, "OpenUri"): method = .openURI(try reader.text())
            default: return -EOPNOTSUPP  // the vtables name no other method
            }
        } catch {
            return error.code
        }
        switch MPRIS.outcome(of: method, core.hub.snapshot) {
        case .ignore:
            return aether_mpris_reply_empty(call) < 0 ? -EIO : 1
        case .fail(let failure):
            return aether_mpris_reply_error(call, failure.name, failure.message) < 0 ? -EIO : 1
        case .run(let command) where method == .quit:
            // The player may be gone before it could answer: say yes first.
            _ = aether_mpris_reply_empty(call)
            core.hub.submit(command)
            return 1
        case .run(let command):
            let id = nextCall
            nextCall += 1
            pending[id] = PendingCall(retaining: call, deadline: clock.seconds + MPRISServer.commandTimeout)
            core.hub.submit(command) { [core] result in core.deliver(result, to: id) }
            return 1
        }
    }

    private func answer(_ call: UInt64, _ result: CommandResult) {
        guard let waiting = pending.removeValue(forKey: call) else { return }  // already timed out
        switch result {
        case .success: _ = aether_mpris_reply_empty(waiting.message)
        case .failure(let message): _ = aether_mpris_reply_error(waiting.message, MPRIS.ErrorName.failed, MPRIS.busText(message))
        }
    }

    private func expireCalls() {
        let now = clock.seconds
        for (call, waiting) in pending where now >= waiting.deadline {
            answer(call, .failure("the player did not answer"))
        }
    }

    // MARK: properties

    fileprivate func get(_ reply: OpaquePointer, interface: String, property: String) -> Int32 {
        let value = interface == AETHER_MPRIS_ROOT_INTERFACE
            ? MPRIS.rootProperty(property)
            : MPRIS.playerProperty(property, pinned ?? core.hub.snapshot)
        guard let value else { return -ENOENT }
        return BusWriter(message: reply).append(value)
    }

    fileprivate func set(_ message: OpaquePointer, property: String, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let reader = BusReader(message: message)
        let value: BusValue
        do throws(BusError) {
            switch property {
            case "LoopStatus": value = .string(try reader.text())
            case "Shuffle": value = .bool(try reader.bool())
            default: value = .double(try reader.double())
            }
        } catch {
            return error.code
        }
        switch MPRIS.commands(setting: property, to: value, core.hub.snapshot) {
        case .success(let commands):
            // Answered at once (sd-bus replies when the setter returns); the new value shows in
            // the snapshot within a tick.
            for command in commands { core.hub.submit(command) }
            return 1
        case .failure(let failure):
            return sd_bus_error_set(error, failure.name, failure.message)
        }
    }
}

/// A method call waiting for the player: one reference on the message, released once.
private final class PendingCall {
    let message: OpaquePointer
    /// When it fails unanswered, in the server's clock's seconds.
    let deadline: Double

    init(retaining message: OpaquePointer, deadline: Double) {
        self.message = sd_bus_message_ref(message)
        self.deadline = deadline
    }

    deinit { sd_bus_message_unref(message) }
}

// The vtables' entry points (C function pointers: no captures; the context is the MPRISBus,
// which outlives the connection's objects).

private let methodThunk: aether_mpris_method_fn = { context, call, interface, member, _ in
    guard let context, let call, let member else { return -EINVAL }
    let server = Unmanaged<MPRISBus>.fromOpaque(context).takeUnretainedValue()
    return server.method(call, interface: interface.map { String(cString: $0) } ?? "", member: String(cString: member))
}

private let getThunk: aether_mpris_get_fn = { context, interface, property, reply, _ in
    guard let context, let interface, let property, let reply else { return -EINVAL }
    let server = Unmanaged<MPRISBus>.fromOpaque(context).takeUnretainedValue()
    return server.get(reply, interface: String(cString: interface), property: String(cString: property))
}

private let setThunk: aether_mpris_set_fn = { context, _, property, value, error in
    guard let context, let property, let value else { return -EINVAL }
    let server = Unmanaged<MPRISBus>.fromOpaque(context).takeUnretainedValue()
    return server.set(value, property: String(cString: property), error: error)
}
