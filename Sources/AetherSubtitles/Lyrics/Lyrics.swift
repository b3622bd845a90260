import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Synced lyrics read from LRC text (a `song.lrc` sidecar, `--sub-file=x.lrc`, a `LYRICS` tag):
/// lines stamped `[mm:ss.xx]` (several stamps: the line at each), `[offset:±ms]` (a positive
/// offset shows the lines sooner), and the enhanced format's word stamps `<mm:ss.xx>`. Other
/// `[tag:…]` lines (`ar`, `ti`, `al`, `by`, `length` …) are left out.
///
/// Outside input, read within budgets: at most ``maxBytes`` of text, ``maxLines`` stamped
/// lines, ``maxStampsPerLine`` stamps on one line, ``maxWordsPerLine`` words, ``maxLineLength``
/// characters of a line; a stamp past ``maxSeconds`` or malformed is no stamp. Text is
/// sanitised (controls, escape sequences, bidirectional and invisible characters removed).
public struct Lyrics: Sendable, Equatable {
    public struct Word: Sendable, Equatable {
        public var start: Double
        public var text: String
    }

    public struct Line: Sendable, Equatable {
        /// Seconds on the media timeline (the offset applied), and where the next line starts.
        public var start: Double
        public var end: Double
        public var text: String
        /// The line's words by their own stamps (enhanced LRC); empty without them.
        public var words: [Word]
    }

    /// In time order.
    public var lines: [Line]
    /// False for lyrics without times (an `UNSYNCEDLYRICS` tag): shown, never highlighted.
    public var isSynced = true

    public static let maxBytes = 1 << 20
    public static let maxLines = 10_000
    public static let maxStampsPerLine = 64
    public static let maxWordsPerLine = 256
    public static let maxLineLength = 2000
    public static let maxSeconds = 86_400.0
    /// How long the last line stays when the length of the song is not known.
    public static let lastLineSeconds = 10.0

