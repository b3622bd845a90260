/// A Blu-ray disc's playlists as its `BDMV` files describe them (the BD-ROM format's published
/// layout, big-endian): each `PLAYLIST/nnnnn.mpls` (``BlurayPlaylist``: its play items, the
/// clips they play from which time to which, its marks and its streams' languages) and each
/// `CLIPINF/nnnnn.clpi` (``BlurayClip``: the entry-point map from a time to a source packet of
/// the clip's `.m2ts`). Pure and hostile-input safe: every offset is checked against the file,
/// every count against a budget; a playlist, item or mark that breaks a rule is left out
/// (``leftOut``), the rest kept.
public struct BlurayInfo: Sendable, Equatable {
    /// A playlist file is at most this large; a clip information file (its entry-point map) too.
    public static let maxPlaylistBytes = 1 << 20
    public static let maxClipBytes = 4 << 20
    public static let maxPlaylists = 1000
    public static let maxItems = 999
    public static let maxMarks = 999
    public static let maxEntryPoints = 1 << 18
    /// A playlist shorter than this (a menu's loop, a logo) is not a title.
    public static let minTitleSeconds = 3.0

    /// The titles: the playlists that play for at least ``minTitleSeconds``, a playlist that
    /// plays the same clips from the same times as an earlier one left out; in file order.
    public var titles: [BlurayPlaylist] = []
    /// Every playlist read, titles or not (the inspector's view).
    public var playlists: [BlurayPlaylist] = []
    public var leftOut = 0

    /// The longest title; the first of equals.
    public var mainTitle: BlurayPlaylist? { titles.max { $0.duration < $1.duration || ($0.duration == $1.duration && $0.number > $1.number) } }

    /// Reads the playlists (`name`, e.g. `00001.MPLS`, and bytes), in name order.
    public static func parse(playlists files: [(name: String, bytes: [UInt8])]) -> BlurayInfo {
        parse(names: files.map(\.name)) { name in files.first { $0.name == name }?.bytes }
    }

    /// Reads the playlists `names` in name order, each `read` (nil: not there) when its turn
    /// comes, so that one at most is held at a time.
    public static func parse(names: [String], read: (String) -> [UInt8]?) -> BlurayInfo {
        var info = BlurayInfo()
        var seen: Set<[BlurayPlayItem]> = []
        for name in names.sorted().prefix(maxPlaylists) {
            guard let bytes = read(name), var playlist = BlurayPlaylist.parse(bytes, name: name) else {
                info.leftOut += 1
                continue
            }
            info.leftOut += playlist.leftOut
            info.playlists.append(playlist)
            guard playlist.duration >= minTitleSeconds, seen.insert(playlist.items).inserted else { continue }
            playlist.number = info.titles.count + 1
            info.titles.append(playlist)
        }
        if names.count > maxPlaylists { info.leftOut += names.count - maxPlaylists }
        return info
    }
}

/// A play item: clip `clip` (its five-digit name) from `inTime` to `outTime` (45 kHz).
public struct BlurayPlayItem: Sendable, Hashable {
    public let clip: String
    public let inTime: Int64
    public let outTime: Int64
    public var duration: Double { Double(outTime - inTime) / 45_000 }
}

/// A playlist: its play items in order, its length, its chapters (entry marks, seconds from its
/// start) and its streams' languages by PID (from the first item's stream number table).
public struct BlurayPlaylist: Sendable, Equatable {
    /// The file's name (`00001.MPLS`).
    public let name: String
    /// 1-based among the disc's titles (0: not a title).
    public internal(set) var number = 0
    public let items: [BlurayPlayItem]
    public let chapters: [Double]
    public let languages: [Int: String]
    public let angles: Int
    public var leftOut = 0
    public var duration: Double { items.reduce(0) { $0 + $1.duration } }

