import AetherBase
import Foundation
@testable import OutputChoice
import Testing
@testable import TerminalGraphics

/// A terminal simulated on a manual clock (milliseconds): it absorbs what it is sent at
/// `bytesPerMillisecond` (`sixelFactor` slows sixel, as terminals differ), each kitty image
/// costing `kittyImage` milliseconds more (a software-GL kitty), and answers each DA1 once
/// everything before it is absorbed. Encoding costs no simulated time, so the figures are the terminal's.
struct SimulatedTerminal: ProbeTransport {
    var bytesPerMillisecond: Double
    var sixelFactor = 1.0
    var kittyImage = 0.0
    /// Keys the user types, arriving with the first answer.
    var typed: [UInt8] = []
    let clock = SimulatedClock()
    var now: Double {
        get { clock.now }
        nonmutating set { clock.now = newValue }
    }
    private var busyUntil = 0.0
    private var answers: [Double] = []
    var sent = 0
    /// tmux between (`allow-passthrough on`): a clear or an alternate-screen switch makes it
    /// redraw the pane for this many ms, and a query through the passthrough sent meanwhile is
    /// dropped (tmux 3.5a's `tty_client_ready`, seen with xterm and kitty outside). Nil: no tmux.
    var tmuxRedraw: Double?
    private var redrawUntil = -1.0
    var dropped = 0

    init(bytesPerMillisecond: Double, sixelFactor: Double = 1, kittyImage: Double = 0) {
        self.bytesPerMillisecond = bytesPerMillisecond
        self.sixelFactor = sixelFactor
        self.kittyImage = kittyImage
    }

    mutating func send(_ bytes: [UInt8]) throws(SystemCallError) {
        sent += bytes.count
        let text = bytes.prefix(64)
        let factor = text.firstRange(of: Array("\u{1B}P".utf8)) != nil ? sixelFactor : 1
        let image = text.firstRange(of: Array("\u{1B}_Ga=T".utf8)) != nil ? kittyImage : 0
        busyUntil = max(busyUntil, now) + Double(bytes.count) / bytesPerMillisecond * factor + image
        let throughTmux = bytes.suffix(6) == ArraySlice("\u{1B}\u{1B}[c\u{1B}\\".utf8)
        if let tmuxRedraw, throughTmux, now < redrawUntil {
            dropped += 1
        } else if bytes.suffix(3) == ArraySlice("\u{1B}[c".utf8) || throughTmux {
            answers.append(busyUntil)
        }
        if let tmuxRedraw, bytes.firstRange(of: Array("\u{1B}[2J".utf8)) != nil || bytes.firstRange(of: Array("\u{1B}[?1049h".utf8)) != nil {
            redrawUntil = now + tmuxRedraw
        }
    }

    mutating func receive(timeout: Duration) throws(SystemCallError) -> [UInt8] {
        let limit = now + Double(timeout.components.seconds) * 1000 + Double(timeout.components.attoseconds) / 1e15
        guard let due = answers.first, due <= limit else {
            now = limit
            return []
        }
        now = max(now, due)
        answers.removeFirst()
        defer { typed = [] }
        return typed + Array("\u{1B}[?62;4;22c".utf8)
    }
}

/// `--vo=auto` by measurement (unit tier): the rule, the trial against simulated terminals on a
/// manual clock, and terminals.json as outside input.
struct OutputChoiceTests {
    func caps(kitty: Bool = false, sixel: Bool = false, shm: Bool = false) -> TerminalCapabilities {
        var c = TerminalCapabilities()
        c.probe.answered = true
        c.kitty.graphics = kitty
        c.kitty.sharedMemory = shm
        c.sixel.available = sixel
        c.truecolor = true
        c.terminal.version = kitty ? "kitty(0.35.2)" : "XTerm(379)"
        c.window.update(columns: 160, rows: 48, pixelWidth: 160 * 8, pixelHeight: 48 * 16, inTmux: c.tmux.inside)
        return c
    }

