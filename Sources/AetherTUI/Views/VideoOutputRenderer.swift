import AetherBase
import AetherPlayback
import AetherSubtitles
import AetherScreen
import CTerminal
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// ``VideoOutput``'s render thread: made on it, and what it holds (the driver, its buffers, the governor,
/// the stills' drivers and what each shows) is that thread's alone. It meets the UI and the
/// engine in the output's mailbox.
final class OutputRenderer {
    private let output: VideoOutput
    private var mailbox: GuardedCondition<VideoOutput.Mailbox> { output.mailbox }
    private var terminal: Terminal { output.terminal }
    private var player: Player { output.player }
    private var driver: any VideoDriver
    private let buffer = ByteBuffer(capacity: 512 * 1024)
    /// A frame with bitmap subtitles burnt in (reused).
    private var scratch: [UInt8] = []
    private var governor: OutputGovernor?
    /// The governor's frame divisor as the engine last heard it.
    private var publishedDivisor = 1
    private var supersededAtLastSample = 0
    private var stillDrivers: [Int: any VideoDriver] = [:]
    private var drawnStills: [Int: VideoOutput.Still] = [:]

    /// On the render thread: takes the output's first driver from the mailbox.
    init(output: VideoOutput) {
        self.output = output
        guard let driver = output.mailbox.withLock({ m in
            defer { m.firstDriver = nil }
            return m.firstDriver
        }) else {
            preconditionFailure("a VideoOutput is started once")
        }
        self.driver = driver
        self.governor = Self.makeGovernor(for: driver, enabled: output.governorEnabled, clock: output.clock)
    }

    private static func makeGovernor(for driver: any VideoDriver, enabled: Bool, clock: TimeSource) -> OutputGovernor? {
        let rungs = driver.qualityRungs
        return rungs.isEmpty ? nil : OutputGovernor(rungs: rungs, enabled: enabled, clock: clock)
    }

    /// What one turn of the loop does, decided with the mailbox locked.
    private enum Step {
        case hold, stop
        case paint(Job)
    }

    private struct Job {
        var frame: PresentedFrame?
        var isRepaint: Bool
        var full: Bool
        var scene: VideoOutput.Scene
        var generation: Int
        var teardown: ByteBuffer?
        /// Cells overlays covered since the last job (``VideoOutput.Mailbox/drawnOver``).
        var drawnOver: CellMask?
    }

    func run() {
        aether_terminal_install_altstack()
        defer { mailbox.update { $0.running = false } }
        while true {
            if mailbox.withLock({ $0.held && !$0.stopped }) {
                // Pictures that outlive the screen go with it; the terminal then shows the shell.
                let bytes = takeDownPictures(video: true)
                if !bytes.isEmpty, let ticket = terminal.submit(bytes) { _ = ticket.wait(timeout: 0.5) }
                driver.invalidate()
                for (_, still) in stillDrivers { still.invalidate() }
                drawnStills.removeAll()
                mailbox.update { $0.idle = true }
                mailbox.wait(until: { !$0.held || $0.stopped }, deadline: nil)
            }
            let step = mailbox.withLock(when: { m in
                m.pending != nil || m.repaintRequested || m.nextDriver != nil || m.stopped || m.held
            }) { m, _ in nextStep(&m) }
            switch step {
            case .hold:
                continue
            case .stop:
                // Pictures that outlive the screen (kitty's) are taken down with it: every still
                // driver's, whatever this thread believes is shown (a refused redraw forgets it).
                let bytes = takeDownPictures(video: false)
                if !bytes.isEmpty { _ = terminal.submit(bytes) }
                return
            case .paint(let job):
                paint(job)
            }
        }
    }

    /// With the mailbox locked: takes the next driver, frame and scene.
    private func nextStep(_ m: inout VideoOutput.Mailbox) -> Step {
        if m.held, !m.stopped { return .hold }
        if m.stopped { return .stop }
        var teardown: ByteBuffer?
        if let d = m.nextDriver {
            let bytes = takeDownPictures(video: true)
            stillDrivers.removeAll()
            drawnStills.removeAll()
            if !bytes.isEmpty { teardown = bytes }
            driver = d
            governor = Self.makeGovernor(for: d, enabled: output.governorEnabled, clock: output.clock)
            m.nextDriver = nil
            m.fullRepaint = true
        }
        let frame = m.pending ?? m.last
        let isRepaint = m.pending == nil
        m.pending = nil
        m.repaintRequested = false
        let full = m.fullRepaint
        m.fullRepaint = false
        if let frame { m.last = frame }
        let drawnOver = m.drawnOver
        m.drawnOver = nil
        return .paint(Job(frame: frame, isRepaint: isRepaint, full: full, scene: m.scene, generation: m.generation,
                          teardown: teardown, drawnOver: drawnOver))
    }