    /// The lyrics in `bytes`, or nil when no line has a stamp (unsynced text is not LRC).
    /// `duration`: the song's length, where the last line ends.
    public static func parse(_ bytes: some Collection<UInt8>, duration: Double? = nil) -> Lyrics? {
        let text = String(decoding: bytes.prefix(maxBytes), as: UTF8.self)
        var offset = 0.0
        var stamped: [(start: Double, order: Int, text: String, words: [Word])] = []
        var order = 0
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard stamped.count < maxLines else { break }
            var rest = Substring(raw.prefix(maxLineLength))
            var stamps: [Double] = []
            // Leading [..] tags: stamps, or a tag such as [offset:+250] or [ar:Artist].
            while rest.first == "[", let close = rest.firstIndex(of: "]") {
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let t = stamp(inside) {
                    if stamps.count < maxStampsPerLine { stamps.append(t) }
                } else if inside.lowercased().hasPrefix("offset:") {
                    let value = inside.dropFirst(7).trimmingWhitespace()
                    let digits = value.hasPrefix("+") ? String(value.dropFirst()) : value
                    if digits.count <= 12, let ms = Int(digits), abs(ms) <= 86_400_000 { offset = Double(ms) / 1000 }
                } else {
                    break
                }
                rest = rest[rest.index(after: close)...]
            }
            guard !stamps.isEmpty else { continue }
            let (line, words) = Self.words(rest)
            for t in stamps where stamped.count < maxLines {
                // Word stamps are absolute; a repeated line's words move with its stamp.
                let shift = words.first.map { t - $0.start } ?? 0
                stamped.append((t, order, line, stamps.count > 1 ? words.map { Word(start: $0.start + shift, text: $0.text) } : words))
                order += 1
            }
        }
        guard !stamped.isEmpty else { return nil }
        stamped.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        var lines: [Line] = []
        for (k, s) in stamped.enumerated() {
            let start = max(0, s.start - offset)
            let next = stamped[(k + 1)...].first { $0.start > s.start }.map { max(0, $0.start - offset) }
            let end = next ?? max(start + 0.001, duration.map { min($0, start + maxSeconds) } ?? start + lastLineSeconds)
            lines.append(Line(start: start, end: max(start, end), text: s.text,
                              words: s.words.map { Word(start: max(0, $0.start - offset), text: $0.text) }))
        }
        return Lyrics(lines: lines)
    }

    /// Lyrics without times: each line of `text` (sanitised, within the budgets), never
    /// highlighted; nil when there is no text.
    public static func unsynced(_ text: String) -> Lyrics? {
        let lines = text.prefix(maxBytes).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).prefix(maxLines)
            .map { Line(start: 0, end: 0, text: TextSanitizer.clean(String($0.prefix(maxLineLength))).trimmingWhitespace(), words: []) }
            .filter { !$0.text.isEmpty }
        guard !lines.isEmpty else { return nil }
        return Lyrics(lines: Array(lines), isSynced: false)
    }

    /// Synced lyrics from ID3 `SYLT` entries (milliseconds and text, in the order given): an
    /// entry whose text begins a line (a line break first) starts one and the others are its
    /// words; where no entry does, each entry is a line. Within the same budgets.
    public static func synced(_ entries: [(ms: UInt32, text: String)], duration: Double? = nil) -> Lyrics? {
        let byLines = entries.contains { $0.text.hasPrefix("\n") || $0.text.hasPrefix("\r") }
        var text = ""
        for (k, e) in entries.prefix(maxLines * 8).enumerated() {
            let stamp = String(cFormat: "%02d:%06.3f", Int(e.ms / 60_000), Double(e.ms % 60_000) / 1000)
            let body = e.text.replacingAll("\r", with: "\n").replacingAll("<", with: "‹")
            if !byLines || k == 0 || body.hasPrefix("\n") {
                text += "\n[\(stamp)]" + (byLines ? "<\(stamp)>" : "") + body.trimming(while: \.isNewline).prefix(maxLineLength)
            } else {
                text += "<\(stamp)>" + body.replacingAll("\n", with: " ").prefix(maxLineLength)
            }
        }
        return parse(Array(text.utf8), duration: duration)
    }

    /// The line sung at `time`: the last one whose stamp has passed (nil before the first, and
    /// for lyrics without times).
    public func lineIndex(at time: Double) -> Int? {
        guard isSynced else { return nil }
        var low = 0, high = lines.count
        while low < high {
            let mid = (low + high) / 2
            if lines[mid].start <= time { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? low - 1 : nil
    }

    /// How a piece of a shown line is sung: already (`sung`), the rest of the line sung now
    /// (`now`), or another line (`other`).
    public enum Emphasis: Sendable, Equatable { case sung, now, other }

    /// The lines to show in `rows` rows at `time`: the line sung now in the middle row once
    /// there are lines above it, each line as its pieces by emphasis (the line sung now split
    /// where the singing is: the words whose stamps have passed, or all of it without them).
    public func window(rows: Int, at time: Double) -> [[(text: String, emphasis: Emphasis)]] {
        guard rows > 0, !lines.isEmpty else { return [] }
        let current = lineIndex(at: time)
        let first = max(0, min((current ?? 0) - rows / 2, lines.count - rows))
        return (first..<min(lines.count, first + rows)).map { k in
            let line = lines[k]
            guard k == current else { return [(line.text, .other)] }
            guard !line.words.isEmpty else { return [(line.text, .sung)] }
            let passed = line.words.prefix { $0.start <= time }
            return [(passed.map(\.text).joined(), .sung), (line.words.dropFirst(passed.count).map(\.text).joined(), .now)]
                .filter { !$0.0.isEmpty }
        }
    }

    /// Where the singing is at `time`: the line (-1 before the first) and its words sung (what
    /// a view redraws on).
    public func progress(at time: Double) -> [Int] {
        guard let k = lineIndex(at: time) else { return [-1, 0] }
        return [k, lines[k].words.prefix { $0.start <= time }.count]
    }

    /// As a WebVTT document (a subtitle track like any other): a cue per line with text, the
    /// word stamps left out.
    public var webVTT: String {
        var out = "WEBVTT\n\n"
        for line in lines where !line.text.trimmingWhitespace().isEmpty && line.end > line.start {
            out += "\(Self.vttTime(line.start)) --> \(Self.vttTime(line.end))\n"
            out += line.text.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;")
                .replacingAll(">", with: "&gt;") + "\n\n"
        }
        return out
    }

    /// `[mm:ss]`, `[mm:ss.x]`, `[mm:ss.xx]`, `[mm:ss.xxx]` (also `:` before the fraction): seconds.
    static func stamp(_ text: Substring) -> Double? {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var secondsText = parts[1]
        var fraction: Substring = ""
        if parts.count == 3 {
            fraction = parts[2]
        } else if let dot = secondsText.firstIndex(of: ".") {
            fraction = secondsText[secondsText.index(after: dot)...]
            secondsText = secondsText[..<dot]
        }
        func digits(_ s: Substring, _ range: ClosedRange<Int>) -> Int? {
            guard range.contains(s.count), s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(s)
        }
        guard let minutes = digits(parts[0], 1...4), let seconds = digits(secondsText, 1...2), seconds < 60 else { return nil }
        var t = Double(minutes * 60 + seconds)
        if parts.count == 3 || text.contains(".") {
            guard let f = digits(fraction, 1...3) else { return nil }
            t += Double(f) / pow(10, Double(fraction.count))
        }
        return t <= maxSeconds ? t : nil
    }

    /// A line's text without its word stamps, and its words (enhanced LRC: `<mm:ss.xx>word`).
    static func words(_ text: Substring) -> (String, [Word]) {
        var words: [Word] = []
        var plain = ""
        var rest = text
        while let open = rest.firstIndex(of: "<") {
            let before = rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">"), let t = stamp(rest[rest.index(after: open)..<close]) else {
                plain += rest[...open]
                if !words.isEmpty { words[words.count - 1].text += rest[...open] }
                rest = rest[rest.index(after: open)...]
                continue
            }
            plain += before
            if !words.isEmpty { words[words.count - 1].text += before }
            if words.count < maxWordsPerLine { words.append(Word(start: t, text: "")) }
            rest = rest[rest.index(after: close)...]
        }
        plain += rest
        if !words.isEmpty { words[words.count - 1].text += rest }
        let clean = TextSanitizer.clean(plain).trimmingWhitespace()
        let cleanWords = words.map { Word(start: $0.start, text: TextSanitizer.clean($0.text)) }.filter { !$0.text.isEmpty }
        return (clean, cleanWords)
    }

    static func vttTime(_ t: Double) -> String {
        let ms = Int((min(t, maxSeconds) * 1000).rounded())
        return String(cFormat: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
