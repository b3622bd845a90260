import AetherBase
import FoundationEssentials

/// What an internet radio station (Icecast, SHOUTcast) says about itself: its `icy-*` response
/// headers (name, genre, URL, description) and the song title it sends in band
/// (`StreamTitle='…';` blocks every `icy-metaint` bytes, which libavformat's http protocol
/// strips from the body and exports as `icy_metadata_packet`).
///
/// Both arrive from the server: each is read within a budget (``maxHeaderBytes``,
/// ``maxPacketBytes``), decoded as UTF-8 (else as Latin-1, SHOUTcast's usual charset), cleaned
/// by ``TextSanitizer`` and cut to ``maxValueCharacters``. Keys are mpv's (`icy-title`,
/// `icy-name`, `icy-genre`, `icy-url`, `icy-description`).
public struct StationMetadata: Sendable, Equatable {
    /// The station's name (`icy-name`).
    public var name: String?
    public var genre: String?
    public var url: String?
    public var description: String?
    /// The song playing (`StreamTitle`, mpv's `icy-title`); nil before the first block names one.
    public var title: String?
    /// How many times the title changed (the first title counts).
    public var titleChanges = 0

    public init() {}

    /// An `icy-metadata` block is at most 255 × 16 bytes; anything longer is cut there.
    public static let maxPacketBytes = 255 * 16
    /// The `icy-*` header lines read (libavformat keeps every one; the rest is ignored).
    public static let maxHeaderBytes = 16 << 10
    /// A value longer than this many characters is cut (with an ellipsis).
    public static let maxValueCharacters = 512

    /// The station's fields as mpv's `metadata` keys (only those known).
    public var tags: [String: String] {
        var out: [String: String] = [:]
        out["icy-title"] = title
        out["icy-name"] = name
        out["icy-genre"] = genre
        out["icy-url"] = url
        out["icy-description"] = description
        return out
    }

    /// Takes the station's `icy-*` headers (libavformat's `icy_metadata_headers`: one
    /// `Name: value` line each). Unknown headers are ignored; a header not sent keeps its value
    /// (a reconnect to the same station says the same).
    public mutating func take(headers bytes: some Collection<UInt8>) {
        let fields = Self.headerFields(bytes)
        if let v = fields["icy-name"] { name = v }
        if let v = fields["icy-genre"] { genre = v }
        if let v = fields["icy-url"] { url = v }
        if let v = fields["icy-description"] { description = v }
    }

    /// Takes one in-band block; true when it changed the title. A block without `StreamTitle`
    /// changes nothing; an empty `StreamTitle` clears it (the station says nothing plays),
    /// except with `reconnected` (the first block after a reconnect: Icecast says `''` to every
    /// new listener of a source that restarted and has not named its song yet; the title
    /// stays until the station names another).
    @discardableResult
    public mutating func take(packet bytes: some Collection<UInt8>, reconnected: Bool = false) -> Bool {
        guard let value = Self.streamFields(bytes)["StreamTitle"] else { return false }
        if value.isEmpty, reconnected { return false }
        let new: String? = value.isEmpty ? nil : value
        guard new != title else { return false }
        title = new
        if new != nil { titleChanges += 1 }
        return true
    }

    /// The `icy-*` header lines' values by lower-cased name (the ones kept: name, genre, URL,
    /// description).
    static func headerFields(_ bytes: some Collection<UInt8>) -> [String: String] {
        let known: Set<String> = ["icy-name", "icy-genre", "icy-url", "icy-description"]
        var out: [String: String] = [:]
        for line in Array(bytes.prefix(maxHeaderBytes)).split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon - line.startIndex <= 32 else { continue }
            let key = String(decoding: line[..<colon], as: UTF8.self).lowercased().trimmingWhitespace()
            guard known.contains(key), out[key] == nil else { continue }
            let value = text(line[(colon + 1)...])
            if !value.isEmpty { out[key] = value }
        }
        return out
    }

    /// The `Key='value';` pairs of one in-band block. A value runs to the next `';` (titles
    /// hold apostrophes: `Don't Stop`), else to the block's end (a closing `'` dropped); the
    /// block ends at its first NUL (the padding). Keys are kept as sent.
    public static func streamFields(_ bytes: some Collection<UInt8>) -> [String: String] {
        var block = Array(bytes.prefix(maxPacketBytes))
        if let nul = block.firstIndex(of: 0) { block.removeSubrange(nul...) }
        var out: [String: String] = [:]
        var i = 0
        let quote = UInt8(ascii: "'"), semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "=")
        while i < block.count {
            guard let eq = block[i...].firstIndex(of: equals) else { break }
            let key = String(decoding: block[i..<eq], as: UTF8.self).trimmingWhitespace()
            var start = eq + 1
            let quoted = start < block.count && block[start] == quote
            if quoted { start += 1 }
            var end = block.count, next = block.count
            var j = start
            while j < block.count {
                if quoted, block[j] == quote, j + 1 == block.count || block[j + 1] == semicolon {
                    end = j
                    next = min(block.count, j + 2)
                    break
                }
                if !quoted, block[j] == semicolon {
                    end = j
                    next = j + 1
                    break
                }
                j += 1
            }
            if !key.isEmpty, key.count <= 64, out[key] == nil {
                out[key] = text(block[start..<end])
            }
            i = next
        }
        return out
    }

    /// Bytes from the server as clean text: UTF-8 (a stray invalid byte becomes U+FFFD), else,
    /// when no character in it is UTF-8's, Latin-1; sanitised, trimmed, cut.
    static func text(_ bytes: some Collection<UInt8>) -> String {
        let utf8 = String(decoding: Array(bytes), as: UTF8.self)
        let isUTF8 = !utf8.unicodeScalars.contains { $0 == "\u{FFFD}" }
            || utf8.unicodeScalars.contains { $0.value > 0x7F && $0 != "\u{FFFD}" }
        let raw = isUTF8 ? utf8 : String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        let clean = TextSanitizer.clean(raw).trimmingWhitespace()
        guard clean.count > maxValueCharacters else { return clean }
        return String(clean.prefix(maxValueCharacters - 1)) + "…"
    }
}
