import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Resume state (mpv's watch-later): one small file per source in
/// `$XDG_STATE_HOME/aether-tui/watch_later/`, named by the MD5 of the source's absolute path
/// (or URL), holding mpv-style `option=value` lines: the position and the track, volume,
/// speed and delay settings in force when it was saved.
public struct WatchLater: Sendable {
    public struct Entry: Sendable, Equatable {
        public var start: Double
        /// 1-based track numbers, or nil for "no track" (`aid=no`); absent: not recorded.
        public var audioTrack: Int??
        public var subtitleTrack: Int??
        public var volume: Double?
        public var muted: Bool?
        public var speed: Double?
        public var subtitleDelay: Double?
        public var audioDelay: Double?
        public init(start: Double) { self.start = start }
    }

    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$XDG_STATE_HOME/aether-tui/watch_later` (default `~/.local/state/…`).
    public static func defaultDirectory(environment: [String: String]) -> String {
        StateDirectory.path("watch_later", environment: environment)
    }

    /// The key a source is saved under: its absolute, standardised path, or the URL as given.
    public static func key(for source: String) -> String {
        if PlaylistLoader.isURL(source) || source == "-" { return source }
        let absolute = source.hasPrefix("/") ? source
            : Paths.join(FileManager.default.currentDirectoryPath, source)
        return Paths.standardize(absolute)
    }

    public func path(for source: String) -> String {
        let name = HexText.string(Digest.md5(Array(Self.key(for: source).utf8)), uppercase: true)
        return Paths.join(directory, name)
    }

    /// Writes `entry` for `source` (directories made with mode 0700, the file replaced whole).
    public func save(_ entry: Entry, for source: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var lines = ["# \(Self.key(for: source).replacingAll("\n", with: " "))",
                     "start=\(String(cFormat: "%.6f", entry.start))"]
        func track(_ t: Int??) -> String? { t.map { $0.map(String.init) ?? "no" } }
        if let a = track(entry.audioTrack) { lines.append("aid=\(a)") }
        if let s = track(entry.subtitleTrack) { lines.append("sid=\(s)") }
        if let v = entry.volume { lines.append("volume=\(String(cFormat: "%.6f", v))") }
        if let m = entry.muted { lines.append("mute=\(m ? "yes" : "no")") }
        if let s = entry.speed { lines.append("speed=\(String(cFormat: "%.6f", s))") }
        if let d = entry.subtitleDelay { lines.append("sub-delay=\(String(cFormat: "%.6f", d))") }
        if let d = entry.audioDelay { lines.append("audio-delay=\(String(cFormat: "%.6f", d))") }
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        try data.write(to: URL(fileURLWithPath: path(for: source)), options: .atomic)
    }

    /// A watch-later file larger than this is not read.
    public static let maxBytes = 64 << 10
    /// A saved position past this (about 31 years) is no position.
    public static let maxStart = 1e9

    /// The saved entry for `source`, or nil (none, unreadable, too large, no valid `start`).
    public func load(for source: String) -> Entry? {
        guard let (bytes, truncated) = TextBudget.read(path: path(for: source), limit: Self.maxBytes), !truncated else { return nil }
        return Self.parse(bytes)
    }

    /// An entry's text, every value checked against the player's own ranges: `start` finite,
    /// 0…``maxStart``; tracks 1…999 or `no`; volume 0…130; speed 0.25…4; delays finite and
    /// within ±1 hour (audio ±10 s, as `--audio-delay`). A value out of range is left out (the
    /// player's default applies); nil when there is no valid `start`.
    public static func parse(_ bytes: some Collection<UInt8>) -> Entry? {
        var values: [String: String] = [:]
        for line in TextBudget.lines(bytes, maxLineBytes: 4096) {
            guard let text = line.text, !text.hasPrefix("#"), let eq = text.firstIndex(of: "=") else { continue }
            let key = String(text[..<eq])
            // The first value of a key counts (the file is written with one of each).
            if values[key] == nil { values[key] = String(text[text.index(after: eq)...]) }
        }
        func number(_ key: String, in range: ClosedRange<Double>) -> Double? {
            guard let text = values[key], text.utf8.count <= 64, let d = Double(text), d.isFinite, range.contains(d) else { return nil }
            return d
        }
        guard let start = number("start", in: 0...maxStart) else { return nil }
        var entry = Entry(start: start)
        func track(_ text: String?) -> Int?? {
            guard let text else { return nil }
            if text == "no" { return .some(nil) }
            guard text.utf8.count <= 3, let n = Int(text), (1...999).contains(n) else { return nil }
            return .some(n)
        }
        entry.audioTrack = track(values["aid"])
        entry.subtitleTrack = track(values["sid"])
        entry.volume = number("volume", in: 0...130)
        entry.muted = values["mute"].flatMap { $0 == "yes" ? true : $0 == "no" ? false : nil }
        entry.speed = number("speed", in: 0.25...4)
        entry.subtitleDelay = number("sub-delay", in: -3600...3600)
        entry.audioDelay = number("audio-delay", in: -10...10)
        return entry
    }

    public func remove(for source: String) {
        try? FileManager.default.removeItem(atPath: path(for: source))
    }
}
