import AetherInput
import AetherTUI
import AetherTestSupport
import Foundation
import Testing

/// `man/aether-tui.1` is hand-written; these tests keep it in step with `--help` (the options) and
/// `KeyMap.helpRows` (the keys), and keep `mandoc -Tlint` silent. They read the page as mandoc
/// renders it (HTML, for its unambiguous section and list structure), not the roff source, so
/// escapes such as `\(<-` compare as the `←` a reader sees.
@Suite(.enabled(if: ManPage.mandoc != nil || ManPage.inCI, "mandoc is not installed (apt-get install mandoc)"))
struct ManPageTests {
    @Test func lintsClean() throws {
        let mandoc = try ManPage.requireMandoc()
        let r = Process.run([mandoc, "-Tlint", "-W", "warning", ManPage.path], timeout: 30)
        #expect(r.stdout + r.stderr == "", "mandoc -Tlint -W warning man/aether-tui.1")
        #expect(r.status == 0)
    }

    @Test func everyHelpOptionIsInTheManPageOptions() throws {
        let documented = ManPage.longOptions(in: try ManPage.sectionText("OPTIONS"))
        for (command, help) in try ManPage.helpOutputs() {
            let missing = ManPage.longOptions(in: help).subtracting(documented)
            #expect(missing.isEmpty, "`aether-tui \(command)` lists \(missing.sorted()) but the man page's OPTIONS section does not")
        }
    }

    @Test func everyManPageOptionIsInSomeHelp() throws {
        let documented = ManPage.longOptions(in: try ManPage.sectionText("OPTIONS"))
        #expect(documented.count > 20, "the OPTIONS section was not found or not parsed")
        var offered: Set<String> = []
        for (_, help) in try ManPage.helpOutputs() { offered.formUnion(ManPage.longOptions(in: help)) }
        let stale = documented.subtracting(offered)
        #expect(stale.isEmpty, "the man page documents \(stale.sorted()), which no --help lists")
    }

    /// An option whose help names its values (`--vo <auto|kitty|…>`) names the same values in the
    /// man page (`.It Fl -vo Cm auto Ns | Ns Cm kitty …`) and in the README's options tables
    /// (`` `--vo auto\|kitty\|…` ``): the outputs, levels and modes a user reads about are the
    /// ones the binary takes.
    @Test func enumeratedValuesAgreeAcrossHelpManPageAndReadme() throws {
        var help: [String: Set<String>] = [:]
        for (_, text) in try ManPage.helpOutputs() { help.merge(ManPage.helpValues(in: text)) { $0.union($1) } }
        #expect(help["--vo"]?.contains("cells") == true, "--vo's help lists the cells output")
        #expect(help.count >= 10, "the help's enumerated options were not found (\(help.keys.sorted()))")
        let man = try ManPage.manValues()
        let readme = try ManPage.readmeValues()
        for (option, values) in help.sorted(by: { $0.key < $1.key }) {
            if let documented = man[option] {
                #expect(documented == values, "\(option): --help says \(values.sorted()), the man page \(documented.sorted())")
            }
            if let documented = readme[option] {
                #expect(documented == values, "\(option): --help says \(values.sorted()), the README \(documented.sorted())")
            }
        }
        let inBoth = Set(help.keys).intersection(man.keys)
        #expect(inBoth.count >= help.count * 3 / 4, "the man page spells out the values of \(inBoth.count) of \(help.count) enumerated options")
    }

    /// Every option `--help` lists is named in the README (its options tables or its text).
    @Test func everyHelpOptionIsInTheReadme() throws {
        let readme = ManPage.longOptions(in: try String(contentsOfFile: ManPage.readmePath, encoding: .utf8))
        for (command, help) in try ManPage.helpOutputs() {
            let missing = ManPage.longOptions(in: help).subtracting(readme).subtracting(["--help", "--version"])
            #expect(missing.isEmpty, "`aether-tui \(command)` lists \(missing.sorted()) but the README does not")
        }
    }

