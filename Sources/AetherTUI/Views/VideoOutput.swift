import AetherEngine
import CTerminal
import Foundation
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
final class VideoOutput: FrameSink, @unchecked Sendable {  // mutable state is guarded by `state`
    private let terminal: Terminal
    private let player: Player
    private let synchronizedUpdate: Bool
    private let state = NSCondition()
    // Guarded by `state`:
    private var pending: PresentedFrame?
    private var last: PresentedFrame?
    private var scene = Scene(placement: .none, mask: CellMask(columns: 0, rows: 0))
    private var generation = 0
    private var repaintRequested = false
    private var fullRepaint = false
    private var nextDriver: (any VideoDriver)?
    private var stopped = false
    /// Job control: nothing is drawn while held (the terminal belongs to the shell).
    private var held = false
    /// The render thread has taken down its pictures and drawn nothing since `held` was set.
    private var idle = false
    private var totals = Totals()
    private var governorChange: OutputGovernor.Settings?
    /// Wakes the UI loop when the governor stepped (set once before ``start()``).
    var onGovernorChange: (@Sendable () -> Void)?
    private var governorText = ""
    private var thread: Thread?
    private var running = false
    // Render thread only:
    private var driver: any VideoDriver
    private let buffer = ByteBuffer(capacity: 512 * 1024)
    /// A frame with bitmap subtitles burnt in (render thread only; reused).
    private var scratch: [UInt8] = []
    /// `--sub-ass` and the `--sub-*` style.
    private let subtitleStyle: ASSStyleOptions
    /// libass for text subtitles, made by the render thread the first time a driver that shows
    /// pixels has a frame to draw (the output may switch drivers); set under `state`, stopped
    /// with the render thread.
    private var assWorker: ASSOverlayWorker?
    /// `sub-visibility` as the UI thread last set it (libass draws nothing while false).
    let textSubtitlesVisible = Atomic<Bool>(true)
    private var governor: OutputGovernor?
    private let governorEnabled: Bool
    /// What the encode is timed by and the governor decides by (the write is timed by the terminal's).
    private let clock: TimeSource
    private var frameCounter = 0
    private var supersededAtLastSample = 0

    /// Makes the driver that draws still `instance` (1…) for the video driver named `name`.
    let makeStillDriver: @Sendable (_ name: String, _ instance: Int) -> (any VideoDriver)?
    // Render thread only: the stills' drivers and what each shows.
    private var stillDrivers: [Int: any VideoDriver] = [:]
    private var drawnStills: [Int: Still] = [:]

    init(terminal: Terminal, player: Player, driver: any VideoDriver, synchronizedUpdate: Bool, governed: Bool,
         subtitleStyle: ASSStyleOptions = ASSStyleOptions(), clock: TimeSource = .monotonic,
         makeStillDriver: @escaping @Sendable (String, Int) -> (any VideoDriver)? = { _, _ in nil }) {
        self.makeStillDriver = makeStillDriver
        self.subtitleStyle = subtitleStyle
        self.terminal = terminal
        self.player = player
        self.driver = driver
        self.governorEnabled = governed
        self.clock = clock
        self.governor = Self.makeGovernor(for: driver, enabled: governed, clock: clock)
        self.synchronizedUpdate = synchronizedUpdate
    }

    func start() {
        let t = Thread { [self] in renderLoop() }
        t.name = "aether.vo.render"
        t.stackSize = 1 << 20
        state.withLock { running = true; thread = t }
        t.start()
    }

    /// Paints on the render thread and reports every frame.
    var reportsDisplay: Bool { true }

    /// Engine present thread: hand over `frame`; never blocks on the terminal.
    func present(_ frame: PresentedFrame) {
        let replaced = state.withLock { () -> PresentedFrame? in
            let had = pending
            if had != nil { totals.framesSuperseded += 1 }
            pending = frame
            state.broadcast()
            return had
        }
        if let replaced { player.report(FrameReport(frame: replaced.id, outcome: .superseded)) }
    }

