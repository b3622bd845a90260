import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `aether-tui.conf` in mpv's syntax: `option=value` lines (`option` alone for a flag, an
/// optional leading `--`, `#` comments, `"quoted"` values), and `[name]` profile sections that
/// `--profile=name` (or a `profile=name` line) applies over the lines before the first section.
public struct ConfigFile: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        public var number: Int
        public var key: String
        public var value: String?
    }

    /// Lines before the first `[section]`.
    public var defaults: [Line] = []
    public var profiles: [String: [Line]] = [:]

    /// `$XDG_CONFIG_HOME/aether-tui` (default `~/.config/aether-tui`).
    public static func directory(environment: [String: String]) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? Paths.join(Paths.home(environment: environment), ".config")
        return Paths.join(base, "aether-tui")
    }

    /// The config file's byte budget: past it the rest is left out with a warning.
    public static let maxBytes = 1 << 20

    /// Reads and parses `aether-tui.conf` at `path` within ``maxBytes``; nil when there is no
    /// such regular file.
    public static func load(path: String, name: String = "aether-tui.conf") -> (ConfigFile, [String])? {
        guard let (bytes, truncated) = TextBudget.read(path: path, limit: maxBytes) else { return nil }
        var (file, warnings) = parse(bytes: bytes, name: name, truncated: truncated)
        if truncated { warnings.insert("\(name): larger than \(TextBudget.describe(bytes: maxBytes)); the rest is left out", at: 0) }
        return (file, warnings)
    }

    /// Parses the file's text; syntax problems come back as `name:N: why` lines (the line is
    /// left out).
    public static func parse(_ text: String, name: String = "aether-tui.conf") -> (ConfigFile, [String]) {
        parse(bytes: Array(text.utf8), name: name, truncated: false)
    }

    /// Parses the file's bytes; a line over ``TextBudget/maxLineBytes`` is refused as
    /// `name:N: line too long`; `truncated`: the bytes were cut at the budget, so a last line
    /// with no newline is left out.
    public static func parse(bytes: [UInt8], name: String = "aether-tui.conf", truncated: Bool) -> (ConfigFile, [String]) {
        var file = ConfigFile()
        var warnings: [String] = []
        var section: String?
        for entry in TextBudget.lines(bytes, dropPartialLast: truncated) {
            let number = entry.number
            guard let text = entry.text else {
                warnings.append("\(name):\(number): line too long (over \(TextBudget.describe(bytes: TextBudget.maxLineBytes)))")
                continue
            }
            var line = text.trimmingWhitespace()
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    warnings.append("\(name):\(number): a section is written [name]")
                    continue
                }
                let profile = String(line.dropFirst().dropLast()).trimmingWhitespace()
                section = profile == "default" ? nil : profile
                if let section, file.profiles[section] == nil { file.profiles[section] = [] }
                continue
            }
            if line.hasPrefix("--") { line.removeFirst(2) }
            let key: String
            var value: String?
            if let eq = line.firstIndex(of: "=") {
                key = line[..<eq].trimmingWhitespace()
                var v = line[line.index(after: eq)...].trimmingWhitespace()
                if v.hasPrefix("\""), let close = v.dropFirst().firstIndex(of: "\"") {
                    v = String(v[v.index(after: v.startIndex)..<close])
                } else if let hash = v.firstRange(of: " #") {
                    v = v[..<hash.lowerBound].trimmingWhitespace()
                }
                value = v
            } else {
                key = line.split(separator: " ").first.map(String.init) ?? line
            }
            guard !key.isEmpty, key.utf8.count <= maxKeyBytes,
                  key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                warnings.append("\(name):\(number): cannot read '\(TextSanitizer.clean(String(line.prefix(80))))'")
                continue
            }
            let entry = Line(number: number, key: key, value: value)
            if let section { file.profiles[section, default: []].append(entry) } else { file.defaults.append(entry) }
        }
        return (file, warnings)
    }

    /// An option name longer than this is no option (the longest is under 40 characters).
    static let maxKeyBytes = 64

    /// The lines that apply: the defaults, then each named profile (and the profiles their
    /// `profile=` lines name, at most 8 deep), in order. Each profile is applied at most once
    /// per expansion (a profile named again, or one that names itself, is skipped), so the
    /// lines that come back are never more than the file holds. Unknown profiles come back by
    /// name.
    public func lines(profiles wanted: [String]) -> (lines: [Line], unknown: [String]) {
        var out: [Line] = []
        var unknown: [String] = []
        var applied = Set<String>()
        func apply(_ name: String, depth: Int) {
            guard let lines = profiles[name] else {
                if unknown.count < 100, !unknown.contains(name) { unknown.append(name) }
                return
            }
            guard applied.insert(name).inserted else { return }
            apply(lines, depth: depth)
        }
        func apply(_ lines: [Line], depth: Int) {
            for line in lines {
                if line.key == "profile", let names = line.value {
                    guard depth < 8 else { continue }
                    for name in names.split(separator: ",").map(String.init) { apply(name, depth: depth + 1) }
                } else {
                    out.append(line)
                }
            }
        }
        apply(defaults, depth: 0)
        for name in wanted { apply(name, depth: 1) }
        return (out, unknown)
    }
}
