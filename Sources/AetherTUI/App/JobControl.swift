import AetherBase
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// SIGTSTP (Ctrl-Z), SIGTTIN, SIGTTOU, SIGCONT and SIGWINCH, noticed off the signal context through
/// Dispatch and acted on by the UI loop, which owns the screen: a stop gives the terminal back
/// to the shell and stops the process; a continue takes the terminal again and repaints it all.
final class JobSignals: Sendable {
    static let stopSignals = [SIGTSTP, SIGTTIN, SIGTTOU]
    private let queue = DispatchQueue(label: "aether.tui.job")
    private let sources = Guarded<[DispatchSourceSignal]>([])
    /// What arrived since the last ``takeEvents()``.
    private let events = Guarded(Events())

    /// What arrived since the last look: `stop` (Ctrl-Z), `lostTerminal` (SIGTTIN/SIGTTOU: the
    /// terminal was touched from the background), `continued` (SIGCONT).
    struct Events { var stop = false, lostTerminal = false, continued = false }

    /// `wake` runs (on the signal queue) when a signal arrives, to wake the UI loop.
    init(wake: @escaping @Sendable () -> Void) {
        for sig in JobSignals.stopSignals + [SIGCONT, SIGWINCH] {
            // Ignored as a disposition, so the kernel does not stop the process behind the UI's
            // back (SIGCONT continues a stopped process whatever its disposition).
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            s.setEventHandler { [unowned self] in
                events.withLock { e in
                    switch sig {
                    case SIGCONT: e.continued = true
                    case SIGWINCH: break   // the loop reads the size on every pass: waking it is enough
                    case SIGTSTP: e.stop = true
                    default: e.lostTerminal = true
                    }
                }
                wake()
            }
            s.resume()
            sources.withLock { $0.append(s) }
        }
    }

    /// What arrived since the last call.
    func takeEvents() -> Events {
        events.withLock { e in
            defer { e = Events() }
            return e
        }
    }

    /// Puts the default dispositions back (the screen is gone).
    func cancel() {
        queue.sync {
            for s in sources.withLock({ s in defer { s.removeAll() }; return s }) { s.cancel() }
        }
        for sig in JobSignals.stopSignals + [SIGCONT, SIGWINCH] { signal(sig, SIG_DFL) }
    }
}

/// Job control as the host lives it: the signals (``JobSignals``) and whether playback was going
/// when the terminal went to the shell (nil: not suspended). It decides; the host carries out.
final class JobControl {
    private let signals: JobSignals
    private(set) var suspendedPlaying: Bool?

    init(wake: @escaping @Sendable () -> Void) {
        signals = JobSignals(wake: wake)
    }

    func cancel() { signals.cancel() }

    /// Whether this process group owns the terminal (false after `bg`).
    static var ownsTerminal: Bool {
        let fd = isatty(STDIN_FILENO) != 0 ? STDIN_FILENO : STDOUT_FILENO
        let group = tcgetpgrp(fd)
        return group < 0 || group == getpgrp()
    }

    /// What the host does for job control.
    protocol Host: AnyObject {
        /// Playback pauses and the terminal goes back to the shell; returns whether it was playing.
        func suspendForJobControl() -> Bool
        /// Back in the foreground; `playing`: playback goes on.
        func resumeFromJobControl(playing: Bool)
        /// Stopped by someone else and continued: the terminal may show anything.
        func repaintEverything()
    }

    /// Acts on job-control signals through `host`; true while the terminal belongs to the shell
    /// (nothing is read or drawn then). `ownsTerminal` asks who has the terminal now.
    func handle(_ host: some Host, ownsTerminal: () -> Bool = { JobControl.ownsTerminal }) -> Bool {
        let events = signals.takeEvents()
        if suspendedPlaying == nil {
            if events.stop {
                suspend(host, stopping: true)
            } else if (events.continued || events.lostTerminal) && !ownsTerminal() {
                // Stopped from outside (SIGSTOP) under a job-control shell, which took the
                // terminal, then continued; or the terminal was touched from the background: the
                // terminal is given back until `fg`.
                AppLog.write("tui", "in the background: giving the terminal back")
                suspend(host, stopping: false)
            }
        }
        // (Stops that arrive while the terminal is the shell's are our own reads and writes
        // from the background: nothing to do.)
        if let playing = suspendedPlaying {
            // Continued in the background (`bg`): wait for `fg` with the terminal left alone.
            guard ownsTerminal() else { return true }
            suspendedPlaying = nil
            AppLog.write("tui", "resumed (job control)")
            host.resumeFromJobControl(playing: playing)
            return false
        }
        if events.continued {
            AppLog.write("tui", "continued: repainting everything")
            host.repaintEverything()
        }
        return false
    }

    /// Ctrl-Z: the host pauses and gives the terminal back, then the process stops (as mpv
    /// does, with SIGSTOP). It carries on here when continued.
    private func suspend(_ host: some Host, stopping: Bool) {
        AppLog.write("tui", "suspending (job control)")
        suspendedPlaying = host.suspendForJobControl()
        guard stopping else { return }
        raise(SIGSTOP)
        // Continued (`fg` or `bg`): our own SIGCONT is no news.
        _ = signals.takeEvents()
    }
}

extension TUIApp: JobControl.Host {
    /// Playback pauses, the render thread stops drawing and takes its pictures down, the
    /// terminal goes back to the shell's modes and main screen.
    func suspendForJobControl() -> Bool {
        let playing = !player.isPaused
        if playing { player.pause() }
        display.suspend()
        return playing
    }

    /// The player's modes, the alternate screen, keypad and mouse, the size asked again,
    /// everything repainted; playback goes on if it was playing.
    func resumeFromJobControl(playing: Bool) {
        display.resume()
        runtime.checkTerminalSize(anyway: true)
        runtime.send(.input(now: clock.seconds))
        if playing { player.play() }
    }

    func repaintEverything() { runtime.relayout() }
}
