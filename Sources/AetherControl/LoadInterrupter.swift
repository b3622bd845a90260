import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Cancels the blocking open or read of whichever item is loading when the host wants out (a
/// quit signal); every load gets a fresh token (a stopped session cancels its own). Thread-safe.
public final class LoadInterrupter: Sendable {
    private let state = Guarded<(token: InterruptToken?, raised: Bool)>((nil, false))
    /// The clock the loads' tokens keep their deadlines by.
    private let clock: TimeSource
    public init(clock: TimeSource) { self.clock = clock }

    /// A token for the next load, already cancelled once ``raise()`` was called.
    func fresh() -> InterruptToken {
        let token = InterruptToken(clock: clock)
        let raised = state.withLock { s in
            s.token = token
            return s.raised
        }
        if raised { token.cancel() }
        return token
    }

    /// Cancels the current load and every later one.
    public func raise() {
        let token = state.withLock { s in
            s.raised = true
            return s.token
        }
        token?.cancel()
    }

    public var isRaised: Bool { state.withLock { $0.raised } }
}