    /// An option's help states its default once: where the parser adds `(default: X)`, the text
    /// itself does not say it again (issue 48, 8: "(default 0.2, as mpv) … (default: 0.2)").
    @Test func eachDefaultIsStatedOnce() throws {
        for (command, help) in try ManPage.helpOutputs() {
            // One block per option: from a line starting with `  -` to the next.
            var blocks: [String] = []
            for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("  -") { blocks.append(String(line)) } else if !blocks.isEmpty { blocks[blocks.count - 1] += " " + line }
            }
            for block in blocks {
                let text = block.split(separator: " ").joined(separator: " ")
                guard let parser = text.range(of: "(default: ") ?? text.range(of: "; default: ") else { continue }
                let own = String(text[..<parser.lowerBound])
                let twice = ["(default ", "(the default", "the default)", "(default)", "(default:"].filter { own.contains($0) }
                #expect(twice.isEmpty, "`aether-tui \(command)`: \(text.prefix(160))… says \(twice) before the parser's default")
            }
        }
    }

    @Test func everyKeyMapRowIsInTheKeysSection() throws {
        let listed = Set(try ManPage.listTags(inSection: "KEYS"))
        for row in KeyMap.helpRows {
            #expect(listed.contains(ManPage.normalised(row.keys)), "KEYS has no entry for \(row.keys) (\(row.description))")
        }
        let keys = try ManPage.sectionText("KEYS")
        #expect(keys.contains("progress bar") && keys.contains("wheel"), "KEYS describes the mouse")
    }

    @Test func keysSectionListsNoKeyTheKeyMapLacks() throws {
        let listed = try ManPage.listTags(inSection: "KEYS")
        let known = Set(KeyMap.helpRows.map { ManPage.normalised($0.keys) })
        #expect(listed.count == KeyMap.helpRows.count, "one KEYS entry per help row")
        for tag in listed { #expect(known.contains(tag), "KEYS lists \(tag), which KeyMap.helpRows does not have") }
    }

    @Test func pageHasTheExpectedSections() throws {
        let html = try ManPage.html()
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "KEYS", "ENVIRONMENT", "FILES",
                        "EXIT_STATUS", "EXAMPLES", "SEE_ALSO"] {
            #expect(html.contains("<h1 class=\"Sh\" id=\"\(section)\">"), "missing section \(section)")
        }
        let environment = try ManPage.sectionText("ENVIRONMENT")
        for variable in ["NO_COLOR", "XDG_CONFIG_HOME", "TERM", "COLORTERM", "TMUX", "AETHER_TUI_THEMES_DIR"] {
            #expect(environment.contains(variable), "ENVIRONMENT lacks \(variable)")
        }
    }
}

/// The rendered man page and the binary's help texts.
enum ManPage {
    static let path = TestEnvironment.root.appendingPathComponent("man/aether-tui.1").path

    /// CI must run these tests, so there a missing mandoc is a failure, not a skip.
    static let inCI: Bool = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty

