import Foundation

/// One thing to play: a file path or a URL, with the title a playlist file gave it.
public struct PlaylistItem: Sendable, Equatable {
    public var source: String
    public var title: String?
    public init(source: String, title: String? = nil) {
        self.source = source
        self.title = title
    }

    /// The name shown for it: the title, else the last path component (URLs: the last path
    /// segment without the query).
    public var displayName: String {
        if let title, !title.isEmpty { return title }
        if PlaylistLoader.isURL(source), let url = URL(string: source) {
            let last = url.lastPathComponent
            return last.isEmpty || last == "/" ? source : last
        }
        return (source as NSString).lastPathComponent
    }
}

/// The play order and where playback stands in it (mpv's playlist: `--playlist-start`,
/// `--loop-playlist`, `--shuffle`, `playlist-next`/`-prev`, `loadfile … append`).
public struct Playlist: Sendable, Equatable {
    public private(set) var items: [PlaylistItem]
    /// The item playing (nil: nothing yet, or past the end).
    public var position: Int?

    public init(_ items: [PlaylistItem]) {
        self.items = items
    }

    public var count: Int { items.count }
    public var current: PlaylistItem? { position.flatMap { items.indices.contains($0) ? items[$0] : nil } }

    /// Shuffles the order with a seeded generator (the same seed, the same order).
    public mutating func shuffle(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        items.shuffle(using: &generator)
    }

    public mutating func append(_ item: PlaylistItem) { items.append(item) }

    /// Replaces everything with `item` (`loadfile … replace`).
    public mutating func replace(with item: PlaylistItem) {
        items = [item]
        position = nil
    }

    /// The item after `position` (the first when nothing played yet); with `loop`, the first
    /// after the last. nil at the end.
    public func index(after position: Int?, loop: Bool) -> Int? {
        guard !items.isEmpty else { return nil }
        let next = (position ?? -1) + 1
        if next < items.count { return next }
        return loop ? 0 : nil
    }

    /// The item before `position`; with `loop`, the last before the first.
    public func index(before position: Int?, loop: Bool) -> Int? {
        guard !items.isEmpty, let position else { return nil }
        if position > 0 { return position - 1 }
        return loop ? items.count - 1 : nil
    }
}

/// SplitMix64: a small seeded generator, so that `--shuffle` with a seed is reproducible.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Turns command-line arguments into playlist items: files and URLs as they are, directories
/// into the media files inside them (recursively, in natural order: `2.mkv` before `10.mkv`),
/// and `.m3u`/`.m3u8`/`.pls` files into their entries (relative paths against the playlist's
/// directory). An HLS playlist (`#EXT-X-` tags) is a source, not a list.
public enum PlaylistLoader {
    /// File name extensions a directory is searched for.
    public static let mediaExtensions: Set<String> = [
        "mkv", "mk3d", "mka", "mp4", "m4v", "m4a", "mov", "webm", "ts", "m2ts", "mts", "avi", "ogv", "ogg", "oga",
        "opus", "flv", "mpg", "mpeg", "vob", "wmv", "wma", "asf", "mp3", "flac", "wav", "aac", "ac3", "eac3",
        "dts", "aiff", "aif", "wv", "ape", "alac", "mp2", "3gp",
    ]

    static let playlistExtensions: Set<String> = ["m3u", "m3u8", "pls"]
    /// Nested playlists and directories deeper than this are not followed (loops).
    static let maxDepth = 8
    /// A playlist file larger than this is not read as one.
    static let maxPlaylistBytes = 16 << 20

    public struct Result: Sendable {
        public var items: [PlaylistItem] = []
        /// One line per argument or entry that was left out.
        public var warnings: [String] = []
    }

