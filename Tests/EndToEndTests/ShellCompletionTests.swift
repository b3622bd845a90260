import AetherTestSupport
import Foundation
import Testing

/// #61 item 5: the completion scripts the package installs (`aether-tui
/// --generate-completion-script SHELL`) complete in each shell as a user expects: bash through
/// `COMP_WORDS` and the completion function (with and without bash-completion's loader), fish
/// through `complete -C`, zsh through its completion system on a tmux pane (`list-choices`).
/// What is expected comes from the parser's own description of the options
/// (`--experimental-dump-help`), so a new option is held to it too. Tier: cli.
@Suite(.serialized) struct ShellCompletionTests {
    /// A folder to complete in, the three scripts, and the parser's description.
    final class Setting: @unchecked Sendable {
        let folder: String
        let scripts: String
        let commands: [String: [[String: Any]]]
        /// The themes `--theme=help` names.
        let themes: Set<String>
        /// A PATH that finds the binary under test first (the theme names are asked of it).
        let path = (TestEnvironment.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"

        init() throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("aether-completion-\(UUID().uuidString)").path
            folder = base + "/media"
            scripts = base + "/scripts"
            for dir in [folder + "/subs", scripts] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            for name in ["h264.mkv", "h265.mp4", "notes.txt"] {
                FileManager.default.createFile(atPath: folder + "/" + name, contents: Data())
            }
            for (shell, file) in [("bash", "aether-tui.bash"), ("zsh", "_aether-tui"), ("fish", "aether-tui.fish")] {
                let r = Process.run([TestEnvironment.binary, "--generate-completion-script", shell], timeout: 10)
                try #require(r.status == 0, "\(shell): \(r.stderr)")
                try r.stdout.write(toFile: scripts + "/" + file, atomically: true, encoding: .utf8)
            }
            let dump = Process.run([TestEnvironment.binary, "--experimental-dump-help"], timeout: 10)
            let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
            let command = try #require(root["command"] as? [String: Any])
            var commands: [String: [[String: Any]]] = [:]
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                commands[sub["commandName"] as? String ?? ""] = sub["arguments"] as? [[String: Any]] ?? []
            }
            self.commands = commands
            let listed = Process.run([TestEnvironment.binary, "--theme=help"], timeout: 10).stdout
            themes = Set(listed.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { String($0.dropFirst(2)) })
        }

        deinit { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }

        /// Every spelling of `command`'s options (`--vo`, `-o` …).
        func spellings(_ command: String) -> [String] {
            (commands[command] ?? []).flatMap { argument -> [String] in
                (argument["names"] as? [[String: String]] ?? []).map { $0["kind"] == "long" ? "--" + ($0["name"] ?? "") : "-" + ($0["name"] ?? "") }
            }
        }

