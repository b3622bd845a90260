import AetherBase
import Foundation
import Testing
@testable import TerminalGraphics

/// A terminal that answers with a script: `reply` arrives `delay` after the queries, in
/// chunks of `chunk` bytes; `nil` reply = a terminal that never answers. Its time is a manual
/// clock, the one the probe reads (``CapabilityProbe/probe(scripted:environment:windowSize:budget:sharedMemoryQuery:tmuxPane:)``):
/// a read that waits advances it by the wait, so no test sleeps or reads the wall clock.
struct ScriptedTerminal: ProbeTransport {
    var reply: [UInt8]?
    var delay: Duration = .milliseconds(5)
    var chunk = Int.max
    var sent: [UInt8] = []
    let clock = ManualTimeSource(milliseconds: 1_000)
    private var delivered = 0
    private var sentAt: Double?

    init(reply: String?, delay: Duration = .milliseconds(5), chunk: Int = .max) {
        self.reply = reply.map { Array($0.utf8) }
        self.delay = delay
        self.chunk = chunk
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    mutating func send(_ bytes: [UInt8]) throws(SystemCallError) {
        sent += bytes
        sentAt = clock.seconds
    }

    mutating func receive(timeout: Duration) throws(SystemCallError) -> [UInt8] {
        guard let reply, let sentAt, delivered < reply.count else {
            // A silent terminal's read lasts its whole timeout.
            clock.advance(seconds: Self.seconds(timeout))
            return []
        }
        let due = sentAt + Self.seconds(delay)
        let now = clock.seconds
        if due > now {
            // The reply's delay, or the read's timeout if that is shorter.
            let wait = min(Self.seconds(timeout), due - now)
            clock.advance(seconds: wait)
            if wait < due - now { return [] }
        }
        let end = min(reply.count, delivered + chunk)
        defer { delivered = end }
        return Array(reply[delivered..<end])
    }
}

extension CapabilityProbe {
    /// The probe over a scripted terminal, on the terminal's clock.
    static func probe(scripted terminal: inout ScriptedTerminal, environment: TerminalEnvironment,
                      windowSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? = nil,
                      budget: Duration = defaultBudget, sharedMemoryQuery: [UInt8]? = nil,
                      tmuxPane: (_ timeLeft: Duration) -> TmuxPane? = { _ in nil }) -> Report {
        let time = terminal.clock.source
        return probe(transport: &terminal, environment: environment, windowSize: windowSize, budget: budget,
                     sharedMemoryQuery: sharedMemoryQuery, tmuxPane: tmuxPane, time: time)
    }
}

@Suite struct CapabilityProbeTests {
    static let xtermVT340 = "\u{1B}[?63;1;2;4;6;9;15;16;17;18;21;22;28c\u{1B}[?1;0;256S\u{1B}[?2;0;1000;1000S"
        + "\u{1B}[6;20;10t\u{1B}[4;480;800t\u{1B}[8;24;80t\u{1B}[?2026;0$y\u{1B}[0n"
    static let plainTerminal = "\u{1B}[?62;22c\u{1B}[?2026;2$y\u{1B}[0n"

    @Test func sixelTerminalWithCellSize() {
        var terminal = ScriptedTerminal(reply: Self.xtermVT340)
        let report = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm"))
        let caps = report.capabilities
        #expect(terminal.sent == CapabilityProbe.query)
        #expect(caps.probe.answered)
        #expect(caps.sixel.available)
        #expect(caps.sixel.colorRegisters == 256)
        #expect(caps.sixel.maxGeometry == PixelSize(width: 1000, height: 1000))
        #expect(caps.window.cellSize == CellSize(width: 10, height: 20))
        #expect(caps.window.cellSizeSource == .terminal)
        #expect(caps.window.columns == 80 && caps.window.rows == 24)
        #expect(!caps.synchronizedOutput)
        #expect(report.strayInput.isEmpty)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "sixel")
        #expect(caps.probe.milliseconds.rounded() == 5, "the reply's delay: \(caps.probe.milliseconds) ms")
    }