    private func paint(_ job: Job) {
        var teardown = job.teardown
        if job.full, job.scene.placement.isEmpty, teardown == nil {
            // No room for the picture any more: pictures that outlive the screen's erase
            // (kitty's) are taken down.
            let bytes = ByteBuffer(capacity: 256)
            driver.teardown(into: bytes)
            if !bytes.isEmpty { teardown = bytes }
        }
        if let teardown { _ = terminal.submit(teardown) }
        if job.full {
            driver.invalidate()
            for (_, still) in stillDrivers { still.invalidate() }
            drawnStills.removeAll()
        } else if let over = job.drawnOver {
            driver.invalidate(cells: over)
        }
        // The governor's last rungs paint every 2nd or 3rd frame: the engine leaves the others
        // out before converting them (a 4K frame costs as much to scale whatever the picture).
        let divisor = governor?.settings.frameDivisor ?? 1
        if divisor != publishedDivisor {
            player.setFrameDivisor(divisor)
            publishedDivisor = divisor
        }
        if let frame = job.frame { draw(frame, scene: job.scene, generation: job.generation, isRepaint: job.isRepaint) }
        drawStills(job.scene, generation: job.generation)
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
    private func drawStills(_ scene: VideoOutput.Scene, generation: Int) {
        let bytes = ByteBuffer(capacity: 64 * 1024)
        for (slot, _) in drawnStills where slot >= scene.stills.count {
            stillDrivers[slot]?.teardown(into: bytes)
            stillDrivers[slot]?.invalidate()
            drawnStills[slot] = nil
        }
        for (slot, still) in scene.stills.enumerated() where drawnStills[slot] != still && !still.placement.isEmpty {
            if stillDrivers[slot] == nil { stillDrivers[slot] = output.makeStillDriver(driver.name, slot + 1) }
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
        guard let ticket = terminal.submit(bytes, accept: { mailbox.withLock { $0.generation == generation } }) else {
            drawnStills.removeAll()
            for (_, still) in stillDrivers { still.invalidate() }
            return
        }
        while ticket.wait(timeout: 0.1) == nil, !mailbox.withLock({ $0.stopped }) {}
    }

    private func draw(_ presented: PresentedFrame, scene: VideoOutput.Scene, generation: Int, isRepaint: Bool) {
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
        let renderStart = output.clock.seconds
        let overlay = assOverlay(for: presented, width: frame.width, height: frame.height)
        buffer.removeAll()
        let bracketed = output.synchronizedUpdate && !driver.framesApplyWhole
        if bracketed { buffer.append(Escape.beginSynchronizedUpdate) }
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
        if bracketed { buffer.append(Escape.endSynchronizedUpdate) }
        let renderSeconds = output.clock.seconds - renderStart
        // Refused when the scene changed while encoding (an overlay opened): the driver's idea
        // of the screen includes bytes that never went out, so it starts over.
        guard let ticket = terminal.submit(buffer, accept: { mailbox.withLock { $0.generation == generation } }) else {
            driver.invalidate()
            mailbox.withLock { $0.repaintRequested = true }
            return
        }
        let writeStart = output.clock.seconds
        var outcome: Bool? = nil
        while outcome == nil {
            outcome = ticket.wait(timeout: 0.1)
            if outcome == nil, mailbox.withLock({ $0.stopped }) { return }
        }
        guard outcome == true else { return }
        if !isRepaint {
            player.report(FrameReport(frame: presented.id, outcome: .displayed(latency: ticket.acceptedTime - presented.handedAt)))
        }
        // How late it reached the screen (wall seconds; nil outside clock pacing).
        let late = isRepaint ? nil : presented.dueAt.map { ticket.acceptedTime - $0 }
        let writeSeconds = ticket.acceptedTime - writeStart
        let superseded = mailbox.withLock { m -> Int in
            if m.totals.framesPainted == 0 {
                AppLog.write("vo", "first picture: \(report.bytes) bytes, encoded in \(Int(renderSeconds * 1000)) ms, written in \(Int(writeSeconds * 1000)) ms")
            }
            m.totals.framesPainted += 1
            m.totals.renderSeconds += renderSeconds
            m.totals.writeSeconds += writeSeconds
            m.totals.bytes += report.bytes
            return m.totals.framesSuperseded
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
        let figure = g.frameSecondsAtStepDown.map { (pixels: frame.width * frame.height, milliseconds: $0 * 1000) }
        mailbox.withLock { m in
            if let change { m.governorChange = (change, figure); m.onGovernorChange?() }
            m.governorText = text
        }
    }

    /// libass's overlay for the frame's moment (nil: none, or text subtitles are cells here).
    /// The frame brings every typeset cue on screen with it (``PresentedFrame/typesetCues``, on
    /// the cues' timeline) and the picture's storage size; libass lays them out against it. Waits
    /// on libass at most one frame interval.
    private func assOverlay(for presented: PresentedFrame, width: Int, height: Int) -> ASSOverlayImage? {
        guard VideoOutput.drawsTextSubtitles(driver: driver, style: output.subtitleStyle), output.textSubtitlesVisible.load(ordering: .relaxed) else { return nil }
        let showing = presented.cues.contains { $0.ass != nil }
        // The thread starts with the first text cue (a film without text subtitles has none).
        let worker = mailbox.withLock { m -> ASSOverlayWorker? in
            if m.assWorker == nil, showing, !m.stopped { m.assWorker = ASSOverlayWorker(options: output.subtitleStyle) }
            return m.assWorker
        }
        guard let worker else { return nil }
        let budget = presented.frame.duration / max(0.01, presented.rate)
        let source = presented.frame.source
        return worker.overlay(cues: presented.typesetCues, atSeconds: presented.cueTime, width: width, height: height,
                              storage: (width: source.width, height: source.height),
                              budget: min(0.25, max(0.005, budget)))
    }
}
