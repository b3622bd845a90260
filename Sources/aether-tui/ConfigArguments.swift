import AetherControl
import AetherEngine
import AetherInput
import AetherTUI
import ArgumentParser
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Builds the command line the parser sees: `aether-tui.conf`'s options (the defaults, then
/// `--profile`'s sections) go before the user's own arguments, so the command line wins. Every
/// config line is checked against the play options (together, in one parse, when they are all
/// good: see ``checkLines(_:)``); a bad one is reported (`aether-tui.conf:12: unknown option
/// 'volme'`) and left out, and the player still starts.
/// mpv's other spellings become ours first (``MpvSpellings``); an unknown `--profile` is refused.
enum ConfigArguments {
    /// First words that are not playback: every subcommand but `play` (read from the command
    /// tree, so a new subcommand cannot be forgotten), the parser's `help`, and the flags that
    /// print and leave. Their arguments pass through untouched: the config file holds play
    /// options, which `inspect`, `download` and the others do not take.
    static let otherCommands: Set<String> = {
        let names = AetherTUICommand.configuration.subcommands.map { $0._commandName }.filter { $0 != Play._commandName }
        return Set(names + ["help", "-h", "--help", "--version", "--list-options", "--generate-completion-script"])
    }()
    /// Options that steer the config itself: meaningless inside it.
    static let configOnly: Set<String> = ["config-dir", "no-config", "profile", "config"]

    struct Result {
        var arguments: [String]
        var warnings: [String]
        /// The command cannot run as asked (an unknown `--profile`): one line, exit 1.
        var error: String? = nil
    }

    static func expand(_ arguments: [String], environment: [String: String]) -> Result {
        if let first = arguments.first, otherCommands.contains(first) { return Result(arguments: arguments, warnings: []) }
        var prefix: [String] = []
        var rest = arguments
        if rest.first == "play" { prefix = ["play"]; rest.removeFirst() }
        if rest.contains("--help") || rest.contains("-h") { return Result(arguments: prefix + rest, warnings: []) }
        rest = MpvSpellings.normalize(rest, options: shapes)

        // What the command line says about the config itself.
        var noConfig = false
        var directory: String?
        var profiles: [String] = []
        var i = 0
        while i < rest.count {
            let a = rest[i]
            func value(_ name: String) -> String? {
                if a.hasPrefix(name + "=") { return String(a.dropFirst(name.count + 1)) }
                if a == name, i + 1 < rest.count { i += 1; return rest[i] }
                return nil
            }
            if a == "--" { break }
            if a == "--no-config" { noConfig = true }
            if let d = value("--config-dir") { directory = d }
            if let p = value("--profile") { profiles += p.split(separator: ",").map(String.init) }
            i += 1
        }
        guard !noConfig else { return Result(arguments: prefix + rest, warnings: []) }
        let dir = directory ?? ConfigFile.directory(environment: environment)
        let path = Paths.join(dir, "aether-tui.conf")
        guard let (file, syntaxWarnings) = ConfigFile.load(path: path) else {
            // mpv refuses a profile it does not know: so do we.
            if let name = profiles.first {
                return Result(arguments: [], warnings: [], error: "unknown profile '\(TextSanitizer.clean(name))': there is no config file (\(TextSanitizer.clean(path)))")
            }
            return Result(arguments: prefix + rest, warnings: [])
        }
        if let name = profiles.first(where: { file.profiles[$0] == nil }) {
            let known = file.profiles.keys.sorted().prefix(20).map { TextSanitizer.clean($0) }.joined(separator: ", ")
            return Result(arguments: [], warnings: [],
                          error: "unknown profile '\(TextSanitizer.clean(name))' (\(known.isEmpty ? "aether-tui.conf has none" : "aether-tui.conf has: " + known))")
        }
        var warnings = syntaxWarnings
        let (found, unknown) = file.lines(profiles: profiles)
        // A profile that names another the file lacks: that part is left out.
        for name in unknown { warnings.append("aether-tui.conf: no profile '\(TextSanitizer.clean(name))'") }
        let lines = found.filter { !MpvSpellings.isIgnored($0.key, options: shapes) }.map { line in
            var line = line
            (line.key, line.value) = MpvSpellings.rename(line.key, line.value, options: shapes)
            return line
        }
        let checked = checkLines(lines)
        warnings += checked.warnings
        if warnings.count > maxWarnings {
            let more = warnings.count - maxWarnings
            warnings = Array(warnings.prefix(maxWarnings)) + ["aether-tui.conf: … and \(more) more warnings"]
        }
        return Result(arguments: prefix + checked.arguments + rest, warnings: warnings)
    }