    /// Captured from Debian's xterm 379 (`xterm -ti vt340`), which ignores `CSI 16/14/18 t`
    /// (allowWindowOps is off) and does not know mode 2026.
    @Test func capturedXtermReply() {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?63;1;2;4;6;9;15;16;22;28c\u{1B}[?1;0;256S\u{1B}[?2;0;480;312S\u{1B}[?2026;0$y\u{1B}[0n")
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm"),
                                         windowSize: (columns: 80, rows: 24, pixelWidth: 480, pixelHeight: 312)).capabilities
        #expect(caps.sixel.available && caps.sixel.colorRegisters == 256)
        #expect(caps.sixel.maxGeometry == PixelSize(width: 480, height: 312))
        #expect(caps.window.cellSize == CellSize(width: 6, height: 13) && caps.window.cellSizeSource == .ioctl)
        #expect(!caps.synchronizedOutput)
    }

    @Test func terminalWithoutSixelOrPixelSize() {
        var terminal = ScriptedTerminal(reply: Self.plainTerminal)
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm-256color")).capabilities
        #expect(caps.probe.answered && !caps.sixel.available)
        #expect(caps.window.cellSize == nil)
        #expect(caps.synchronizedOutput)
        #expect(!caps.truecolor)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
        #expect((VideoDrivers.make("halfblock", capabilities: caps, options: .init(), clock: .monotonic) as? CellDriver)?.colorMode == .palette256)
    }

    @Test func textAreaReplyGivesCellSizeWhenCellReplyIsMissing() {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?62c\u{1B}[4;480;800t\u{1B}[8;24;80t\u{1B}[0n")
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.window.cellSize == CellSize(width: 10, height: 20))
    }

    @Test func ioctlPixelSizeWins() {
        var terminal = ScriptedTerminal(reply: Self.xtermVT340)
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(),
                                         windowSize: (columns: 100, rows: 30, pixelWidth: 900, pixelHeight: 540)).capabilities
        #expect(caps.window.cellSize == CellSize(width: 9, height: 18))
        #expect(caps.window.cellSizeSource == .ioctl)
        #expect(caps.window.columns == 100)
    }

    @Test func silentTerminalCostsOnlyTheBudget() {
        var terminal = ScriptedTerminal(reply: nil)
        let start = terminal.clock.milliseconds
        let report = CapabilityProbe.probe(scripted: &terminal,
                                           environment: TerminalEnvironment(["TERM": "xterm-256color", "COLORTERM": "truecolor"]),
                                           budget: .milliseconds(150))
        #expect(terminal.clock.milliseconds - start == 150, "the budget, to the millisecond: \(terminal.clock.milliseconds - start) ms")
        #expect(report.capabilities.probe.milliseconds.rounded() == 150)
        let caps = report.capabilities
        #expect(!caps.probe.answered && !caps.sixel.available)
        #expect(caps.truecolor && caps.truecolorSource == .environment)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
    }

    @Test func slowTerminalPastTheBudgetIsTreatedAsSilent() {
        var terminal = ScriptedTerminal(reply: Self.xtermVT340, delay: .milliseconds(400))
        let start = terminal.clock.milliseconds
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(), budget: .milliseconds(100)).capabilities
        #expect(terminal.clock.milliseconds - start == 100, "the budget, not the reply's 400 ms")
        #expect(!caps.probe.answered && !caps.sixel.available)
    }

    @Test func repliesSplitAcrossReadsAndStrayKeys() {
        var terminal = ScriptedTerminal(reply: "q" + Self.xtermVT340, chunk: 1)
        let report = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment())
        #expect(report.capabilities.sixel.available)
        #expect(report.capabilities.probe.answered)
        #expect(report.strayInput == Array("q".utf8))
    }

    @Test func tmuxWithoutSixelFallsBackToHalfBlock() {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?1;2c\u{1B}[0n")
        let env = TerminalEnvironment(["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"])
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: env).capabilities
        #expect(caps.tmux.inside && !caps.sixel.available)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
        #expect(VideoDrivers.resolve("sixel", capabilities: caps)?.name == "sixel", "an explicit choice is kept")
        #expect(VideoDrivers.resolve("bogus", capabilities: caps) == nil)
    }

    @Test func hostileRepliesDoNotTrap() {
        let garbage = "\u{1B}[?99999999999999999999;4c\u{1B}[?1;0;0S\u{1B}[6;0;0t\u{1B}[" + String(repeating: "9", count: 500)
            + "x\u{1B}]junk\u{1B}[0n"
        var terminal = ScriptedTerminal(reply: garbage, chunk: 7)
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.probe.answered)
        #expect(caps.sixel.available)
        #expect(caps.sixel.colorRegisters == nil)
        #expect(caps.window.cellSize == nil)
        #expect(caps.sixel.effectiveColors == 256)
    }

    /// XTVERSION (`DCS >|name ST`) names the terminal; the terminals known to compose sixel
    /// images (xterm, foot) get only what changed by default, any other whole pictures.
    @Test func terminalVersionNamesTheTerminalAndPicksTheSixelRepaint() throws {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?63;1;2;4;6;9;15;16;22;28c\u{1B}[?1;0;256S\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[0n",
                                        chunk: 5)
        let report = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm"))
        let caps = report.capabilities
        #expect(report.strayInput.isEmpty)
        #expect(caps.terminal.version == "XTerm(379)" && caps.terminal.isXterm)
        #expect(caps.summaryLines.contains("terminal version (XTVERSION): XTerm(379)"))
        #expect(VideoDrivers.sixelRepaint(for: caps) == .changed)
        let sixel = try #require(VideoDrivers.make("auto", capabilities: caps, options: .init(), clock: .monotonic) as? SixelDriver)
        #expect(sixel.repaint == .changed)
        let chosen = try #require(VideoDrivers.make("auto", capabilities: caps, options: .init(sixelRepaint: .full), clock: .monotonic) as? SixelDriver)
        #expect(chosen.repaint == .full, "--vo-sixel-repaint wins over auto")

        var foot = ScriptedTerminal(reply: "\u{1B}[?62;4;22c\u{1B}P>|foot(1.13.1)\u{1B}\\\u{1B}[0n")
        let footCaps = CapabilityProbe.probe(scripted: &foot, environment: TerminalEnvironment(term: "foot")).capabilities
        #expect(footCaps.terminal.version == "foot(1.13.1)" && !footCaps.terminal.isXterm)
        #expect((VideoDrivers.make("auto", capabilities: footCaps, options: .init(), clock: .monotonic) as? SixelDriver)?.repaint == .changed)
        // mlterm 3.9 does not answer XTVERSION and draws unset pixels as background: whole pictures.
        var mlterm = ScriptedTerminal(reply: "\u{1B}[?63;1;2;3;4;6;7;15;18;22;29c\u{1B}[0n")
        let mltermCaps = CapabilityProbe.probe(scripted: &mlterm, environment: TerminalEnvironment(term: "mlterm")).capabilities
        #expect((VideoDrivers.make("auto", capabilities: mltermCaps, options: .init(), clock: .monotonic) as? SixelDriver)?.repaint == .full)
        #expect((VideoDrivers.make("auto", capabilities: mltermCaps, options: .init(), clock: .monotonic) as? SixelDriver)?.overlays == .clipped)
        #expect((VideoDrivers.make("auto", capabilities: footCaps, options: .init(), clock: .monotonic) as? SixelDriver)?.overlays == .transparent)
        var other = ScriptedTerminal(reply: "\u{1B}[?62;4c\u{1B}P>|WezTerm 20240203\u{1B}\\\u{1B}[0n")
        let otherCaps = CapabilityProbe.probe(scripted: &other, environment: TerminalEnvironment()).capabilities
        #expect(VideoDrivers.sixelRepaint(for: otherCaps) == .full)
        #expect(CapabilityProbe.query.starts(with: Array("\u{1B}[c".utf8)))
        #expect(CapabilityProbe.query.suffix(4) == Array("\u{1B}[5n".utf8), "DSR stays last")
    }

    /// A DCS string with controls, or longer than the limit, is stray input, not a name, and
    /// the sentinel after it is still found; a name is cut to 64 bytes.
    @Test func hostileTerminalVersionsAreBounded() {
        var control = ScriptedTerminal(reply: "\u{1B}P>|Evil\u{07}\u{1B}]0;pwned\u{07}\u{1B}\\\u{1B}[?62;4c\u{1B}[0n")
        let c = CapabilityProbe.probe(scripted: &control, environment: TerminalEnvironment()).capabilities
        #expect(c.probe.answered && c.sixel.available && c.terminal.version == nil)
        var long = ScriptedTerminal(reply: "\u{1B}P>|" + String(repeating: "A", count: 1000) + "\u{1B}\\\u{1B}[0n", chunk: 100)
        let l = CapabilityProbe.probe(scripted: &long, environment: TerminalEnvironment()).capabilities
        #expect(l.probe.answered && l.terminal.version == nil)
        var wide = ScriptedTerminal(reply: "\u{1B}P>|" + String(repeating: "B", count: 200) + "\u{1B}\\\u{1B}[0n")
        let w = CapabilityProbe.probe(scripted: &wide, environment: TerminalEnvironment()).capabilities
        #expect(w.terminal.version == String(repeating: "B", count: 64))
    }

    /// A terminal's claims are bounded (ReplyLimits): 1024×1024-px cells would make a frame
    /// buffer of gigabytes. Out-of-range values are dropped and the next source is used.
    @Test func absurdCellSizesAreIgnored() {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?62;4c\u{1B}[6;1024;1024t\u{1B}[4;100000;100000t\u{1B}[8;24;80t\u{1B}[0n")
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.probe.answered && caps.sixel.available)
        #expect(caps.window.cellSize == nil, "cell \(String(describing: caps.window.cellSize)) believed")
        #expect(caps.window.cellSizeSource == .assumed)
    }

    @Test func anOutOfRangeSourceFallsThroughToTheNextOne() {
        // TIOCGWINSZ claims 65535×65535 px for 80×24 cells (819×2730-px cells): the CSI 16 t reply is used.
        var terminal = ScriptedTerminal(reply: "\u{1B}[?62c\u{1B}[6;20;10t\u{1B}[0n")
        var caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(),
                                         windowSize: (columns: 80, rows: 24, pixelWidth: 65535, pixelHeight: 65535)).capabilities
        #expect(caps.window.cellSize == CellSize(width: 10, height: 20) && caps.window.cellSizeSource == .terminal)
        // A cell reply one pixel too wide: the text area (CSI 14 t ÷ CSI 18 t) gives the cell.
        terminal = ScriptedTerminal(reply: "\u{1B}[?62c\u{1B}[6;20;65t\u{1B}[4;480;800t\u{1B}[8;24;80t\u{1B}[0n")
        caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.window.cellSize == CellSize(width: 10, height: 20))
        // A screen of 99999 rows is not believed either, so the text area cannot be divided.
        terminal = ScriptedTerminal(reply: "\u{1B}[?62c\u{1B}[4;480;800t\u{1B}[8;99999;80t\u{1B}[0n")
        caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.window.rows == nil && caps.window.cellSize == nil)
    }

    @Test func cellLimitsAreInclusive() {
        #expect(CellSize(width: 64, height: 128).isValid)
        #expect(CellSize(width: 1, height: 1).isValid)
        #expect(!CellSize(width: 65, height: 20).isValid)
        #expect(!CellSize(width: 10, height: 129).isValid)
        #expect(!CellSize(width: 0, height: 20).isValid)
        var terminal = ScriptedTerminal(reply: "\u{1B}[?62c\u{1B}[6;128;64t\u{1B}[0n")
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.window.cellSize == CellSize(width: 64, height: 128))
    }

    @Test func sixelLimitsAreBounded() {
        var terminal = ScriptedTerminal(reply: "\u{1B}[?62;4c\u{1B}[?1;0;1000000S\u{1B}[?2;0;100000;100000S\u{1B}[0n")
        var caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.sixel.colorRegisters == nil && caps.sixel.effectiveColors == 256)
        #expect(caps.sixel.maxGeometry == nil)
        #expect(caps.sixel.effectiveMaxGeometry == PixelSize(width: 4096, height: 4096))
        terminal = ScriptedTerminal(reply: "\u{1B}[?62;4c\u{1B}[?2;0;4096;1200S\u{1B}[0n")
        caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment()).capabilities
        #expect(caps.sixel.effectiveMaxGeometry == PixelSize(width: 4096, height: 1200))
        // However large the cell rectangle, a sixel image stays within the ceiling.
        let size = PictureGeometry.pixelPlacement(area: CellRect(column: 0, row: 0, width: 5000, height: 3000), displayAspect: 1,
                                                  geometry: TerminalGeometry(columns: 5000, rows: 3000, cellSize: CellSize(width: 64, height: 128)),
                                                  reservedRows: 0, heightMultiple: 6).pictureSize
        #expect(size.width <= 4096 && size.height <= 4096)
    }

