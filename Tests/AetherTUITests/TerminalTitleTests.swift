@testable import AetherTUI
import Testing

/// Unit tier: the terminal's title (`--title`) against a manual clock: pushed once, sent only
/// when its text changes, expanded when the item changes and at most once a second otherwise,
/// cleaned of control characters, and again after the terminal's title was given back.
struct TerminalTitleTests {
    @Test func sentWhenItChangesAndNoMoreOftenThanASecond() throws {
        var title = TerminalTitle(template: "${media-title} - aether-tui")
        var properties = ["media-title": "One"]
        var expansions = 0
        func update(_ now: Double, _ item: Int?) -> String? {
            title.update(now: now, item: item) { expansions += 1; return properties[$0] }.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(update(10.0, 0) == "\u{1B}[22;0t\u{1B}]2;One - aether-tui\u{1B}\\")
        #expect(update(10.5, 0) == nil && expansions == 1, "not due for a second")
        #expect(update(11.0, 0) == nil && expansions == 2, "due, the same text: nothing sent")
        properties["media-title"] = "Two\u{1B}]2;x\u{07}"
        #expect(update(11.2, 1) == "\u{1B}]2;Two - aether-tui\u{1B}\\", "a new item: at once, cleaned, not pushed again")
        title.givenBack()
        #expect(update(11.3, 1)?.hasPrefix("\u{1B}[22;0t") == true, "pushed and set again after a suspend")
        var off = TerminalTitle(template: "")
        #expect(off.update(0, item: 0) { _ in "x" } == nil && !off.isEnabled)
    }
}

private extension TerminalTitle {
    mutating func update(_ now: Double, item: Int?, value: (String) -> String?) -> [UInt8]? { update(now: now, item: item, value: value) }
}