    /// The config's warnings (printed on stderr at once): the TUI shows them again on its
    /// message line once the screen is up. Set by `main` before the parser runs.
    nonisolated(unsafe) static var startupWarnings: [String] = []
    /// The arguments as typed (before the config file's were put in front of them): set once, at
    /// the start, where `startupWarnings` is.
    nonisolated(unsafe) static var typed: [String] = []

    /// Whether the typed command line gives `option` (`--name value` or `--name=value`), not the
    /// config file.
    static func typedGives(_ option: String) -> Bool {
        typed.prefix { $0 != "--" }.contains { $0 == option || $0.hasPrefix(option + "=") }
    }

    /// Warnings shown at most (then one line says how many more there were).
    static let maxWarnings = 20

    /// What a flag or option of the play options is, from the parser's own description of them
    /// (read once): long name → (takes a value, repeatable, its help: what it allows).
    struct OptionShape {
        var takesValue: Bool
        var repeating: Bool
        var help = ""
        var valueName = ""
        var defaultValue: String? = nil
    }
    static let shapes: [String: OptionShape] = shapes(of: PlaybackOptions._dumpHelp())

    /// The shapes of the options a parser's JSON (`_dumpHelp()`) describes.
    static func shapes(of dump: String) -> [String: OptionShape] {
        // The parser's own JSON, read by JSONValue (what the program reads from outside).
        guard let root = try? JSONValue.parse(Array(dump.utf8)),
              let arguments = root["command"]?["arguments"]?.array else { return [:] }
        var shapes: [String: OptionShape] = [:]
        for argument in arguments {
            guard let kind = argument["kind"]?.string, kind == "option" || kind == "flag" else { continue }
            var repeating = false
            if case .bool(let b)? = argument["isRepeating"] { repeating = b }
            let shape = OptionShape(takesValue: kind == "option", repeating: repeating,
                                    help: argument["abstract"]?.string ?? "", valueName: argument["valueName"]?.string ?? "",
                                    defaultValue: argument["defaultValue"]?.string)
            for name in argument["names"]?.array ?? [] where name["kind"]?.string == "long" {
                if let n = name["name"]?.string { shapes[n] = shape }
            }
        }
        return shapes
    }