    /// A candidate's label, as a stored figure names it (a hostile file may say anything): a
    /// driver that can send by shared memory is named with its way, a headless one never.
    @Test func aCandidateIsReadBackFromItsLabelOnly() {
        #expect(OutputCandidate(label: "sixel")?.driver == "sixel")
        #expect(OutputCandidate(label: "kitty (shared memory)")?.driver == "kitty")
        #expect(OutputCandidate(label: "kitty (shared memory)")?.kitty == .sharedMemory)
        #expect(OutputCandidate(label: "kitty (direct)")?.kitty == .direct)
        #expect(OutputCandidate(label: "kitty") == nil, "kitty without its way")
        #expect(OutputCandidate(label: "null") == nil, "the headless driver is never a candidate")
        #expect(OutputCandidate(label: "sixel (direct)") == nil)
        #expect(OutputCandidate.all(for: caps(kitty: true, sixel: true)).allSatisfy { $0.driver != "null" })
    }

    /// The rule: most detail shown at the source rate; ties to the earlier; hysteresis; an
    /// output that cannot keep a third of the frames even at the governor's floor is out.
    @Test func theOutputShowingTheMostDetailWins() {
        let kitty = OutputFigure(label: "kitty (direct)", pixels: 1_000_000, milliseconds: 200, floor: 0.25)   // 5 fps
        let sixel = OutputFigure(label: "sixel", pixels: 1_000_000, milliseconds: 35, floor: 0.25)           // 28 fps
        let cells = OutputFigure(label: "cells", pixels: 60_000, milliseconds: 10)
        #expect(OutputChoice.choose([kitty, sixel, cells], sourceFPS: 24)?.label == "sixel")
        // Both keep the source rate: the same detail, the earlier (kitty) wins the tie.
        let fastKitty = OutputFigure(label: "kitty (direct)", pixels: 1_000_000, milliseconds: 20, floor: 0.25)
        #expect(OutputChoice.choose([fastKitty, sixel, cells], sourceFPS: 24)?.label == "kitty (direct)")
        // Hysteresis: kept unless another shows 1.25 times as much.
        let slightlyBetter = OutputFigure(label: "sixel", pixels: 1_100_000, milliseconds: 20, floor: 0.25)
        #expect(OutputChoice.choose([fastKitty, slightlyBetter], sourceFPS: 24, keeping: "kitty (direct)")?.label == "kitty (direct)")
        #expect(OutputChoice.choose([fastKitty, slightlyBetter], sourceFPS: 24)?.label == "sixel")
        let muchBetter = OutputFigure(label: "sixel", pixels: 1_400_000, milliseconds: 20, floor: 0.25)
        #expect(OutputChoice.choose([fastKitty, muchBetter], sourceFPS: 24, keeping: "kitty (direct)")?.label == "sixel")
        // A terminal that takes 2 s a picture (1/48 of the frames, 1/12 at the floor): cells.
        let stuck = OutputFigure(label: "kitty (direct)", pixels: 1_000_000, milliseconds: 2000, floor: 0.25)
        #expect(OutputChoice.choose([stuck, cells], sourceFPS: 24)?.label == "cells")
        #expect(!stuck.keepsUp(sourceFPS: 24) && cells.keepsUp(sourceFPS: 24))
        // Nothing keeps up: the fastest.
        let slowCells = OutputFigure(label: "cells", pixels: 60_000, milliseconds: 1000)
        #expect(OutputChoice.choose([stuck, slowCells], sourceFPS: 24)?.label == "cells")
        // Rescaled to another window: time follows the pixels.
        #expect(sixel.scaled(toPixels: 500_000).milliseconds == 17.5)
        #expect(OutputChoice.lines([stuck, cells], sourceFPS: 24, chosen: "cells").last?.hasSuffix("← chosen") == true)
    }

    /// The trial on `terminal`, which must take at most `within` milliseconds of its time.
    func measure(_ terminal: inout SimulatedTerminal, _ caps: TerminalCapabilities, within: Double) -> [OutputFigure] {
        var trial = ThroughputTrial()
        let area = CellRect(column: 0, row: 1, width: 160, height: 44)
        let geometry = TerminalGeometry(columns: 160, rows: 48, cellSize: caps.window.cellSize)
        let start = terminal.now, clock = terminal.clock
        let figures = trial.measure(OutputCandidate.all(for: caps), capabilities: caps, options: .init(), sourceFPS: 24,
                                    placement: { $0.placement(for: area, displayAspect: 16.0 / 9, geometry: geometry, scale: 1) },
                                    transport: &terminal, clock: TimeSource({ clock.now / 1000 }))
        #expect(terminal.now - start < within, "the trial took \(terminal.now - start) ms of the terminal's time")
        return figures
    }

