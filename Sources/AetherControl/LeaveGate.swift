import AetherBase

/// A command that leaves (a quit), queued from any thread while an item opens: it cancels the
/// open at once (through the interrupter) rather than wait behind it, and for ``grace`` after
/// it was announced the failed open's state does not count: the quit decides how the walk ends.
/// Thread-safe.
final class LeaveGate: Sendable {
    /// An open is in progress, and when a command that leaves was announced.
    private let state = Guarded<(opening: Bool, leave: Double?)>((false, nil))
    private let interrupter: LoadInterrupter
    private let clock: TimeSource

    /// How long an announced quit (seen behind a slow IPC command) is waited for before the
    /// item's state counts again.
    static let grace = 2.0

    init(interrupter: LoadInterrupter, clock: TimeSource) {
        self.interrupter = interrupter
        self.clock = clock
    }

    /// A command that leaves was queued: an open in progress is cancelled.
    func leaveAnnounced() {
        let opening = state.withLock { s in
            s.leave = s.leave ?? clock.seconds
            return s.opening
        }
        if opening { interrupter.raise() }
    }

    /// An open begins (cancelled from the start when a leave was announced already).
    func openBegins() {
        let leaving = state.withLock { s in
            s.opening = true
            return s.leave != nil
        }
        if leaving { interrupter.raise() }
    }

    /// The open (and what followed it) is over.
    func openEnded() {
        state.withLock { $0.opening = false }
    }

    /// A leave was announced less than ``grace`` ago: its command is on its way.
    var leaving: Bool {
        guard let announced = state.withLock({ $0.leave }) else { return false }
        return clock.seconds - announced < Self.grace
    }
}