    static let mandoc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"])
            .map { $0 + "/mandoc" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func requireMandoc() throws -> String {
        guard let mandoc else { throw Missing(description: "mandoc is not installed (apt-get install mandoc)") }
        return mandoc
    }

    /// `mandoc -Thtml -O fragment`: each `.Sh` is an `<h1 class="Sh" id="…">`, each tagged-list
    /// item a `<dt>`.
    static func html() throws -> String {
        let r = Process.run([try requireMandoc(), "-Thtml", "-O", "fragment", path], timeout: 30)
        guard r.status == 0, !r.stdout.isEmpty else { throw Missing(description: "mandoc -Thtml failed: \(r.stderr)") }
        return r.stdout
    }

    /// The HTML of section `id` (`OPTIONS`, `EXIT_STATUS`), subsections included.
    static func sectionHTML(_ id: String) throws -> String {
        let page = try html()
        guard let start = page.range(of: "<h1 class=\"Sh\" id=\"\(id)\">") else {
            throw Missing(description: "the man page has no \(id) section")
        }
        let rest = page[start.upperBound...]
        let end = rest.range(of: "<h1 class=\"Sh\"")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// Section `id` as a reader sees it, whitespace collapsed.
    static func sectionText(_ id: String) throws -> String {
        normalised(text(ofHTML: try sectionHTML(id)))
    }

    /// The tags (`<dt>`) of the tagged lists in section `id`, as text.
    static func listTags(inSection id: String) throws -> [String] {
        let html = try sectionHTML(id)
        var tags: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<dt"), let close = rest.range(of: "</dt>", range: open.upperBound..<rest.endIndex) {
            tags.append(normalised(text(ofHTML: "<dt" + rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return tags
    }

    /// Tags removed, the entities mandoc writes decoded.
    static func text(ofHTML html: String) -> String {
        var out = ""
        var rest = html[...]
        while let lt = rest.firstIndex(of: "<") {
            out += rest[..<lt]
            guard let gt = rest[lt...].firstIndex(of: ">") else { break }
            // No space in place of the tag: `<code>space</code>,` must read "space,". mandoc puts
            // block elements on lines of their own, so words do not run together.
            rest = rest[rest.index(after: gt)...]
        }
        out += rest
        return decodeEntities(out)
    }

    static func decodeEntities(_ s: String) -> String {
        var out = ""
        var rest = s[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[amp...]
            if let semi = tail.firstIndex(of: ";"), tail.distance(from: amp, to: semi) <= 10 {
                let entity = String(tail[tail.index(after: amp)..<semi])
                if let decoded = decode(entity) {
                    out += decoded
                    rest = rest[rest.index(after: semi)...]
                    continue
                }
            }
            out += "&"
            rest = rest[rest.index(after: amp)...]
        }
        return out + rest
    }

    static func decode(_ entity: String) -> String? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let hex = entity.hasPrefix("#x") || entity.hasPrefix("#X")
            let digits = entity.dropFirst(hex ? 2 : 1)
            guard entity.hasPrefix("#"), let value = UInt32(digits, radix: hex ? 16 : 10),
                  let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
    }

    /// Runs of whitespace (no-break spaces included) as one space, trimmed.
    static func normalised(_ s: String) -> String {
        s.split(whereSeparator: { $0.isWhitespace || $0 == "\u{A0}" }).joined(separator: " ")
    }

    /// Every `--long-option` in `text` (an `=value` suffix dropped).
    static func longOptions(in text: String) -> Set<String> {
        let optionCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        var options: Set<String> = []
        for word in text.split(whereSeparator: { !optionCharacters.contains($0) && !("A"..."Z").contains($0) }) {
            guard word.hasPrefix("--"), word.count > 2, word.dropFirst(2).first?.isLetter == true else { continue }
            var option = String(word)
            while option.hasSuffix("-") { option.removeLast() }
            options.insert(option)
        }
        return options
    }

    static let readmePath = TestEnvironment.root.appendingPathComponent("README.md").path

    /// `--option <a|b|c>` in a help text: the option and its values (two or more).
    static func helpValues(in text: String) -> [String: Set<String>] {
        valueLists(in: text, pattern: #"(--[a-z0-9-]+)[ =]<([a-z0-9-]+(?:\|[a-z0-9-]+)+)>"#, separator: "|")
    }

    /// `.It Fl -option Cm a Ns | Ns Cm b Ns | Ns Ar rate` in the roff source: the words of an
    /// entry that names alternatives, literal (`Cm`) and placeholder (`Ar`) alike, as --help
    /// writes both inside its `<…>`.
    static func manValues() throws -> [String: Set<String>] {
        let macros: Set<Substring> = ["Cm", "Ar", "Ns", "|", "Op", "Oo", "Oc", "Pq", "Ql", "Fl"]
        var values: [String: Set<String>] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where line.hasPrefix(".It Fl -") {
            let words = line.split(separator: " ")
            guard words.count > 3, line.contains("|"), words[3] == "Cm" || words[3] == "Ar" else { continue }
            let listed = words[3...].filter { !macros.contains($0) }.flatMap { $0.split(separator: "|") }
                .filter { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }.map(String.init)
            if listed.count >= 2 { values["-" + words[2], default: []].formUnion(listed) }
        }
        return values
    }

    /// `` `--option a\|b\|c` `` in the README's tables.
    static func readmeValues() throws -> [String: Set<String>] {
        valueLists(in: try String(contentsOfFile: readmePath, encoding: .utf8),
                   pattern: #"`(--[a-z0-9-]+)[ =]([a-z0-9-]+(?:\\\|[a-z0-9-]+)+)`"#, separator: "\\|")
    }

    private static func valueLists(in text: String, pattern: String, separator: String) -> [String: Set<String>] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [:] }
        var values: [String: Set<String>] = [:]
        let ns = text as NSString
        for match in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let option = ns.substring(with: match.range(at: 1))
            let listed = ns.substring(with: match.range(at: 2)).components(separatedBy: separator)
            values[option, default: []].formUnion(listed)
        }
        return values
    }

    /// `--help` of the top-level command and of each subcommand, keyed by the arguments given.
    static func helpOutputs() throws -> [(String, String)] {
        try [["--help"], ["play", "--help"], ["probe", "--help"], ["inspect", "--help"], ["caps", "--help"], ["extract", "--help"], ["download", "--help"]].map { arguments in
            let r = Process.run([TestEnvironment.binary] + arguments, timeout: 30)
            guard r.status == 0, !r.stdout.isEmpty else {
                throw Missing(description: "aether-tui \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
            }
            return (arguments.joined(separator: " "), r.stdout)
        }
    }
}
