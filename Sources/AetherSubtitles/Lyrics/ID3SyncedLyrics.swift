import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads the synchronised lyrics (`SYLT` frames) of an ID3v2.3 or v2.4 tag at the head of a
/// file; libavformat keeps the other ID3 frames but not these. Outside input, read within a
/// budget: at most ``maxTagBytes`` of tag, ``maxEntries`` entries; a frame that is compressed,
/// encrypted, cut short or stamped in MPEG frames rather than milliseconds is left out (one log
/// line), and so is a tag that is not one.
public enum ID3SyncedLyrics {
    public static let maxTagBytes = 8 << 20
    public static let maxEntries = 100_000

    /// The bytes of `path` a tag may take (its header says how many), read with `O_NOFOLLOW`
    /// from a regular file; nil when it has no ID3v2 tag.
    public static func head(of path: String) -> [UInt8]? {
        // The header says how much more to read (within the tag budget): two bounded reads.
        func prefix(_ count: Int) -> [UInt8]? {
            try? FileBytes.read(path: path, limit: count, truncating: true, followLinks: false, regularOnly: true).get()
        }
        guard let header = prefix(10), let size = tagSize(header) else { return nil }
        return prefix(10 + size)
    }

    /// The tag's size after its 10-byte header (a syncsafe integer), nil when `header` is not
    /// an ID3v2.3/2.4 header or the tag is past the budget.
    static func tagSize(_ header: [UInt8]) -> Int? {
        guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33, [3, 4].contains(header[3]),
              header[6..<10].allSatisfy({ $0 < 0x80 }) else { return nil }
        let size = syncsafe(header[6..<10])
        return size <= maxTagBytes ? size : nil
    }

    /// The first `SYLT` frame's entries (milliseconds, text), in the order written; empty when
    /// there is none it can read.
    public static func entries(_ tag: [UInt8]) -> [(ms: UInt32, text: String)] {
        guard tag.count >= 10, let size = tagSize(Array(tag.prefix(10))) else { return [] }
        let version = tag[3], flags = tag[5]
        var body = Array(tag[10..<min(tag.count, 10 + size)])
        // v2.3: the whole tag unsynchronised (0xFF 0x00 stands for 0xFF).
        if version == 3, flags & 0x80 != 0 { body = resynchronised(body) }
        var at = 0
        if flags & 0x40 != 0, body.count >= 4 {  // an extended header: skipped
            let n = version == 4 ? syncsafe(body[0..<4]) : Int(bigEndian(body[0..<4])) + 4
            at = n
        }
        while at + 10 <= body.count {
            let id = body[at..<(at + 4)]
            guard id.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else { break }  // padding
            let n = version == 4 ? syncsafe(body[(at + 4)..<(at + 8)]) : Int(bigEndian(body[(at + 4)..<(at + 8)]))
            let frameFlags = UInt16(body[at + 8]) << 8 | UInt16(body[at + 9])
            let start = at + 10
            guard n >= 0, n <= body.count - start else {
                AppLog.write("lyrics", "an ID3 frame runs past its tag: the rest is left out")
                break
            }
            at = start + n
            guard String(decoding: id, as: UTF8.self) == "SYLT" else { continue }
            var frame = Array(body[start..<(start + n)])
            if version == 4 {
                if frameFlags & 0x000C != 0 {
                    AppLog.write("lyrics", "a compressed or encrypted SYLT frame left out")
                    continue
                }
                if frameFlags & 0x0001 != 0 { frame = Array(frame.dropFirst(4)) }  // its data length
                if frameFlags & 0x0002 != 0 || flags & 0x80 != 0 { frame = resynchronised(frame) }
            } else if frameFlags & 0x00C0 != 0 {
                AppLog.write("lyrics", "a compressed or encrypted SYLT frame left out")
                continue
            }
            if let entries = sylt(frame) { return entries }
        }
        return []
    }

    /// A `SYLT` frame's body: encoding, language, timestamp format, content type, descriptor,
    /// then text and a 32-bit time per entry. Nil when it is not in milliseconds or damaged.
    static func sylt(_ f: [UInt8]) -> [(ms: UInt32, text: String)]? {
        guard f.count >= 6, f[0] <= 3 else { return nil }
        guard f[4] == 2 else {
            AppLog.write("lyrics", "a SYLT frame stamped in MPEG frames, not milliseconds, left out")
            return nil
        }
        let encoding = f[0]
        var at = 6
        guard terminated(f, from: &at, encoding: encoding) != nil else { return nil }  // the descriptor
        var entries: [(ms: UInt32, text: String)] = []
        while at < f.count, entries.count < maxEntries {
            guard let text = terminated(f, from: &at, encoding: encoding), at + 4 <= f.count else { break }
            entries.append((bigEndian(f[at..<(at + 4)]), String(text.prefix(Lyrics.maxLineLength))))
            at += 4
        }
        return entries.isEmpty ? nil : entries
    }

    /// A string ending in its encoding's terminator (one zero byte; two, aligned, in UTF-16)
    /// from `at`, which moves past it; nil when there is no terminator.
    static func terminated(_ f: [UInt8], from at: inout Int, encoding: UInt8) -> String? {
        let wide = encoding == 1 || encoding == 2
        var end = at
        while wide ? end + 1 < f.count && !(f[end] == 0 && f[end + 1] == 0) : end < f.count && f[end] != 0 { end += wide ? 2 : 1 }
        guard wide ? end + 1 < f.count : end < f.count else { return nil }
        let raw = Array(f[at..<end])
        at = end + (wide ? 2 : 1)
        switch encoding {
        case 0: return String(raw.map { Character(Unicode.Scalar($0)) })
        case 3: return String(decoding: raw, as: UTF8.self)
        default:
            var units = stride(from: 0, to: raw.count - 1, by: 2).map { UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]) }
            var bigEndian = encoding == 2
            if encoding == 1, let bom = units.first, bom == 0xFEFF || bom == 0xFFFE {
                bigEndian = bom == 0xFEFF
                units.removeFirst()
            }
            if !bigEndian { units = units.map { $0.byteSwapped } }
            return String(decoding: units, as: UTF16.self)
        }
    }

    static func syncsafe(_ b: ArraySlice<UInt8>) -> Int { b.reduce(0) { $0 << 7 | Int($1 & 0x7F) } }
    static func bigEndian(_ b: ArraySlice<UInt8>) -> UInt32 { b.reduce(0) { $0 << 8 | UInt32($1) } }

    /// Undoes unsynchronisation: `FF 00` becomes `FF`.
    static func resynchronised(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var k = 0
        while k < b.count {
            out.append(b[k])
            if b[k] == 0xFF, k + 1 < b.count, b[k + 1] == 0 { k += 2 } else { k += 1 }
        }
        return out
    }
}
