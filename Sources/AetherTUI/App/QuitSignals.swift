import AetherBase
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT (Ctrl-\), handled off the signal context via Dispatch:
/// a host's loop polls `isRaised` and stops cleanly, restoring the terminal (the TUI and the
/// headless player share it). SIGQUIT would otherwise reach the Swift runtime's backtracer, which
/// prints inside the alternate screen and leaves the terminal raw.
public final class QuitSignals: Sendable {
    public static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    private let queue = DispatchQueue(label: "aether.tui.signals")
    /// Whether a quit signal arrived, the handlers waiting for one, and the signal sources.
    private let state = Guarded<(raised: Bool, handlers: [@Sendable () -> Void], sources: [DispatchSourceSignal])>((false, [], []))

    /// Runs `body` (on the signal queue) when a quit signal arrives, or at once if one has.
    public func onRaise(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if !s.raised { s.handlers.append(body) }
            return s.raised
        }
        if now { body() }
    }

    public init() {
        for sig in QuitSignals.signals {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            s.setEventHandler { [unowned self] in
                let run = state.withLock { s -> [@Sendable () -> Void] in
                    s.raised = true
                    defer { s.handlers = [] }
                    return s.handlers
                }
                run.forEach { $0() }
            }
            s.resume()
            state.withLock { $0.sources.append(s) }
        }
    }

    public var isRaised: Bool { state.withLock { $0.raised } }
}
