import Foundation
import Testing
@testable import TerminalGraphics

/// 24-bit colour asked of the terminal (XTGETTCAP `RGB`/`Tc`, DECRQSS of a direct-colour SGR,
/// the XTVERSION name) before the environment's hints. The replies are the ones xterm 379,
/// kitty 0.26.5, foot 1.13.1 and mlterm 3.9.0 sent to ``CapabilityProbe/directColorQueries``
/// under Xvfb; then garbage, truncated and hostile ones.
@Suite struct DirectColorProbeTests {
    static let dsr = "\u{1B}[0n"
    /// xterm: no XTGETTCAP answer at all, DECRQSS with the colour space slot.
    static let xterm = "\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\\u{1B}[?64;1;2;6;9;15;16;17;18;21;22;28c" + dsr
    /// kitty: XTGETTCAP "unknown" for both names, DECRQSS without the colour space slot.
    static let kitty = "\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}P0+r524742\u{1B}\\\u{1B}P0+r5463\u{1B}\\\u{1B}P1$r38:2:1:2:3m\u{1B}\\\u{1B}[?62;c" + dsr
    /// foot: `RGB=8` and `Tc`.
    static let foot = "\u{1B}P>|foot(1.13.1)\u{1B}\\\u{1B}P1+r524742=38\u{1B}\\\u{1B}P1+r5463\u{1B}\\\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\\u{1B}[?62;4;22c" + dsr
    /// mlterm: no XTVERSION, XTGETTCAP "unknown" without a name, the colour kept as palette entry 16.
    static let mlterm = "\u{1B}P0+r\u{1B}\\\u{1B}P0+r\u{1B}\\\u{1B}P1$r0;38;5;16m\u{1B}\\\u{1B}[?63;1;2;3;4;6;7;15;18;22;29c" + dsr

    static func probe(_ reply: String, _ environment: TerminalEnvironment = TerminalEnvironment(term: "xterm"),
                      chunk: Int = .max) -> CapabilityProbe.Report {
        var terminal = ScriptedTerminal(reply: reply, chunk: chunk)
        return CapabilityProbe.probe(scripted: &terminal, environment: environment)
    }

