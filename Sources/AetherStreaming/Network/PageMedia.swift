import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How page URLs are resolved through yt-dlp (mpv's `--ytdl`, `--ytdl-format`,
/// `--ytdl-raw-options`).
public struct YtdlSettings: Sendable, Equatable {
    /// False: a URL is only ever tried as media.
    public var enabled = true
    /// yt-dlp's `-f` (nil: yt-dlp's own default).
    public var format: String?
    /// Extra yt-dlp options, `--KEY VALUE` (an empty value: `--KEY` alone).
    public var rawOptions: [(key: String, value: String)] = []
    /// The program (a name looked up in `PATH`, or a path).
    public var program = "yt-dlp"
    /// Seconds yt-dlp may run.
    public var timeout = 60.0

    public init() {}

    public static func == (a: YtdlSettings, b: YtdlSettings) -> Bool {
        a.enabled == b.enabled && a.format == b.format && a.program == b.program && a.timeout == b.timeout
            && a.rawOptions.map(\.key) == b.rawOptions.map(\.key) && a.rawOptions.map(\.value) == b.rawOptions.map(\.value)
    }

    /// yt-dlp options that run programs or read or write files of their own: refused in
    /// `--ytdl-raw-options` (they would turn a page URL into a command), with every
    /// abbreviation of them.
    public static let refusedKeys: Set<String> = ["exec", "exec-before-download", "netrc-cmd", "config-location", "config-locations",
                                           "batch-file", "a", "o", "output", "paths", "P", "print-to-file", "load-info-json",
                                           "update", "U", "update-to", "plugin-dirs", "downloader", "external-downloader",
                                           "downloader-args", "external-downloader-args", "postprocessor-args", "ppa",
                                           "use-postprocessor", "cookies"]

    /// Checks a `--ytdl-format` value: printable, at most 256 characters, not an option.
    public static func checkFormat(_ value: String) throws(PageError) -> String {
        guard !value.isEmpty, value.utf8.count <= 256, !value.hasPrefix("-"),
              value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }), TextSanitizer.clean(value) == value else {
            throw PageError("--ytdl-format: expected a yt-dlp format of at most 256 printable characters, got '\(TextSanitizer.clean(String(value.prefix(80))))'")
        }
        return value
    }

    /// Parses `--ytdl-raw-options` (mpv's form: `key=value,key2=value2,flag=`), at most 32
    /// pairs; keys are option names (`[A-Za-z0-9-]`, no leading `-`), values printable.
    public static func parseRawOptions(_ text: String) throws(PageError) -> [(key: String, value: String)] {
        guard text.utf8.count <= 4096 else { throw PageError("--ytdl-raw-options: longer than 4096 bytes") }
        var out: [(key: String, value: String)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard out.count < 32 else { throw PageError("--ytdl-raw-options: more than 32 options") }
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pieces[0])
            let value = pieces.count > 1 ? String(pieces[1]) : ""
            guard !key.isEmpty, key.utf8.count <= 64, !key.hasPrefix("-"),
                  key.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }) else {
                throw PageError("--ytdl-raw-options: '\(TextSanitizer.clean(String(key.prefix(80))))' is not an option name")
            }
            // yt-dlp takes any unambiguous abbreviation of a long option (`--exec-befo`): a key
            // that begins a refused option's name is refused too.
            guard !refusedKeys.contains(where: { $0.hasPrefix(key) }) else {
                throw PageError("--ytdl-raw-options: '\(key)' is refused (it runs programs or reads or writes files)")
            }
            guard value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw PageError("--ytdl-raw-options: the value of '\(key)' has control characters")
            }
            out.append((key, value))
        }
        return out
    }
}

/// What yt-dlp found on a page (its `-J` output, read as hostile input): the media URL, the
/// separate audio when the chosen format is video + audio, the HTTP headers to fetch them with,
/// the title and the chapters. Every field goes through a typed converter with a bound.
public struct PageMedia: Sendable, Equatable {
    public var url: String
    public var audioURL: String?
    public var headers: [String: String] = [:]
    public var title: String?
    public var chapters: [Chapter] = []

