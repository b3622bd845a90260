import AetherControl
@testable import AetherInput
@testable import AetherTUI
import Testing

/// Mouse reports as the terminal sends them once any-motion (1003) and SGR (1006) are on:
/// decoded by ``ReplyFilter`` into ``MouseReport``s, never into keys, whatever arrives.
@Suite struct MouseReportTests {
    static func read(_ text: String) -> [TerminalInput] { text.unicodeScalars.map { .character($0.value) } }

    static func mice(_ inputs: [TerminalInput]) -> [MouseReport] {
        inputs.compactMap { if case .mouse(let m) = $0 { m } else { nil } }
    }

    static func feed(_ reads: [String], start: Double = 100, interval: Double = 0.01) -> [TerminalInput] {
        var filter = ReplyFilter()
        var out: [TerminalInput] = []
        for (n, r) in reads.enumerated() { out += filter.feed(read(r), now: start + Double(n) * interval) }
        return out
    }

    @Test func sgrReportsAreDecoded() {
        let out = Self.feed(["\u{1B}[<35;10;5M", "\u{1B}[<0;10;24M", "\u{1B}[<32;40;24M", "\u{1B}[<0;41;24m",
                             "\u{1B}[<64;3;3M", "\u{1B}[<65;3;3M", "\u{1B}[<2;1;1M"])
        #expect(Self.mice(out) == [
            MouseReport(action: .motion, button: 3, column: 9, row: 4),
            MouseReport(action: .press, button: 0, column: 9, row: 23),
            MouseReport(action: .motion, button: 0, column: 39, row: 23),
            MouseReport(action: .release, button: 0, column: 40, row: 23),
            MouseReport(action: .wheelUp, button: 3, column: 2, row: 2),
            MouseReport(action: .wheelDown, button: 3, column: 2, row: 2),
            MouseReport(action: .press, button: 2, column: 0, row: 0),
        ], "\(out)")
        #expect(out.count == 7, "only mouse reports: \(out)")
        // With modifiers (shift 4, meta 8, ctrl 16) the button stays; sideways wheel and
        // buttons 8–11 are swallowed.
        #expect(Self.mice(Self.feed(["\u{1B}[<20;2;2M"])) == [MouseReport(action: .press, button: 0, column: 1, row: 1)])
        #expect(Self.feed(["\u{1B}[<66;2;2M\u{1B}[<67;2;2M\u{1B}[<128;2;2M"]).isEmpty)
    }

    @Test func x10ReportsAreDecodedToo() {
        // CSI M, then Cb+32, Cx+32, Cy+32: a press at (10,5), motion with no button, a release.
        let out = Self.feed(["\u{1B}[M \u{2A}\u{25}", "\u{1B}[MC\u{2A}\u{25}", "\u{1B}[M#\u{2B}\u{25}"])
        #expect(Self.mice(out) == [
            MouseReport(action: .press, button: 0, column: 9, row: 4),
            MouseReport(action: .motion, button: 3, column: 9, row: 4),
            MouseReport(action: .release, button: 3, column: 10, row: 4),
        ], "\(out)")
        #expect(out.count == 3)
    }

    @Test func aReportSplitAcrossReadsIsDecodedOnce() {
        let out = Self.feed(["\u{1B}[<35;1", "2;7M"])
        #expect(Self.mice(out) == [MouseReport(action: .motion, button: 3, column: 11, row: 6)] && out.count == 1, "\(out)")
        // Split right after ESC, as a terminal's write can arrive: the lone ESC was already the
        // Escape key (ncurses held it for its escape delay), the rest is still the report.
        let lone = Self.feed(["\u{1B}", "[<0;3;4M"])
        #expect(Self.mice(lone) == [MouseReport(action: .press, button: 0, column: 2, row: 3)], "\(lone)")
        #expect(lone.filter { if case .mouse = $0 { false } else { true } } == [.character(0x1B)], "\(lone)")
    }

    /// Numbers are clamped; more fields or longer parameters than a report has are swallowed
    /// whole, never read as keys.
    @Test func hostileNumbersAndShapesAreClampedOrSwallowed() {
        let huge = Self.mice(Self.feed(["\u{1B}[<35;999999999999;0M"]))
        #expect(huge == [MouseReport(action: .motion, button: 3, column: MouseReport.maxCoordinate, row: 0)], "\(huge)")
        for junk in ["\u{1B}[<35;99999999999999999999999;0M", "\u{1B}[<0;1;2;3;4M", "\u{1B}[<0;1M", "\u{1B}[<;;M", "\u{1B}[<0;1;2:3M", "\u{1B}[<999;5;5M",
                     "\u{1B}[<" + String(repeating: "1", count: 500) + ";1;1M", "\u{1B}[<0;1;1x", "\u{1B}[<1<2;3M",
                     "\u{1B}[M\u{10}\u{10}\u{10}"] {
            let out = Self.feed([junk])
            #expect(out.isEmpty, "\(junk.debugDescription) became \(out)")
        }
        // Keys after a swallowed one still work.
        let after = Self.feed(["\u{1B}[<0;1;2;3;4Mq"])
        #expect(after == [.character(UInt32(UInt8(ascii: "q")))], "\(after)")
    }

    @Test func aFloodOfMotionCostsOneMove() {
        var flood = ""
        for i in 0..<5_000 { flood += "\u{1B}[<35;\(i % 200 + 1);20M" }
        let out = Self.feed([flood + "\u{1B}[<0;7;20M" + flood])
        #expect(Self.mice(out) == [
            MouseReport(action: .motion, button: 3, column: 199, row: 19),
            MouseReport(action: .press, button: 0, column: 6, row: 19),
            MouseReport(action: .motion, button: 3, column: 199, row: 19),
        ], "\(out.count) inputs")
    }

    @Test func mouseReportsNeverBecomeKeysOrCommands() {
        let reports = ["\u{1B}[<35;10;5M", "\u{1B}[<0;10;24M", "\u{1B}[<0;10;24m", "\u{1B}[<64;3;3M", "\u{1B}[M !!"]
        let r = ReplyFilterTests.run(reports.map(Self.read))
        #expect(r.keys.isEmpty && r.commands.isEmpty, "\(r)")
    }

    /// Garbage built from the pieces of reports (and anything else) in random reads: whatever the
    /// filter hands on is in range, and once the garbage stops (a second of quiet) keys work.
    @Test func garbageFuzzStaysInRangeAndKeysRecover() {
        var rng = SplitMix(seed: 0x5EED)
        let pieces = ["\u{1B}", "[", "<", "M", "m", ";", "0", "9", "35", "64", "99999999", "\u{1B}[<", "\u{1B}[M",
                      "\u{9B}", "\u{1B}P", "\u{1B}\\", "\u{07}", "q", " ", "\u{FF}", "\u{10FFFF}", "\u{0}", ":", "?", "\u{1B}]"]
        var filter = ReplyFilter()
        var now = 100.0
        var total = 0
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int(rng.next() % 40) { text += pieces[Int(rng.next() % UInt64(pieces.count))] }
            if rng.next() % 4 == 0 { text += "\u{1B}[<\(rng.next() % 300);\(rng.next());\(rng.next() % 100_000)\(rng.next() % 2 == 0 ? "M" : "m")" }
            let out = filter.feed(Self.read(text), now: now)
            for m in Self.mice(out) {
                total += 1
                #expect((0...MouseReport.maxCoordinate).contains(m.column) && (0...MouseReport.maxCoordinate).contains(m.row), "\(m)")
                #expect((0...3).contains(m.button), "\(m)")
            }
            now += 0.001
        }
        #expect(total > 100, "the fuzz made only \(total) mouse reports")
        let after = filter.feed(Self.read("q"), now: now + 2)
        #expect(after == [.character(UInt32(UInt8(ascii: "q")))], "keys after the garbage: \(after)")
    }

    @Test func theModesAreTurnedOffByTheRestoreSequence() {
        #expect(MouseReport.enableSequence.contains("\u{1B}[?1003h") && MouseReport.enableSequence.contains("\u{1B}[?1006h"))
        for mode in ["1000", "1002", "1003", "1006"] {
            #expect(Display.restoreSequence.contains("\u{1B}[?\(mode)l"), "the restore sequence leaves mode \(mode) on")
            #expect(MouseReport.disableSequence.contains("\u{1B}[?\(mode)l"))
        }
    }
}

/// A small deterministic generator for the fuzz test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