    @Test func summaryLinesNameEveryCapability() {
        var terminal = ScriptedTerminal(reply: Self.xtermVT340)
        let caps = CapabilityProbe.probe(scripted: &terminal, environment: TerminalEnvironment(term: "xterm")).capabilities
        let text = caps.summaryLines.joined(separator: "\n")
        for needle in ["sixel: yes", "sixel colour registers: 256", "cell size: 10x20 px (reply)", "synchronized output (?2026): no", "TERM: xterm"] {
            #expect(text.contains(needle))
        }
    }

    /// The real transport over pipes (no tty, so no termios change): a thread plays the terminal.
    @Test func fileDescriptorTransportOverPipes() throws {
        var toTerminal: [Int32] = [0, 0], fromTerminal: [Int32] = [0, 0]
        #expect(pipe(&toTerminal) == 0 && pipe(&fromTerminal) == 0)
        defer { for fd in toTerminal + fromTerminal { close(fd) } }
        let terminalIn = toTerminal[0], terminalOut = fromTerminal[1]
        let player = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            var got: [UInt8] = []
            while !got.elementsEqual(CapabilityProbe.query) && got.count < CapabilityProbe.query.count {
                let n = buffer.withUnsafeMutableBytes { read(terminalIn, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                got += buffer.prefix(n)
            }
            let reply = Array(CapabilityProbeTests.xtermVT340.utf8)
            _ = reply.withUnsafeBytes { write(terminalOut, $0.baseAddress, $0.count) }
        }
        player.start()
        let report = CapabilityProbe.probe(input: fromTerminal[0], output: toTerminal[1], environment: TerminalEnvironment(), time: .monotonic)
        #expect(report.error == nil)
        #expect(report.capabilities.sixel.available && report.capabilities.probe.answered)
    }
}