    static func parse(_ b: [UInt8], name: String) -> BlurayPlaylist? {
        guard b.count >= 40, b.count <= BlurayInfo.maxPlaylistBytes, Array(b[0..<4]) == Array("MPLS".utf8) else { return nil }
        let list = DiscBytes.be32(b, 8), marks = DiscBytes.be32(b, 12)
        guard list >= 40, list + 10 <= b.count else { return nil }
        let count = DiscBytes.be16(b, list + 6)
        guard count > 0, count <= BlurayInfo.maxItems else { return nil }
        var items: [BlurayPlayItem] = []
        var kept: [Int] = []
        var languages: [Int: String] = [:]
        var angles = 1
        var leftOut = 0
        var at = list + 10
        for k in 0..<count {
            let length = DiscBytes.be16(b, at)
            guard length >= 32, at + 2 + length <= b.count else { leftOut += count - k; break }
            defer { at += 2 + length }
            let clip = String(decoding: b[(at + 2)..<(at + 7)], as: UTF8.self)
            let inTime = Int64(DiscBytes.be32(b, at + 14)), outTime = Int64(DiscBytes.be32(b, at + 18))
            guard clip.utf8.allSatisfy({ (0x30...0x39).contains($0) }), outTime > inTime else {
                leftOut += 1
                continue
            }
            items.append(BlurayPlayItem(clip: clip, inTime: inTime, outTime: outTime))
            kept.append(k)
            // Angles: the first is the item's own clip, the rest are left out (we play angle 1).
            var stn = at + 34
            if b[at + 12] & 0x10 != 0, at + 36 <= b.count {
                angles = max(angles, Int(b[at + 34]))
                stn = at + 36 + 10 * max(0, Int(b[at + 34]) - 1)
            }
            if items.count == 1, stn < at + 2 + length { languages = streamLanguages(b, at: stn, end: at + 2 + length) }
        }
        guard !items.isEmpty else { return nil }
        var chapters: [Double] = []
        // Where each kept item starts in the playlist.
        let starts = items.reduce(into: [0.0]) { $0.append($0[$0.count - 1] + $1.duration) }
        if marks >= 40, marks + 6 <= b.count {
            let n = min(DiscBytes.be16(b, marks + 4), BlurayInfo.maxMarks)
            for m in 0..<n {
                let e = marks + 6 + 14 * m
                guard e + 14 <= b.count else { leftOut += 1; break }
                let item = DiscBytes.be16(b, e + 2), time = Int64(DiscBytes.be32(b, e + 4))
                // Entry marks (type 1) on an item we kept, inside it.
                guard b[e + 1] == 1, let index = kept.firstIndex(of: item), time >= items[index].inTime, time <= items[index].outTime else { continue }
                let start = starts[index] + Double(time - items[index].inTime) / 45_000
                if chapters.last.map({ start > $0 }) ?? true { chapters.append(start) }
            }
        }
        return BlurayPlaylist(name: name, items: items, chapters: chapters.isEmpty ? [0] : chapters, languages: languages,
                              angles: angles, leftOut: leftOut)
    }

    /// The languages of the primary video, primary audio and presentation graphics streams of the
    /// stream number table at `at` (by the main clip's PID); other entries are skipped by length.
    static func streamLanguages(_ b: [UInt8], at: Int, end: Int) -> [Int: String] {
        let length = DiscBytes.be16(b, at)
        guard at + 16 <= end, at + 2 + length <= end else { return [:] }
        let counts = (0..<3).map { Int(b[at + 4 + $0]) }
        var out: [Int: String] = [:]
        var e = at + 16
        for group in 0..<3 {
            for _ in 0..<counts[group] {
                guard e < end else { return out }
                let entryLength = Int(b[e]), attributesAt = e + 1 + entryLength
                guard entryLength >= 3, attributesAt + 1 <= end else { return out }
                let attributesLength = Int(b[attributesAt])
                guard attributesAt + 1 + attributesLength <= end else { return out }
                defer { e = attributesAt + 1 + attributesLength }
                // Stream type 1: a stream of the main clip, its PID at entry + 2.
                guard b[e + 1] == 1 else { continue }
                let pid = DiscBytes.be16(b, e + 2)
                let coding = attributesLength >= 1 ? b[attributesAt + 1] : 0
                // Audio: coding, format/rate, language; graphics: coding, language; text: coding, charset, language.
                let languageAt = attributesAt + (coding == 0x92 ? 3 : group == 1 ? 3 : 2)
                guard group > 0, languageAt + 3 <= attributesAt + 1 + attributesLength else { continue }
                let code = b[languageAt..<(languageAt + 3)]
                guard code.allSatisfy({ (0x61...0x7A).contains($0) }) else { continue }
                out[pid] = String(decoding: code, as: UTF8.self)
            }
        }
        return out
    }
}

