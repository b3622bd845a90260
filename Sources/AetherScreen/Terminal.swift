import AetherBase
import AetherBase
import CNcurses
import CTerminal
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The terminal, owned once: its output fd, the saved modes, ncurses' screen, the lock, and
/// the one thread that writes to it.
///
/// Everything that reaches the terminal goes through ``Terminal``'s queue in the order it was
/// enqueued: ncurses' updates (captured from a pipe it writes into, see ``start(restoreSequence:)``)
/// and video frames. The lock is held only to call ncurses and to enqueue bytes, never while
/// writing to the terminal or encoding a picture, so a terminal that stops reading (an ssh
/// stall, Ctrl-S, a slow sixel terminal) holds up the writer thread and nothing else: keys and
/// signals are still handled at once.
package final class Terminal: Sendable {
    /// Bytes waiting to be written, and whether they were.
    package final class Ticket: Sendable {
        /// Whether the bytes were written (nil until known), and when `write` accepted the last.
        private let state = GuardedCondition<(outcome: Bool?, acceptedAt: Double)>((nil, 0))
        private let time: TimeSource

        fileprivate init(time: TimeSource) { self.time = time }

        /// Waits until the bytes were written (true) or abandoned (false), or `timeout` passes (nil).
        package func wait(timeout: Double) -> Bool? {
            state.withLock(when: { $0.outcome != nil }, timeout: timeout) { s, _ in s.outcome }
        }

        /// When `write` accepted the last byte (seconds of the terminal's clock: the player's, so
        /// that it compares with when a frame was handed over).
        package var acceptedTime: Double { state.withLock { $0.acceptedAt } }

        fileprivate func finish(_ written: Bool) {
            state.update { $0 = (written, time.seconds) }
        }
    }

    /// Writer statistics since start.
    package struct Statistics: Sendable, Equatable {
        package var bytesWritten = 0
        /// Times the terminal did not take bytes and the writer had to wait.
        package var stalls = 0
        package var writeSeconds = 0.0
        /// Bytes dropped because the terminal did not read them before quitting.
        package var bytesAbandoned = 0
    }

    private struct Chunk {
        enum Payload {
            case bytes([UInt8])
            /// A frame's buffer, written in place: its owner leaves it alone until the ticket
            /// finishes (a copy of every frame, 0.3–1 MB in varying sizes made on one thread and
            /// freed on another, grew glibc's arenas by a megabyte every few seconds).
            case buffer(ByteBuffer)
        }
        var payload: Payload
        var ticket: Ticket?
        var count: Int {
            switch payload {
            case .bytes(let b): b.count
            case .buffer(let b): b.count
            }
        }
    }

    /// ncurses' side, touched only with the lock held (the lock is held to call ncurses).
    private struct CursesState {
        var screen: OpaquePointer?
        var cursesOut: UnsafeMutablePointer<FILE>?
        var cursesIn: UnsafeMutablePointer<FILE>?
        /// The modes ncurses set up (cbreak, noecho, nonl), put back on resume after a suspend.
        var programModes = termios()
        var haveProgramModes = false
        var finished = false
    }

    /// The read end of the pipe ncurses writes into, and the buffer it is drained through.
    private struct Capture {
        var pipeRead: Int32 = -1
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    /// The writer's queue and what it reports.
    private struct Queue {
        var chunks: [Chunk] = []
        var stopping = false
        var abandon = false
        var writing = false
        var stats = Statistics()
        /// Our own open of the terminal for writing (non-blocking; stdin keeps its flags).
        var outputFD: Int32 = -1
    }

    /// The lock: held to call ncurses and to enqueue what it wrote.
    private let curses = Guarded(CursesState())
    /// Drained with the lock held (ordered by it); a lock of its own so that ``emitInScreen(_:)``
    /// can drain inside ``withScreen(_:)``.
    private let capture = Guarded(Capture())
    private let queue = GuardedCondition(Queue())

    /// What the tickets' times and the write statistics are read from.
    private let time: TimeSource

    package init(time: TimeSource) { self.time = time }

    /// Takes the terminal: saves its modes, arms restoration for every exit path (crash signals
    /// included), starts ncurses on it with cbreak/noecho/keypad, then redirects ncurses' output
    /// into a pipe this type drains, and starts the writer thread.
    package func start(restoreSequence: String, terminfoDirectory: String? = nil) throws(StartError) {
        aether_terminal_save(STDIN_FILENO)
        restoreSequence.withCString { aether_terminal_set_restore_sequence($0, strlen($0)) }
        aether_terminal_install_crash_handlers()
        setlocale(LC_ALL, "")
        // ncurses would query the window size on its own fd after SIGWINCH, which becomes the
        // pipe: the host polls TIOCGWINSZ on the terminal and calls resizeterm instead.
        signal(SIGWINCH, SIG_IGN)
        var outputFD: Int32 = -1
        if let name = ttyname(STDOUT_FILENO) {
            outputFD = open(name, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        }
        if outputFD < 0 {
            outputFD = dup(STDOUT_FILENO)
            _ = fcntl(outputFD, F_SETFL, fcntl(outputFD, F_GETFL) | O_NONBLOCK)
        }
        // ncurses' output fd: the terminal while ncurses sets its modes, then the pipe's write end.
        let cursesFD = dup(STDOUT_FILENO)
        let cursesOut = fdopen(cursesFD, "w")
        let cursesIn = fdopen(dup(STDIN_FILENO), "r")
        // ncurses reads the entry without erase and scroll capabilities (TextOnlyTerminfo).
        let previous = getenv("TERMINFO").map { String(cString: $0) }
        if let terminfoDirectory { setenv("TERMINFO", terminfoDirectory, 1) }
        let screenOpened = newterm(nil, cursesOut, cursesIn)
        if terminfoDirectory != nil {
            if let previous { setenv("TERMINFO", previous, 1) } else { unsetenv("TERMINFO") }
        }
        // An unknown TERM (no terminfo entry): newterm returns nil and nothing was changed yet.
        guard let opened = screenOpened else {
            if let cursesOut { fclose(cursesOut) }
            if let cursesIn { fclose(cursesIn) }
            if outputFD >= 0 { close(outputFD) }
            aether_terminal_set_restore_sequence("", 0)
            throw StartError(term: ProcessInfo.processInfo.environment["TERM"] ?? "")
        }
        queue.withLock { $0.outputFD = outputFD }
        curses.withLock { c in
            c.screen = opened
            c.cursesOut = cursesOut
            c.cursesIn = cursesIn
            _ = set_term(opened)
            cbreak()
            noecho()
            nonl()
            Self.leaveOutputUnprocessed(STDIN_FILENO)
            c.haveProgramModes = tcgetattr(STDIN_FILENO, &c.programModes) == 0
            // Everything ncurses writes from here on is captured: a pipe as large as the system
            // allows (1 MiB; a full redraw of a huge screen stays below it), drained after every
            // ncurses call, so ncurses never blocks on it.
            var fds: [Int32] = [-1, -1]
            if aether_terminal_capture_pipe(&fds, 1 << 20) == 0 {
                fflush(cursesOut)
                capture.withLock { $0.pipeRead = fds[0] }
                dup2(fds[1], cursesFD)
                close(fds[1])
            }
        }
        OSThread.start(name: "aether.tty.writer", stackSize: 512 * 1024) { [unowned self] in writerLoop() }
    }

    /// ncurses has no terminfo entry for the terminal type.
    package struct StartError: Error, CustomStringConvertible {
        package let term: String
        package var description: String {
            term.isEmpty
                ? "TERM is not set; set it to the terminal's type (for example TERM=xterm-256color), or play headless with --vo=null"
                : "the terminal type '\(TextSanitizer.clean(term))' (TERM) is not in the terminfo database; set TERM to a known type (for example TERM=xterm-256color), or play headless with --vo=null"
        }
    }

    /// Runs ncurses calls under the lock, then moves what ncurses wrote into the queue, so it
    /// reaches the terminal in order with the video frames.
    @discardableResult
    package func withScreen<R>(_ body: () throws -> R) rethrows -> R {
        try curses.withLock { _ in
            defer { drainCurses() }
            return try body()
        }
    }

    /// Enqueues `buffer` if `accept` (evaluated under the lock, in order with ncurses' updates)
    /// says so; returns the ticket to wait on, or nil when refused or stopping. The buffer is
    /// written from where it is, not copied: do not change it until the ticket has finished.
    package func submit(_ buffer: ByteBuffer, accept: () -> Bool = { true }) -> Ticket? {
        curses.withLock { _ in
            guard accept() else { return nil }
            drainCurses()
            let ticket = Ticket(time: time)
            guard enqueue(.buffer(buffer), ticket: ticket) else { return nil }
            return ticket
        }
    }

    /// Inside ``withScreen(_:)`` only: enqueues `bytes` after what ncurses wrote so far and
    /// before what it writes next.
    package func emitInScreen(_ bytes: [UInt8]) {
        drainCurses()
        _ = enqueue(.bytes(bytes), ticket: nil)
    }

    /// Enqueues raw bytes (terminal resets, erases) in order; false when stopping.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        curses.withLock { _ in
            drainCurses()
            return enqueue(.bytes(bytes), ticket: nil)
        }
    }

    package var statistics: Statistics { queue.withLock { $0.stats } }

    /// Whether bytes are still waiting for the terminal.
    package var isBacklogged: Bool { queue.withLock { $0.writing || !$0.chunks.isEmpty } }

    /// Ends the screen: ncurses' exit sequence is queued, the writer is given `abandonAfter`
    /// seconds to get everything out; what the terminal has not taken by then is abandoned (the
    /// pending output is discarded with TCOFLUSH so the restore sequence fits), and the saved
    /// modes and the restore sequence are put back. Idempotent.
    package func stop(abandonAfter: Double = 1.0) {
        let first = curses.withLock { c -> Bool in
            guard !c.finished else { return false }
            c.finished = true
            endwin()
            drainCurses()
            return true
        }
        guard first else { return }
        queue.update { $0.stopping = true }
        let (stuck, outputFD) = queue.withLock(when: { !$0.writing && $0.chunks.isEmpty }, timeout: abandonAfter) { q, _ in
            let stuck = q.writing || !q.chunks.isEmpty
            if stuck {
                q.abandon = true
                for chunk in q.chunks {
                    q.stats.bytesAbandoned += chunk.count
                    chunk.ticket?.finish(false)
                }
                q.chunks.removeAll()
                queue.broadcast()
            }
            return (stuck, q.outputFD)
        }
        if stuck, outputFD >= 0 { tcflush(outputFD, TCOFLUSH) }
        // The writer notices `abandon` within one poll interval.
        queue.wait(until: { !$0.writing }, timeout: 0.2)
        curses.withLock { c in
            if let screen = c.screen { delscreen(screen) }
            c.screen = nil
            if let cursesOut = c.cursesOut { fclose(cursesOut) }
            c.cursesOut = nil
            if let cursesIn = c.cursesIn { fclose(cursesIn) }
            c.cursesIn = nil
            capture.withLock { p in
                if p.pipeRead >= 0 { close(p.pipeRead) }
                p.pipeRead = -1
            }
        }
        aether_terminal_restore()
        let fd = queue.withLock { q in
            defer { q.outputFD = -1 }
            return q.outputFD
        }
        if fd >= 0 { close(fd) }
    }

    /// Job control (Ctrl-Z): gives the terminal back to the shell as it was before start —
    /// ncurses leaves the alternate screen, what is queued is written (or abandoned after
    /// `abandonAfter` seconds), then the restore sequence (mouse off, cursor on, SGR reset,
    /// main screen) and the saved modes go back. The writer thread stays; nothing may be
    /// written until ``resumeScreen()``.
    package func suspendScreen(abandonAfter: Double = 1.0) {
        curses.withLock { c in
            guard c.screen != nil else { return }
            endwin()
            drainCurses()
        }
        waitForWriter(abandonAfter: abandonAfter)
        aether_terminal_restore()
    }

    /// After a suspend: the terminal in the player's modes again, ncurses back on the alternate
    /// screen with keypad and mouse, and the next refresh redraws everything.
    package func resumeScreen() {
        if var modes = curses.withLock({ $0.haveProgramModes ? $0.programModes : nil }) {
            tcsetattr(STDIN_FILENO, TCSANOW, &modes)
        }
        curses.withLock { c in
            guard c.screen != nil else { return }
            // Leaving endwin's state: ncurses re-sends the alternate screen and keypad modes.
            refresh()
            clearok(aether_stdscr(), true)
            drainCurses()
        }
    }

    /// Waits until the writer has written everything queued, or `abandonAfter` seconds; what
    /// it has not taken by then is discarded (the writer stays alive).
    private func waitForWriter(abandonAfter: Double) {
        queue.withLock(when: { !$0.writing && $0.chunks.isEmpty }, timeout: abandonAfter) { q, _ in
            for chunk in q.chunks {
                q.stats.bytesAbandoned += chunk.count
                chunk.ticket?.finish(false)
            }
            q.chunks.removeAll()
        }
    }

    // MARK: private

    /// Reads everything ncurses has written so far into the queue. Caller holds the lock.
    private func drainCurses() {
        let collected = capture.withLock { c -> [UInt8] in
            let fd = c.pipeRead
            guard fd >= 0 else { return [] }
            var collected: [UInt8] = []
            while true {
                let n = c.buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    collected.append(contentsOf: c.buffer[0..<n])
                    continue
                }
                if n < 0, errno == EINTR { continue }
                break
            }
            return collected
        }
        if !collected.isEmpty { _ = enqueue(.bytes(collected), ticket: nil) }
    }

    private func enqueue(_ payload: Chunk.Payload, ticket: Ticket?) -> Bool {
        queue.withLock { q in
            guard !q.abandon else { ticket?.finish(false); return false }
            q.chunks.append(Chunk(payload: payload, ticket: ticket))
            queue.broadcast()
            return true
        }
    }

    private func writerLoop() {
        aether_terminal_install_altstack()
        while true {
            // Bytes to write, or stopping with none left, or abandoned.
            let next = queue.withLock(when: { !$0.chunks.isEmpty || $0.stopping || $0.abandon }) { q, _ -> (Chunk, Int32)? in
                if q.chunks.isEmpty || q.abandon { return nil }
                q.writing = true
                return (q.chunks.removeFirst(), q.outputFD)
            }
            guard let (chunk, fd) = next else { return }
            // The restore closes what a write cut short may have left open (and only then).
            aether_terminal_set_write_open(1)
            let written = switch chunk.payload {
            case .bytes(let bytes): bytes.withUnsafeBytes { writeAll($0, to: fd) }
            case .buffer(let buffer): buffer.withUnsafeBytes { writeAll($0, to: fd) }
            }
            if written { aether_terminal_set_write_open(0) }
            chunk.ticket?.finish(written)
            queue.update { $0.writing = false }
        }
    }

    /// Writes `bytes` to the terminal, waiting (in 50 ms polls) while it does not read, until
    /// done or abandoned (one chunk with any wait counts as one stall).
    private func writeAll(_ bytes: UnsafeRawBufferPointer, to outputFD: Int32) -> Bool {
        let start = time.seconds
        let outcome = OutputWriter.writeFully(bytes, to: outputFD, pollMilliseconds: 50) { queue.withLock { $0.abandon } }
        let ok = outcome.error == nil && !outcome.abandoned
        queue.withLock { q in
            q.stats.bytesWritten += outcome.written
            if outcome.stalls > 0 { q.stats.stalls += 1 }
            q.stats.writeSeconds += time.seconds - start
            if !ok { q.stats.bytesAbandoned += bytes.count - outcome.written }
        }
        return ok
    }
}
