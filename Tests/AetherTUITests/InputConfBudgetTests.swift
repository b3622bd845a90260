import AetherBase
import AetherCommands
import AetherControl
@testable import AetherInput
@testable import AetherTUI
import Foundation
import Testing

/// `input.conf` under hostile input (issue 19): byte and line budgets, bounded warnings.
struct InputConfBudgetTests {
    @Test func longLinesAndManyBadLinesAreBounded() {
        let long = String(repeating: "x", count: TextBudget.maxLineBytes + 1)
        var text = "RIGHT seek 7\n\(long) seek 1\n"
        for i in 0..<50 { text += "BAD\(i) quit\n" }
        let (bindings, warnings) = InputBindings.load(text: text)
        #expect(bindings.table["RIGHT"] == .seek(7, .relative, .auto))
        #expect(warnings.count == 21, "\(warnings.count)")
        #expect(warnings.first == "input.conf:2: line too long (over 64 KiB)")
        #expect(warnings.last == "input.conf: … and 31 more warnings")
        // Control bytes in a key name never reach the warning.
        let (_, escaped) = InputBindings.load(text: "\u{1B}]52;c;AAAA\u{07} quit\n")
        #expect(escaped.count == 1 && !escaped[0].contains("\u{1B}") && !escaped[0].contains("\u{07}"), "\(escaped)")
    }

    @Test func aFilePastItsBudgetIsReadToTheBudget() throws {
        let dir = NSTemporaryDirectory() + "aether-inputconf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var text = ""
        while text.utf8.count <= InputBindings.maxBytes { text += "k ignore\n" }
        text += "q seek 1\n"
        try text.write(toFile: dir + "/input.conf", atomically: true, encoding: .utf8)
        let (bindings, warnings) = try #require(InputBindings.load(path: dir + "/input.conf"))
        #expect(warnings == ["input.conf: larger than 1 MiB; the rest is left out"])
        #expect(bindings.table["q"] == KeyMap.defaults["q"], "the line past the budget is not read")
        #expect(InputBindings.load(path: dir + "/missing.conf") == nil)
    }
}
