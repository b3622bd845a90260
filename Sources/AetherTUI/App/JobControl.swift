import AetherEngine
import CNcurses
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

extension TUIApp {
    /// Whether this process group owns the terminal (false after `bg`).
    var ownsTerminal: Bool {
        let fd = isatty(STDIN_FILENO) != 0 ? STDIN_FILENO : STDOUT_FILENO
        let group = tcgetpgrp(fd)
        return group < 0 || group == getpgrp()
    }

    /// Acts on job-control signals; true while the terminal belongs to the shell (nothing is
    /// read or drawn then).
    func handleJobControl() -> Bool {
        guard let events = jobs?.takeEvents() else { return false }
        if suspendedPlaying == nil {
            if events.stop {
                suspend(stopping: true)
            } else if (events.continued || events.lostTerminal) && !ownsTerminal {
                // Stopped from outside (SIGSTOP) under a job-control shell, which took the
                // terminal, then continued; or the terminal was touched from the background: the
                // terminal is given back until `fg`.
                AppLog.write("tui", "in the background: giving the terminal back")
                suspend(stopping: false)
            }
        }
        // (Stops that arrive while the terminal is the shell's are our own reads and writes
        // from the background: nothing to do.)
        if suspendedPlaying != nil {
            // Continued in the background (`bg`): wait for `fg` with the terminal left alone.
            guard ownsTerminal else { return true }
            resume()
            return false
        }
        if events.continued {
            // Stopped by someone else (SIGSTOP) and continued: the terminal may show anything.
            AppLog.write("tui", "continued: repainting everything")
            relayout()
        }
        return false
    }

    /// Ctrl-Z: playback pauses, the render thread stops drawing and takes its pictures down, the
    /// terminal goes back to the shell's modes and main screen, then the process stops (as mpv
    /// does, with SIGSTOP). It carries on here when continued.
    private func suspend(stopping: Bool) {
        AppLog.write("tui", "suspending (job control)")
        let playing = !player.isPaused
        if playing { player.pause() }
        suspendedPlaying = playing
        output.hold()
        terminal.suspendScreen(abandonAfter: 0.5)
        guard stopping else { return }
        raise(SIGSTOP)
        // Continued (`fg` or `bg`): our own SIGCONT is no news.
        _ = jobs?.takeEvents()
    }

    /// Back in the foreground: the player's modes, the alternate screen, keypad and mouse, the
    /// size asked again, everything repainted; playback goes on if it was playing.
    private func resume() {
        let playing = suspendedPlaying ?? false
        suspendedPlaying = nil
        AppLog.write("tui", "resumed (job control)")
        terminal.resumeScreen()
        screen.terminalTitle.givenBack()   // the restore sequence popped it
        terminal.withScreen { armScreenModes() }
        awaitOuterTerminal()
        output.release()
        checkTerminalSize(relayoutAnyway: true)
        view.noteInput(at: clock.seconds)
        if playing { player.play() }
    }
}