    /// The trial against simulated terminals: a fast xterm-like sixel terminal gets sixel; a
    /// kitty whose direct frames are slow but shared memory fast gets shared memory; a kitty
    /// that takes 600 ms an image whatever its size (software GL) gets cells; the figures are
    /// what the simulated terminal took.
    @Test func theTrialMeasuresWhatTheTerminalTakes() {
        var xterm = SimulatedTerminal(bytesPerMillisecond: 20_000)
        let xtermFigures = measure(&xterm, caps(sixel: true), within: 1000)
        #expect(xtermFigures.map(\.label) == ["sixel", "halfblock"], "\(xtermFigures)")
        #expect(OutputChoice.choose(xtermFigures, sourceFPS: 24)?.label == "sixel", "\(xtermFigures)")

        var kitty = SimulatedTerminal(bytesPerMillisecond: 20_000)
        let kittyFigures = measure(&kitty, caps(kitty: true, shm: true), within: 1000)
        #expect(kittyFigures.map(\.label) == ["kitty (shared memory)", "kitty (direct)", "cells", "halfblock"], "\(kittyFigures)")
        let shm = kittyFigures[0], direct = kittyFigures[1]
        #expect(shm.pixels == direct.pixels && shm.milliseconds * 50 < direct.milliseconds, "\(kittyFigures)")
        #expect(OutputChoice.choose(kittyFigures, sourceFPS: 24)?.label == "kitty (shared memory)")

        var slowImages = SimulatedTerminal(bytesPerMillisecond: 20_000, kittyImage: 600)
        // Each kitty way: its warm-up frame (600 ms), then a frame given up at 500 ms (no output that
        // slow keeps up), then the terminal's finishing it before the next candidate starts.
        let slowFigures = measure(&slowImages, caps(kitty: true, shm: true), within: 3000)
        #expect(slowFigures.prefix(2).allSatisfy { !$0.keepsUp(sourceFPS: 24) }, "\(slowFigures)")
        #expect(OutputChoice.choose(slowFigures, sourceFPS: 24)?.label == "cells", "\(slowFigures)")
    }

    /// Inside tmux the trial's queries go through the passthrough, which tmux drops while it
    /// redraws the pane after a clear (each candidate starts after one). Before: every candidate
    /// after the first had its first answer dropped and was figured at 10 s a frame, "cannot keep
    /// up" (halfblock after sixel in xterm under tmux 3.5a). Now each candidate starts once the
    /// terminal answers again, and the figures are those without tmux's drops.
    @Test func answersTmuxDroppedAreAskedForAgain() {
        var inTmux = caps(sixel: true)
        inTmux.tmux.inside = true
        inTmux.tmux.pane = TmuxPane(passthrough: true)
        inTmux.sixel.throughTmux = true
        inTmux.tmux.outerDeviceAttributes = [63, 4]
        var plain = SimulatedTerminal(bytesPerMillisecond: 20_000)
        let expected = measure(&plain, inTmux, within: 1000)
        var tmux = SimulatedTerminal(bytesPerMillisecond: 20_000)
        tmux.tmuxRedraw = 20
        let figures = measure(&tmux, inTmux, within: 2000)
        #expect(tmux.dropped >= 2, "the simulated tmux dropped nothing: \(tmux.dropped)")
        #expect(figures.map(\.label) == ["sixel", "halfblock"], "\(figures)")
        #expect(figures.allSatisfy { $0.keepsUp(sourceFPS: 24) }, "\(figures)")
        for (a, b) in zip(figures, expected) { #expect(abs(a.milliseconds - b.milliseconds) < 1, "\(figures) against \(expected)") }
        #expect(OutputChoice.choose(figures, sourceFPS: 24)?.label == "sixel")
    }

    /// Keys typed while the trial reads the terminal's answers are not lost: they come back in
    /// order for the host's input (a `q` must still quit).
    @Test func keysTypedDuringTheTrialAreHandedBack() {
        var terminal = SimulatedTerminal(bytesPerMillisecond: 20_000)
        terminal.typed = Array("q\u{1B}[A".utf8)
        let clock = terminal.clock, geometry = TerminalGeometry(columns: 160, rows: 48, cellSize: CellSize(width: 8, height: 16))
        let auto = AutoOutput.choose(capabilities: caps(sixel: true), options: .init(), sourceFPS: 24,
                                     placement: { $0.placement(for: CellRect(column: 0, row: 1, width: 160, height: 44), displayAspect: 16.0 / 9,
                                                               geometry: geometry, scale: 1) },
                                     transport: &terminal, clock: TimeSource({ clock.now / 1000 }), memory: nil, key: "k")
        #expect(auto?.source == .measured && auto?.strayInput == Array("q\u{1B}[A".utf8), "\(String(describing: auto?.strayInput))")
        // Inside tmux, a terminal outside that did not answer the probe's DA1 through the
        // passthrough would answer no frame either: the capability order, nothing drawn.
        var tmux = caps(kitty: true, shm: true)   // outerDeviceAttributes empty
        tmux.tmux.inside = true
        tmux.tmux.pane = TmuxPane(passthrough: true, top: 0, left: 0)
        var untouched = SimulatedTerminal(bytesPerMillisecond: 20_000)
        let inTmux = AutoOutput.choose(capabilities: tmux, options: .init(), sourceFPS: 24,
                                       placement: { $0.placement(for: CellRect(column: 0, row: 1, width: 160, height: 44), displayAspect: 16.0 / 9,
                                                                 geometry: geometry, scale: 1) },
                                       transport: &untouched, clock: TimeSource({ clock.now / 1000 }), memory: nil, key: "k")
        #expect(inTmux?.source == .capabilities && inTmux?.candidate.label == "kitty (shared memory)" && untouched.sent == 0,
                "\(String(describing: inTmux?.source))")
    }

