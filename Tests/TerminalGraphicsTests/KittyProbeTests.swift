import Foundation
import TerminalGraphicsTestSupport
import Testing
@testable import TerminalGraphics

/// kitty's `a=q` query, APC replies, tmux passthrough and auto's order, against scripted terminals.
@Suite struct KittyProbeTests {
    static let ok = "\u{1B}_Gi=31;OK\u{1B}\\"
    static let dsr = "\u{1B}[0n"

    static func probe(_ reply: String?, environment: TerminalEnvironment = TerminalEnvironment(term: "xterm-256color"),
                      chunk: Int = .max, budget: Duration = CapabilityProbe.defaultBudget,
                      tmux: TmuxPane? = nil) -> (report: CapabilityProbe.Report, sent: [UInt8]) {
        var terminal = ScriptedTerminal(reply: reply, chunk: chunk)
        let report = CapabilityProbe.probe(scripted: &terminal, environment: environment, budget: budget) { _ in tmux }
        return (report, terminal.sent)
    }

    @Test func theKittyQueryGoesBeforeTheSentinel() throws {
        let query = CapabilityProbe.query
        let kitty = try #require(query.firstRange(of: CapabilityProbe.kittyQuery))
        let dsr = try #require(query.firstRange(of: Array("\u{1B}[5n".utf8)))
        #expect(kitty.upperBound == dsr.lowerBound)
        #expect(query.suffix(4) == ArraySlice("\u{1B}[5n".utf8))
    }

    @Test func anOKReplyMeansKittyGraphics() {
        let (report, sent) = Self.probe("\u{1B}[?62;22c" + Self.ok + Self.dsr)
        let caps = report.capabilities
        #expect(sent == CapabilityProbe.query)
        #expect(caps.probe.answered && caps.kitty.graphics && caps.kitty.graphicsSource == .terminal)
        #expect(report.strayInput.isEmpty)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "kitty")
        #expect(VideoDrivers.make("auto", capabilities: caps, options: .init(), clock: .monotonic) is KittyDriver)
        #expect(caps.summaryLines.contains("kitty graphics: yes (reply)"))
    }

    @Test func anErrorReplyMeansNo() {
        let caps = Self.probe("\u{1B}[?62;4c\u{1B}_Gi=31;ENOTSUPPORTED:graphics not here\u{1B}\\" + Self.dsr).report.capabilities
        #expect(caps.probe.answered && !caps.kitty.graphics && caps.kitty.graphicsSource == .terminal)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "sixel")
        #expect(caps.summaryLines.contains("kitty graphics: no (reply)"))
    }

    @Test func aReplyForAnotherImageIsNotOurs() {
        let caps = Self.probe("\u{1B}[?62c\u{1B}_Gi=7;OK\u{1B}\\" + Self.dsr).report.capabilities
        #expect(!caps.kitty.graphics)
    }

    @Test func apcGarbageAndOverlongAPCBecomeStray() {
        let junk = "\u{1B}_Xjunk\u{1B}\\"
        let long = "\u{1B}_G" + String(repeating: "A", count: 300) + "\u{1B}\\"
        let control = "\u{1B}_Gi=31;O\u{07}K\u{1B}\\"
        for chunk in [1, 7, Int.max] {
            let (report, _) = Self.probe(junk + long + control + "\u{1B}[?62;4c" + Self.ok + Self.dsr, chunk: chunk)
            let caps = report.capabilities
            #expect(caps.probe.answered, "the sentinel after the garbage was lost (chunks of \(chunk))")
            #expect(caps.kitty.graphics && caps.sixel.available)
            let stray = String(decoding: report.strayInput, as: UTF8.self)
            #expect(stray.contains("junk") && stray.contains(String(repeating: "A", count: 250)))
        }
        // An APC that never ends is given up after the limit, not waited on for ever.
        var parser = ReplyParser()
        let endless = [UInt8]("\u{1B}_G".utf8) + [UInt8](repeating: UInt8(ascii: "B"), count: 1000)
        var stray: [UInt8] = []
        for piece in stride(from: 0, to: endless.count, by: 100) {
            stray += parser.feed(Array(endless[piece..<min(endless.count, piece + 100)])).stray
        }
        #expect(stray == endless)
        #expect(parser.feed(Array(Self.dsr.utf8)).replies == [.statusReport(0)])
        // Exactly the limit is still a reply; one byte more is not.
        let fits = "\u{1B}_Gi=31;" + String(repeating: "E", count: ReplyLimits.apcReplyBytes - 10) + "\u{1B}\\"
        #expect(fits.utf8.count == ReplyLimits.apcReplyBytes)
        parser = ReplyParser()
        #expect(parser.feed(Array(fits.utf8)).replies == [.kittyGraphics(imageID: 31, ok: false)])
        parser = ReplyParser()
        let over = parser.feed(Array(("\u{1B}_Gi=31;E" + String(repeating: "E", count: ReplyLimits.apcReplyBytes - 10) + "\u{1B}\\").utf8))
        #expect(over.replies.isEmpty)
    }

