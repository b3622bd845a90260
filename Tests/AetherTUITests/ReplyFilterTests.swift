import AetherCommands
import AetherControl
@testable import AetherInput
import AetherScreen
@testable import AetherTUI
import TerminalGraphics
import Testing

/// Terminal replies that arrive after the probe must never be read as keys (over ssh they did:
/// speed fell to 0.46×, volume rose to 130 %, help opened).
@Suite struct ReplyFilterTests {
    /// A read as ncurses returns it when it knows no key for the bytes: one character each.
    static func read(_ text: String) -> [TerminalInput] { text.unicodeScalars.map { .character($0.value) } }

    /// Feeds `reads` one after another, `interval` seconds apart; returns the commands they make
    /// and the keys that got through.
    static func run(_ reads: [[TerminalInput]], interval: Double = 0.01) -> (commands: [PlayerCommand], keys: [Key]) {
        var filter = ReplyFilter()
        var keys: [Key] = []
        for (n, read) in reads.enumerated() {
            keys += filter.feed(read, now: 100 + Double(n) * interval).compactMap(Key.init)
        }
        return (keys.compactMap(KeyMap.command(for:)), keys)
    }

    static let replies: [(String, String)] = [
        ("DA1 (xterm vt340)", "\u{1B}[?63;1;2;4;6;9;15;16;17;18;21;22;28c"),
        ("DA1 (tmux)", "\u{1B}[?1;2c"),
        ("cell size CSI 6 t", "\u{1B}[6;20;10t"),
        ("text area CSI 4 t", "\u{1B}[4;600;800t"),
        ("screen CSI 8 t", "\u{1B}[8;24;80t"),
        ("cursor position CSI R", "\u{1B}[12;40R"),
        ("XTSMGRAPHICS colours", "\u{1B}[?1;0;256S"),
        ("XTSMGRAPHICS geometry", "\u{1B}[?2;0;1000;1000S"),
        ("DECRPM ?2026", "\u{1B}[?2026;2$y"),
        ("DSR", "\u{1B}[0n"),
        ("DCS DECRQSS", "\u{1B}P1$r0;1m\u{1B}\\"),
        ("DCS XTGETTCAP", "\u{1B}P1+r544e=787465726d\u{1B}\\"),
        ("OSC colour, ST", "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\"),
        ("OSC colour, BEL", "\u{1B}]10;rgb:ffff/ffff/ffff\u{07}"),
        ("kitty APC OK", "\u{1B}_Gi=31;OK\u{1B}\\"),
        ("kitty APC error", "\u{1B}_Gi=31;EINVAL:Zero width/height not allowed\u{1B}\\"),
        ("C1 CSI", "\u{9B}?62;4c"),
        ("SS3", "\u{1B}OP"),
    ]

    @Test(arguments: replies)
    func aReplyMakesNoCommand(name: String, reply: String) {
        let r = Self.run([Self.read(reply)])
        #expect(r.commands.isEmpty, "\(name) became \(r.commands)")
        #expect(r.keys.isEmpty, "\(name) became keys \(r.keys)")
    }

    /// XTSMGRAPHICS and DA1 answers are handed on whole (the player asks the terminal outside
    /// tmux for its sixel limits again after a resize, issue 32 item 1, and checks with a DA1
    /// that its pictures got through tmux); no other reply is, and an overlong one is swallowed
    /// like any other sequence. The capabilities take the limits from the bytes.
    @Test func sixelLimitAndAttributesRepliesAreHandedOnWhole() {
        var filter = ReplyFilter()
        let out = filter.feed(Self.read("q\u{1B}[?2;0;1000;912S\u{1B}[?1;0;256S\u{1B}[6;19;9t\u{1B}[?63;4c\u{1B}[>41;379;0c"), now: 100)
        #expect(out == [.character(0x71), .reply(Array("\u{1B}[?2;0;1000;912S".utf8)), .reply(Array("\u{1B}[?1;0;256S".utf8)),
                        .reply(Array("\u{1B}[?63;4c".utf8))])
        let long = "\u{1B}[?2;0;" + String(repeating: "9", count: 40) + "S"
        let swallowed = filter.feed(Self.read(long), now: 101)
        #expect(swallowed.isEmpty, "an overlong reply is swallowed")
        var caps = TerminalCapabilities()
        caps.sixel.maxGeometry = PixelSize(width: 2000, height: 2000)
        var changed = false
        for case .reply(let bytes) in out.dropLast() { changed = caps.sixel.takeLimits(from: bytes) || changed }
        let attributes = caps.sixel.takeLimits(from: Array("\u{1B}[?63;4c".utf8))
        #expect(!attributes, "a DA1 is no sixel limit")
        #expect(changed && caps.sixel.maxGeometry == PixelSize(width: 1000, height: 912) && caps.sixel.colorRegisters == 256,
                "a later answer replaces the limit (another terminal may have attached)")
        let same = caps.sixel.takeLimits(from: Array("\u{1B}[?2;0;1000;912S".utf8))
        #expect(!same, "the same limits are no change")
        let hostile = caps.sixel.takeLimits(from: Array("\u{1B}[?2;0;0;99999S".utf8))
        #expect(!hostile, "out of range: not taken")
        #expect(caps.sixel.maxGeometry == PixelSize(width: 1000, height: 912))
    }

    @Test func theWholeProbeAnswerInOneReadMakesNoCommand() {
        let all = Self.replies.map(\.1).joined()
        #expect(Self.run([Self.read(all)]).keys.isEmpty)
    }

    @Test func keysAroundARepliesStillWork() {
        let r = Self.run([Self.read("["), Self.read("\u{1B}[?62;4c\u{1B}[4;600;800t"), Self.read("]"), Self.read("q")])
        #expect(r.commands == [.multiply("speed", 1 / 1.1), .multiply("speed", 1.1), .quit(code: 0, watchLater: false)])
        // Keys typed in the same read as a reply (a paste, a fast typist over ssh) too.
        #expect(Self.run([Self.read("9\u{1B}[?62;4c0")]).commands == [.add("volume", -2), .add("volume", 2)])
    }

    @Test func aLoneEscapeIsTheEscapeKey() {
        #expect(Self.run([Self.read("\u{1B}")]).keys == [.escape])
        #expect(Self.run([Self.read("\u{1B}\u{1B}")]).keys == [.escape, .escape])
        #expect(Self.run([Self.read("\u{1B}"), Self.read("q")]).commands == [.quit(code: 0, watchLater: false)])
    }

    @Test func ncursesKeysPassThrough() {
        let r = Self.run([[.key(.left)], Self.read("\u{1B}[?62c"), [.key(.right)]])
        #expect(r.keys == [.left, .right])
    }

    @Test func aReplySplitAcrossReadsIsStillSwallowed() {
        // Cut inside the sequence: the rest continues it.
        #expect(Self.run([Self.read("\u{1B}[?63;1;2"), Self.read(";4c")]).keys.isEmpty)
        #expect(Self.run([Self.read("\u{1B}_Gi=31;"), Self.read("OK\u{1B}"), Self.read("\\")]).keys.isEmpty)
        // Cut right after ESC (ncurses gave up after its escape delay): the ESC counts as the
        // Escape key, but the rest, arriving as one read soon after, is no keys.
        let r = Self.run([Self.read("\u{1B}"), Self.read("[?63;1;2;4c")], interval: 0.1)
        #expect(r.keys == [.escape] && r.commands.isEmpty)
        #expect(Self.run([Self.read("\u{1B}"), Self.read("]11;rgb:0/0/0\u{07}")], interval: 0.1).commands.isEmpty)
    }

    @Test func aKeyTypedAfterEscapeIsAKey() {
        // One key per read: `[` after Escape is the speed key, even soon after.
        #expect(Self.run([Self.read("\u{1B}"), Self.read("[")], interval: 0.1).commands == [.multiply("speed", 1 / 1.1)])
        // Long after a lone ESC, a read starting with `[` is the user's.
        #expect(Self.run([Self.read("\u{1B}"), Self.read("[]")], interval: 2).commands == [.multiply("speed", 1 / 1.1), .multiply("speed", 1.1)])
    }

    @Test func anAbandonedSequenceStopsSwallowing() {
        // An unterminated string, then nothing for longer than staleAfter: typing works again.
        let r = Self.run([Self.read("\u{1B}]11;rgb:00"), Self.read("0")], interval: ReplyFilter.staleAfter + 0.5)
        #expect(r.commands == [.add("volume", 2)])
        // However long a reply is, all of it is swallowed, and what follows its end is keys.
        let long = "\u{1B}[" + String(repeating: "1;", count: 5000) + "c"
        #expect(Self.run([Self.read(long + "q")]).commands == [.quit(code: 0, watchLater: false)])
        let string = "\u{1B}P" + String(repeating: "0", count: 100_000) + "\u{1B}\\"
        #expect(Self.run([Self.read(string + "q")]).commands == [.quit(code: 0, watchLater: false)])
    }

    @Test func escapeThenAKeyInOneReadIsBothKeys() {
        // Escape then q within ncurses' escape delay: no reply starts with ESC q.
        #expect(Self.run([Self.read("\u{1B}q")]).keys == [.escape, .character("q")])
        #expect(Self.run([Self.read("\u{1B}\r")]).keys == [.escape, .enter])
    }

    @Test func aMalformedSequenceKeepsWhatBrokeIt() {
        // A CSI broken by a carriage return: the sequence is dropped, the Enter kept.
        #expect(Self.run([Self.read("\u{1B}[12\r")]).keys == [.enter])
        // A string broken by ESC + something other than `\`: the string is dropped, and what
        // follows is read afresh.
        #expect(Self.run([Self.read("\u{1B}]11;x\u{1B}q")]).keys == [.escape, .character("q")])
    }

    /// kitty's graphics replies arrive late over a slow link, and through tmux's passthrough
    /// after tmux's own replies (the probe may be over by then): none may become keys.
    @Test func lateKittyRepliesAreSwallowed() {
        // The outer terminal's answer through tmux: kitty's OK, then its DA1, in one read.
        #expect(Self.run([Self.read("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;4;22c")]).keys.isEmpty)
        // An error reply (colon, spaces) split over three reads.
        #expect(Self.run([Self.read("\u{1B}_Gi=31;ENOTSUP"), Self.read("PORTED:no graphics here\u{1B}"), Self.read("\\")]).keys.isEmpty)
        // A reply to a picture (a terminal that ignores q=2) with a long image id.
        #expect(Self.run([Self.read("\u{1B}_Gi=1097167976,p=1;OK\u{1B}\\")]).keys.isEmpty)
        // ncurses gave up after ESC: the ESC is the Escape key, the rest of the reply no keys.
        let split = Self.run([Self.read("\u{1B}"), Self.read("_Gi=31;OK\u{1B}\\")], interval: 0.1)
        #expect(split.keys == [.escape] && split.commands.isEmpty)
        // Keys after a reply still work.
        #expect(Self.run([Self.read("\u{1B}_Gi=31;OK\u{1B}\\"), Self.read("q")]).commands == [.quit(code: 0, watchLater: false)])
        #expect(Self.run([Self.read("\u{1B}_Gi=31;OK\u{1B}\\q")]).commands == [.quit(code: 0, watchLater: false)])
    }
}
