@testable import AetherScreen
import AetherTestSupport
import AetherTUI
import AetherThemes
import Foundation
import Testing

/// The `.theme` format, the shipped themes, the search path, NO_COLOR and colour reduction.
@Suite struct ThemeTests {
    static let themesDirectory = TestEnvironment.root.appendingPathComponent("themes")
    /// Where `swift build` would put the binary; only its location matters (walking up finds `themes/`).
    static let repoExecutable = TestEnvironment.root.appendingPathComponent(".build/debug/aether-tui").path
    static let required = ["default", "light", "solarized-dark", "high-contrast", "mono"]

    static func shipped() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: themesDirectory.path)
            .filter { $0.hasSuffix(".theme") }.map { String($0.dropLast(6)) }.sorted()
    }

    static func text(of name: String) throws -> String {
        try String(contentsOf: themesDirectory.appendingPathComponent("\(name).theme"), encoding: .utf8)
    }

    static func shippedTheme(_ name: String) throws -> Theme {
        try ThemeLoader.parse(text(of: name), name: name, file: "themes/\(name).theme")
    }

    /// A fresh directory under the system temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aether-theme-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// The error `body` throws; fails the test if it does not throw.
    static func error(_ body: () throws(ThemeError) -> Theme) -> ThemeError? {
        do {
            let theme = try body()
            Issue.record("expected a ThemeError, got theme \(theme.name)")
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Shipped themes

    @Test func theRequiredThemesShip() throws {
        let names = try Self.shipped()
        for name in Self.required { #expect(names.contains(name), "themes/\(name).theme is missing") }
    }

    @Test(arguments: try shipped())
    func shippedThemeParsesAndSetsEveryRole(name: String) throws {
        let text = try Self.text(of: name)
        _ = try ThemeLoader.parse(text, name: name, file: "themes/\(name).theme")
        let keys = Set(text.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { return nil }
            return trimmed[..<equals].trimmingCharacters(in: .whitespaces)
        })
        let missing = ThemeRole.allCases.map(\.rawValue).filter { !keys.contains($0) }
        #expect(missing.isEmpty, "themes/\(name).theme leaves \(missing) to the default theme")
        let theme = try ThemeLoader.load(name, environment: [:], executablePath: Self.repoExecutable)
        #expect(theme.name == name)
        #expect(theme == (try Self.shippedTheme(name)), "lookup by name finds the repository's themes/\(name).theme")
    }

    @Test func builtinDefaultMatchesThemesDefaultFile() throws {
        let file = try Self.shippedTheme("default")
        for role in ThemeRole.allCases {
            #expect(Theme.builtinDefault[role] == file[role], "\(role.rawValue): builtinDefault differs from themes/default.theme")
        }
        #expect(Theme.builtinDefault == file)
    }

    @Test func highContrastUsesOnlyBrightColoursOnBlackOrWhite() throws {
        let theme = try Self.shippedTheme("high-contrast")
        for role in ThemeRole.allCases {
            let style = theme[role]
            guard case .index(let fg) = style.foreground, case .index(let bg) = style.background else {
                Issue.record("\(role.rawValue): high-contrast must name both colours from the palette, got \(style)")
                continue
            }
            #expect((9...15).contains(fg), "\(role.rawValue): foreground \(fg) is not a bright colour (bright-black excluded)")
            #expect([0, 7, 15].contains(bg), "\(role.rawValue): background \(bg) is not black or white")
            #expect(!style.dim, "\(role.rawValue): dim lowers contrast")
        }
    }

    @Test func monoUsesNoColourAndIsItsOwnNoColorForm() throws {
        let mono = try Self.shippedTheme("mono")
        for role in ThemeRole.allCases {
            #expect(mono[role].foreground == .terminalDefault && mono[role].background == .terminalDefault, "\(role.rawValue)")
        }
        #expect(mono.withoutColor() == mono)
        #expect(mono[.menuSelected].reverse, "mono still marks the selection")
    }

    @Test func defaultWithoutColourLooksLikeMono() throws {
        let mono = try Self.shippedTheme("mono")
        let plain = Theme.builtinDefault.withoutColor()
        for role in ThemeRole.allCases {
            #expect(plain[role] == mono[role], "\(role.rawValue): default under NO_COLOR should equal mono")
        }
    }

    // MARK: - NO_COLOR

    @Test func withoutColorKeepsAttributesAndDropsEveryColour() throws {
        let light = try Self.shippedTheme("light")
        let plain = light.withoutColor()
        #expect(plain.name == "light")
        for role in ThemeRole.allCases {
            #expect(plain[role].foreground == .terminalDefault)
            #expect(plain[role].background == .terminalDefault)
            #expect(plain[role].bold == light[role].bold)
            #expect(plain[role].dim == light[role].dim)
            #expect(plain[role].reverse == light[role].reverse)
            #expect(plain[role].underline == light[role].underline)
        }
    }

    @Test func noColorMeansSetAndNotEmpty() {
        #expect(ThemeLoader.noColorRequested(environment: ["NO_COLOR": "1"]))
        #expect(ThemeLoader.noColorRequested(environment: ["NO_COLOR": "0"]), "any non-empty value counts")
        #expect(!ThemeLoader.noColorRequested(environment: ["NO_COLOR": ""]))
        #expect(!ThemeLoader.noColorRequested(environment: [:]))
    }

    // MARK: - The format

    @Test func valueGrammar() throws {
        let theme = try ThemeLoader.parse("""
            # comment
              # indented comment
            title = red
            status = Bright-Blue on #00FF7f bold underline   # trailing comment
            time = 208 on default dim reverse
            badge = reverse
            menu = default#
            help=green
            warning\t=\tyellow\tbold
            """, name: "t", file: "t.theme")
        #expect(theme.name == "t")
        #expect(theme[.title] == ThemeStyle(foreground: .index(1)))
        #expect(theme[.status] == ThemeStyle(foreground: .index(12), background: .rgb(0, 255, 127), bold: true, underline: true))
        #expect(theme[.time] == ThemeStyle(foreground: .index(208), dim: true, reverse: true))
        #expect(theme[.badge] == ThemeStyle(reverse: true))
        #expect(theme[.menu] == ThemeStyle())
        #expect(theme[.help] == ThemeStyle(foreground: .index(2)))
        #expect(theme[.warning] == ThemeStyle(foreground: .index(3), bold: true))
    }

    @Test func missingRolesInheritTheBuiltinDefault() throws {
        let theme = try ThemeLoader.parse("title = red\n", name: "partial", file: "partial.theme")
        #expect(theme[.title] == ThemeStyle(foreground: .index(1)))
        for role in ThemeRole.allCases where role != .title {
            #expect(theme[role] == Theme.builtinDefault[role], "\(role.rawValue)")
        }
        #expect(try ThemeLoader.parse("", name: "empty", file: "empty.theme")[.menuSelected] == Theme.builtinDefault[.menuSelected])
    }

    @Test func windowsLineEndingsAndByteOrderMark() throws {
        let theme = try ThemeLoader.parse("\u{FEFF}title = red\r\n# c\r\ntime = blue bold\r\n", name: "crlf", file: "crlf.theme")
        #expect(theme[.title] == ThemeStyle(foreground: .index(1)))
        #expect(theme[.time] == ThemeStyle(foreground: .index(4), bold: true))
    }

    @Test func errorsNameFileAndLine() throws {
        let text = (1...6).map { _ in "# padding" }.joined(separator: "\n") + "\ntitle = purpel\n"
        let e = try #require(Self.error { () throws(ThemeError) in try ThemeLoader.parse(text, name: "x", file: "themes/x.theme") })
        #expect(e.description == "themes/x.theme:7: unknown colour 'purpel'")
        #expect(e.kind == .badColor && e.file == "themes/x.theme" && e.line == 7)
    }

    @Test(arguments: [
        ("title = red\nfoo = blue", 2, ThemeError.Kind.unknownKey, "unknown key 'foo'"),
        ("progres.played = blue", 1, .unknownKey, "unknown key 'progres.played' (did you mean 'progress.played'?)"),
        ("title = red\n\ntitle = blue", 3, .duplicateKey, "'title' is already set on line 1"),
        ("title red", 1, .syntax, "expected 'key = value', found 'title red'"),
        ("title =", 1, .syntax, "missing value for 'title'"),
        (" = red", 1, .syntax, "missing key before '='"),
        ("title = #ff00", 1, .badColor, "bad colour '#ff00' (expected #rrggbb)"),
        ("title = #gg0000", 1, .badColor, "bad colour '#gg0000' (expected #rrggbb)"),
        ("title = 256", 1, .badColor, "colour index '256' is out of range (0-255)"),
        ("title = bright-rde", 1, .badColor, "unknown colour 'bright-rde' (did you mean 'bright-red'?)"),
        ("title = red bolt", 1, .syntax, "unknown attribute 'bolt' (expected bold, dim, reverse or underline) (did you mean 'bold'?)"),
        ("title = red on", 1, .syntax, "missing background colour after 'on'"),
        ("title = red on purpel", 1, .badColor, "unknown colour 'purpel'"),
        ("title = on red", 1, .syntax, "missing foreground colour before 'on'"),
        ("title = red blue", 1, .syntax, "unexpected colour 'blue' (write 'FG on BG')"),
        ("title = bold on red", 1, .syntax, "'on BG' must follow the foreground colour, before any attribute"),
        ("title = red \u{1B}[31m", 1, .syntax, "unknown attribute '\\u{1b}[31m' (expected bold, dim, reverse or underline)"),
    ])
    func badInput(text: String, line: Int, kind: ThemeError.Kind, message: String) throws {
        let e = try #require(Self.error { () throws(ThemeError) in try ThemeLoader.parse(text, name: "bad", file: "bad.theme") })
        #expect(e.kind == kind)
        #expect(e.description == "bad.theme:\(line): \(message)")
    }

    // MARK: - Finding themes

    @Test func userThemeWinsOverBundled() throws {
        let config = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        try Self.write("title = red\n", to: config.appendingPathComponent("aether-tui/themes/light.theme"))
        let bundled = try ThemeLoader.load("light", environment: [:], executablePath: Self.repoExecutable)
        #expect(bundled == (try Self.shippedTheme("light")))
        let user = try ThemeLoader.load("light", environment: ["XDG_CONFIG_HOME": config.path], executablePath: Self.repoExecutable)
        #expect(user.name == "light")
        #expect(user[.title] == ThemeStyle(foreground: .index(1)))
        #expect(user[.menu] == Theme.builtinDefault[.menu], "unset roles come from the built-in default, not the bundled light theme")

        // ~/.config when XDG_CONFIG_HOME is unset, or relative (which the XDG spec says to ignore).
        let home = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        try Self.write("title = green\n", to: home.appendingPathComponent(".config/aether-tui/themes/light.theme"))
        for environment in [["HOME": home.path], ["HOME": home.path, "XDG_CONFIG_HOME": "relative/config"]] {
            let fromHome = try ThemeLoader.load("light", environment: environment, executablePath: Self.repoExecutable)
            #expect(fromHome[.title] == ThemeStyle(foreground: .index(2)))
        }
    }

    @Test func userThemeErrorsNameTheFoundFile() throws {
        let config = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        let file = config.appendingPathComponent("aether-tui/themes/mine.theme")
        try Self.write("# mine\ntitle = red\nmenu = magneta\n", to: file)
        let e = try #require(Self.error { () throws(ThemeError) in
            try ThemeLoader.load("mine", environment: ["XDG_CONFIG_HOME": config.path], executablePath: Self.repoExecutable)
        })
        #expect(e.description == "\(file.path):3: unknown colour 'magneta' (did you mean 'magenta'?)")
    }

    @Test func bundledDirectoriesInOrder() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // An installed layout: prefix/bin/aether-tui and prefix/share/aether-tui/themes.
        let executable = root.appendingPathComponent("prefix/bin/aether-tui").path
        try Self.write("title = red\n", to: root.appendingPathComponent("prefix/share/aether-tui/themes/installed.theme"))
        try Self.write("title = blue\n", to: root.appendingPathComponent("prefix/share/aether-tui/themes/both.theme"))
        try Self.write("title = green\n", to: root.appendingPathComponent("env/both.theme"))
        let environment = ["AETHER_TUI_THEMES_DIR": root.appendingPathComponent("env").path]

        #expect(try ThemeLoader.load("installed", environment: [:], executablePath: executable)[.title].foreground == .index(1))
        #expect(try ThemeLoader.load("both", environment: [:], executablePath: executable)[.title].foreground == .index(4))
        #expect(try ThemeLoader.load("both", environment: environment, executablePath: executable)[.title].foreground == .index(2),
                "AETHER_TUI_THEMES_DIR comes before the installed share directory")
        #expect(ThemeLoader.available(environment: environment, executablePath: executable) == ["both", "default", "installed"])

        // No themes directory anywhere: only the built-in default.
        let bare = try ThemeLoader.load("default", environment: [:], executablePath: executable)
        #expect(bare == Theme.builtinDefault)
        #expect(try ThemeLoader.load("default", environment: [:], executablePath: "aether-tui") == Theme.builtinDefault)
    }

    @Test func executableFoundThroughASymlink() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write("title = red\n", to: root.appendingPathComponent("opt/share/aether-tui/themes/linked.theme"))
        try Self.write("", to: root.appendingPathComponent("opt/bin/aether-tui"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("usr/bin"), withIntermediateDirectories: true)
        let link = root.appendingPathComponent("usr/bin/aether-tui").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root.appendingPathComponent("opt/bin/aether-tui").path)
        #expect(try ThemeLoader.load("linked", environment: [:], executablePath: link)[.title].foreground == .index(1))
    }

    @Test func availableListsShippedAndUserThemes() throws {
        let config = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        try Self.write("", to: config.appendingPathComponent("aether-tui/themes/zebra.theme"))
        try Self.write("", to: config.appendingPathComponent("aether-tui/themes/notes.txt"))
        let names = ThemeLoader.available(environment: ["XDG_CONFIG_HOME": config.path], executablePath: Self.repoExecutable)
        #expect(names == (try Self.shipped() + ["zebra"]).sorted())
    }

    @Test func unknownNameListsWhatIsAvailable() throws {
        let e = try #require(Self.error { () throws(ThemeError) in
            try ThemeLoader.load("purple", environment: ["HOME": "/nonexistent-home"], executablePath: Self.repoExecutable)
        })
        #expect(e.kind == .notFound)
        #expect(e.description.hasPrefix("no theme named 'purple' (available: default, high-contrast, light, mono, solarized-dark"))
        #expect(e.description.hasSuffix("; your own themes go in /nonexistent-home/.config/aether-tui/themes)"))
    }

    @Test func pathLoading() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sunset.theme")
        try Self.write("title = #ff8700 bold\n", to: file)
        let byPath = try ThemeLoader.load(file.path, environment: [:], executablePath: Self.repoExecutable)
        #expect(byPath.name == "sunset")
        #expect(byPath[.title] == ThemeStyle(foreground: .rgb(255, 135, 0), bold: true))

        // A path without the .theme extension (it contains "/"), and ~/ expansion.
        let other = directory.appendingPathComponent("dusk.txt")
        try Self.write("time = red\n", to: other)
        #expect(try ThemeLoader.load(other.path, environment: [:], executablePath: Self.repoExecutable)[.time].foreground == .index(1))
        let tilde = try ThemeLoader.load("~/sunset.theme", environment: ["HOME": directory.path], executablePath: Self.repoExecutable)
        #expect(tilde == byPath)

        // The repository file by path.
        let light = try ThemeLoader.load(Self.themesDirectory.appendingPathComponent("light.theme").path,
                                         environment: [:], executablePath: "aether-tui")
        #expect(light == (try Self.shippedTheme("light")))

        // Errors keep the path as the user wrote it.
        try Self.write("title = red\nmenu = nope\n", to: file)
        let e = try #require(Self.error { () throws(ThemeError) in
            try ThemeLoader.load("~/sunset.theme", environment: ["HOME": directory.path], executablePath: Self.repoExecutable)
        })
        #expect(e.description == "~/sunset.theme:2: unknown colour 'nope'")
    }

    @Test func unreadableFiles() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func failure(_ path: String) -> ThemeError? {
            Self.error { () throws(ThemeError) in try ThemeLoader.load(path, environment: [:], executablePath: "aether-tui") }
        }
        let missing = directory.appendingPathComponent("missing.theme").path
        #expect(failure(missing)?.description == "\(missing): No such file or directory")
        #expect(failure(missing)?.kind == .unreadable)
        #expect(failure(directory.path + "/")?.description == "\(directory.path)/: Is a directory")
        let binary = directory.appendingPathComponent("binary.theme")
        try Data([0x74, 0xFF, 0xFE, 0x00]).write(to: binary)
        #expect(failure(binary.path)?.description == "\(binary.path): not UTF-8 text")
        #expect(failure("/dev/zero")?.description.hasSuffix("not a theme file") == true)
    }

    // MARK: - Colour reduction

    @Test func xterm256NearestColour() {
        #expect(ThemeColor.rgb(0xFF, 0, 0).xterm256Index == 196)
        #expect(ThemeColor.rgb(0x80, 0x80, 0x80).xterm256Index == 244)
        #expect(ThemeColor.rgb(0, 0, 0).xterm256Index == 16)
        #expect(ThemeColor.rgb(0xFF, 0xFF, 0xFF).xterm256Index == 231)
        #expect(ThemeColor.rgb(0xEE, 0xEE, 0xEE).xterm256Index == 255)
        #expect(ThemeColor.rgb(0x12, 0x12, 0x12).xterm256Index == 233)
        #expect(ThemeColor.rgb(0x5F, 0x87, 0xAF).xterm256Index == 67)
        #expect(ThemeColor.rgb(0x26, 0x8B, 0xD2).xterm256Index == 32, "solarized blue → #0087d7")
        #expect(ThemeColor.rgb(0xFE, 0x01, 0x02).xterm256Index == 196)
        #expect(ThemeColor.index(42).xterm256Index == 42)
        #expect(ThemeColor.index(3).xterm256Index == 3)
        #expect(ThemeColor.terminalDefault.xterm256Index == nil)
        #expect(ThemeColor.index(300).xterm256Index == nil)
    }

    @Test func exactCubeAndGreyValuesMapExactly() {
        let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
        for (r, red) in levels.enumerated() {
            for (g, green) in levels.enumerated() {
                for (b, blue) in levels.enumerated() {
                    #expect(ThemeColor.rgb(red, green, blue).xterm256Index == 16 + 36 * r + 6 * g + b)
                }
            }
        }
        for i in 0..<24 {
            let level = UInt8(8 + 10 * i)
            #expect(ThemeColor.rgb(level, level, level).xterm256Index == 232 + i)
        }
    }

    @Test func smallerPalettes() {
        #expect(ThemeColor.rgb(0xFF, 0, 0).paletteIndex(colors: 256) == 196)
        #expect(ThemeColor.rgb(0xFF, 0, 0).paletteIndex(colors: 16) == 9)
        #expect(ThemeColor.rgb(0xFF, 0, 0).paletteIndex(colors: 8) == 1)
        #expect(ThemeColor.rgb(0x80, 0x80, 0x80).paletteIndex(colors: 16) == 8)
        #expect(ThemeColor.index(14).paletteIndex(colors: 16) == 14)
        #expect(ThemeColor.index(14).paletteIndex(colors: 8) == 6, "bright colours fold onto their basic form")
        #expect(ThemeColor.index(196).paletteIndex(colors: 16) == 9)
        #expect(ThemeColor.index(21).paletteIndex(colors: 8) == 4, "#0000ff is blue")
        #expect(ThemeColor.index(255).paletteIndex(colors: 16) == 7, "#eeeeee is nearer xterm's white #e5e5e5 than #ffffff")
        #expect(ThemeColor.index(231).paletteIndex(colors: 16) == 15)
        #expect(ThemeColor.index(1).paletteIndex(colors: 2) == nil)
        #expect(ThemeColor.terminalDefault.paletteIndex(colors: 256) == nil)
    }
}
