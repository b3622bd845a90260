import AetherEngine
import CTerminal
import Foundation
import TerminalGraphics

/// The video output: a one-slot, latest-wins mailbox the engine posts frames into, and a
/// render thread that composes (bitmap subtitles), encodes with the active ``VideoDriver`` and
/// hands the bytes to the ``Terminal``.
///
/// The engine never waits for the terminal: a frame posted while the previous one is still
/// being drawn replaces the one waiting (counted as superseded, apart from frames the engine
/// dropped late). A frame's A/V gap is measured when the terminal's `write` accepted its last
/// byte. What the render thread measures feeds the ``OutputGovernor``.
final class VideoOutput: @unchecked Sendable {  // mutable state is guarded by `state`
    /// Where and how to draw, set by the UI thread.
    struct Scene: Equatable {
        var placement: Placement
        var mask: CellMask
        /// Pictures drawn beside the video (the scrub preview), each by a driver of its own.
        var stills: [Still] = []
    }

    /// A picture the UI puts on screen next to the video: the scrub preview, the music view's
    /// cover. A preview's cells are in the video's mask, so the video never paints over it.
    struct Still: Equatable {
        var placement: Placement
        /// Changes when the picture does (pictures are not compared byte by byte).
        var stamp: Int
        var picture: StillPicture
        /// Cells left alone (overlays over the cover); nil: none.
        var mask: CellMask? = nil

        static func == (a: Still, b: Still) -> Bool { a.placement == b.placement && a.stamp == b.stamp && a.mask == b.mask }
    }

    /// Packed RGB24 pixels of a still, shared with the render thread (never mutated).
    final class StillPicture: Sendable {
        let width: Int, height: Int
        let pixels: [UInt8]

        init(width: Int, height: Int, pixels: [UInt8]) {
            self.width = width
            self.height = height
            self.pixels = pixels
        }
    }

    /// Totals for the stats box, the telemetry pane and the stats file.
    struct Totals: Sendable, Equatable {
        var framesPainted = 0
        var framesSuperseded = 0
        var framesSkippedByGovernor = 0
        var renderSeconds = 0.0
        var writeSeconds = 0.0
        var bytes = 0
    }

    private let terminal: Terminal
    private let player: Player
    private let synchronizedUpdate: Bool
    private let state = NSCondition()
    // Guarded by `state`:
    private var pending: VideoFrame?
    /// When `pending` was posted (monotonic seconds).
    private var pendingPostedAt = 0.0
    private var last: VideoFrame?
    private var scene = Scene(placement: .none, mask: CellMask(columns: 0, rows: 0))
    private var generation = 0
    private var repaintRequested = false
    private var fullRepaint = false
    private var nextDriver: (any VideoDriver)?
    private var stopped = false
    private var totals = Totals()
    private var governorChange: OutputGovernor.Settings?
    private var governorText = ""
    private var thread: Thread?
    private var running = false
    // Render thread only:
    private var driver: any VideoDriver
    private let buffer = ByteBuffer(capacity: 512 * 1024)
    /// A frame with bitmap subtitles burnt in (render thread only; reused).
    private var scratch: [UInt8] = []
    private var governor: OutputGovernor?
    private let governorEnabled: Bool
    private var frameCounter = 0
    /// Recent post-to-screen latencies of paced frames, and the lead last given to the engine.
    private var latencies = LatencyWindow()
    private var lead = 0.0
    private var supersededAtLastSample = 0

    /// Bitmap subtitle cues to blend at a pts (called on the render thread).
    let bitmapCues: @Sendable (Double) -> [SubtitleBitmap]
    /// Makes the driver that draws still `instance` (1…) for the video driver named `name`.
    let makeStillDriver: @Sendable (_ name: String, _ instance: Int) -> (any VideoDriver)?
    // Render thread only: the stills' drivers and what each shows.
    private var stillDrivers: [Int: any VideoDriver] = [:]
    private var drawnStills: [Int: Still] = [:]