    public static func isURL(_ text: String) -> Bool {
        guard let colon = text.range(of: "://") else { return false }
        let scheme = text[..<colon.lowerBound]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    public static func expand(_ arguments: [String]) -> Result {
        var result = Result()
        for argument in arguments { add(argument, title: nil, depth: 0, into: &result) }
        return result
    }

    private static func add(_ source: String, title: String?, depth: Int, into result: inout Result) {
        if source == "-" || isURL(source) {
            result.items.append(PlaylistItem(source: source, title: title))
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            // Left to the player, which says "No such file or directory" with the name.
            result.items.append(PlaylistItem(source: source, title: title))
            return
        }
        if isDirectory.boolValue {
            guard depth < maxDepth else { result.warnings.append("'\(source)': directories nested too deep"); return }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []
            let sorted = entries.filter { !$0.hasPrefix(".") }.sorted(by: naturalOrder)
            var found = 0
            for name in sorted {
                let path = (source as NSString).appendingPathComponent(name)
                var dir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &dir) else { continue }
                let ext = (name as NSString).pathExtension.lowercased()
                if dir.boolValue {
                    let before = result.items.count
                    add(path, title: nil, depth: depth + 1, into: &result)
                    found += result.items.count - before
                } else if mediaExtensions.contains(ext) {
                    result.items.append(PlaylistItem(source: path))
                    found += 1
                }
            }
            if found == 0, depth == 0 { result.warnings.append("'\(source)': no media files in the directory") }
            return
        }
        let ext = (source as NSString).pathExtension.lowercased()
        if playlistExtensions.contains(ext), let entries = readPlaylist(source) {
            guard depth < maxDepth else { result.warnings.append("'\(source)': playlists nested too deep"); return }
            if entries.isEmpty { result.warnings.append("'\(source)': the playlist is empty") }
            for entry in entries { add(entry.source, title: entry.title, depth: depth + 1, into: &result) }
            return
        }
        result.items.append(PlaylistItem(source: source, title: title))
    }

    /// The entries of an M3U or PLS file, or nil when it is not a list (an HLS media playlist,
    /// unreadable, too large): then it is played as a source.
    static func readPlaylist(_ path: String) -> [PlaylistItem]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int, size <= maxPlaylistBytes,
              let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        let base = (path as NSString).deletingLastPathComponent
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if (path as NSString).pathExtension.lowercased() == "pls" || lines.first?.lowercased() == "[playlist]" {
            return parsePLS(lines, base: base)
        }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-") }) { return nil }   // HLS: libavformat's
        return parseM3U(lines, base: base)
    }

    static func parseM3U(_ lines: [String], base: String) -> [PlaylistItem] {
        var items: [PlaylistItem] = []
        var title: String?
        for line in lines {
            if line.hasPrefix("#EXTINF:") {
                // #EXTINF:<seconds>[ attributes],<title>
                if let comma = line.firstIndex(of: ",") {
                    let t = line[line.index(after: comma)...].trimmingCharacters(in: .whitespaces)
                    title = t.isEmpty ? nil : t
                }
                continue
            }
            if line.hasPrefix("#") { continue }
            items.append(PlaylistItem(source: resolve(line, base: base), title: title))
            title = nil
        }
        return items
    }

    static func parsePLS(_ lines: [String], base: String) -> [PlaylistItem] {
        var files: [Int: String] = [:]
        var titles: [Int: String] = [:]
        for line in lines {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].lowercased()
            let value = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            if key.hasPrefix("file"), let n = Int(key.dropFirst(4)) { files[n] = value }
            if key.hasPrefix("title"), let n = Int(key.dropFirst(5)) { titles[n] = value }
        }
        return files.keys.sorted().map { PlaylistItem(source: resolve(files[$0]!, base: base), title: titles[$0]) }
    }

    /// A relative entry is relative to the playlist's directory; `file://` URLs become paths.
    static func resolve(_ entry: String, base: String) -> String {
        if entry.hasPrefix("file://"), let url = URL(string: entry), url.isFileURL { return url.path }
        if isURL(entry) || entry.hasPrefix("/") || entry == "-" { return entry }
        return (base as NSString).appendingPathComponent(entry)
    }

    /// Natural order: runs of digits compare as numbers (`ep2` < `ep10`), letters case-blind.
    public static func naturalOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased().unicodeScalars), y = Array(b.lowercased().unicodeScalars)
        var i = 0, j = 0
        func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                var i2 = i, j2 = j
                while i2 < x.count, isDigit(x[i2]) { i2 += 1 }
                while j2 < y.count, isDigit(y[j2]) { j2 += 1 }
                // Compare digit runs by value: drop leading zeros, then length, then digits.
                let da = x[i..<i2].drop { $0 == "0" }, db = y[j..<j2].drop { $0 == "0" }
                if da.count != db.count { return da.count < db.count }
                for (p, q) in zip(da, db) where p != q { return p.value < q.value }
                if (i2 - i) != (j2 - j) { return (i2 - i) < (j2 - j) }
                i = i2; j = j2
                continue
            }
            if x[i] != y[j] { return x[i].value < y[j].value }
            i += 1; j += 1
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a < b
    }
}