    /// `base` with the page's headers under the user's: yt-dlp's User-Agent and Referer where the
    /// user set none, its other headers where the user has none of that name. What the page's
    /// media is fetched with, by playback and by `probe`.
    public func network(over base: NetworkSettings) -> NetworkSettings {
        var network = base
        var headers = self.headers
        if let ua = headers.removeValue(forKey: "User-Agent"), network.userAgent == nil { network.userAgent = ua }
        if let ref = headers.removeValue(forKey: "Referer"), network.referrer == nil { network.referrer = ref }
        let mine = Set(network.headers.keys.map { $0.lowercased() })
        for (name, value) in headers where !mine.contains(name.lowercased()) { network.headers[name] = value }
        return network
    }

    /// The most of yt-dlp's output read.
    public static let outputBudget = 32 << 20
    /// Nesting read (the JSON reader's own limit, mpv's 50: the stricter of the two readers the
    /// program once had).
    static let maxDepth = JSONValue.maximumDepth
    /// Values read in all (a 32 MiB answer of `[0,0,0,…]` would otherwise be 16 million values).
    static let maxValues = 2 << 20
    static let maxURL = 16 << 10
    static let maxChapters = 1000
    static let maxHeaders = 32

    /// Parses yt-dlp's `-J` JSON; throws a one-line reason when it is not JSON, too deep or too
    /// large, is a playlist, or names nothing playable (no http(s) URL).
    public static func parse(_ bytes: [UInt8]) throws(PageError) -> PageMedia {
        switch try PageAnswer.parse(bytes) {
        case .media(let media): return media
        case .playlist(let list): throw PageError("the page is a playlist of \(list.entries.count) entr\(list.entries.count == 1 ? "y" : "ies")")
        }
    }

    /// yt-dlp's answer as JSON within the budgets (``outputBudget``, ``maxDepth``, ``maxValues``).
    static func root(_ bytes: [UInt8]) throws(PageError) -> JSONValue {
        guard bytes.count <= outputBudget else { throw PageError("yt-dlp's answer is larger than \(outputBudget >> 20) MiB") }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes, maximumDepth: maxDepth, maximumValues: maxValues)
        } catch {
            switch error.budget {
            case .depth?: throw PageError("yt-dlp's answer nests deeper than \(maxDepth) levels")
            case .values?: throw PageError("yt-dlp's answer has more than \(maxValues) values")
            case .bytes?, nil: throw PageError("yt-dlp's answer is not JSON")
            }
        }
        guard case .object = root else { throw PageError("yt-dlp's answer is not a JSON object") }
        return root
    }

    /// The media of an answer that is not a playlist.
    static func media(_ root: JSONValue) throws(PageError) -> PageMedia {
        var media: PageMedia
        if let requested = root["requested_formats"]?.array, requested.count >= 2, requested.count <= 8 {
            let formats = requested.filter { if case .object = $0 { true } else { false } }
            // The video: the one with a video codec (yt-dlp lists video first), the audio: the next.
            // yt-dlp lists the video first; a codec it could not name is nil (the generic
            // extractor's `<source>`s): then the audio is the one that says `vcodec: none` or
            // names an audio codec, else the other one.
            func audioOnly(_ f: JSONValue) -> Bool {
                f["vcodec"]?.string == "none" || (f["vcodec"]?.string == nil && f["acodec"]?.string.map { $0 != "none" } == true)
            }
            guard let video = formats.first(where: { !audioOnly($0) }) ?? formats.first else {
                throw PageError("yt-dlp named no http(s) URL to play")
            }
            let audio = formats.first { audioOnly($0) && $0["url"]?.string != video["url"]?.string }
                ?? formats.first { $0["url"]?.string != video["url"]?.string }
            guard let v = httpURL(video["url"]) else { throw PageError("yt-dlp named no http(s) URL to play") }
            media = PageMedia(url: v, audioURL: audio.flatMap { httpURL($0["url"]) })
            media.headers = headers(video["http_headers"] ?? root["http_headers"])
        } else if let u = httpURL(root["url"]) {
            media = PageMedia(url: u)
            media.headers = headers(root["http_headers"])
        } else {
            throw PageError("yt-dlp named no http(s) URL to play")
        }
        media.title = title(root["title"])
        if let list = root["chapters"]?.array {
            for c in list.prefix(maxChapters) {
                guard case .object = c, let start = seconds(c["start_time"]), let end = seconds(c["end_time"]), end >= start else { continue }
                let title = c["title"]?.string.map { TextSanitizer.clean(String($0.prefix(256))) }
                media.chapters.append(Chapter(title: title, start: start, end: end))
            }
            media.chapters.sort { $0.start < $1.start }
        }
        return media
    }

    /// A title in yt-dlp's answer (the page's, an entry's): at most 1024 characters, cleaned;
    /// nil when there is none.
    static func title(_ value: JSONValue?) -> String? { TextSanitizer.cleanOrNil(value?.string.map { String($0.prefix(1024)) }) }

    /// An http(s) URL of at most ``maxURL`` bytes with no control characters (C0, DEL, C1) or
    /// spaces (U+0085, U+2028 and the other Unicode white space: a line break to a line reader).
    static func httpURL(_ value: JSONValue?) -> String? {
        guard let s = value?.string, s.utf8.count <= maxURL, ["http", "https"].contains(NetworkSettings.scheme(of: s) ?? ""),
              s.unicodeScalars.allSatisfy({ $0.value > 0x20 && !(0x7F...0x9F).contains($0.value) && !$0.properties.isWhitespace }) else { return nil }
        return s
    }

    /// A time in seconds: a JSON number, finite, 0 to 10⁷.
    static func seconds(_ value: JSONValue?) -> Double? {
        guard let d = value?.number else { return nil }
        return d.isFinite && d >= 0 && d <= 1e7 ? d : nil
    }

    /// Header names as HTTP tokens, values without control characters, each at most 1 KiB;
    /// at most ``maxHeaders``. Others are left out.
    static func headers(_ value: JSONValue?) -> [String: String] {
        guard case .object(let members)? = value else { return [:] }
        var out: [String: String] = [:]
        for (name, v) in members.sorted(by: { $0.key < $1.key }) {
            guard out.count < maxHeaders, let v = v.string, !name.isEmpty, name.utf8.count <= 64, v.utf8.count <= 1024,
                  name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains($0) }),
                  v.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { continue }
            out[name] = v
        }
        return out
    }
}

