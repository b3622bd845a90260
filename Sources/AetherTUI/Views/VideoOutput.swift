import AetherBase
import AetherPlayback
import AetherSubtitles
import AetherScreen
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TerminalGraphics

/// The video output: the engine's ``FrameSink``. A one-slot, latest-wins mailbox the present
/// thread hands frames (with their subtitle cues) into, and a render thread that composes
/// (bitmap subtitles), encodes with the active ``VideoDriver`` and hands the bytes to the
/// ``Terminal``.
///
/// The engine never waits for the terminal: a frame handed over while the previous one is
/// still being drawn replaces the one waiting (reported superseded, apart from frames the
/// engine dropped late). Each frame's outcome goes back as one ``FrameReport``: on screen when
/// the terminal's `write` accepted its last byte, with the latency since hand-over (the engine
/// derives the A/V gap and its presentation lead from it). What the render thread measures
/// feeds the ``OutputGovernor``.
final class VideoOutput: FrameSink, Sendable {
    /// What the UI, the present thread and the render thread share, behind `mailbox`.
    struct Mailbox {
        var pending: PresentedFrame?
        var last: PresentedFrame?
        var scene = Scene(placement: .none, mask: CellMask(columns: 0, rows: 0))
        var generation = 0
        var repaintRequested = false
        var fullRepaint = false
        /// Cells drawn over since the render thread last took a job (unpainted scenes' overlays,
        /// rows ncurses wrote): the next frame draws them again.
        var drawnOver: CellMask?
        mutating func drawOver(_ add: (inout CellMask) -> Void) {
            var over = drawnOver ?? CellMask(columns: scene.mask.columns, rows: scene.mask.rows)
            add(&over)
            drawnOver = over
        }
        var nextDriver: (any VideoDriver)?
        /// The driver the output starts with, taken by the render thread when it starts.
        var firstDriver: (any VideoDriver)?
        var stopped = false
        /// Job control: nothing is drawn while held (the terminal belongs to the shell).
        var held = false
        /// The render thread has taken down its pictures and drawn nothing since `held` was set.
        var idle = false
        var totals = Totals()
        /// The governor's new settings, with the picture's pixels and the milliseconds a frame
        /// took when it last stepped down.
        var governorChange: GovernorChange?
        /// Wakes the UI loop when the governor stepped.
        var onGovernorChange: (@Sendable () -> Void)?
        var governorText = ""
        var running = false
        /// libass for text subtitles, made by the render thread the first time a driver that
        /// shows pixels has a frame to draw (the output may switch drivers); stopped with the
        /// render thread.
        var assWorker: ASSOverlayWorker?
    }

    let terminal: Terminal
    let player: Player
    /// Frames go out inside DEC mode 2026 (the terminal said it has it): set by ``start(driver:synchronizedUpdate:)``.
    var synchronizedUpdate: Bool { synchronized.load(ordering: .relaxed) }
    private let synchronized = Atomic<Bool>(false)
    let mailbox: GuardedCondition<Mailbox>
    /// `--sub-ass` and the `--sub-*` style.
    let subtitleStyle: ASSStyleOptions
    /// `sub-visibility` as the UI thread last set it (libass draws nothing while false).
    let textSubtitlesVisible = Atomic<Bool>(true)
    let governorEnabled: Bool
    /// What the encode is timed by and the governor decides by (the write is timed by the terminal's).
    let clock: TimeSource

    /// Makes the driver that draws still `instance` (1…) for the video driver named `name`.
    let makeStillDriver: @Sendable (_ name: String, _ instance: Int) -> (any VideoDriver)?

    /// Made with the host, before the terminal is probed; it draws from ``start(driver:synchronizedUpdate:)`` on.
    init(terminal: Terminal, player: Player, governed: Bool,
         subtitleStyle: ASSStyleOptions = ASSStyleOptions(), clock: TimeSource,
         makeStillDriver: @escaping @Sendable (String, Int) -> (any VideoDriver)? = { _, _ in nil }) {
        self.makeStillDriver = makeStillDriver
        self.clock = clock
        self.subtitleStyle = subtitleStyle
        self.terminal = terminal
        self.player = player
        self.governorEnabled = governed
        self.mailbox = GuardedCondition(Mailbox(firstDriver: nil))
    }

    /// Wakes the UI loop when the governor stepped (set once before ``start()``).
    var onGovernorChange: (@Sendable () -> Void)? {
        get { mailbox.withLock { $0.onGovernorChange } }
        set { mailbox.withLock { $0.onGovernorChange = newValue } }
    }

    /// Starts the render thread, drawing with `driver` (the probe's choice, ``OutputSetup``).
    func start(driver: any VideoDriver, synchronizedUpdate: Bool) {
        synchronized.store(synchronizedUpdate, ordering: .relaxed)
        mailbox.withLock {
            $0.firstDriver = driver
            $0.running = true
        }
        OSThread.start(name: "aether.vo.render", stackSize: 1 << 20) { [self] in OutputRenderer(output: self).run() }
    }

