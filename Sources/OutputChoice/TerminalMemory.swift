import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// What the throughput trial found, remembered per terminal in
/// `$XDG_STATE_HOME/aether-tui/terminals.json` (default `~/.local/state/…`), so the next start
/// on the same terminal chooses at once. A terminal is its name and version (XTVERSION, the
/// outer terminal's inside tmux; else `TERM_PROGRAM` and its version; else `TERM`), its cell
/// size and whether tmux is between.
///
/// The file is outside input: read with the bounded ``JSONValue`` reader (at most
/// ``maximumBytes``), every entry checked; an entry that does not read is left out with the rest
/// kept; a file that does not read at all is as good as none (and is replaced on the next save).
/// At most ``maximumTerminals`` are kept, the last measured last.
public struct TerminalMemory: Sendable {
    public let path: String
    public static let maximumBytes = 256 * 1024
    public static let maximumTerminals = 32

    public init(path: String) { self.path = path }

    /// The file for `environment`, in ``StateDirectory`` (as saved positions are).
    public static func standard(environment: [String: String]) -> TerminalMemory {
        TerminalMemory(path: StateDirectory.path("terminals.json", environment: environment))
    }

    /// The key of the terminal with `caps` (printable ASCII, at most 120 characters).
    public static func key(for caps: TerminalCapabilities, environment: [String: String]) -> String {
        let name = (caps.tmux.allowsPassthrough ? caps.tmux.outerVersion : nil) ?? caps.terminal.version
            ?? caps.terminal.termProgram.map { $0 + (environment["TERM_PROGRAM_VERSION"].map { " " + $0 } ?? "") }
            ?? caps.terminal.term ?? "unknown"
        let cell = caps.window.cellSize.map { "\($0.width)x\($0.height)" } ?? "-"
        let raw = "\(name)|cell \(cell)" + (caps.tmux.inside ? "|tmux" : "")
        return String(raw.unicodeScalars.filter(isKeyScalar).prefix(keyLength).map(Character.init))
    }

    /// What a key is made of: printable ASCII, ``keyLength`` characters at most.
    static let keyLength = 120
    static func isKeyScalar(_ scalar: Unicode.Scalar) -> Bool { (0x20..<0x7F).contains(scalar.value) }

    /// One remembered terminal: its figures and the output chosen.
    public struct Entry: Sendable, Equatable {
        public var figures: [OutputFigure]
        public var choice: String?
        public init(figures: [OutputFigure], choice: String?) {
            self.figures = figures
            self.choice = choice
        }
    }

    /// Every terminal in the file, in the file's order (nothing when it is missing or unreadable).
    public func entries() -> [(key: String, entry: Entry)] {
        (try? FileBytes.read(path: path, limit: Self.maximumBytes, regularOnly: true).get()).map { Self.entries(in: Data($0)) } ?? []
    }

    /// Every terminal in a `terminals.json` text (the file's reader; `aether-fuzz terminals`).
    /// The part is refused, not the whole: a bad figure or terminal is left out.
    public static func entries(in data: Data) -> [(key: String, entry: Entry)] {
        guard data.count <= Self.maximumBytes,
              let root = try? JSONValue.parse(data, maximumBytes: Self.maximumBytes, maximumValues: 20_000),
              case .object(let terminals)? = root["terminals"] else { return [] }
        return terminals.prefix(Self.maximumTerminals * 2).compactMap { key, value in
            // A key is what ``key(for:environment:)`` makes.
            guard key.count <= Self.keyLength, key.unicodeScalars.allSatisfy(Self.isKeyScalar),
                  let list = value["figures"]?.array else { return nil }
            let figures = list.prefix(16).compactMap { f -> OutputFigure? in
                guard let label = f["output"]?.string, OutputCandidate(label: label) != nil,
                      let pixels = f["pixels"]?.number, (1...1e8).contains(pixels),
                      let ms = f["ms"]?.number, (0.01...1e6).contains(ms) else { return nil }
                return OutputFigure(label: label, pixels: Int(pixels), milliseconds: ms)
            }
            guard !figures.isEmpty else { return nil }
            let choice = value["choice"]?.string.flatMap { c in figures.contains { $0.label == c } ? c : nil }
            return (key, Entry(figures: figures, choice: choice))
        }
    }

    /// The remembered entry for `key`.
    public func entry(for key: String) -> Entry? { entries().last { $0.key == key }?.entry }

    /// Remembers `entry` for `key` (replacing an older one; the oldest go past
    /// ``maximumTerminals``); written to a temporary file and renamed over the old one. False
    /// when it could not be written.
    @discardableResult
    public func save(_ entry: Entry, for key: String) -> Bool {
        var all = entries().filter { $0.key != key }
        all.append((key, entry))
        let kept = all.suffix(Self.maximumTerminals)
        let terminals: [(key: String, value: JSONValue)] = kept.map { key, entry in
            var members: [(key: String, value: JSONValue)] = [("figures", .array(entry.figures.map { f in
                .object([("output", .string(f.label)), ("pixels", .int(Int64(f.pixels))),
                         ("ms", .double((f.milliseconds * 100).rounded() / 100))])
            }))]
            if let choice = entry.choice { members.append(("choice", .string(choice))) }
            return (key, .object(members))
        }
        let text = JSONValue.object([("version", .int(1)), ("terminals", .object(terminals))]).serialized + "\n"
        let directory = Paths.deletingLastComponent(path)
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                try? FileManager.default.removeItem(atPath: temporary)
                return false
            }
            return true
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            return false
        }
    }
}