/// A clip's information file: where in its `.m2ts` each entry point (a random-access picture)
/// starts, by presentation time (90 kHz), from the entry-point map of its first stream.
public struct BlurayClip: Sendable, Equatable {
    public static let sourcePacketBytes: Int64 = 192
    public struct EntryPoint: Sendable, Equatable {
        public let pts: Int64
        public let packet: Int64
    }
    public let entryPoints: [EntryPoint]

    /// Nil when `b` is not a clip information file or its map cannot be read.
    public static func parse(_ b: [UInt8]) -> BlurayClip? {
        guard b.count >= 40, b.count <= BlurayInfo.maxClipBytes, Array(b[0..<4]) == Array("HDMV".utf8) else { return nil }
        let cpi = DiscBytes.be32(b, 16)
        guard cpi >= 40, cpi + 8 <= b.count, DiscBytes.be32(b, cpi) > 0 else { return nil }
        let map = cpi + 6
        guard b[map + 1] > 0, map + 2 + 12 <= b.count else { return nil }
        // The first stream's entries: counts in 48 bits after its PID, then its table's address.
        let e = map + 2
        let bits = Int64(DiscBytes.be16(b, e + 2)) << 32 | Int64(DiscBytes.be32(b, e + 4))
        let coarseCount = Int(bits >> 18 & 0xFFFF), fineCount = Int(bits & 0x3FFFF)
        let table = map + DiscBytes.be32(b, e + 8)
        guard fineCount <= BlurayInfo.maxEntryPoints, coarseCount <= fineCount, table + 4 <= b.count else { return nil }
        let fine = table + DiscBytes.be32(b, table)
        guard table + 4 + 8 * coarseCount <= b.count, fine >= table, fine + 4 * fineCount <= b.count else { return nil }
        var points: [EntryPoint] = []
        points.reserveCapacity(fineCount)
        var c = 0
        for f in 0..<fineCount {
            while c + 1 < coarseCount, DiscBytes.be32(b, table + 4 + 8 * (c + 1)) >> 14 <= f { c += 1 }
            guard coarseCount > 0 else { return nil }
            let coarse = table + 4 + 8 * c
            let coarsePTS = Int64(DiscBytes.be32(b, coarse) & 0x3FFF), coarseSPN = Int64(DiscBytes.be32(b, coarse + 4))
            let word = Int64(DiscBytes.be32(b, fine + 4 * f))
            let pts = (coarsePTS & ~1) << 19 + (word >> 17 & 0x7FF) << 9
            let packet = coarseSPN & ~0x1FFFF + (word & 0x1FFFF)
            points.append(EntryPoint(pts: pts, packet: packet))
        }
        return BlurayClip(entryPoints: points)
    }

    /// The bytes of the clip's `.m2ts` (`length` long) that play from `inTime` to `outTime`
    /// (45 kHz, so a tick of 90 kHz either way is the same time): from the entry point at or
    /// before the start (the clip's first byte when that is its first entry point: the tables
    /// before it are the stream's too) to the first one after the end.
    public func byteRange(inTime: Int64, outTime: Int64, length: Int64) -> Range<Int64> {
        let first = entryPoints.lastIndex { $0.pts <= inTime * 2 + 1 }
        let start = first.map { $0 == 0 ? 0 : entryPoints[$0].packet } ?? 0
        let end = entryPoints.first { $0.pts > outTime * 2 + 1 }?.packet ?? Int64.max / Self.sourcePacketBytes
        let from = min(length, start * Self.sourcePacketBytes)
        return from..<max(from, min(length, end * Self.sourcePacketBytes))
    }
}