    /// UI thread: a new placement or mask. Bytes encoded for the previous scene are refused by
    /// the terminal (see ``Terminal/submit(_:accept:)``), so no frame paints over a new overlay.
    /// Call it under the terminal's lock (inside `withScreen`) before ncurses draws the overlay.
    func configure(_ newScene: Scene) {
        state.withLock {
            guard newScene != scene else { return }
            if newScene.placement != scene.placement { fullRepaint = true }
            scene = newScene
            generation += 1
            repaintRequested = true
            state.broadcast()
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
        let erase = state.withLock { () -> [UInt8] in
            nextDriver = driver
            generation += 1
            state.broadcast()
            return Self.pictureErase(for: scene)
        }
        if !erase.isEmpty { terminal.emitInScreen(erase) }
    }

    /// Draws the last frame again (paused, after a relayout, after the screen was cleared);
    /// `full` forgets what the terminal shows first.
    func repaint(full: Bool = false) {
        state.withLock {
            repaintRequested = true
            if full { fullRepaint = true }
            state.broadcast()
        }
    }

    var currentTotals: Totals { state.withLock { totals } }

    /// The governor's new settings since the last call (UI thread: a new picture scale means a
    /// relayout, a fallback a switch to half-block).
    func takeGovernorChange() -> OutputGovernor.Settings? {
        state.withLock {
            defer { governorChange = nil }
            return governorChange
        }
    }

    /// The governor's state for the stats box, e.g. `sixel 128 colours ×0.75 12 fps (governed)`.
    var governorDescription: String { state.withLock { governorText } }

    private static func makeGovernor(for driver: any VideoDriver, enabled: Bool, clock: TimeSource) -> OutputGovernor? {
        let rungs = driver.qualityRungs
        return rungs.isEmpty ? nil : OutputGovernor(rungs: rungs, enabled: enabled, clock: clock)
    }

    /// UI thread, on suspend (Ctrl-Z): waits (at most `timeout` seconds) until the render thread
    /// has finished the frame in hand and taken down pictures that outlive the screen (kitty's);
    /// from then on it draws nothing until ``release()``. True when it acknowledged in time.
    @discardableResult
    func hold(timeout: Double = 1.5) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock()
        defer { state.unlock() }
        held = true
        idle = false
        state.broadcast()
        while running, !idle, state.wait(until: deadline) {}
        return idle || !running
    }

    /// UI thread, on resume: draws again, everything from scratch (the terminal was the
    /// shell's meanwhile).
    func release() {
        state.withLock {
            held = false
            idle = false
            fullRepaint = true
            repaintRequested = true
            state.broadcast()
        }
    }

    /// Stops the render thread (it finishes or abandons the frame in hand).
    func stop() {
        defer { state.withLock { assWorker }?.stop() }
        state.withLock {
            stopped = true
            state.broadcast()
        }
        let deadline = Date(timeIntervalSinceNow: 1.5)
        state.lock()
        while running, state.wait(until: deadline) {}
        state.unlock()
    }

    // MARK: render thread

    private func renderLoop() {
        aether_terminal_install_altstack()
        defer { state.withLock { running = false; state.broadcast() } }
        while true {
            state.lock()
            if held, !stopped {
                state.unlock()
                // Pictures that outlive the screen go with it; the terminal then shows the shell.
                let bytes = takeDownPictures(video: true)
                if !bytes.isEmpty, let ticket = terminal.submit(bytes) { _ = ticket.wait(timeout: 0.5) }
                driver.invalidate()
                for (_, still) in stillDrivers { still.invalidate() }
                drawnStills.removeAll()
                state.lock()
                idle = true
                state.broadcast()
                while held, !stopped { state.wait() }
            }
            while pending == nil, !repaintRequested, nextDriver == nil, !stopped, !held { state.wait() }
            if held, !stopped {
                state.unlock()
                continue
            }
            if stopped {
                state.unlock()
                // Pictures that outlive the screen (kitty's) are taken down with it: every still
                // driver's, whatever this thread believes is shown (a refused redraw forgets it).
                let bytes = takeDownPictures(video: false)
                if !bytes.isEmpty { _ = terminal.submit(bytes) }
                return
            }
            var teardown: ByteBuffer?
            if let d = nextDriver {
                let bytes = takeDownPictures(video: true)
                stillDrivers.removeAll()
                drawnStills.removeAll()
                if !bytes.isEmpty { teardown = bytes }
                driver = d
                governor = Self.makeGovernor(for: d, enabled: governorEnabled, clock: clock)
                nextDriver = nil
                fullRepaint = true
            }
            let frame = pending ?? last
            let isRepaint = pending == nil
            pending = nil
            repaintRequested = false
            let full = fullRepaint
            fullRepaint = false
            let scene = self.scene
            let generation = self.generation
            if let frame { last = frame }
            state.unlock()
            if full, scene.placement.isEmpty, teardown == nil {
                // No room for the picture any more: pictures that outlive the screen's erase
                // (kitty's) are taken down.
                let bytes = ByteBuffer(capacity: 256)
                driver.teardown(into: bytes)
                if !bytes.isEmpty { teardown = bytes }
            }
            if let teardown { _ = terminal.submit(teardown) }
            if full {
                driver.invalidate()
                for (_, still) in stillDrivers { still.invalidate() }
                drawnStills.removeAll()
            }
            if let frame {
                // The governor's last rungs paint every 2nd frame.
                var skip = false
                if !isRepaint, let divisor = governor?.settings.frameDivisor, divisor > 1 {
                    frameCounter += 1
                    if frameCounter % divisor != 0 {
                        state.withLock { totals.framesSkippedByGovernor += 1 }
                        skip = true
                    }
                }
                if !skip { draw(frame, scene: scene, generation: generation, isRepaint: isRepaint) }
            }
            drawStills(scene, generation: generation)
        }
    }

