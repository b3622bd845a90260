@testable import AetherControl
import Testing

/// Unit tier: mpv's property expansion (`--title`), against a table of properties.
@Suite struct PropertyExpansionTests {
    static let properties = ["media-title": "Film", "filename": "film.mkv", "pause": "no", "volume": "70"]
    func expand(_ template: String) -> String { PropertyExpansion.expand(template) { Self.properties[$0] } }

    @Test func mpvsFormsExpandAsMpvDoes() {
        #expect(expand("${media-title} - aether-tui") == "Film - aether-tui")
        #expect(expand("${nosuch}") == "(unavailable)")
        #expect(expand("${nosuch:}") == "")
        #expect(expand("${nosuch:fallback ${filename}}") == "fallback film.mkv")
        #expect(expand("${media-title:unused}") == "Film")
        // mpv's default title, with and without a title.
        let mpvDefault = "${?media-title:${media-title}}${!media-title:No file} - aether-tui"
        #expect(expand(mpvDefault) == "Film - aether-tui")
        #expect(PropertyExpansion.expand(mpvDefault) { _ in nil } == "No file - aether-tui")
        #expect(expand("${?pause==yes:(paused) }${filename}") == "film.mkv")
        #expect(expand("${!pause==yes:playing }${filename}") == "playing film.mkv")
        #expect(expand("${=volume}%") == "70%")
        #expect(expand("$$5 $} ${filename}$> ${filename}") == "$5 } film.mkv ${filename}")
        #expect(expand("a$") == "a$")
        #expect(expand("${?media-title:$}}") == "}")
    }

    @Test func malformedTextIsKeptAndBudgetsHold() {
        #expect(expand("${media-title") == "${media-title")
        #expect(expand("x ${?media-title:open") == "x ${?media-title:open")
        #expect(expand("${a:${filename}") == "${a:${filename}")
        // Nesting past the depth limit is left as written, not followed.
        let deep = String(repeating: "${x:", count: 40) + "y" + String(repeating: "}", count: 40)
        #expect(expand(deep).count <= PropertyExpansion.maxLength)
        #expect(expand(deep).hasPrefix("${x:"))
        let wide = String(repeating: "${media-title}", count: 10_000)
        #expect(expand(wide).count == PropertyExpansion.maxLength)
        let huge = PropertyExpansion.expand("${a}${a}") { _ in String(repeating: "z", count: 100_000) }
        #expect(huge.count == PropertyExpansion.maxLength)
    }
}