        /// `command`'s options that list their values, with the values.
        func enumerated(_ command: String) -> [(option: String, values: [String])] {
            (commands[command] ?? []).compactMap { argument in
                guard argument["kind"] as? String == "option", let values = argument["allValues"] as? [String],
                      let name = (argument["preferredName"] as? [String: String])?["name"] else { return nil }
                return ("--" + name, values)
            }
        }
    }

    /// A line typed up to the Tab, and the candidates it must offer: exactly these (folders
    /// without their `/`).
    struct Case: CustomStringConvertible, Sendable {
        let line: String
        let expected: Set<String>
        var description: String { "'\(line)'" }
    }

    static let outputs: Set = ["auto", "kitty", "sixel", "cells", "halfblock", "null"]

    /// The cases every shell is held to.
    static func cases(_ setting: Setting) -> [Case] {
        let play = setting.spellings("play"), probe = setting.spellings("probe")
        var cases = [
            // The first word: files and folders; a subcommand once the word begins one.
            Case(line: "aether-tui h26", expected: ["h264.mkv", "h265.mp4"]),
            Case(line: "aether-tui ", expected: ["h264.mkv", "h265.mp4", "notes.txt", "subs"]),
            Case(line: "aether-tui pr", expected: ["probe"]),
            Case(line: "aether-tui --vo sixel pr", expected: ["probe"]),
            Case(line: "aether-tui h264.mkv pr", expected: []),
            Case(line: "aether-tui play pr", expected: []),
            // Every option of the command beginning so.
            Case(line: "aether-tui --v", expected: Set(play.filter { $0.hasPrefix("--v") })),
            Case(line: "aether-tui probe --", expected: Set(probe.filter { $0.hasPrefix("--") })),
            // Values: the outputs, paths, folders, nothing for a time.
            Case(line: "aether-tui --vo ", expected: outputs),
            Case(line: "aether-tui --vo=", expected: outputs),
            Case(line: "aether-tui --vo=k", expected: ["kitty"]),
            Case(line: "aether-tui --sub-file ", expected: ["h264.mkv", "h265.mp4", "notes.txt", "subs"]),
            Case(line: "aether-tui --config-dir ", expected: ["subs"]),
            Case(line: "aether-tui --start ", expected: []),
            Case(line: "aether-tui probe --log-file no", expected: ["notes.txt"]),
            Case(line: "aether-tui extract -o h", expected: ["h264.mkv", "h265.mp4"]),
            Case(line: "aether-tui help ", expected: ["play", "probe", "inspect", "caps", "extract", "download", "help"]),
            // The names `--theme=help` lists, asked of the program when the shell completes.
            Case(line: "aether-tui --theme ", expected: setting.themes),
            Case(line: "aether-tui --equalizer ", expected: ["flat", "bass", "treble", "vocal", "loudness", "acoustic", "electronic", "speech"]),
            Case(line: "aether-tui --equalizer=v", expected: ["vocal"]),
        ]
        // Every enumerated option of play and probe, its values.
        for (command, prefix) in [("play", "aether-tui "), ("probe", "aether-tui probe ")] {
            for (option, values) in setting.enumerated(command) {
                cases.append(Case(line: prefix + option + " ", expected: Set(values)))
            }
        }
        return cases
    }

    @Test func theDescriptionNamesWhatTheTestsRelyOn() throws {
        let setting = try Setting()
        let play = Set(setting.spellings("play"))
        #expect(play.isSuperset(of: ["--vo", "--volume", "--vid", "--version", "--sub-file", "--config-dir"]))
        #expect(setting.enumerated("play").contains { $0.option == "--vo" && Set($0.values) == Self.outputs })
        #expect(setting.enumerated("play").count >= 15, "play's enumerated options: \(setting.enumerated("play").map(\.option))")
        #expect(setting.themes.isSuperset(of: ["default", "light", "mono"]), "--theme=help: \(setting.themes)")
    }

    /// An option whose value is a path completes paths: its declaration says so
    /// (`completion: .file()` or `.directory`), which a new path option must too.
    @Test func everyPathOptionCompletesPaths() throws {
        let setting = try Setting()
        var unmarked: [String] = []
        for (command, arguments) in setting.commands {
            for argument in arguments where argument["kind"] as? String == "option" {
                let valueName = (argument["valueName"] as? String ?? "").lowercased()
                guard ["path", "file", "dir"].contains(where: valueName.contains) else { continue }
                // Files, folders, or a command that lists the names (`--theme`'s).
                let kind = argument["completionKind"] as? [String: Any] ?? [:]
                if kind["file"] == nil && kind["directory"] == nil && kind["shellCommand"] == nil {
                    unmarked.append("\(command) --\((argument["preferredName"] as? [String: String])?["name"] ?? "?")")
                }
            }
        }
        #expect(unmarked.isEmpty, "path options without a file completion: \(unmarked.sorted())")
    }

    // MARK: bash

    /// The words bash hands the function for `line` (COMP_WORDBREAKS splits at `=`).
    static func compWords(_ line: String) -> [String] {
        var words: [String] = []
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            guard let equals = word.firstIndex(of: "="), word.hasPrefix("-") else { words.append(String(word)); continue }
            words += [String(word[..<equals]), "="]
            let rest = word[word.index(after: equals)...]
            if !rest.isEmpty { words.append(String(rest)) }
        }
        return words
    }

    static func bash(_ setting: Setting, _ cases: [Case], loader: Bool) throws -> [[String]] {
        func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var script = loader ? "source /usr/share/bash-completion/bash_completion\n" : ""
        script += "source \(quote(setting.scripts + "/aether-tui.bash"))\ncd \(quote(setting.folder))\nPATH=\(quote(setting.path))\n"
        for c in cases {
            let words = compWords(c.line)
            script += "COMP_WORDS=(\(words.map(quote).joined(separator: " "))); COMP_CWORD=\(words.count - 1)\n"
            script += "COMP_LINE=\(quote(c.line)); COMP_POINT=${#COMP_LINE}; COMPREPLY=()\n"
            script += "_aether_tui; printf '%s\\t' \"${COMPREPLY[@]}\"; echo\n"
        }
        let r = Process.run(["/usr/bin/bash", "--norc", "--noprofile", "-c", script], timeout: 60)
        try #require(r.status == 0, "bash: \(r.stderr)")
        return r.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix(cases.count).map { line in
            line.split(separator: "\t").map { String($0).hasSuffix("/") ? String($0.dropLast()) : String($0) }
        }
    }

    @Test(arguments: [false, true])
    func bashCompletes(withBashCompletion loader: Bool) throws {
        if loader {
            try #require(FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion"),
                         "bash-completion missing (install-deps.sh installs it)")
        }
        let setting = try Setting()
        let cases = Self.cases(setting)
        let offered = try Self.bash(setting, cases, loader: loader)
        for (c, got) in zip(cases, offered) {
            #expect(Set(got) == c.expected, "bash \(loader ? "with" : "without") bash-completion, \(c): \(got.sorted())")
        }
    }

    // MARK: fish

    @Test func fishCompletes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "fish missing (install-deps.sh installs it)")
        let setting = try Setting()
        for c in Self.cases(setting) {
            let command = "source \(setting.scripts)/aether-tui.fish; cd \(setting.folder); complete -C '\(c.line)'"
            let r = Process.run(["/usr/bin/fish", "--no-config", "-c", command], environment: ["HOME": setting.folder, "PATH": setting.path], timeout: 30)
            #expect(r.status == 0, "fish, \(c): \(r.stderr)")
            let word = c.line.split(separator: " ", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            // `--vo=` completes to `--vo=auto`: the value is what follows the word's `=`.
            let prefix = word.hasPrefix("-") && word.contains("=") ? String(word[...word.firstIndex(of: "=")!]) : ""
            let got = r.stdout.split(separator: "\n").map { line -> String in
                var candidate = String(line.split(separator: "\t").first ?? "")
                if candidate.hasPrefix(prefix) { candidate.removeFirst(prefix.count) }
                return candidate.hasSuffix("/") ? String(candidate.dropLast()) : candidate
            }
            #expect(Set(got) == c.expected, "fish, \(c): \(got.sorted())")
        }
    }

    // MARK: zsh

    /// What zsh lists for `line` (`list-choices`, ^D at the end of the line): each candidate
    /// of the listing below the prompt, without its description.
    static func zshListing(_ pane: TmuxSession, _ line: String, listsSomething: Bool) -> [String]? {
        pane.send("C-u")
        pane.send("C-l")
        guard pane.waitFor(5, { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "%" }) else { return nil }
        pane.send("-l", line)
        pane.send("C-d")
        // The pane's rows come without their trailing spaces.
        let prompt = "% " + line
        let typed = String(prompt.reversed().drop { $0 == " " }.reversed())
        // A listing to come waits for its first row: a completion that runs the program
        // (`--theme`, `--equalizer`) takes as long as the program starts (a sanitized build, a
        // loaded machine), longer than the screen's stillness shows.
        let listed: (String) -> Bool = { !listsSomething || $0.split(separator: "\n").count > 1 }
        guard pane.waitFor(5, { $0.hasPrefix(typed) && listed($0) }),
              let screen = pane.waitForStill(5, gap: 0.3, { $0.hasPrefix(typed) }) else { return nil }
        return screen.split(separator: "\n").dropFirst().flatMap { row -> [String] in
            let row = String(row)
            // `--vo  -- Video output`, or words in columns; names that share a description
            // share its line.
            let names = row.range(of: " -- ").map { String(row[..<$0.lowerBound]) } ?? row
            return names.split(separator: " ").map(String.init)
        }.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    @Test func zshCompletes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "zsh missing (install-deps.sh installs it)")
        let setting = try Setting()
        let pane = try TmuxSession(["/usr/bin/zsh", "-f"], columns: 200, rows: 60,
                                   environment: ["HOME": setting.folder, "PATH": setting.path, "TERM": "xterm-256color"])
        defer { pane.close() }
        pane.send("-l", "PS1='%% '; fpath=(\(setting.scripts) $fpath); autoload -U compinit; compinit -u -D; cd \(setting.folder)")
        pane.send("Enter")
        for c in Self.cases(setting) {
            let got = try #require(Self.zshListing(pane, c.line, listsSomething: !c.expected.isEmpty), "zsh, \(c): no listing; the pane: \(pane.screen())")
            #expect(Set(got) == c.expected, "zsh, \(c): \(got.sorted()); the pane:\n\(pane.screen())")
        }
    }
}