    @Test func aSilentTerminalNamedKittyGetsKittyFromTheEnvironment() {
        for env in [TerminalEnvironment(term: "xterm-kitty"), TerminalEnvironment(term: "xterm-256color", termProgram: "WezTerm"),
                    TerminalEnvironment(term: "xterm-ghostty", termProgram: "ghostty")] {
            let caps = Self.probe(nil, environment: env, budget: .milliseconds(30)).report.capabilities
            #expect(!caps.probe.answered && caps.kitty.graphics && caps.kitty.graphicsSource == .environment)
            #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "kitty")
        }
        // A terminal that answered without a kitty reply is believed over its name.
        let caps = Self.probe("\u{1B}[?62c" + Self.dsr, environment: TerminalEnvironment(term: "xterm-kitty")).report.capabilities
        #expect(caps.probe.answered && !caps.kitty.graphics)
        // An unknown silent terminal gets nothing.
        #expect(!Self.probe(nil, budget: .milliseconds(30)).report.capabilities.kitty.graphics)
    }

    @Test func gnuScreenGetsNoAPC() {
        let (_, sent) = Self.probe("\u{1B}[?1;2c" + Self.dsr, environment: TerminalEnvironment(term: "screen-256color"))
        #expect(sent.firstRange(of: Array("\u{1B}_".utf8)) == nil)
        #expect(sent.suffix(4) == ArraySlice("\u{1B}[5n".utf8))
    }

    // MARK: registry