    /// The governor gives the driver in use up: its live figure replaces the trial's, the best
    /// output of another driver is chosen (never the same driver another way: a terminal slow
    /// to take kitty images is slow both ways), and the next start remembers it.
    @Test func aDriverTheGovernorGaveUpIsChosenAgainstWithItsLiveFigure() throws {
        let directory = NSTemporaryDirectory() + "aether-terminals-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = TerminalMemory.standard(environment: ["XDG_STATE_HOME": directory])
        var terminal = SimulatedTerminal(bytesPerMillisecond: 20_000)
        let clock = terminal.clock, geometry = TerminalGeometry(columns: 160, rows: 48, cellSize: CellSize(width: 8, height: 16))
        let placement = { (d: any VideoDriver) in d.placement(for: CellRect(column: 0, row: 1, width: 160, height: 44), displayAspect: 16.0 / 9,
                                                               geometry: geometry, scale: 1) }
        let auto = try #require(AutoOutput.choose(capabilities: caps(kitty: true, shm: true), options: .init(), sourceFPS: 24, placement: placement,
                                                  transport: &terminal, clock: TimeSource({ clock.now / 1000 }), memory: memory, key: "k"))
        #expect(auto.candidate.label == "kitty (shared memory)")
        // Played, kitty took 400 ms a frame at the floor's quarter picture: no kitty way is tried again.
        let floorPixels = auto.figures[0].pixels / 4
        let next = try #require(auto.givenUp(live: 400, pixels: floorPixels, sourceFPS: 24))
        #expect(next.candidate.label == "cells", "\(next.figures)")
        #expect(next.figures.prefix(2).allSatisfy { $0.milliseconds == 400 && $0.pixels == floorPixels && !$0.keepsUp(sourceFPS: 24) })
        let saved = try #require(memory.entry(for: "k"))
        #expect(saved.choice == "cells" && saved.figures.prefix(2).map(\.milliseconds) == [400, 400])
        // The next start, from terminals.json: cells, with nothing sent.
        var silent = SimulatedTerminal(bytesPerMillisecond: 1)
        let again = AutoOutput.choose(capabilities: caps(kitty: true, shm: true), options: .init(), sourceFPS: 24, placement: placement,
                                      transport: &silent, clock: TimeSource({ 0 }), memory: memory, key: "k")
        #expect(again?.source == .remembered && again?.candidate.label == "cells" && silent.sent == 0)
        // Cells given up in turn: half-block (kitty stays out); then nothing keeps up: nil.
        #expect(next.givenUp(live: 900, pixels: 30_000, sourceFPS: 24)?.candidate.label == "halfblock")
        #expect(next.givenUp(live: 900, pixels: 30_000, sourceFPS: 24)?.givenUp(live: 900, pixels: 10_000, sourceFPS: 24) == nil)
        // No figures (the capability order): nothing to choose by.
        #expect(AutoOutput(candidate: auto.candidate, figures: [], source: .capabilities).givenUp(live: 400, pixels: 100, sourceFPS: 24) == nil)
    }

    /// terminals.json: what was measured comes back for the same key (so the next start does
    /// not measure); hostile contents leave out the entry or figure, never the file's rest.
    @Test func terminalsJsonRemembersAndRefusesThePart() throws {
        let directory = NSTemporaryDirectory() + "aether-terminals-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = TerminalMemory.standard(environment: ["XDG_STATE_HOME": directory])
        #expect(memory.path == directory + "/aether-tui/terminals.json")
        #expect(TerminalMemory.standard(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).path == "/h/.local/state/aether-tui/terminals.json")
        let key = TerminalMemory.key(for: caps(sixel: true), environment: [:])
        #expect(key == "XTerm(379)|cell 8x16")
        var hostile = caps()
        hostile.terminal.version = "evil\u{1B}]0;x\u{07}" + String(repeating: "A", count: 500)
        #expect(TerminalMemory.key(for: hostile, environment: [:]).allSatisfy { $0.isASCII && !$0.isNewline && $0 != "\u{1B}" })
        #expect(TerminalMemory.key(for: hostile, environment: [:]).count <= 120)

        let figures = [OutputFigure(label: "sixel", pixels: 921_600, milliseconds: 41.5, floor: 0.25),
                       OutputFigure(label: "halfblock", pixels: 14_080, milliseconds: 12)]
        #expect(memory.save(.init(figures: figures, choice: "sixel"), for: key))
        let back = try #require(memory.entry(for: key))
        #expect(back.choice == "sixel" && back.figures.map(\.label) == ["sixel", "halfblock"])
        #expect(back.figures[0].pixels == 921_600 && back.figures[0].milliseconds == 41.5)

        // The next start takes the remembered figures and sends the terminal nothing.
        var silent = SimulatedTerminal(bytesPerMillisecond: 1)
        let geometry = TerminalGeometry(columns: 160, rows: 48, cellSize: CellSize(width: 8, height: 16))
        let auto = AutoOutput.choose(capabilities: caps(sixel: true), options: .init(), sourceFPS: 24,
                                     placement: { $0.placement(for: CellRect(column: 0, row: 1, width: 160, height: 44), displayAspect: 16.0 / 9,
                                                               geometry: geometry, scale: 1) },
                                     transport: &silent, clock: TimeSource({ 0 }), memory: memory, key: key)
        #expect(auto?.source == .remembered && auto?.candidate.label == "sixel" && silent.sent == 0)

        // Hostile files: not JSON, wrong types, unknown outputs, absurd numbers, too large.
        for text in ["not json", "{\"terminals\": []}", "{\"terminals\": {\"k\": {\"figures\": [{\"output\": \"rm -rf\", \"pixels\": 1, \"ms\": 1}]}}}",
                     "{\"terminals\": {\"k\": {\"figures\": [{\"output\": \"sixel\", \"pixels\": -5, \"ms\": 1}, {\"output\": \"sixel\", \"pixels\": 1e300, \"ms\": 1}]}}}",
                     "{\"terminals\": {\"k\": {\"figures\": [{\"output\": \"sixel\", \"pixels\": 100, \"ms\": 0}]}}}",
                     String(repeating: "[", count: 100_000), String(repeating: " ", count: TerminalMemory.maximumBytes + 1)] {
            try text.write(toFile: memory.path, atomically: true, encoding: .utf8)
            #expect(memory.entries().isEmpty, "read something from \(text.prefix(60))")
        }
        // One good entry beside a bad one: the good one stays, the bad one is dropped on save.
        try "{\"terminals\": {\"bad\": {\"figures\": 3}, \"good\": {\"figures\": [{\"output\": \"cells\", \"pixels\": 100, \"ms\": 5}], \"choice\": \"kitty (direct)\"}}}"
            .write(toFile: memory.path, atomically: true, encoding: .utf8)
        #expect(memory.entries().map(\.key) == ["good"] && memory.entry(for: "good")?.choice == nil)
        for i in 0..<40 { memory.save(.init(figures: figures, choice: nil), for: "t\(i)") }
        let kept = memory.entries()
        #expect(kept.count == TerminalMemory.maximumTerminals && kept.last?.key == "t39" && !kept.contains { $0.key == "good" })
    }
}

/// The simulated terminal's clock, which the trial's `now` reads while the terminal advances it.
final class SimulatedClock: @unchecked Sendable {   // one test thread
    var now = 0.0
}
