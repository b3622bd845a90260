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