    @Test func autoPrefersKittyThenSixelThenHalfBlock() {
        var caps = TerminalCapabilities()
        caps.kitty.graphics = true
        caps.sixel.available = true
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "kitty")
        #expect(VideoDrivers.all.first?.name == "kitty")
        caps.kitty.graphics = false
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "sixel")
        caps.sixel.available = false
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
        #expect(VideoDrivers.names.contains("kitty"))
        #expect(VideoDrivers.make("kitty", capabilities: caps, options: .init(), clock: .monotonic) is KittyDriver, "--vo kitty is kept")
        // The d key cycles kitty → sixel → half-block on a terminal with both.
        caps.kitty.graphics = true
        caps.sixel.available = true
        #expect(VideoDrivers.cycle(after: "kitty", capabilities: caps)?.name == "sixel")
        #expect(VideoDrivers.cycle(after: "halfblock", capabilities: caps)?.name == "kitty")
    }

    @Test func inTmuxWithoutPassthroughAutoIsHalfBlock() {
        var caps = TerminalCapabilities()
        caps.tmux.inside = true
        caps.kitty.graphics = true            // even if something claimed it
        caps.tmux.pane = TmuxPane(passthrough: false)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
        caps.tmux.pane = nil
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
    }

    // MARK: tmux

    static let tmuxEnvironment = TerminalEnvironment(["TERM": "screen-256color", "TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%0"])

    @Test func inTmuxTheKittyQueryIsOnlySentWrapped() throws {
        let (report, sent) = Self.probe("\u{1B}[?1;2c" + Self.dsr + Self.ok + "\u{1B}[?62;4c", environment: Self.tmuxEnvironment,
                                        tmux: TmuxPane(passthrough: false))
        #expect(sent == CapabilityProbe.queries(for: Self.tmuxEnvironment))
        let unwrapped = try KittyStream.unwrapTmux(sent)
        #expect(unwrapped.starts(with: CapabilityProbe.kittyQuery + Array("\u{1B}[>0q".utf8) + CapabilityProbe.outerGeometryQueries
                                 + Array("\u{1B}[c".utf8)))
        let outside = try KittyStream.unwrapTmux(sent, keepInner: false)
        #expect(outside.firstRange(of: Array("\u{1B}_".utf8)) == nil, "a bare APC would become the pane's title")
        #expect(outside.suffix(4) == ArraySlice("\u{1B}[5n".utf8))
        let caps = report.capabilities
        #expect(caps.tmux.inside && !caps.tmux.allowsPassthrough)
        #expect(!caps.kitty.graphics && !caps.sixel.available, "replies that slipped through without passthrough are not believed")
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
        #expect(caps.summaryLines.contains { $0.hasPrefix("tmux passthrough: no") })
    }

    @Test func withPassthroughTheOuterTerminalIsProbed() throws {
        // tmux's own replies, then (after a round trip) the outer terminal's kitty reply and DA1.
        let reply = "\u{1B}[?1;2c" + Self.dsr + Self.ok + "\u{1B}[?62;4;22c"
        let pane = TmuxPane(passthrough: true, top: 2, left: 10, version: "3.3a")
        let (report, _) = Self.probe(reply, environment: Self.tmuxEnvironment, chunk: 5, tmux: pane)
        let caps = report.capabilities
        #expect(caps.tmux.allowsPassthrough && caps.tmux.pane == pane)
        #expect(caps.terminal.deviceAttributes == [1, 2] && caps.tmux.outerDeviceAttributes == [62, 4, 22])
        #expect(caps.kitty.graphics && caps.sixel.available && caps.sixel.throughTmux)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "kitty")
        #expect(caps.tmux.passthrough == TmuxPassthrough(paneTop: 2, paneLeft: 10))
        #expect(caps.probe.milliseconds < 200, "the outer DA1 ends the wait")
        let lines = caps.summaryLines
        #expect(lines.contains("tmux passthrough: yes (pane at row 2, column 10; tmux 3.3a)"))
        #expect(lines.contains("outer terminal DA1 (through tmux): 62;4;22"))
        // A driver made for it wraps what it draws.
        let out = ByteBuffer()
        let driver = try #require(VideoDrivers.make("auto", capabilities: caps, options: .init(), clock: .monotonic))
        let image = try TestImages.natural(width: 30, height: 20)
        _ = try driver.render(image, placement: Placement(rect: CellRect(column: 0, row: 0, width: 3, height: 1),
                                                         pictureSize: image.size), mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(out.bytes.starts(with: Array("\u{1B}Ptmux;\u{1B}\u{1B}7\u{1B}\u{1B}[3;11H".utf8)))
    }

    /// The outer terminal's name comes through passthrough too (tmux names itself "tmux 3.3a"):
    /// sixel through tmux to xterm paints what changed (xterm composes images); to a terminal
    /// that does not say, whole pictures. Without passthrough no outer name is believed.
    @Test func withPassthroughTheOuterTerminalNamesItself() throws {
        let wrappedVersion = TmuxPassthrough.wrap(Array("\u{1B}[>0q".utf8))
        #expect(CapabilityProbe.queries(for: Self.tmuxEnvironment).firstRange(of: wrappedVersion) != nil)
        let reply = "\u{1B}[?1;2c\u{1B}P>|tmux 3.3a\u{1B}\\" + Self.dsr + "\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?63;4c"
        let caps = Self.probe(reply, environment: Self.tmuxEnvironment, chunk: 7,
                              tmux: TmuxPane(passthrough: true)).report.capabilities
        #expect(caps.terminal.version == "tmux 3.3a" && caps.tmux.outerVersion == "XTerm(379)")
        #expect(caps.sixel.throughTmux && caps.sixelTerminalVersion == "XTerm(379)")
        #expect(VideoDrivers.sixelRepaint(for: caps) == .changed)
        #expect(caps.summaryLines.contains("outer terminal version (through tmux): XTerm(379)"))
        let silent = Self.probe("\u{1B}[?1;2c\u{1B}P>|tmux 3.3a\u{1B}\\" + Self.dsr + "\u{1B}[?63;4c", environment: Self.tmuxEnvironment,
                                tmux: TmuxPane(passthrough: true)).report.capabilities
        #expect(silent.tmux.outerVersion == nil && VideoDrivers.sixelRepaint(for: silent) == .full)
        let closed = Self.probe(reply, environment: Self.tmuxEnvironment, tmux: TmuxPane(passthrough: false)).report.capabilities
        #expect(closed.tmux.outerVersion == nil, "no passthrough: a reply that slipped through is not believed")
    }

    /// tmux 3.3 answers no XTSMGRAPHICS and no `CSI 16 t`: the outer terminal is asked through
    /// the passthrough (issue 32, item 1: a 1440-px picture xterm's 1000-px limit refused, a black
    /// screen). Its answers cap the picture; its cell size beats tmux's 16×32 placeholder.
    @Test func withPassthroughTheOuterTerminalSaysItsSixelLimitsAndCellSize() throws {
        let outer = "\u{1B}[?2;0;1000;912S\u{1B}[?1;0;256S\u{1B}[6;19;9t\u{1B}[?63;1;2;4;6c"
        let reply = "\u{1B}[?1;2c" + Self.dsr + outer
        func probe(_ reply: String, pixels: (Int, Int), passthrough: Bool = true) -> TerminalCapabilities {
            var terminal = ScriptedTerminal(reply: reply, chunk: 9)
            return CapabilityProbe.probe(scripted: &terminal, environment: Self.tmuxEnvironment,
                                         windowSize: (160, 48, pixels.0, pixels.1)) { _ in TmuxPane(passthrough: passthrough) }.capabilities
        }
        // tmux knows its terminal's pixels: the window's cell size, the outer terminal's limits.
        let known = probe(reply, pixels: (1440, 912))
        #expect(known.sixel.maxGeometry == PixelSize(width: 1000, height: 912) && known.sixel.colorRegisters == 256)
        #expect(known.window.cellSize == CellSize(width: 9, height: 19) && known.window.cellSizeSource == .ioctl)
        #expect(known.summaryLines.contains("sixel max geometry: 1000x912"))
        let geometry = TerminalGeometry(columns: 160, rows: 48, cellSize: known.window.cellSize, maxPicture: known.sixel.effectiveMaxGeometry)
        let placement = PictureGeometry.pixelPlacement(area: CellRect(column: 0, row: 1, width: 160, height: 45), displayAspect: 16.0 / 9,
                                                       geometry: geometry, reservedRows: 0, heightMultiple: 6)
        #expect(placement.pictureSize.width <= 1000 && placement.pictureSize.width >= 990,
                "the 1440-px-wide window's picture is capped to what xterm draws: \(placement.pictureSize)")
        // tmux does not know them yet (16×32 per cell): the outer terminal's answer wins.
        let placeholder = probe(reply, pixels: (160 * 16, 48 * 32))
        #expect(placeholder.window.cellSize == CellSize(width: 9, height: 19) && placeholder.window.cellSizeSource == .terminal)
        // An outer terminal that does not say its cell size (xterm by default): tmux's figure stands.
        let silent = probe("\u{1B}[?1;2c" + Self.dsr + "\u{1B}[?63;1;2;4;6c", pixels: (160 * 16, 48 * 32))
        #expect(silent.window.cellSize == TerminalCapabilities.Tmux.assumedCell && silent.sixel.maxGeometry == nil)
        // Two answers (a tmux with sixel of its own, and the outer terminal): the smaller limit.
        let both = probe("\u{1B}[?1;2c\u{1B}[?2;0;2048;2048S\u{1B}[?1;0;1024S" + Self.dsr + outer, pixels: (1440, 912))
        #expect(both.sixel.maxGeometry == PixelSize(width: 1000, height: 912) && both.sixel.colorRegisters == 256)
        // The queries went to the outer terminal wrapped, before its DA1.
        #expect(CapabilityProbe.queries(for: Self.tmuxEnvironment)
            .firstRange(of: TmuxPassthrough.wrap(CapabilityProbe.outerGeometryQueries)) != nil)
    }

    /// The cell size is read again whenever the window changes (a font change keeps the cells
    /// and changes their pixels; tmux learns its terminal's pixels after a pane started).
    @Test func theCellSizeFollowsTheWindow() {
        var caps = TerminalCapabilities()
        caps.tmux.inside = true
        func update(_ columns: Int, _ rows: Int, _ width: Int, _ height: Int) -> Bool {
            caps.window.update(columns: columns, rows: rows, pixelWidth: width, pixelHeight: height, inTmux: caps.tmux.inside)
        }
        #expect(update(160, 48, 160 * 16, 48 * 32))
        #expect(caps.window.cellSize == TerminalCapabilities.Tmux.assumedCell, "no better figure: tmux's")
        #expect(update(160, 48, 160 * 8, 48 * 15))
        #expect(caps.window.cellSize == CellSize(width: 8, height: 15) && caps.window.cellSizeSource == .ioctl)
        #expect(!update(160, 48, 160 * 8, 48 * 15), "the same size is no change")
        #expect(update(160, 48, 160 * 11, 48 * 22))
        #expect(caps.window.cellSize == CellSize(width: 11, height: 22))
        // Hostile or missing pixels: the terminal's answer, else what it was.
        #expect(!update(160, 48, 0, 0))
        caps.window.cellSizeReply = CellSize(width: 9, height: 19)
        #expect(update(160, 48, 65535, 3))
        #expect(caps.window.cellSize == CellSize(width: 9, height: 19) && caps.window.cellSizeSource == .terminal)
        #expect(!update(0, 48, 1440, 912), "no cells: not a window")
    }

    @Test func withPassthroughASixelOnlyOuterTerminalGetsWrappedSixel() throws {
        let caps = Self.probe("\u{1B}[?1;2c" + Self.dsr + "\u{1B}[?63;4c", environment: Self.tmuxEnvironment,
                              tmux: TmuxPane(passthrough: true)).report.capabilities
        #expect(!caps.kitty.graphics && caps.sixel.available && caps.sixel.throughTmux)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "sixel")
        let driver = try #require(VideoDrivers.make("auto", capabilities: caps, options: .init(), clock: .monotonic))
        let image = try TestImages.natural(width: 30, height: 24)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: Placement(rect: CellRect(column: 0, row: 0, width: 3, height: 2),
                                                         pictureSize: image.size), mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(out.bytes.starts(with: TmuxPassthrough.opening))
    }

    @Test func tmuxWithItsOwnSixelIsNotWrapped() throws {
        let caps = Self.probe("\u{1B}[?1;2;4c" + Self.dsr + "\u{1B}[?62;4c", environment: Self.tmuxEnvironment,
                              tmux: TmuxPane(passthrough: true)).report.capabilities
        #expect(caps.sixel.available && !caps.sixel.throughTmux)
        let driver = try #require(VideoDrivers.make("sixel", capabilities: caps, options: .init(), clock: .monotonic))
        let image = try TestImages.natural(width: 30, height: 24)
        let out = ByteBuffer()
        _ = try driver.render(image, placement: Placement(rect: CellRect(column: 0, row: 0, width: 3, height: 2),
                                                         pictureSize: image.size), mask: CellMask(columns: 80, rows: 24), into: out)
        #expect(out.bytes.starts(with: Escape.cursorPosition(column: 0, row: 0)))
    }

    @Test func aSilentOuterTerminalCostsOnlyTheBudget() {
        let caps = Self.probe("\u{1B}[?1;2c" + Self.dsr, environment: Self.tmuxEnvironment, budget: .milliseconds(120),
                              tmux: TmuxPane(passthrough: true)).report.capabilities
        #expect(caps.probe.milliseconds.rounded() == 120, "the budget on the terminal's clock: \(caps.probe.milliseconds) ms")
        #expect(caps.probe.answered && caps.tmux.allowsPassthrough && !caps.kitty.graphics && !caps.sixel.available)
        #expect(VideoDrivers.resolve("auto", capabilities: caps)?.name == "halfblock")
    }

    @Test func tmuxPaneAnswersAreParsed() {
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|1\n") == TmuxPane(passthrough: true, top: 0, left: 0, version: "3.3a"))
        #expect(TmuxPane(reply: "0|5|10|on|top|3.3a|1") == TmuxPane(passthrough: false, top: 6, left: 10, version: "3.3a"))
        #expect(TmuxPane(reply: "all|4|0|2|top|3.5|1")?.passthrough == true)
        #expect(TmuxPane(reply: "all|4|0|2|top|3.5|1")?.top == 6)
        #expect(TmuxPane(reply: "on|4|0|off|top|3.4|1")?.top == 4)
        #expect(TmuxPane(reply: "|0|0|on|bottom|3.2a|1")?.passthrough == true, "before 3.3 passthrough always worked")
        #expect(TmuxPane(reply: "|0|0|on|bottom||1")?.passthrough == false)
        #expect(TmuxPane(reply: "no server running on /tmp/tmux-0/default") == nil)
        #expect(TmuxPane(reply: "1|99999|0|on|bottom|3.3a|1") == nil)
        #expect(TmuxPane(reply: "1|-3|0|on|bottom|3.3a|1") == nil)
        #expect(TmuxPane(reply: "") == nil)
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|0")?.passthrough == false, "a detached session passes nothing through")
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|")?.passthrough == true)
        // The client's features: RGB means tmux passes 24-bit colour on.
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|1|256,RGB,title,clipboard")?.rgb == true)
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|1|256,title,clipboard")?.rgb == false)
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.1|1|")?.rgb == false)
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|1|RGBX,xRGB")?.rgb == false)
        #expect(TmuxPane(reply: "1|0|0|on|bottom|3.3a|1|a|b") == nil)
    }

    /// A tmux built with sixel (3.5a says `1;2;4`) draws its panes' sixel images only to a
    /// terminal whose features list `sixel`; in kitty 0.41.1 it drew `+` cells where the picture
    /// should be, and `--vo=auto` had chosen sixel. Answers as tmux 3.5a gave them under Xvfb.
    @Test func tmuxsOwnSixelCountsOnlyWhereItsTerminalShowsSixel() {
        let tmuxAnswer = "\u{1B}[?1;2;4c\u{1B}P>|tmux 3.5a\u{1B}\\" + Self.dsr
        let kittyOuter = "\u{1B}P>|kitty(0.41.1)\u{1B}\\" + Self.ok + "\u{1B}[?62;c"
        let kittyFeatures = TmuxPane(reply: "on|0|0|on|bottom|3.5a|1|bpaste,ccolour,clipboard,cstyle,focus,title")
        let xtermFeatures = TmuxPane(reply: "on|0|0|on|bottom|3.5a|1|256,bpaste,ccolour,clipboard,RGB,sixel,title")
        #expect(kittyFeatures?.clientSixel == false && xtermFeatures?.clientSixel == true)
        #expect(TmuxPane(reply: "on|0|0|on|bottom|3.3a|1")?.clientSixel == nil, "no features listed: not known")
        let inKitty = Self.probe(tmuxAnswer + kittyOuter, environment: Self.tmuxEnvironment, tmux: kittyFeatures).report.capabilities
        #expect(!inKitty.sixel.available && inKitty.kitty.graphics)
        #expect(inKitty.summaryLines.contains("sixel: no (tmux has sixel, but its terminal shows none)"))
        #expect(VideoDrivers.resolve("auto", capabilities: inKitty)?.name == "kitty")
        // In xterm tmux draws them itself: sixel, not through the passthrough.
        let inXterm = Self.probe(tmuxAnswer + "\u{1B}P>|XTerm(398)\u{1B}\\\u{1B}[?63;1;2;4;6c", environment: Self.tmuxEnvironment,
                                 tmux: xtermFeatures).report.capabilities
        #expect(inXterm.sixel.available && !inXterm.sixel.throughTmux)
        // A terminal outside with sixel of its own still gets it through the passthrough.
        let throughTmux = Self.probe(tmuxAnswer + "\u{1B}P>|XTerm(398)\u{1B}\\\u{1B}[?63;1;2;4;6c", environment: Self.tmuxEnvironment,
                                     tmux: kittyFeatures).report.capabilities
        #expect(throughTmux.sixel.available && throughTmux.sixel.throughTmux)
        // Without the passthrough nothing outside is asked: no sixel at all.
        var closed = kittyFeatures
        closed?.passthrough = false
        #expect(!Self.probe(tmuxAnswer, environment: Self.tmuxEnvironment, tmux: closed).report.capabilities.sixel.available)
    }

    /// Inside tmux the terminal's own colour answer is tmux's to give: its client's features.
    @Test func inTmuxTruecolorComesFromTheClientsFeatures() {
        let rgb = Self.probe("\u{1B}[?1;2c" + Self.dsr, environment: Self.tmuxEnvironment,
                             tmux: TmuxPane(passthrough: false, rgb: true)).report.capabilities
        #expect(rgb.truecolor && rgb.truecolorSource == .terminal)
        let plain = Self.probe("\u{1B}[?1;2c" + Self.dsr, environment: Self.tmuxEnvironment,
                               tmux: TmuxPane(passthrough: false)).report.capabilities
        #expect(!plain.truecolor)
    }

    // MARK: the tmux query's child process (a stand-in for tmux)

    static func script(_ body: String) throws -> String {
        let path = NSTemporaryDirectory() + "aether-fake-tmux-\(getpid())-\(UUID().uuidString.prefix(6))"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func tmuxQueryReadsTheAnswer() throws {
        let path = try Self.script("echo \"$@\" > \"$0.args\"; echo '1|3|7|on|bottom|3.3a|1'")
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".args") }
        let query = TmuxQuery(environment: Self.tmuxEnvironment, executable: path)
        #expect(query.finish(timeout: .seconds(5)) == TmuxPane(passthrough: true, top: 3, left: 7, version: "3.3a"))
        let args = try String(contentsOfFile: path + ".args", encoding: .utf8)
        #expect(args == "display-message -p -t %0 \(TmuxPane.format)\n")
    }

    /// A tmux that hangs, then answers after 20 s: the query gives up at its deadline, takes no
    /// late answer, and kills the child. (A query that waited past its deadline would return
    /// the answer instead of nil; one that did not kill would leave the child running.) The
    /// child is one process (perl's own sleep), so killing it leaves nothing behind.
    @Test func aTmuxQueryThatHangsIsKilledAtTheDeadline() throws {
        let path = try Self.script("echo $$ > \"$0.pid\"; exec /usr/bin/perl -e 'sleep 20; print q(1|3|7|on|bottom|3.3a|1)'")
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".pid") }
        let query = TmuxQuery(environment: Self.tmuxEnvironment, executable: path)
        #expect(query.finish(timeout: .milliseconds(150)) == nil, "the late answer was waited for")
        if let text = try? String(contentsOfFile: path + ".pid", encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            #expect(kill(pid, 0) != 0, "the child was left running")
        }
    }

    @Test func aMissingOrFailingTmuxIsNoAnswer() throws {
        #expect(TmuxQuery(environment: Self.tmuxEnvironment, executable: "/nonexistent/tmux").finish(timeout: .seconds(1)) == nil)
        let path = try Self.script("echo '1|0|0|on|bottom|3.3a|1'; exit 1")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(TmuxQuery(environment: Self.tmuxEnvironment, executable: path).finish(timeout: .seconds(5)) == nil)
    }
}