    init(terminal: Terminal, player: Player, driver: any VideoDriver, synchronizedUpdate: Bool, governed: Bool,
         makeStillDriver: @escaping @Sendable (String, Int) -> (any VideoDriver)? = { _, _ in nil },
         bitmapCues: @escaping @Sendable (Double) -> [SubtitleBitmap]) {
        self.makeStillDriver = makeStillDriver
        self.terminal = terminal
        self.player = player
        self.driver = driver
        self.governorEnabled = governed
        self.governor = Self.makeGovernor(for: driver, enabled: governed)
        self.synchronizedUpdate = synchronizedUpdate
        self.bitmapCues = bitmapCues
    }

    func start() {
        let t = Thread { [self] in renderLoop() }
        t.name = "aether.vo.render"
        t.stackSize = 1 << 20
        state.withLock { running = true; thread = t }
        t.start()
    }

    /// Engine present thread: hand over `frame`; never blocks on the terminal.
    func post(_ frame: VideoFrame) {
        let replaced = state.withLock { () -> Bool in
            let had = pending != nil
            if had { totals.framesSuperseded += 1 }
            pending = frame
            pendingPostedAt = MonotonicClock.seconds()
            state.broadcast()
            return had
        }
        if replaced { player.frameSuperseded() }
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

    /// UI thread: draw with `driver` from the next frame on (its placement comes with the next
    /// ``configure(_:)``).
    func setDriver(_ driver: any VideoDriver) {
        state.withLock {
            nextDriver = driver
            generation += 1
            state.broadcast()
        }
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

    private static func makeGovernor(for driver: any VideoDriver, enabled: Bool) -> OutputGovernor? {
        let rungs = driver.qualityRungs
        return rungs.isEmpty ? nil : OutputGovernor(rungs: rungs, enabled: enabled)
    }

    /// Stops the render thread (it finishes or abandons the frame in hand).
    func stop() {
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
            while pending == nil, !repaintRequested, nextDriver == nil, !stopped { state.wait() }
            if stopped {
                state.unlock()
                // Pictures that outlive the screen (kitty's) are taken down with it: every still
                // driver's, whatever this thread believes is shown (a refused redraw forgets it).
                let bytes = ByteBuffer(capacity: 256)
                for (_, still) in stillDrivers { still.teardown(into: bytes) }
                if !bytes.isEmpty { _ = terminal.submit(bytes) }
                return
            }
            var teardown: ByteBuffer?
            if let d = nextDriver {
                let bytes = ByteBuffer(capacity: 256)
                driver.teardown(into: bytes)
                for (_, still) in stillDrivers { still.teardown(into: bytes) }
                stillDrivers.removeAll()
                drawnStills.removeAll()
                if !bytes.isEmpty { teardown = bytes }
                driver = d
                governor = Self.makeGovernor(for: d, enabled: governorEnabled)
                nextDriver = nil
                fullRepaint = true
            }
            let frame = pending ?? last
            let isRepaint = pending == nil
            let postedAt = pendingPostedAt
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
                if !skip { draw(frame, scene: scene, generation: generation, isRepaint: isRepaint, postedAt: postedAt) }
            }
            drawStills(scene, generation: generation)
        }
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

    private func draw(_ frame: VideoFrame, scene: Scene, generation: Int, isRepaint: Bool, postedAt: Double) {
        let placement = scene.placement
        guard !placement.isEmpty, let pixels = frame.pixels, frame.width == placement.pictureSize.width,
              frame.height == placement.pictureSize.height else {
            // Nothing to draw (no room, no video output, scaled for an older layout): handed
            // over is as shown as it gets; the sound of a seek does not wait for it.
            if !isRepaint { player.frameDisplayed(frame) }
            return
        }
        let cues = bitmapCues(frame.pts)
        let renderStart = MonotonicClock.seconds()
        buffer.removeAll()
        if synchronizedUpdate { buffer.append(Escape.beginSynchronizedUpdate) }
        buffer.append(Escape.saveCursor)   // ncurses' idea of the cursor and attributes stays true
        let body = buffer.count
        let render = { [driver, buffer] (image: PixelImage) -> RenderReport? in
            try? driver.render(image, placement: placement, mask: scene.mask, into: buffer)
        }
        let rendered: RenderReport?
        if cues.isEmpty {
            // The frame's pooled pixels, read in place.
            rendered = pixels.withUnsafeBytes { raw in
                (try? PixelImage(borrowing: raw, width: frame.width, height: frame.height, format: .rgb24)).flatMap(render)
            }
        } else {
            // Subtitles are burnt into a copy (the frame may be painted again without them).
            scratch.removeAll(keepingCapacity: true)
            pixels.withUnsafeBytes { scratch.append(contentsOf: $0) }
            for cue in cues { SubtitleBlender.blend(cue, into: &scratch, width: frame.width, height: frame.height) }
            rendered = (try? PixelImage(width: frame.width, height: frame.height, format: .rgb24, pixels: scratch)).flatMap(render)
        }
        guard let report = rendered else { return }
        if report.unchanged || buffer.count == body {
            if !isRepaint { player.frameDisplayed(frame) }
            return
        }
        buffer.append(Escape.restoreCursor)
        if synchronizedUpdate { buffer.append(Escape.endSynchronizedUpdate) }
        let renderSeconds = MonotonicClock.seconds() - renderStart
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
        let gap = isRepaint ? nil : player.frameDisplayed(frame)
        if gap != nil { updateLead(latency: ticket.acceptedTime - postedAt) }
        let writeSeconds = ticket.acceptedTime - writeStart
        let superseded = state.withLock { () -> Int in
            if totals.framesPainted == 0 {
                FFmpegLog.write("vo", "first picture: \(report.bytes) bytes, encoded in \(Int(renderSeconds * 1000)) ms, written in \(Int(writeSeconds * 1000)) ms")
            }
            totals.framesPainted += 1
            totals.renderSeconds += renderSeconds
            totals.writeSeconds += writeSeconds
            totals.bytes += report.bytes
            return totals.framesSuperseded
        }
        guard !isRepaint, var g = governor else { return }
        let interval = frame.duration / max(0.01, player.rate)
        let sample = OutputGovernor.Sample(frameInterval: interval, encodeSeconds: renderSeconds, writeSeconds: writeSeconds,
                                           latency: gap.map { -$0 } ?? 0, superseded: superseded - supersededAtLastSample,
                                           stalled: writeSeconds > interval)
        supersededAtLastSample = superseded
        let change = g.add(sample, now: MonotonicClock.seconds())
        if let change, let colors = change.colors { driver.paletteColors = colors }
        let text = g.describe(driverName: driver.name, fps: 1 / max(0.001, interval))
        if change != nil { FFmpegLog.write("vo", "governor: \(text)") }
        governor = g
        state.withLock {
            if let change { governorChange = change }
            governorText = text
        }
    }
}

extension VideoOutput {
    /// Render thread: the engine hands frames over early by the median of the recent
    /// post-to-screen latencies, so that they reach the screen at their time, not a painting
    /// late (sixel encoding and writing take 10–30 ms a frame).
    fileprivate func updateLead(latency: Double) {
        guard latency.isFinite, latency >= 0 else { return }
        latencies.add(latency)
        guard latencies.count >= 4 else { return }
        let median = latencies.median
        if abs(median - lead) > 0.001 {
            lead = median
            player.setPresentationLead(median)
        }
    }
}

/// The last few latencies, for a running median (render thread only).
struct LatencyWindow {
    private var values: [Double] = []
    private var next = 0
    let capacity = 16
    var count: Int { values.count }

    mutating func add(_ value: Double) {
        if values.count < capacity { values.append(value) } else { values[next] = value }
        next = (next + 1) % capacity
    }

    var median: Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