    /// Paints on the render thread and reports every frame.
    var reportsDisplay: Bool { true }

    /// Engine present thread: hand over `frame`; never blocks on the terminal.
    func present(_ frame: PresentedFrame) {
        let replaced = mailbox.update { m -> PresentedFrame? in
            let had = m.pending
            if had != nil { m.totals.framesSuperseded += 1 }
            m.pending = frame
            return had
        }
        if let replaced { player.report(FrameReport(frame: replaced.id, outcome: .superseded)) }
    }

    /// UI thread: a new placement or mask. Bytes encoded for the previous scene are refused by
    /// the terminal (see ``Terminal/submit(_:accept:)``), so no frame paints over a new overlay.
    /// Call it under the terminal's lock (inside `withScreen`) before ncurses draws the overlay.
    func configure(_ newScene: Scene) {
        mailbox.withLock { m in
            guard newScene != m.scene else { return }
            if newScene.placement != m.scene.placement { m.fullRepaint = true }
            if newScene.mask != m.scene.mask {
                let old = m.scene.mask
                m.drawOver { $0.cover(old); $0.cover(newScene.mask) }
            }
            m.scene = newScene
            m.generation += 1
            m.repaintRequested = true
            mailbox.broadcast()
        }
    }

    /// UI thread, inside `withScreen`: draw with `driver` from the next frame on (its placement
    /// comes with the next ``configure(_:)``).
    ///
    /// The pictures of the output being replaced are erased here, in order with ncurses' output
    /// and before anything is drawn after the switch (``pictureErase(for:)``): a sixel picture
    /// stays on the screen until its cells are erased, and the cells the next output draws need
    /// not be the ones it covered (the governor's fallback to half-block draws a picture of
    /// another size). Frames the old driver encoded are refused from here on, so none lands
    /// after the erase.
    func setDriver(_ driver: any VideoDriver) {
        let erase = mailbox.update { m -> [UInt8] in
            m.nextDriver = driver
            m.generation += 1
            return Self.pictureErase(for: m.scene)
        }
        if !erase.isEmpty { terminal.emitInScreen(erase) }
    }

    /// UI thread, after ncurses wrote on `rows` (blanks anywhere on them): the picture's cells there are drawn again.
    func drawnOver(rows: Set<Int>) {
        guard !rows.isEmpty else { return }
        mailbox.update { m in
            let rect = m.scene.placement.rect
            let hit = rows.filter { $0 >= rect.row && $0 < rect.endRow }
            guard !hit.isEmpty, !rect.isEmpty else { return }
            m.drawOver { over in for row in hit { over.cover(CellRect(column: rect.column, row: row, width: rect.width, height: 1)) } }
            m.repaintRequested = true
        }
    }

    /// Draws the last frame again (paused, after a relayout, after the screen was cleared);
    /// `full` forgets what the terminal shows first.
    func repaint(full: Bool = false) {
        mailbox.update { m in
            m.repaintRequested = true
            if full { m.fullRepaint = true }
        }
    }

    var currentTotals: Totals { mailbox.withLock { $0.totals } }

    /// The governor's new settings since the last call (UI thread: a new picture scale means a
    /// relayout, a fallback another output), and the output's live figure when it stepped down.
    func takeGovernorChange() -> GovernorChange? {
        mailbox.withLock { m in
            defer { m.governorChange = nil }
            return m.governorChange
        }
    }
    typealias GovernorChange = (settings: OutputGovernor.Settings, figure: (pixels: Int, milliseconds: Double)?)

    /// The governor's state for the stats box, e.g. `sixel 128 colours ×0.75 12 fps (governed)`.
    var governorDescription: String { mailbox.withLock { $0.governorText } }

    /// UI thread, on suspend (Ctrl-Z): waits (at most `timeout` seconds) until the render thread
    /// has finished the frame in hand and taken down pictures that outlive the screen (kitty's);
    /// from then on it draws nothing until ``release()``. True when it acknowledged in time.
    @discardableResult
    func hold(timeout: Double = 1.5) -> Bool {
        mailbox.update { m in
            m.held = true
            m.idle = false
        }
        return mailbox.withLock(when: { !$0.running || $0.idle }, timeout: timeout) { m, _ in m.idle || !m.running }
    }

    /// UI thread, on resume: draws again, everything from scratch (the terminal was the
    /// shell's meanwhile).
    func release() {
        mailbox.update { m in
            m.held = false
            m.idle = false
            m.fullRepaint = true
            m.repaintRequested = true
        }
    }

    /// Stops the render thread (it finishes or abandons the frame in hand).
    func stop() {
        defer { mailbox.withLock { $0.assWorker }?.stop() }
        mailbox.update { $0.stopped = true }
        mailbox.wait(until: { !$0.running }, timeout: 1.5)
    }
}
