import AetherEngine
import Testing

/// Characters that are not control characters but still make text look other than it is.
@Suite struct TextSanitizerUnicodeTests {
    /// Every character of each class, between two letters: it must go, the letters stay.
    static let classes: [(String, [ClosedRange<UInt32>])] = [
        ("bidi controls", [0x061C...0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069]),
        ("zero-width", [0x200B...0x200D]),
        ("invisible format", [0x2060...0x2064, 0x206A...0x206F, 0xFEFF...0xFEFF, 0x180E...0x180E]),
        ("tag characters", [0xE0000...0xE007F]),
        ("interlinear annotation", [0xFFF9...0xFFFB]),
    ]

    @Test(arguments: classes)
    func everyCharacterOfTheClassIsRemoved(name: String, ranges: [ClosedRange<UInt32>]) {
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let input = "a" + String(Character(scalar)) + "b"
                #expect(TextSanitizer.clean(input) == "ab", "\(name): U+\(String(value, radix: 16, uppercase: true)) kept")
                #expect(TextSanitizer.clean(input, keepNewlines: true) == "ab")
            }
        }
    }

    @Test func lineAndParagraphSeparatorsBecomeNewlinesOnlyWhenKept() {
        #expect(TextSanitizer.clean("one\u{2028}two\u{2029}three") == "one two three")
        #expect(TextSanitizer.clean("one\u{2028}two\u{2029}three", keepNewlines: true) == "one\ntwo\nthree")
    }

    @Test func smuggledTextIsGone() {
        // "evil" spelled in tag characters after a visible word.
        let tags = "evil".unicodeScalars.map { String(Character(Unicode.Scalar(0xE0000 + $0.value)!)) }.joined()
        #expect(TextSanitizer.clean("movie" + tags + ".mkv") == "movie.mkv")
        // A right-to-left override that makes "exe.mkv" show as "vkm.exe".
        #expect(TextSanitizer.clean("clip\u{202E}vkm.exe") == "clipvkm.exe")
        // A byte-order mark at the start of a subtitle and a zero-width joiner inside a word.
        #expect(TextSanitizer.clean("\u{FEFF}Hel\u{200D}lo") == "Hello")
    }

    @Test func visibleTextIsKept() {
        for text in ["Français ✓ 日本語", "emoji 🎬🍿", "Ελληνικά", "עברית", "العربية", "soft\u{00AD}hyphen", "e\u{0301}"] {
            #expect(TextSanitizer.clean(text) == text)
        }
    }

    @Test func escapeAndBidiTogether() {
        #expect(TextSanitizer.clean("evil\u{202E}\u{1B}[31mname.mkv") == "evilname.mkv")
    }
}
