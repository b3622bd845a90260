import Foundation

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT (Ctrl-\), handled off the signal context via Dispatch:
/// a host's loop polls `isRaised` and stops cleanly, restoring the terminal (the TUI and the
/// headless player share it). SIGQUIT would otherwise reach the Swift runtime's backtracer, which
/// prints inside the alternate screen and leaves the terminal raw.
public final class QuitSignals: @unchecked Sendable {  // `raised`, `handlers` and `sources` are only touched on `queue` (and in `init`)
    public static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "aether.tui.signals")
    private var raised = false
    private var handlers: [@Sendable () -> Void] = []

    /// Runs `body` (on the signal queue) when a quit signal arrives, or at once if one has.
    public func onRaise(_ body: @escaping @Sendable () -> Void) {
        let now = queue.sync { () -> Bool in
            if !raised { handlers.append(body) }
            return raised
        }
        if now { body() }
    }

    public init() {
        for sig in QuitSignals.signals {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            s.setEventHandler { [unowned self] in
                raised = true
                let run = handlers
                handlers = []
                run.forEach { $0() }
            }
            s.resume()
            sources.append(s)
        }
    }

    public var isRaised: Bool { queue.sync { raised } }
}