    /// The bytes that take down the pictures that outlive the screen (kitty's): every still
    /// driver's, and the video driver's with `video`. Render thread.
    private func takeDownPictures(video: Bool) -> ByteBuffer {
        let bytes = ByteBuffer(capacity: 256)
        if video { driver.teardown(into: bytes) }
        for (_, still) in stillDrivers { still.teardown(into: bytes) }
        return bytes
    }

    /// Draws the stills that are new or moved since they were last drawn; takes down (kitty)
    /// the ones that went (their cells are erased by the UI and repainted by the video).
    private func drawStills(_ scene: Scene, generation: Int) {
        let bytes = ByteBuffer(capacity: 64 * 1024)
        for (slot, _) in drawnStills where slot >= scene.stills.count {
            stillDrivers[slot]?.teardown(into: bytes)
            stillDrivers[slot]?.invalidate()
            drawnStills[slot] = nil
        }
        for (slot, still) in scene.stills.enumerated() where drawnStills[slot] != still && !still.placement.isEmpty {
            if stillDrivers[slot] == nil { stillDrivers[slot] = makeStillDriver(driver.name, slot + 1) }
            guard let stillDriver = stillDrivers[slot] else { continue }
            let size = still.placement.pictureSize
            guard let source = try? PixelImage(width: still.picture.width, height: still.picture.height,
                                               format: .rgb24, pixels: still.picture.pixels),
                  let image = try? source.resampled(width: size.width, height: size.height) else { continue }
            if drawnStills[slot]?.placement != still.placement { stillDriver.invalidate() }
            bytes.append(Escape.saveCursor)
            let mask = still.mask ?? CellMask(columns: scene.mask.columns, rows: scene.mask.rows)
            _ = try? stillDriver.render(image, placement: still.placement, mask: mask, into: bytes)
            bytes.append(Escape.restoreCursor)
            drawnStills[slot] = still
        }
        guard !bytes.isEmpty else { return }
        // Refused when the scene changed meanwhile: drawn again for the new one.
        guard let ticket = terminal.submit(bytes, accept: { state.withLock { self.generation == generation } }) else {
            drawnStills.removeAll()
            for (_, still) in stillDrivers { still.invalidate() }
            return
        }
        while ticket.wait(timeout: 0.1) == nil, !state.withLock({ stopped }) {}
    }