    /// The command-line form of `lines`, each checked, with a warning for each bad one. A line
    /// that a later line of the same (not repeatable) option overrides has no effect and is
    /// dropped unchecked; an unknown option is known from the parser's description without a
    /// parse; the rest is parsed together, and only a group that fails is split in halves to
    /// find the bad lines. So the work is one parse for a good file, whatever its length, plus
    /// a few per bad line (there is one per option at most), instead of one parse per line.
    static func checkLines(_ lines: [ConfigFile.Line]) -> (arguments: [String], warnings: [String]) {
        let shapes = Self.shapes
        var warnings: [(Int, String)] = []
        var last: [String: Int] = [:]
        for (i, line) in lines.enumerated() { last[line.key] = i }
        // (index, line, its form; nil: to be found by checking the line alone).
        typealias Entry = (index: Int, line: ConfigFile.Line, args: [String]?)
        var pending: [Entry] = []
        for (i, line) in lines.enumerated() {
            let key = line.key
            if configOnly.contains(key) {
                warnings.append((i, "aether-tui.conf:\(line.number): '\(key)' only works on the command line"))
                continue
            }
            guard !shapes.isEmpty else { pending.append((i, line, nil)); continue }   // no description: one by one
            let bare = key.hasPrefix("no-") ? String(key.dropFirst(3)) : key
            guard let shape = shapes[key] ?? shapes[bare] else {
                warnings.append((i, "aether-tui.conf:\(line.number): unknown option '\(TextSanitizer.clean(key))'"))
                continue
            }
            if !shape.repeating, last[key] != i { continue }
            var args: [String]?
            if shapes[key] != nil {
                switch (line.value, shape.takesValue) {
                case (nil, false), ("yes", false): args = ["--\(key)"]
                case ("no", false) where shapes["no-\(key)"] != nil: args = ["--no-\(key)"]
                case ("", true): args = ["--\(key)", ""]
                case (let value?, true): args = ["--\(key)=\(value)"]
                default: args = nil
                }
            }
            pending.append((i, line, args))
        }
        var accepted: [Int: [String]] = [:]
        func alone(_ entry: Entry) {
            switch argument(for: entry.line) {
            case .success(let args): accepted[entry.index] = args
            case .failure(let message): warnings.append((entry.index, "aether-tui.conf:\(entry.line.number): \(message)"))
            }
        }
        func settle(_ group: ArraySlice<Entry>) {
            guard !group.isEmpty else { return }
            if group.count == 1 { alone(group.first!); return }
            if check(group.flatMap { $0.args! }) == nil {
                for entry in group { accepted[entry.index] = entry.args! }
                return
            }
            let mid = group.startIndex + group.count / 2
            settle(group[..<mid])
            settle(group[mid...])
        }
        for entry in pending where entry.args == nil { alone(entry) }
        settle(pending.filter { $0.args != nil }[...])
        let arguments = accepted.keys.sorted().flatMap { accepted[$0]! }
        return (arguments, warnings.sorted { $0.0 < $1.0 }.map(\.1))
    }

    enum Outcome { case success([String]), failure(String) }

    /// The command-line form of a config line, checked by parsing it alone.
    static func argument(for line: ConfigFile.Line) -> Outcome {
        let key = line.key
        var candidates: [[String]]
        switch line.value {
        case nil, "yes": candidates = [["--\(key)"], ["--\(key)=yes"]]
        case "no": candidates = [["--no-\(key)"], ["--\(key)=no"]]
        case "": candidates = [["--\(key)", ""]]
        case let value?: candidates = [["--\(key)=\(value)"]]
        }
        var firstError: String?
        for args in candidates {
            if let error = check(args) {
                firstError = firstError ?? error
            } else {
                return .success(args)
            }
        }
        // `flag=no` for a flag with no `--no-` form: simply not set.
        if line.value == "no", check(["--\(key)"]) == nil { return .success([]) }
        let message = firstError ?? "cannot use '\(key)'"
        if message.hasPrefix("Unknown option") { return .failure("unknown option '\(TextSanitizer.clean(key))'") }
        // The parser's own wording for a value its type refuses ("The value 'abc' is invalid for
        // '--sub-font-size <size>'") becomes the key, the value and what the option allows.
        if message.hasPrefix("The value '"), let value = line.value {
            let allowed = (shapes[key]?.help ?? "") + (shapes[key]?.defaultValue.map { " (default: \($0))" } ?? "")
            return .failure(TextSanitizer.clean("\(key): '\(value)' is not allowed" + (allowed.isEmpty ? "" : "; \(key) takes: \(allowed)")))
        }
        return .failure(TextSanitizer.clean(message.split(separator: "\n").first.map(String.init) ?? message))
    }

    /// nil when `args` parse (with a stand-in file), else the parser's message.
    static func check(_ args: [String]) -> String? {
        do {
            _ = try PlaybackOptions.parse(["placeholder.mkv"] + args)
            return nil
        } catch {
            return PlaybackOptions.message(for: error)
        }
    }
}
