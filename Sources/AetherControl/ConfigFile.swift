import Foundation
import AetherEngine

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
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".config")
        return (base as NSString).appendingPathComponent("aether-tui")
    }

    /// Parses the file's text; syntax problems come back as `name:N: why` lines (the line is
    /// left out).
    public static func parse(_ text: String, name: String = "aether-tui.conf") -> (ConfigFile, [String]) {
        var file = ConfigFile()
        var warnings: [String] = []
        var section: String?
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = n + 1
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    warnings.append("\(name):\(number): a section is written [name]")
                    continue
                }
                let profile = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                section = profile == "default" ? nil : profile
                if let section, file.profiles[section] == nil { file.profiles[section] = [] }
                continue
            }
            if line.hasPrefix("--") { line.removeFirst(2) }
            let key: String
            var value: String?
            if let eq = line.firstIndex(of: "=") {
                key = line[..<eq].trimmingCharacters(in: .whitespaces)
                var v = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                if v.hasPrefix("\""), let close = v.dropFirst().firstIndex(of: "\"") {
                    v = String(v[v.index(after: v.startIndex)..<close])
                } else if let hash = v.range(of: " #") {
                    v = v[..<hash.lowerBound].trimmingCharacters(in: .whitespaces)
                }
                value = v
            } else {
                key = line.split(separator: " ").first.map(String.init) ?? line
            }
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                warnings.append("\(name):\(number): cannot read '\(TextSanitizer.clean(line))'")
                continue
            }
            let entry = Line(number: number, key: key, value: value)
            if let section { file.profiles[section, default: []].append(entry) } else { file.defaults.append(entry) }
        }
        return (file, warnings)
    }

    /// The lines that apply: the defaults, then each named profile (and the profiles their
    /// `profile=` lines name, at most 8 deep), in order. Unknown profiles come back by name.
    public func lines(profiles wanted: [String]) -> (lines: [Line], unknown: [String]) {
        var out: [Line] = []
        var unknown: [String] = []
        func apply(_ lines: [Line], depth: Int) {
            for line in lines {
                if line.key == "profile", let names = line.value {
                    guard depth < 8 else { continue }
                    for name in names.split(separator: ",").map(String.init) {
                        if let p = profiles[name] { apply(p, depth: depth + 1) } else { unknown.append(name) }
                    }
                } else {
                    out.append(line)
                }
            }
        }
        apply(defaults, depth: 0)
        for name in wanted {
            if let p = profiles[name] { apply(p, depth: 1) } else { unknown.append(name) }
        }
        return (out, unknown)
    }
}
