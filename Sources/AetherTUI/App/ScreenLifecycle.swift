import AetherBase
import AetherInput
import AetherScreen
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// Taking the screen and giving it back.
extension Display {
    /// What every way out writes (normal quit, signals, a crash, Ctrl-Z): mouse reports off
    /// (press, drag, any motion, SGR), SGR reset, the cursor on, the main screen. After a write
    /// that was cut short (a crash or signal in the middle of a sixel image, a kitty APC or an
    /// escape sequence) CAN, ST and synchronized output off come first (CTerminal's
    /// `aether_terminal_set_write_open`); after whole writes they do not, as kitty logs a stray
    /// ST and an unopened `?2026l` as errors.
    /// With `--title`, the title before is popped back too (XTWINOPS 23).
    static let restoreSequence = "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    func start(terminfoDirectory: String?) throws(Terminal.StartError) {
        let restore = Self.restoreSequence + (screen.terminalTitle.isEnabled ? String(decoding: Escape.popTitle, as: UTF8.self) : "")
        try terminal.start(restoreSequence: restore, terminfoDirectory: terminfoDirectory)
        terminal.withScreen {
            armScreenModes()
            palette = Palette(theme: theme, colors: Curses.setUp())
            Curses.clear()
        }
        awaitOuterTerminal()
    }

    /// Inside tmux, waits (two seconds at most) until the terminal outside has caught up. tmux drops
    /// everything it holds for a terminal that lags more than 8 bytes a cell behind, passthrough
    /// included, and redraws only its own cells: a sixel picture written then (just after the
    /// `--vo=auto` trial's frames) was lost, a paused one for good. The outer terminal is asked
    /// (DA1 through the passthrough), again every 250 ms as tmux drops a query too; its answer
    /// means tmux passes pictures on again. Keys typed meanwhile go back into ncurses' input (a
    /// late answer is swallowed by ``ReplyFilter``). Only an outer terminal that answered the
    /// probe is waited for (a detached session has none).
    func awaitOuterTerminal() {
        guard capabilities.tmux.allowsPassthrough, !capabilities.tmux.outerDeviceAttributes.isEmpty else { return }
        var answers = AttributesRoundTrip(), input = FileDescriptorTransport()
        defer { input.restore() }
        let now = { [clock] in clock.seconds * 1000 }, start = now(), deadline = start + 2000
        var answered = false, asked = 0
        while !answered, now() < deadline {
            terminal.withScreen { terminal.emitInScreen(AttributesRoundTrip.query(throughTmux: true)) }   // after the screen's bytes
            answers.sent()
            asked += 1
            answered = (try? answers.await(&input, until: min(deadline, now() + 250), any: true, now: now)) ?? true
        }
        AppLog.write("tui", "outer terminal \(answered ? "caught up" : "silent") after \(Int(now() - start)) ms (\(asked) queries)")
        returnKeys(answers.stray)
    }

    /// Hands `bytes` (keys typed while the player read the terminal raw) back to ncurses' input,
    /// to be read next in their order. ncurses' pushback is a stack: keys typed earlier are
    /// returned after keys typed later.
    func returnKeys(_ bytes: [UInt8]) {
        terminal.withScreen { Curses.pushBack(bytes) }
    }

    /// Keypad and mouse reporting (at start, and again after a suspend). Inside `withScreen`.
    ///
    /// ncurses would enable only press and release (mode 1000) for xterm's terminfo, so it is
    /// taught no mouse at all (its `kmous` key is undefined: reports reach ``ReplyFilter`` as
    /// characters, which decodes them); the player turns on any-motion reports in SGR encoding
    /// itself (``MouseReport/enableSequence``) where the terminfo entry has a mouse (`kmous`).
    /// The restore sequence turns them off on every way out.
    func armScreenModes() {
        if Curses.armKeypad() { terminal.emitInScreen(Array(MouseReport.enableSequence.utf8)) }
    }

    /// The output stops drawing (before the player stops).
    func stopOutput() {
        if checksTmuxDelivery {
            AppLog.write("tui", "pictures through tmux: \(screen.tmuxDelivery.answered) checks answered, \(screen.tmuxDelivery.lost) lost")
        }
        output.stop()
    }

    /// The terminal given back: pictures that outlive the screen (kitty's) are taken down; a
    /// stalled terminal is given half a second to take what is pending, then abandoned
    /// (quitting takes under a second however long the terminal stays stalled).
    func stop() {
        let teardown = ByteBuffer(capacity: 256)
        driver.teardown(into: teardown)
        if !teardown.isEmpty { terminal.write(teardown.bytes) }
        terminal.stop(abandonAfter: 0.5)
    }

    /// Ctrl-Z: the render thread stops drawing and takes its pictures down, the terminal goes
    /// back to the shell's modes and main screen.
    func suspend() {
        output.hold()
        terminal.suspendScreen(abandonAfter: 0.5)
    }

    /// Back in the foreground: the player's modes, the alternate screen, keypad and mouse, the
    /// size asked again (laid out by the caller).
    func resume() {
        terminal.resumeScreen()
        screen.terminalTitle.givenBack()   // the restore sequence popped it
        terminal.withScreen { armScreenModes() }
        awaitOuterTerminal()
        output.release()
    }

    /// tmux drops passthrough while a redraw of the client is pending (at attach, longer on a busy
    /// machine): a paused picture sent then stays missing (`--pause` through tmux on kitty, 3 starts
    /// in 6 with two busy cores). So it is sent again 0.5 s after the screen came up, unless a
    /// delivery check (``TmuxDeliveryCheck``) says first that the terminal has it; later losses are the check's.
    func armTmuxRepaints(now: Double) {
        guard capabilities.tmux.inside, driver.showsPixels else { return }
        screen.tmuxRepaints = [now + 0.5]
        screen.tmuxDelivery = TmuxDeliveryCheck(answersKnown: !capabilities.tmux.outerDeviceAttributes.isEmpty)
    }

    /// UI loop: the repaints ``armTmuxRepaints(now:)`` set that are due, and the delivery
    /// checks (``checkTmuxDelivery(now:)``).
    func repaintThroughTmux(now: Double) {
        if let first = screen.tmuxRepaints.first, now >= first {
            screen.tmuxRepaints.removeFirst()
            output.repaint(full: true)   // sent again, not placed: the terminal may never have had it
        }
        checkTmuxDelivery(now: now)
        guard checksTmuxDelivery, screen.tmuxDelivery.firstConfirmation() else { return }
        AppLog.write("tui", "pictures through tmux: the terminal has the picture" + (screen.tmuxRepaints.isEmpty ? "" : "; the start's repaint is not needed"))
        screen.tmuxRepaints.removeAll()
    }

    /// When the UI loop must look at tmux's pictures again.
    var tmuxDue: Double {
        min(screen.tmuxRepaints.first ?? .infinity, checksTmuxDelivery ? screen.tmuxDelivery.nextDue() ?? .infinity : .infinity)
    }
}
