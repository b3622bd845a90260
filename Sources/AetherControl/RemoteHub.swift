import AetherBase
import AetherCommands
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What a command came to.
public enum CommandResult: Sendable, Equatable {
    case success(PropertyValue)
    case failure(String)

    public static let ok = CommandResult.success(.none)
}

/// What remote front ends observe.
public enum PlayerEvent: Sendable, Equatable {
    /// A property's value changed (found by comparing the host's snapshots; `time-pos` changes
    /// on every tick while playing).
    case propertyChanged(name: String, value: PropertyValue)
    /// The position jumped (a seek, a chapter, a new item), to `position` seconds.
    case seeked(position: Double)
    /// A new playlist item is loaded and playing (or paused).
    case fileLoaded
    /// The item's metadata changed while it played (a radio station's title: mpv's `metadata-update`).
    case metadataUpdate
    /// The item ended: `eof`, `stop`, `quit` or `error` (mpv's reasons).
    case endFile(reason: String)
    /// The player is leaving.
    case shutdown
}

/// The meeting point of the host (the TUI's or the headless player's loop, which owns the
/// ``PlayerController``) and remote front ends on their own threads (the JSON IPC socket,
/// MPRIS). Remote threads never touch the player: they queue commands here, which the host runs
/// on its own thread on its next tick (at once for a host woken by ``onRequest(_:)``, else within
/// its tick of about 30 ms), and they read the snapshot the host publishes each tick. Thread-safe.
public final class RemoteHub: Sendable {
    /// A queued command and where its result goes.
    public struct Request: Sendable {
        public let command: PlayerCommand
        public let reply: @Sendable (CommandResult) -> Void
    }

    private struct State {
        var inbox: [Request] = []
        var snapshot = PlayerSnapshot()
        var published = false
        var observers: [Int: @Sendable (PlayerEvent) -> Void] = [:]
        var nextObserver = 1
        var closed = false
        var onLeave: (@Sendable () -> Void)?
        var onRequest: (@Sendable () -> Void)?
    }
    private let state = Guarded(State())

    /// Runs `handler` on the submitting thread whenever a command that leaves the player
    /// (`quit`, `quit-watch-later`, `stop`) is queued: an item may be opening for seconds on its
    /// thread (``OpenJob``), and leaving must not wait for that (the controller cancels the open).
    public func onLeave(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onLeave = handler }
    }

    /// Runs `handler` on the submitting thread after every command is queued: a host that waits
    /// for work (rather than ticking) wakes up to run it.
    public func onRequest(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onRequest = handler }
    }

    public init() {}

    // MARK: remote side

    /// Queues `command`; `reply` runs on the host's thread once it has been carried out (or at
    /// once with a failure when the player is leaving).
    public func submit(_ command: PlayerCommand, reply: @escaping @Sendable (CommandResult) -> Void = { _ in }) {
        let (accepted, leave, wake) = state.withLock { s -> (Bool, (@Sendable () -> Void)?, (@Sendable () -> Void)?) in
            guard !s.closed else { return (false, nil, nil) }
            s.inbox.append(Request(command: command, reply: reply))
            return (true, command.leavesThePlayer ? s.onLeave : nil, s.onRequest)
        }
        if !accepted { reply(.failure("the player is shutting down")) }
        leave?()
        wake?()
    }

    /// A command that leaves the player is on its way (queued behind a slow one): runs the
    /// ``onLeave(_:)`` handler now.
    public func leaveSoon() {
        state.withLock { $0.onLeave }?()
    }

    /// Queues `command` and waits up to `timeout` seconds for its result (for threads that must
    /// answer synchronously, like a D-Bus method handler).
    public func submitAndWait(_ command: PlayerCommand, timeout: Double = 2) -> CommandResult {
        let box = GuardedCondition<CommandResult?>(nil)
        submit(command) { result in box.update { $0 = result } }
        return box.withLock(when: { $0 != nil }, timeout: timeout) { result, _ in result }
            ?? .failure("the player did not answer")
    }

    /// The latest snapshot the host published.
    public var snapshot: PlayerSnapshot { state.withLock { $0.snapshot } }

    /// Calls `handler` for every event from now on, on the host's thread: hand the work to your
    /// own thread rather than block there. Returns a token for ``unsubscribe(_:)``.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (PlayerEvent) -> Void) -> Int {
        state.withLock { s in
            let id = s.nextObserver
            s.nextObserver += 1
            s.observers[id] = handler
            return id
        }
    }

    /// Someone follows the events (an IPC client, MPRIS): the host publishes the moving position
    /// often; with nobody following, only when something else is due.
    public var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    public func unsubscribe(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    // MARK: host side

    /// Takes the queued requests (the host runs each and calls its `reply`).
    public func takeRequests() -> [Request] {
        state.withLock { s in
            defer { s.inbox.removeAll() }
            return s.inbox
        }
    }

    /// Publishes the host's view of the player; observers get a `propertyChanged` for every
    /// property whose value differs from the last snapshot.
    public func publish(_ snapshot: PlayerSnapshot) {
        let (old, first, observers) = state.withLock { s in
            defer { s.snapshot = snapshot; s.published = true }
            return (s.snapshot, !s.published, Array(s.observers.values))
        }
        guard !observers.isEmpty, old != snapshot || first else { return }
        if !first, old.item.path == snapshot.item.path, !old.item.metadata.isEmpty, old.item.metadata != snapshot.item.metadata {
            for o in observers { o(.metadataUpdate) }
        }
        for name in PlayerSnapshot.propertyNames {
            guard let value = snapshot.property(name) else { continue }
            if !first, old.property(name) == value { continue }
            for o in observers { o(.propertyChanged(name: name, value: value)) }
        }
    }

    /// Sends `event` to every observer.
    public func emit(_ event: PlayerEvent) {
        let observers = state.withLock { Array($0.observers.values) }
        for o in observers { o(event) }
    }

    /// The player is leaving: queued commands fail, later ones are refused, and observers get
    /// `shutdown`.
    public func close() {
        let (pending, observers) = state.withLock { s in
            defer { s.inbox.removeAll(); s.closed = true }
            return (s.inbox, Array(s.observers.values))
        }
        for r in pending { r.reply(.failure("the player is shutting down")) }
        for o in observers { o(.shutdown) }
    }
}
