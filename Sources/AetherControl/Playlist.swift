import AetherDisc
import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
        return Paths.lastComponent(source)
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

    /// The order before ``shuffle(keepingCurrent:seed:)`` (nil: not shuffled so).
    private var unshuffled: [PlaylistItem]?
    /// Whether the order is shuffled by ``shuffle(keepingCurrent:seed:)``.
    public var isShuffled: Bool { unshuffled != nil }

    /// Shuffling while playing (MPRIS `Shuffle`, `set shuffle yes`): the item playing stays and
    /// comes first, the others follow in a seeded random order; ``unshuffle()`` puts the order
    /// back. Nothing changes when it is shuffled already.
    public mutating func shuffle(keepingCurrent seed: UInt64) {
        guard unshuffled == nil else { return }
        unshuffled = items
        var rest = items
        var first: [PlaylistItem] = []
        if let p = position, rest.indices.contains(p) { first = [rest.remove(at: p)] }
        var generator = SplitMix64(seed: seed)
        rest.shuffle(using: &generator)
        items = first + rest
        if position != nil { position = first.isEmpty ? nil : 0 }
    }

    /// The order before the shuffle, the item playing where it was in it.
    public mutating func unshuffle() {
        guard let original = unshuffled else { return }
        let playing = current
        items = original
        unshuffled = nil
        if let playing { position = items.firstIndex(of: playing) }
    }

    public mutating func append(_ item: PlaylistItem) {
        items.append(item)
        unshuffled?.append(item)
    }

    /// Replaces everything with `item` (`loadfile … replace`).
    public mutating func replace(with item: PlaylistItem) {
        items = [item]
        unshuffled = nil
        position = nil
    }

    /// Puts `entries` in the place of item `index` (a station list named by URL, opened: its
    /// stations; in the order before a shuffle too, after the list's place there).
    public mutating func expand(at index: Int, with entries: [PlaylistItem]) {
        guard items.indices.contains(index) else { return }
        let list = items[index]
        items.replaceSubrange(index...index, with: entries)
        if let k = unshuffled?.firstIndex(of: list) { unshuffled?.replaceSubrange(k...k, with: entries) }
        if let p = position, p > index { position = p + entries.count - 1 }
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

    /// Image file name extensions: a directory's images play (a slideshow) when it holds no
    /// sound or video of its own, so an album's cover is not an item of the album.
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "bmp", "tif", "tiff", "gif", "avif", "jxl"]

    static let playlistExtensions: Set<String> = ["m3u", "m3u8", "pls"]
    /// Nested playlists and directories deeper than this are not followed.
    static let maxDepth = 8
    /// A playlist file larger than this is not read as one.
    static let maxPlaylistBytes = 16 << 20
    /// Items one expansion yields at most; the rest is left out with one warning.
    public static let maxItems = 100_000
    /// Warnings one expansion gives at most (then one line says how many more there were).
    static let maxWarnings = 20

    public struct Result: Sendable {
        public var items: [PlaylistItem] = []
        /// One line per argument or entry that was left out.
        public var warnings: [String] = []
        /// Playlist files and directories already expanded, by real path (symlinks resolved):
        /// each is expanded once, so a list that names itself or a directory of links to itself
        /// costs one pass, whatever its breadth.
        var expanded = Set<String>()
        var moreWarnings = 0
        var full = false
        let maxItems: Int

        init(maxItems: Int) { self.maxItems = maxItems }

        mutating func warn(_ line: String) {
            if warnings.count < PlaylistLoader.maxWarnings { warnings.append(line) } else { moreWarnings += 1 }
        }

        /// Adds `item` unless the budget is spent (then says so once). False when full.
        @discardableResult
        mutating func add(_ item: PlaylistItem) -> Bool {
            guard items.count < maxItems else {
                if !full { warn("the playlist is cut at \(maxItems) items; the rest is left out") }
                full = true
                return false
            }
            items.append(item)
            return true
        }
    }

    public static func isURL(_ text: String) -> Bool {
        // `scheme://`: the scheme's characters are looked at on the bytes, up to the colon.
        var length = 0
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: ":"):
                return length > 0 && text.utf8.dropFirst(length).starts(with: "://".utf8)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                length += 1
            default:
                return false
            }
        }
        return false
    }

    /// The items `arguments` stand for, at most `maxItems` of them; each playlist file and
    /// directory is expanded once (by real path), at most ``maxDepth`` deep.
    public static func expand(_ arguments: [String], maxItems: Int = maxItems) -> Result {
        var result = Result(maxItems: maxItems)
        for argument in arguments where !result.full { add(argument, title: nil, depth: 0, into: &result) }
        if result.moreWarnings > 0 { result.warnings.append("… and \(result.moreWarnings) more warnings like these") }
        return result
    }

    /// nil: nothing at `path` (or it cannot be seen); else whether it is a directory (links
    /// followed). One stat(2), no Foundation path work: this runs once per playlist entry.
    static func kind(of path: String) -> Bool? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The last path component's extension, lowercased (ASCII), "" when there is none.
    static func pathExtension(_ path: String) -> String {
        var ext: [UInt8] = []
        for b in path.utf8.reversed() {
            if b == UInt8(ascii: "/") { return "" }
            if b == UInt8(ascii: ".") { return String(decoding: ext.reversed(), as: UTF8.self) }
            if ext.count >= 8 { return "" }
            ext.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
        }
        return ""
    }

    /// The path with every symlink resolved (nil: it cannot be).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func add(_ source: String, title: String?, depth: Int, into result: inout Result) {
        guard !result.full else { return }
        if source == "-" || isURL(source) {
            result.add(PlaylistItem(source: source, title: title))
            return
        }
        guard let isDirectory = kind(of: source) else {
            // Left to the player, which says "No such file or directory" with the name.
            result.add(PlaylistItem(source: source, title: title))
            return
        }
        var shown: String { TextSanitizer.clean(source) }
        // A DVD folder is one item (its main title), not its VOB files.
        if isDirectory, DiscFiles.isDiscFolder(source) {
            _ = result.add(PlaylistItem(source: source, title: title))
            return
        }
        if isDirectory {
            guard depth < maxDepth else { result.warn("'\(shown)': directories nested too deep"); return }
            guard result.expanded.insert(realPath(source) ?? source).inserted else {
                result.warn("'\(shown)': directory already expanded (a link loop?), left out")
                return
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []
            let sorted = entries.filter { !$0.hasPrefix(".") }.sorted(by: naturalOrder)
            let images = !sorted.contains { mediaExtensions.contains(pathExtension($0)) }
            var found = 0
            for name in sorted {
                if result.full { break }
                let path = Paths.join(source, name)
                guard let dir = kind(of: path) else { continue }
                if dir {
                    let before = result.items.count
                    add(path, title: nil, depth: depth + 1, into: &result)
                    found += result.items.count - before
                } else if mediaExtensions.contains(pathExtension(name)) || images && imageExtensions.contains(pathExtension(name)) {
                    if result.add(PlaylistItem(source: path)) { found += 1 }
                }
            }
            if found == 0, depth == 0, !result.full { result.warn("'\(shown)': no media files in the directory") }
            return
        }
        if playlistExtensions.contains(pathExtension(source)), let parsed = readPlaylist(source) {
            guard depth < maxDepth else { result.warn("'\(shown)': playlists nested too deep"); return }
            guard result.expanded.insert(realPath(source) ?? source).inserted else {
                result.warn("'\(shown)': playlist already expanded (it includes itself?), left out")
                return
            }
            for w in parsed.warnings { result.warn("'\(shown)': \(w)") }
            if parsed.items.isEmpty { result.warn("'\(shown)': the playlist is empty") }
            for entry in parsed.items where !result.full { add(entry.source, title: entry.title, depth: depth + 1, into: &result) }
            return
        }
        result.add(PlaylistItem(source: source, title: title))
    }

    /// What a playlist file's text holds: its entries (at most the budget) and what was left out.
    public struct Parsed: Sendable, Equatable {
        public var items: [PlaylistItem] = []
        public var warnings: [String] = []
    }

    /// The entries of an M3U or PLS file, or nil when it is not a list (an HLS media playlist,
    /// unreadable, too large, not a regular file): then it is played as a source.
    static func readPlaylist(_ path: String, maxEntries: Int = maxItems) -> Parsed? {
        guard let (bytes, truncated) = TextBudget.read(path: path, limit: maxPlaylistBytes), !truncated else { return nil }
        return parse(bytes: bytes, path: path, maxEntries: maxEntries)
    }

    /// The entries of a playlist file's bytes (`path` says where relative entries are and
    /// whether it is a `.pls`), at most `maxEntries`; nil for an HLS playlist (a stream).
    /// Lines over ``TextBudget/maxLineBytes`` are left out with a warning.
    public static func parse(bytes: [UInt8], path: String, maxEntries: Int = maxItems) -> Parsed? {
        let base = Paths.deletingLastComponent(path)
        var parsed = Parsed()
        var tooLong = 0
        var first: String?
        TextBudget.forEachLine(bytes) { _, line in
            guard let line else { return true }
            if line.isEmpty { return true }
            first = String(decoding: line, as: UTF8.self)
            return false
        }
        let pls = pathExtension(path) == "pls" || first?.lowercased() == "[playlist]"
        var cut = false
        if pls {
            // Entries by number (a title may come before or after its file), at most the budget.
            var files: [Int: String] = [:]
            var titles: [Int: String] = [:]
            func number(_ key: ArraySlice<UInt8>, after prefix: [UInt8]) -> Int? {
                guard key.count > prefix.count, key.count <= prefix.count + 18,
                      zip(key, prefix).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
                return Int(String(decoding: key.dropFirst(prefix.count), as: UTF8.self))
            }
            let file = Array("file".utf8), title = Array("title".utf8)
            TextBudget.forEachLine(bytes) { _, line in
                guard let line else { tooLong += 1; return true }
                guard let eq = line.firstIndex(of: UInt8(ascii: "=")) else { return true }
                let key = line[..<eq]
                func value() -> String {
                    var v = line[(eq + 1)...]
                    while let b = v.first, b == 0x20 || b == 0x09 { v = v.dropFirst() }
                    return String(decoding: v, as: UTF8.self)
                }
                if let n = number(key, after: file) {
                    if files[n] == nil, files.count >= maxEntries { cut = true; return false }
                    files[n] = value()
                } else if let n = number(key, after: title), titles.count < maxEntries {
                    titles[n] = value()
                }
                return true
            }
            parsed.items = files.keys.sorted().map { PlaylistItem(source: resolve(files[$0]!, base: base), title: titles[$0]) }
        } else {
            let tag = Array("#EXT-X-".utf8), extinf = Array("#EXTINF:".utf8)
            var hls = false
            var title: String?
            TextBudget.forEachLine(bytes) { _, line in
                guard let line else { tooLong += 1; return true }
                if line.isEmpty { return true }
                if line.first == UInt8(ascii: "#") {
                    if line.starts(with: tag) { hls = true; return false }
                    // #EXTINF:<seconds>[ attributes],<title>
                    if line.starts(with: extinf), let comma = line.firstIndex(of: UInt8(ascii: ",")) {
                        let t = String(decoding: line[(comma + 1)...], as: UTF8.self).trimmingWhitespace()
                        title = t.isEmpty ? nil : t
                    }
                    return true
                }
                guard parsed.items.count < maxEntries else { cut = true; return false }
                parsed.items.append(PlaylistItem(source: resolve(String(decoding: line, as: UTF8.self), base: base), title: title))
                title = nil
                return true
            }
            // HLS (libavformat's): its tags come first, so none past the budget is looked for.
            if hls { return nil }
        }
        if tooLong > 0 {
            parsed.warnings.append("\(tooLong) line(s) too long (over \(TextBudget.describe(bytes: TextBudget.maxLineBytes))) left out")
        }
        if cut { parsed.warnings.append("more than \(maxEntries) entries; the rest is left out") }
        return parsed
    }

    /// Whether `source` names a station list on the network (`.pls`, `.m3u`; `.m3u8` is HLS):
    /// the player fetches it and plays its entries (``PlayerController``).
    public static func isRemoteList(_ source: String) -> Bool {
        guard isURL(source), NetworkSettings.isNetwork(source) else { return false }
        let path = URLComponents(string: source)?.path ?? ""
        let ext = pathExtension(path)
        return ext == "pls" || ext == "m3u"
    }

    /// A station list fetched from `url`: its entries resolved against the URL; only network
    /// URLs are kept (a list from the network names no local file: ``isRemoteEntry(_:)``), the
    /// others left out with one warning. nil when it is not a list (an HLS playlist: a stream).
    public static func parseRemote(bytes: [UInt8], url: String, maxEntries: Int = 1000) -> Parsed? {
        guard var parsed = parse(bytes: bytes, path: "", maxEntries: maxEntries) else { return nil }
        var refused = 0
        parsed.items = parsed.items.compactMap { item in
            var item = item
            if !isURL(item.source) {
                // Relative to the list's URL (a path from the root names a local file: refused).
                guard !item.source.hasPrefix("/") else { refused += 1; return nil }
                item.source = URLReference.resolve(item.source, against: url)
            }
            guard isRemoteEntry(item.source) else { refused += 1; return nil }
            return item
        }
        if refused > 0 { parsed.warnings.append("\(refused) entr\(refused == 1 ? "y" : "ies") not on the network left out") }
        return parsed
    }

    /// Whether a station list from the network may name `source`: a transport to the network,
    /// never a wrapper whose nested URL may be a local file (`subfile:/…`, `crypto+file:`, `hls+file:`).
    public static func isRemoteEntry(_ source: String) -> Bool {
        NetworkSettings.scheme(of: source).map(["http", "https", "tcp", "tls", "udp", "rtp", "rtsp", "srtp", "rtmp", "rtmps", "rtmpt", "rtmpts", "srt", "ftp"].contains) ?? false
    }

    /// A relative entry is relative to the playlist's directory; `file://` URLs become paths.
    static func resolve(_ entry: String, base: String) -> String {
        if entry.hasPrefix("file://"), let url = URL(string: entry), url.isFileURL { return url.path }
        if entry.hasPrefix("/") || entry == "-" || isURL(entry) { return entry }
        if base.isEmpty { return entry }
        return base.hasSuffix("/") ? base + entry : base + "/" + entry
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
                i = i2
                j = j2
                continue
            }
            if x[i] != y[j] { return x[i].value < y[j].value }
            i += 1
            j += 1
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a < b
    }
}
