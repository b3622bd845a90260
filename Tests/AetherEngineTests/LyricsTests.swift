@testable import AetherSubtitles
import Foundation
import Testing

/// LRC lyrics (issue 35, item 3): stamps, several per line, `[offset:]`, enhanced word stamps,
/// the line sung at a time, the WebVTT track made from them, and hostile text read within
/// budgets and sanitised. Tier: unit.
@Suite struct LyricsTests {
    static func parse(_ text: String, duration: Double? = nil) -> Lyrics? { Lyrics.parse(Array(text.utf8), duration: duration) }

    @Test func linesStampsAndTags() throws {
        let lyrics = try #require(Self.parse("""
            [ar:Someone]
            [ti:A Song]
            [00:01.00]First line
            [00:05.5]Second line
            [00:12.345][00:20.00]Chorus
            [01:02:50]Late line
            not a stamped line
            [00:30.00]
            """, duration: 70))
        #expect(lyrics.lines.map(\.start) == [1, 5.5, 12.345, 20, 30, 62.5])
        #expect(lyrics.lines.map(\.text) == ["First line", "Second line", "Chorus", "Chorus", "", "Late line"])
        #expect(lyrics.lines.map(\.end) == [5.5, 12.345, 20, 30, 62.5, 70])
        #expect(lyrics.lineIndex(at: 0.5) == nil)
        #expect(lyrics.lineIndex(at: 1) == 0)
        #expect(lyrics.lineIndex(at: 12.3) == 1)
        #expect(lyrics.lineIndex(at: 25) == 3)
        #expect(lyrics.lineIndex(at: 1000) == 5)
        #expect(Self.parse("just words\nno stamps at all") == nil)
        #expect(Self.parse("") == nil)
        // Without the song's length, the last line stays 10 s.
        #expect(Self.parse("[00:03.00]only")?.lines.first?.end == 13)
    }

    @Test func anOffsetShowsTheLinesSoonerOrLater() {
        #expect(Self.parse("[offset:+500]\n[00:02.00]a\n[00:04.00]b")?.lines.map(\.start) == [1.5, 3.5])
        #expect(Self.parse("[offset:-250]\n[00:02.00]a")?.lines.map(\.start) == [2.25])
        // Not before 0; an unusable offset is none.
        #expect(Self.parse("[offset:+5000]\n[00:02.00]a")?.lines.map(\.start) == [0])
        #expect(Self.parse("[offset:lots]\n[00:02.00]a")?.lines.map(\.start) == [2])
    }

    @Test func wordStampsSplitTheLine() throws {
        let lyrics = try #require(Self.parse("[00:10.00]<00:10.00>Never <00:10.50>gonna <00:11.20>give"))
        let line = try #require(lyrics.lines.first)
        #expect(line.text == "Never gonna give")
        #expect(line.words.map(\.start) == [10, 10.5, 11.2])
        #expect(line.words.map(\.text) == ["Never ", "gonna ", "give"])
        // A repeated line's words move with each of its stamps.
        let twice = try #require(Self.parse("[00:10.00][00:20.00]<00:10.00>la <00:10.50>la"))
        #expect(twice.lines.map { $0.words.map(\.start) } == [[10, 10.5], [20, 20.5]])
        // A `<` that is no stamp is text.
        #expect(Self.parse("[00:01.00]I <3 you")?.lines.first?.text == "I <3 you")
    }

    @Test func theSubtitleTrackIsWebVTT() throws {
        let lyrics = try #require(Self.parse("[00:01.00]<00:01.00>a <b> & c\n[00:03.50]next", duration: 5))
        #expect(lyrics.webVTT == "WEBVTT\n\n00:00:01.000 --> 00:00:03.500\na &lt;b&gt; &amp; c\n\n00:00:03.500 --> 00:00:05.000\nnext\n\n")
    }

    @Test func hostileLyricsAreReadWithinBudgetsAndSanitised() throws {
        // Controls, escapes and bidirectional characters never reach a line.
        let dirty = try #require(Self.parse("[00:01.00]\u{1B}[2Jred\u{202E}txet\u{7}\u{0}ok"))
        #expect(dirty.lines.first?.text == "redtxetok")
        // Malformed stamps are no stamps.
        for bad in ["[1:60.00]x", "[aa:bb]x", "[00:01.0000]x", "[99999:00]x", "[00:01.]x", "[:01]x", "[00:1e3]x"] {
            #expect(Self.parse(bad) == nil, "\(bad)")
        }
        // A billion stamps on one line: at most the budget.
        let stamps = String(repeating: "[00:01.00]", count: 100_000) + "x"
        #expect(Self.parse(stamps)?.lines.count == Lyrics.maxStampsPerLine)
        // More lines than the budget: the first ones.
        let many = (0..<(Lyrics.maxLines + 500)).map { String(format: "[%02d:%02d.00]l\($0)", $0 / 60 % 100, $0 % 60) }.joined(separator: "\n")
        #expect(Self.parse(many)?.lines.count == Lyrics.maxLines)
        // Binary: whatever it holds, lines are sanitised text or nothing.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let bytes = Array("[00:01.00]".utf8) + (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
            if let l = Lyrics.parse(bytes) {
                #expect(l.lines.allSatisfy { !$0.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } })
            }
        }
        // A huge file: read up to its budget.
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: Lyrics.maxBytes * 2)
        #expect(Lyrics.parse(huge) == nil)
    }
}

/// ID3 `SYLT` frames (issue 35, item 3): read from a tag's bytes, v2.3 and v2.4, every text
/// encoding, unsynchronisation; what is not milliseconds, compressed, encrypted or cut short is
/// left out, never fatal. Tier: unit.
@Suite struct ID3SyncedLyricsTests {
    static func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
    static func be32(_ n: Int) -> [UInt8] { [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }

    /// A tag of one SYLT frame with `entries` in `encoding` (0 Latin-1, 1 UTF-16 with BOM, 2
    /// UTF-16BE, 3 UTF-8); `format` 2 is milliseconds.
    static func tag(_ entries: [(String, Int)], version: UInt8 = 4, encoding: UInt8 = 3, format: UInt8 = 2, frameFlags: [UInt8] = [0, 0]) -> [UInt8] {
        func text(_ s: String) -> [UInt8] {
            switch encoding {
            case 0: return s.unicodeScalars.map { UInt8($0.value & 0xFF) } + [0]
            case 1: return [0xFF, 0xFE] + s.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0, 0]
            case 2: return s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + [0, 0]
            default: return Array(s.utf8) + [0]
            }
        }
        var body: [UInt8] = [encoding] + Array("eng".utf8) + [format, 1] + text("desc")
        for (s, ms) in entries { body += text(s) + be32(ms) }
        let frame = Array("SYLT".utf8) + (version == 4 ? syncsafe(body.count) : be32(body.count)) + frameFlags + body
        return Array("ID3".utf8) + [version, 0, 0] + syncsafe(frame.count + 10) + frame + [UInt8](repeating: 0, count: 10)
    }

    @Test func entriesInEveryEncodingAndVersion() {
        let entries = [("Één", 1000), ("twee", 2500)]
        for version: UInt8 in [3, 4] {
            for encoding: UInt8 in [0, 1, 2, 3] {
                let read = ID3SyncedLyrics.entries(Self.tag(entries, version: version, encoding: encoding))
                #expect(read.map(\.text) == ["Één", "twee"] && read.map(\.ms) == [1000, 2500], "v2.\(version) encoding \(encoding): \(read)")
            }
        }
    }

    @Test func linesAndWordsFromTheEntries() throws {
        // Each entry a line.
        let lines = try #require(Lyrics.synced([(1000, "one"), (2500, "two")], duration: 4))
        #expect(lines.lines.map(\.text) == ["one", "two"] && lines.lines.map(\.start) == [1, 2.5] && lines.lines.last?.end == 4)
        // Syllables: an entry that begins a line (a line break first) starts one.
        let words = try #require(Lyrics.synced([(1000, "Hel"), (1300, "lo "), (1600, "you"), (3000, "\nnext "), (3500, "line")]))
        #expect(words.lines.map(\.text) == ["Hello you", "next line"])
        #expect(words.lines.map { $0.words.map(\.start) } == [[1, 1.3, 1.6], [3, 3.5]])
        #expect(Lyrics.synced([]) == nil)
    }

    @Test func whatCannotBeReadIsLeftOut() {
        let good = Self.tag([("a", 1000)])
        #expect(ID3SyncedLyrics.entries(good).count == 1)
        #expect(ID3SyncedLyrics.entries(Self.tag([("a", 1000)], format: 1)).isEmpty, "MPEG frames")
        #expect(ID3SyncedLyrics.entries(Self.tag([("a", 1000)], frameFlags: [0, 0x08])).isEmpty, "compressed")
        #expect(ID3SyncedLyrics.entries(Array(good.prefix(30))).isEmpty, "cut short")
        #expect(ID3SyncedLyrics.entries(Array("ID2".utf8) + Array(good.dropFirst(3))).isEmpty, "not a tag")
        var huge = good
        huge[6...9] = [0x7F, 0x7F, 0x7F, 0x7F][...]
        #expect(ID3SyncedLyrics.entries(huge).isEmpty, "past the budget")
        // v2.4 unsynchronisation: FF 00 in the frame stands for FF.
        var unsync = Self.tag([("\u{FF}x", 1000)], encoding: 0, frameFlags: [0, 0x02])
        if let k = unsync.firstIndex(of: 0xFF) { unsync.insert(0, at: k + 1); unsync[17] += 1; unsync[9] += 1 }  // the frame and tag sizes grow by the byte
        #expect(ID3SyncedLyrics.entries(unsync).map(\.text) == ["\u{FF}x"])
    }

    @Test func unsyncedTextIsShownNeverHighlighted() throws {
        let l = try #require(Lyrics.unsynced("first verse\nsecond verse\u{1B}[31m\n\nthird"))
        #expect(!l.isSynced && l.lines.map(\.text) == ["first verse", "second verse", "third"])
        #expect(l.lineIndex(at: 100) == nil)
        #expect(l.window(rows: 2, at: 50).map { $0.map(\.emphasis) } == [[.other], [.other]])
        #expect(Lyrics.unsynced("\n \n") == nil)
    }
}