    private func draw(_ presented: PresentedFrame, scene: Scene, generation: Int, isRepaint: Bool) {
        let frame = presented.frame
        let placement = scene.placement
        guard !placement.isEmpty, let pixels = frame.pixels, frame.width == placement.pictureSize.width,
              frame.height == placement.pictureSize.height else {
            // Nothing to draw (no room, no video output, scaled for an older layout): handed
            // over is as shown as it gets; the sound of a seek does not wait for it.
            if !isRepaint { player.report(FrameReport(frame: presented.id, outcome: .displayed(latency: nil))) }
            return
        }
        let cues = presented.bitmapCues
        let renderStart = clock.seconds
        let overlay = assOverlay(for: presented, width: frame.width, height: frame.height)
        buffer.removeAll()
        if synchronizedUpdate { buffer.append(Escape.beginSynchronizedUpdate) }
        buffer.append(Escape.saveCursor)   // ncurses' idea of the cursor and attributes stays true
        let body = buffer.count
        let render = { [driver, buffer] (image: PixelImage) -> RenderReport? in
            try? driver.render(image, placement: placement, mask: scene.mask, into: buffer)
        }
        let rendered: RenderReport?
        if cues.isEmpty, overlay == nil {
            // The frame's pooled pixels, read in place.
            rendered = pixels.withUnsafeBytes { raw in
                (try? PixelImage(borrowing: raw, width: frame.width, height: frame.height, format: .rgb24)).flatMap(render)
            }
        } else {
            // Subtitles are burnt into a copy (the frame may be painted again without them).
            scratch.removeAll(keepingCapacity: true)
            pixels.withUnsafeBytes { scratch.append(contentsOf: $0) }
            for cue in cues { SubtitleBlender.blend(cue, into: &scratch, width: frame.width, height: frame.height) }
            overlay?.blend(into: &scratch, width: frame.width, height: frame.height)
            rendered = (try? PixelImage(width: frame.width, height: frame.height, format: .rgb24, pixels: scratch)).flatMap(render)
        }
        guard let report = rendered else { return }
        if let note = report.note { AppLog.write("vo", note) }
        if report.unchanged || buffer.count == body {
            if !isRepaint { player.report(FrameReport(frame: presented.id, outcome: .displayed(latency: nil))) }
            return
        }
        buffer.append(Escape.restoreCursor)
        if synchronizedUpdate { buffer.append(Escape.endSynchronizedUpdate) }
        let renderSeconds = clock.seconds - renderStart
        // Refused when the scene changed while encoding (an overlay opened): the driver's idea
        // of the screen includes bytes that never went out, so it starts over.
        guard let ticket = terminal.submit(buffer, accept: { state.withLock { self.generation == generation } }) else {
            driver.invalidate()
            state.withLock { repaintRequested = true }
            return
        }
        let writeStart = MonotonicClock.seconds()
        var outcome: Bool? = nil
        while outcome == nil {
            outcome = ticket.wait(timeout: 0.1)
            if outcome == nil, state.withLock({ stopped }) { return }
        }
        guard outcome == true else { return }
        if !isRepaint {
            player.report(FrameReport(frame: presented.id, outcome: .displayed(latency: ticket.acceptedTime - presented.handedAt)))
        }
        // How late it reached the screen (wall seconds; nil outside clock pacing).
        let late = isRepaint ? nil : presented.dueAt.map { ticket.acceptedTime - $0 }
        let writeSeconds = ticket.acceptedTime - writeStart
        let superseded = state.withLock { () -> Int in
            if totals.framesPainted == 0 {
                AppLog.write("vo", "first picture: \(report.bytes) bytes, encoded in \(Int(renderSeconds * 1000)) ms, written in \(Int(writeSeconds * 1000)) ms")
            }
            totals.framesPainted += 1
            totals.renderSeconds += renderSeconds
            totals.writeSeconds += writeSeconds
            totals.bytes += report.bytes
            return totals.framesSuperseded
        }
        guard !isRepaint, var g = governor else { return }
        let interval = frame.duration / max(0.01, presented.rate)
        // A rung that paints every n-th frame gives each painted frame n intervals.
        let budget = interval * Double(g.settings.frameDivisor)
        let sample = OutputGovernor.Sample(frameInterval: budget, encodeSeconds: renderSeconds, writeSeconds: writeSeconds,
                                           latency: late ?? 0, superseded: superseded - supersededAtLastSample,
                                           stalled: writeSeconds > budget)
        supersededAtLastSample = superseded
        let change = g.add(sample)
        if let change, let colors = change.colors { driver.paletteColors = colors }
        if let change { driver.tolerance = change.tolerance }
        let text = g.describe(driverName: driver.name, fps: 1 / max(0.001, interval))
        if change != nil { AppLog.write("vo", "governor: \(text)") }
        governor = g
        state.withLock {
            if let change { governorChange = change; onGovernorChange?() }
            governorText = text
        }
    }

    /// libass's overlay for the frame's moment (nil: none, or text subtitles are cells here).
    /// The frame brings every typeset cue on screen with it (``PresentedFrame/typesetCues``, on
    /// the cues' timeline) and the picture's storage size; libass lays them out against it. Waits
    /// on libass at most one frame interval.
    private func assOverlay(for presented: PresentedFrame, width: Int, height: Int) -> ASSOverlayImage? {
        guard Self.drawsTextSubtitles(driver: driver, style: subtitleStyle), textSubtitlesVisible.load(ordering: .relaxed) else { return nil }
        let showing = presented.cues.contains { $0.ass != nil }
        // The thread starts with the first text cue (a film without text subtitles has none).
        let worker = state.withLock { () -> ASSOverlayWorker? in
            if self.assWorker == nil, showing, !stopped { self.assWorker = ASSOverlayWorker(options: subtitleStyle) }
            return self.assWorker
        }
        guard let worker else { return nil }
        let budget = presented.frame.duration / max(0.01, presented.rate)
        let source = presented.frame.source
        return worker.overlay(cues: presented.typesetCues, atSeconds: presented.cueTime, width: width, height: height,
                              storage: (width: source.width, height: source.height),
                              budget: min(0.25, max(0.005, budget)))
    }
}