    @Test(arguments: [("xterm", xterm, true), ("kitty", kitty, true), ("foot", foot, true), ("mlterm", mlterm, false)])
    func realTerminalsAnswerForThemselves(name: String, reply: String, direct: Bool) {
        // No COLORTERM (as xterm sets none), and replies one byte at a time as well as whole.
        for chunk in [Int.max, 1, 7] {
            let report = Self.probe(reply, chunk: chunk)
            let caps = report.capabilities
            #expect(caps.probe.answered && report.strayInput.isEmpty, "\(name) chunk \(chunk): stray \(report.strayInput)")
            #expect(caps.truecolor == direct && caps.truecolorSource == .terminal,
                    "\(name) chunk \(chunk): truecolor \(caps.truecolor) (\(caps.truecolorSource))")
        }
        let line = "truecolor: \(direct ? "yes" : "no") (reply)"
        #expect(Self.probe(reply).capabilities.summaryLines.contains(line), "\(name): no '\(line)' for aether-tui caps")
    }

    /// The terminal's answer wins over the environment both ways: mlterm under COLORTERM=truecolor
    /// keeps colours as palette entries; xterm without COLORTERM keeps them as RGB.
    @Test func theReplyWinsOverTheEnvironment() {
        let mlterm = Self.probe(Self.mlterm, TerminalEnvironment(term: "xterm", colorTerm: "truecolor")).capabilities
        #expect(!mlterm.truecolor && mlterm.truecolorSource == .terminal)
        // No colour answer at all: the environment decides, as before.
        let silent = Self.probe("\u{1B}[?62;22c" + Self.dsr, TerminalEnvironment(term: "xterm", colorTerm: "truecolor")).capabilities
        #expect(silent.truecolor && silent.truecolorSource == .environment)
        let none = Self.probe("\u{1B}[?62;22c" + Self.dsr).capabilities
        #expect(!none.truecolor && none.truecolorSource == .assumed)
        // Half-block follows: xterm gets 24-bit cells without COLORTERM.
        let xterm = Self.probe(Self.xterm).capabilities
        let cells = VideoDrivers.make("halfblock", capabilities: xterm, options: .init(), clock: .monotonic) as? CellDriver
        #expect(cells?.colorMode == .truecolor, "xterm's half-block: \(String(describing: cells?.colorMode))")
    }

    /// A terminal that answers no colour query but names itself (XTVERSION) as one with 24-bit
    /// colour; not believed from tmux (whose name it would be).
    @Test func aKnownNameIsTheLastReply() {
        let wez = Self.probe("\u{1B}P>|WezTerm 20240203-110809-5046fc22\u{1B}\\\u{1B}[?65;4;6;18;22c" + Self.dsr).capabilities
        #expect(wez.truecolor && wez.truecolorSource == .terminal)
        let other = Self.probe("\u{1B}P>|SomeTerm(1)\u{1B}\\\u{1B}[?62c" + Self.dsr).capabilities
        #expect(!other.truecolor)
    }

    @Test(arguments: [
        ("0;38:2::1:2:3m", true), ("38:2:1:2:3m", true), ("0;38;2;1;2;3m", true), ("1;38:2:0:1:2:3;48;5;4m", true),
        ("0;38;5;16m", false), ("38:5:16m", false), ("0;38:2::9:9:9m", false),
        ("0m", nil), ("m", nil), ("", nil), ("0;38;2;1;2m", nil), ("38:2:1:2:3:4:5:6m", nil), ("38;2;1;2;3", nil),
        ("38;2;99999999999999999999;2;3m", false), ("38:2::x:y:zm", false), (";;;;38;;;m", nil), ("38m", nil),
    ] as [(String, Bool?)])
    func directColorInASetting(text: String, expected: Bool?) {
        #expect(CapabilityProbe.directColor(inSetting: text) == expected, "'\(text)'")
    }

    /// Parameters past the budget are not read: a colour after 32 of them is no answer.
    @Test func settingParametersAreBudgeted() {
        let padded = String(repeating: "0;", count: ReplyLimits.settingParameters) + "38;2;1;2;3m"
        #expect(CapabilityProbe.directColor(inSetting: padded) == nil)
    }

    /// XTGETTCAP: hex decoded, a name that is not hex (or decodes to a control) is no reply,
    /// and at most eight entries are read.
    @Test func termcapRepliesAreParsedWithBounds() {
        var parser = ReplyParser()
        let ok = parser.feed(Array("\u{1B}P1+r524742=38;5463\u{1B}\\".utf8))
        #expect(ok.replies == [.termcap(valid: true, entries: [TermcapEntry(name: "RGB", value: "8"), TermcapEntry(name: "Tc", value: nil)])])
        for bad in ["1+r52474", "1+r5247ZZ", "1+r1B5B41", "1+r524742=0", "1+r=38", "2+r524742", "1-r524742"] {
            var p = ReplyParser()
            let r = p.feed(Array("\u{1B}P\(bad)\u{1B}\\\u{1B}[0n".utf8))
            #expect(r.replies == [.statusReport(0)], "\(bad): \(r.replies)")
            #expect(r.stray == Array("\u{1B}P\(bad)\u{1B}\\".utf8), "\(bad) is handed back as input")
        }
        var many = ReplyParser()
        let body = Array(repeating: "5463", count: 20).joined(separator: ";")
        let m = many.feed(Array("\u{1B}P1+r\(body)\u{1B}\\".utf8))
        guard case .termcap(_, let entries)? = m.replies.first else {
            Issue.record("no termcap reply: \(m.replies)")
            return
        }
        #expect(entries.count == ReplyLimits.termcapEntries)
    }

    /// Garbage and truncated DCS replies: never a colour, never a hang, and the sentinel after
    /// them is still found (a control inside a string ends it; an unterminated one is cut at
    /// the string limit).
    @Test(arguments: [
        "\u{1B}P1$r0;38:2::1:2:3m\u{1B}[0n",                         // ST missing: an ESC ends the string
        "\u{1B}P1$r0;38:2::1:2:3m\u{07}\u{1B}\\\u{1B}[0n",           // BEL inside
        "\u{1B}P1$r" + String(repeating: "38;2;1;2;3;", count: 40) + "m\u{1B}\\\u{1B}[0n",   // over the length limit
        "\u{1B}P1$r0;38:2::1:2:3m",                                  // cut off, no sentinel: the budget ends it
        "\u{1B}P1+r524742=\u{1B}\\\u{1B}[0n",                        // empty value
        "\u{1B}P0$r0;38:2::1:2:3m\u{1B}\\\u{1B}[0n",                 // "invalid request" with a body
        "\u{1B}P1$r0;38:2::1:2:3\u{1B}\\\u{1B}[0n",                  // no final m
        "\u{1B}P1$r\u{1B}\\\u{1B}P1+r\u{1B}\\\u{1B}P\u{1B}\\\u{1B}[0n",
    ])
    func garbageRepliesGiveNoColour(reply: String) {
        let report = Self.probe(reply)
        let caps = report.capabilities
        #expect(!caps.truecolor, "\(reply.debugDescription) claimed truecolor")
        if reply.hasSuffix(Self.dsr) { #expect(caps.probe.answered, "the sentinel after \(reply.debugDescription) was lost") }
        #expect(caps.probe.milliseconds < 1000)
    }

    /// Random mixes of reply fragments, control bytes and noise, split at random places: the
    /// parser never traps, keeps no more than it must, and the sentinel at the end is found.
    @Test func randomFragmentsNeverTrapAndTheSentinelIsFound() {
        let pieces = ["\u{1B}P", "1$r", "0+r", "1+r", "524742", "=38", ";", "38:2::1:2:3", "38;5;16", "m", "\u{1B}\\",
                      "\u{1B}[", "?62;4c", "\u{1B}", "\u{07}", "\u{9B}", ">|XTerm(379)", "\u{1B}_G", "i=31;OK", "\u{FF}", "x"]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(n))
        }
        for round in 0..<300 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + next(40)) { bytes += Array(pieces[next(pieces.count)].utf8) }
            // A complete string terminator and a sentinel the parser must still see.
            bytes += Array("\u{1B}\\\u{1B}[0n".utf8)
            var parser = ReplyParser()
            var replies: [TerminalReply] = []
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + 1 + next(16))
                replies += parser.feed(Array(bytes[i..<end])).replies
                i = end
            }
            #expect(replies.last == .statusReport(0), "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }

    /// The colour queries go out before kitty's and the sentinel, reset the attributes they set,
    /// and are left out where a DCS would reach the wrong terminal (GNU screen) or none (the
    /// Linux console); inside tmux they ask tmux.
    @Test func colourQueriesAreSentWhereTheyAnswerForTheTerminal() throws {
        let q = CapabilityProbe.query
        let colour = try #require(q.firstRange(of: CapabilityProbe.directColorQueries))
        let kitty = try #require(q.firstRange(of: CapabilityProbe.kittyQuery))
        #expect(colour.upperBound <= kitty.lowerBound)
        #expect(CapabilityProbe.directColorQueries.suffix(4) == ArraySlice("\u{1B}[0m".utf8), "SGR reset after the query")
        let screen = CapabilityProbe.queries(for: TerminalEnvironment(term: "screen.xterm-256color"))
        #expect(screen.firstRange(of: Array("\u{1B}P".utf8)) == nil, "no DCS to GNU screen")
        let linux = CapabilityProbe.queries(for: TerminalEnvironment(term: "linux"))
        #expect(linux.firstRange(of: Array("\u{1B}P".utf8)) == nil, "no DCS to the Linux console")
        let tmux = CapabilityProbe.queries(for: TerminalEnvironment(term: "tmux-256color", tmux: "/tmp/s,1,0"))
        #expect(tmux.firstRange(of: CapabilityProbe.directColorQueries) != nil)
    }
}