/// A page that holds several videos (yt-dlp's `_type: playlist`, read with `--flat-playlist`):
/// its entries, each an http(s) URL (the media, or a page yt-dlp reads again when its turn
/// comes) with its title. Thrown by the opener: the host puts the entries in the page's place,
/// as mpv plays such a page as a playlist.
public struct PagePlaylist: Error, Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var url: String
        public var title: String?
        public init(url: String, title: String?) {
            self.url = url
            self.title = title
        }
    }
    public var title: String?
    public var entries: [Entry] = []
    /// Entries without an http(s) URL, left out.
    public var leftOut = 0

    /// Entries read at most (the rest is left out).
    public static let maxEntries = 1000

    static func parse(_ root: JSONValue) -> PagePlaylist {
        var list = PagePlaylist()
        list.title = PageMedia.title(root["title"])
        for entry in (root["entries"]?.array ?? []).prefix(maxEntries) {
            guard case .object = entry, let url = PageMedia.httpURL(entry["url"]) ?? PageMedia.httpURL(entry["webpage_url"]) else {
                list.leftOut += 1
                continue
            }
            list.entries.append(Entry(url: url, title: PageMedia.title(entry["title"])))
        }
        return list
    }
}

/// What yt-dlp's `-J` answer is: one video's media, or a playlist.
public enum PageAnswer: Sendable, Equatable {
    case media(PageMedia)
    case playlist(PagePlaylist)

    /// Throws a one-line reason when the answer is not JSON, too deep or too large, names
    /// nothing playable, or is a playlist with no entry to play.
    public static func parse(_ bytes: [UInt8]) throws(PageError) -> PageAnswer {
        let root = try PageMedia.root(bytes)
        guard root["_type"]?.string == "playlist" else { return .media(try PageMedia.media(root)) }
        let list = PagePlaylist.parse(root)
        guard !list.entries.isEmpty else { throw PageError("the page is a playlist with no entry yt-dlp could name") }
        return .playlist(list)
    }
}
