import CFFmpeg
import Foundation

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
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/state")
        return (state as NSString).appendingPathComponent("aether-tui/watch_later")
    }

    /// The key a source is saved under: its absolute, standardised path, or the URL as given.
    public static func key(for source: String) -> String {
        if PlaylistLoader.isURL(source) || source == "-" { return source }
        let absolute = source.hasPrefix("/") ? source
            : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(source)
        return (absolute as NSString).standardizingPath
    }

    public func path(for source: String) -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        let bytes = Array(Self.key(for: source).utf8)
        bytes.withUnsafeBufferPointer { b in av_md5_sum(&digest, b.baseAddress, b.count) }
        let name = digest.map { String(format: "%02X", $0) }.joined()
        return (directory as NSString).appendingPathComponent(name)
    }

    /// Writes `entry` for `source` (directories made with mode 0700, the file replaced whole).
    public func save(_ entry: Entry, for source: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var lines = ["# \(Self.key(for: source).replacingOccurrences(of: "\n", with: " "))",
                     "start=\(String(format: "%.6f", entry.start))"]
        func track(_ t: Int??) -> String? { t.map { $0.map(String.init) ?? "no" } }
        if let a = track(entry.audioTrack) { lines.append("aid=\(a)") }
        if let s = track(entry.subtitleTrack) { lines.append("sid=\(s)") }
        if let v = entry.volume { lines.append("volume=\(String(format: "%.6f", v))") }
        if let m = entry.muted { lines.append("mute=\(m ? "yes" : "no")") }
        if let s = entry.speed { lines.append("speed=\(String(format: "%.6f", s))") }
        if let d = entry.subtitleDelay { lines.append("sub-delay=\(String(format: "%.6f", d))") }
        if let d = entry.audioDelay { lines.append("audio-delay=\(String(format: "%.6f", d))") }
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        try data.write(to: URL(fileURLWithPath: path(for: source)), options: .atomic)
    }

    /// The saved entry for `source`, or nil (none, unreadable, no valid `start`).
    public func load(for source: String) -> Entry? {
        guard let data = FileManager.default.contents(atPath: path(for: source)), data.count < 65536 else { return nil }
        var entry: Entry?
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        guard let start = values["start"].flatMap(Double.init), start.isFinite, start >= 0 else { return nil }
        entry = Entry(start: start)
        func track(_ text: String?) -> Int?? {
            guard let text else { return nil }
            if text == "no" { return .some(nil) }
            return Int(text).flatMap { $0 >= 1 ? .some($0) : nil }
        }
        func number(_ key: String) -> Double? { values[key].flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil } }
        entry?.audioTrack = track(values["aid"])
        entry?.subtitleTrack = track(values["sid"])
        entry?.volume = number("volume")
        entry?.muted = values["mute"].map { $0 == "yes" }
        entry?.speed = number("speed")
        entry?.subtitleDelay = number("sub-delay")
        entry?.audioDelay = number("audio-delay")
        return entry
    }

    public func remove(for source: String) {
        try? FileManager.default.removeItem(atPath: path(for: source))
    }
}
