import AetherControl
import AetherEngine
import AetherTUI
import ArgumentParser
import Foundation

/// Builds the command line the parser sees: `aether-tui.conf`'s options (the defaults, then
/// `--profile`'s sections) go before the user's own arguments, so the command line wins. Each
/// config line is checked on its own against the play options; a bad one is reported
/// (`aether-tui.conf:12: unknown option 'volme'`) and left out, and the player still starts.
/// A bare `--loop-file`/`--loop-playlist` becomes `=inf`, as in mpv.
enum ConfigArguments {
    /// Subcommands that take no play options (their arguments pass through untouched).
    static let otherCommands: Set<String> = ["probe", "caps", "extract", "help", "-h", "--help", "--version"]
    /// Options that steer the config itself: meaningless inside it.
    static let configOnly: Set<String> = ["config-dir", "no-config", "profile", "config"]

    struct Result {
        var arguments: [String]
        var warnings: [String]
    }

    static func expand(_ arguments: [String], environment: [String: String]) -> Result {
        if let first = arguments.first, otherCommands.contains(first) { return Result(arguments: arguments, warnings: []) }
        var prefix: [String] = []
        var rest = arguments
        if rest.first == "play" { prefix = ["play"]; rest.removeFirst() }
        rest = rest.map { $0 == "--loop-file" ? "--loop-file=inf" : $0 == "--loop-playlist" ? "--loop-playlist=inf" : $0 }
        if rest.contains("--help") || rest.contains("-h") { return Result(arguments: prefix + rest, warnings: []) }

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
        let path = (dir as NSString).appendingPathComponent("aether-tui.conf")
        guard let data = FileManager.default.contents(atPath: path) else {
            let warnings = profiles.isEmpty ? [] : ["no config file (\(path)) for --profile"]
            return Result(arguments: prefix + rest, warnings: warnings)
        }
        let (file, syntaxWarnings) = ConfigFile.parse(String(decoding: data, as: UTF8.self))
        var warnings = syntaxWarnings
        let (lines, unknown) = file.lines(profiles: profiles)
        for name in unknown { warnings.append("aether-tui.conf: no profile '\(TextSanitizer.clean(name))'") }
        var fromConfig: [String] = []
        for line in lines {
            if configOnly.contains(line.key) {
                warnings.append("aether-tui.conf:\(line.number): '\(line.key)' only works on the command line")
                continue
            }
            switch argument(for: line) {
            case .success(let args): fromConfig += args
            case .failure(let message): warnings.append("aether-tui.conf:\(line.number): \(message)")
            }
        }
        return Result(arguments: prefix + fromConfig + rest, warnings: warnings)
    }

    enum Outcome { case success([String]), failure(String) }

    /// The command-line form of a config line, checked by parsing it alone.
    static func argument(for line: ConfigFile.Line) -> Outcome {
        let key = line.key
        var candidates: [[String]]
        switch line.value {
        case nil, "yes": candidates = [["--\(key)"], ["--\(key)=yes"]]
        case "no": candidates = [["--no-\(key)"], ["--\(key)=no"]]
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

extension PlaybackOptions {
    /// The key bindings: the defaults, with `--input-conf` (or input.conf in the config
    /// directory, unless `--no-config`) over them; bad lines come back as warnings.
    func loadBindings(environment: [String: String]) -> (InputBindings, [String]) {
        let path: String
        if let inputConf { path = inputConf } else {
            guard !noConfig else { return (InputBindings(), []) }
            path = ((configDir ?? ConfigFile.directory(environment: environment)) as NSString).appendingPathComponent("input.conf")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return (InputBindings(), inputConf == nil ? [] : ["cannot read '\(path)'"])
        }
        return InputBindings.load(text: String(decoding: data, as: UTF8.self))
    }
}
