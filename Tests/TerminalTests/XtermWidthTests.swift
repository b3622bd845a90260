import AetherScreen
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The player's cell grid counts text as xterm draws it (#60 item 9, terminals tier): each text
/// is printed in a real xterm (its UTF-8 locale, its own width table), which then says where its
/// cursor stands (a cursor position report); the columns it moved are the player's width of the
/// text (``DisplayWidth``, what the grid and every view lay text out by). Titles, track names and
/// subtitles in Thai, Devanagari, Arabic and CJK, with their combining marks and wide characters.
@Suite(.serialized) struct XtermWidthTests {
    static let texts = ["สวัสดีครับ", "नमस्ते दुनिया", "مَرْحَبًا بِكُم", "日本語の章", "한국어 자막", "ｆｕｌｌ ｗｉｄｔｈ",
                        "e\u{301}t\u{E9} caf\u{E9}", "ภาษาไทย (th) – เสียง 5.1", "हिन्दी उपशीर्षक"]

    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func theGridsWidthIsXterms() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aether-xterm-width-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Each text on a line of its own from column 1, then a cursor position report (CSI 6 n),
        // its answer read back from the terminal in raw mode and kept in a file of its own (an
        // xterm started again writes the same files). Then the script waits for input that never
        // comes, keeping the window until the test closes it.
        var script = "stty raw -echo\n"
        for (n, text) in Self.texts.enumerated() {
            try text.write(toFile: "\(dir)/\(n).txt", atomically: true, encoding: .utf8)
            script += "printf '\\r\\n'; cat '\(dir)/\(n).txt'; printf '\\033[6n'; IFS= read -r -d R reply; printf '%s' \"${reply#*;}\" > '\(dir)/\(n).column'\n"
        }
        script += "touch '\(dir)/done'; exec cat > /dev/null\n"
        try script.write(toFile: "\(dir)/measure.sh", atomically: true, encoding: .utf8)
        let x = try XtermSession(command: "bash '\(dir)/measure.sh'", columns: 80, rows: 24)
        defer { x.stop() }
        #expect(waitUntil(20, interval: 0.05) { FileManager.default.fileExists(atPath: "\(dir)/done") }, "xterm answered no report")
        let reports = Self.texts.indices.map { n in (try? String(contentsOfFile: "\(dir)/\(n).column", encoding: .utf8)).flatMap { Int($0) } }
        for (text, column) in zip(Self.texts, reports) {
            // The report's column is 1-based: the text took one less.
            let xterm = try #require(column) - 1
            #expect(DisplayWidth.of(text) == xterm, "'\(text)': the grid counts \(DisplayWidth.of(text)) columns, xterm drew \(xterm)")
        }
    }
}
