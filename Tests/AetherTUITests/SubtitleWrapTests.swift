@testable import AetherScreen
@testable import AetherTUI
import Foundation
import Testing

/// The subtitle overlay's word-wrap: right lines, linear time, once per cue.
// A runaway (a budget that stops nothing) fails at the limit; the budgets themselves are
// judged by counts (what is listed, left out, read), not by the clock.
@Suite(.timeLimit(.minutes(1))) struct SubtitleWrapTests {
    @Test func wrapsAtWordsAndCutsLongWords() {
        #expect(DisplayWidth.wrap("hello world", to: 5) == ["hello", "world"])
        #expect(DisplayWidth.wrap("hello world", to: 11) == ["hello world"])
        #expect(DisplayWidth.wrap("a bb ccc dddd", to: 6) == ["a bb", "ccc", "dddd"])
        #expect(DisplayWidth.wrap("abcdefghij", to: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrap("xy abcdefghij z", to: 4) == ["xy", "abcd", "efgh", "ij z"])
        #expect(DisplayWidth.wrap("  many   spaces  here ", to: 40) == ["many spaces here"])
        #expect(DisplayWidth.wrap("one\ntwo three\n\nfour", to: 5) == ["one", "two", "three", "four"])
        #expect(DisplayWidth.wrap("", to: 5).isEmpty)
        #expect(DisplayWidth.wrap("abc", to: 0).isEmpty)
    }

    @Test func wideCharactersTakeTwoColumns() {
        // 日本語 is six columns.
        #expect(DisplayWidth.wrap("日本語 日本語", to: 6) == ["日本語", "日本語"])
        #expect(DisplayWidth.wrap("日本語日本語", to: 5) == ["日本", "語日", "本語"])
        #expect(DisplayWidth.wrap("e\u{0301}e\u{0301}e\u{0301}", to: 2) == ["e\u{0301}e\u{0301}", "e\u{0301}"])
    }

    @Test func everyLineFitsAndNothingIsLost() {
        let text = (0..<500).map { i in String(repeating: "w", count: i % 23 + 1) }.joined(separator: " ")
        for width in [10, 17, 40, 96] {
            let lines = DisplayWidth.wrap(text, to: width)
            #expect(lines.allSatisfy { DisplayWidth.of($0) <= width })
            #expect(lines.joined(separator: " ").split(separator: " ").joined() == text.split(separator: " ").joined())
        }
    }

    /// A 4 MiB single-line cue (issue 9: quadratic inside the terminal lock, q took > 1 s) wraps
    /// whole. Its time is printed, not asserted (a unit test holds no wall-clock bound: a wrap
    /// gone quadratic again runs into the suite's time limit).
    @Test(arguments: [("words", "lorem ipsum "), ("one word", "x")])
    func fourMebibytesWrapWhole(name: String, unit: String) {
        let text = String(repeating: unit, count: 4 * 1024 * 1024 / unit.utf8.count)
        let clock = ContinuousClock()
        var lines: [String] = []
        let elapsed = clock.measure { lines = DisplayWidth.wrap(text, to: 96) }
        print("4 MiB \(name): wrapped in \(elapsed)")
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 96 })
        #expect(lines.reduce(0) { $0 + $1.utf8.count } >= text.utf8.count * 9 / 10)
    }

    @Test func aCueIsWrappedOncePerWidth() {
        var cache = SubtitleWrapCache()
        let text = String(repeating: "lorem ipsum ", count: 100_000)
        let first = cache.lines(start: 1, end: 2, text: text, width: 80)
        for _ in 0..<50 { #expect(cache.lines(start: 1, end: 2, text: text, width: 80) == first) }
        #expect(cache.wraps == 1)
        _ = cache.lines(start: 1, end: 2, text: text, width: 40)
        #expect(cache.wraps == 2, "a new width wraps again")
        // Another cue at the same times (another track) with text of the same length is not confused.
        let other = cache.lines(start: 1, end: 2, text: "other cue", width: 80)
        #expect(other == ["other cue"] && cache.wraps == 3)
    }

    @Test func cachedLinesAreSanitised() {
        var cache = SubtitleWrapCache()
        #expect(cache.lines(start: 0, end: 1, text: "a\u{1B}[31mb\u{202E}c\u{2028}d", width: 20) == ["abc", "d"])
    }
}
