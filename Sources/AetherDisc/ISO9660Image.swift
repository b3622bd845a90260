import AetherBase

/// An ISO 9660 file system (ECMA-119) read from an image: the primary volume descriptor, then
/// directories as asked for, each a run of directory records. What a disc image says is
/// hostile: every extent must lie inside the image, a directory is at most ``maxDirectoryBytes``
/// and ``maxEntries`` records, a file of several extents at most ``maxExtents``; a record that
/// breaks a rule is left out (counted in ``leftOut``), the rest of the directory read.
///
/// Used from one thread.
public final class ISO9660Image: DiscFileSystem {
    public static let sectorSize: Int64 = 2048
    public static let maxDirectoryBytes = 1 << 20
    public static let maxEntries = 4096
    public static let maxExtents = 64

    public typealias Entry = DiscEntry

    public let source: ByteSource
    /// The image's path (what the extents are read from).
    public let path: String
    public let volumeName: String
    private let root: Entry
    /// Records left out so far (outside the image, malformed, over a budget).
    public private(set) var leftOut = 0

    /// Nil when `source` holds no ISO 9660 primary volume descriptor (`CD001` at sector 16).
    public init?(source: ByteSource, path: String) {
        self.source = source
        self.path = path
        // The volume descriptors from sector 16, up to the terminator (255); at most 16 of them.
        var found: [UInt8]?
        for sector in 16..<32 {
            let d = source.read(at: Int64(sector) * Self.sectorSize, count: Int(Self.sectorSize))
            guard d.count == Int(Self.sectorSize), Array(d[1..<6]) == Array("CD001".utf8) else { return nil }
            if d[0] == 1 { found = d; break }
            if d[0] == 255 { return nil }
        }
        guard let pvd = found, DiscBytes.le16(pvd, 128) == 2048 else { return nil }
        volumeName = TextSanitizer.clean(String(decoding: pvd[40..<72], as: UTF8.self).trimmingWhitespace())
        var skipped = 0
        // The root's record: its name is one byte, 0.
        var rootRecord = Array(pvd[156..<190])
        rootRecord[33] = UInt8(ascii: "/")
        guard let root = Self.record(rootRecord, imageLength: source.length, path: path, leftOut: &skipped, root: true),
              root.isDirectory else { return nil }
        self.root = root
    }

    /// The entries of the directory at `path` (names matched without case; `[]`: the root);
    /// nil when there is no such directory.
    public func directory(_ path: [String]) -> [Entry]? {
        var current = root
        for part in path {
            guard let next = entries(of: current).first(where: { $0.isDirectory && $0.name.uppercased() == part.uppercased() }) else {
                return nil
            }
            current = next
        }
        return entries(of: current)
    }

    /// The records of directory `dir`, a file's parts joined (multi-extent: flag bit 7).
    private func entries(of dir: Entry) -> [Entry] {
        guard let extent = dir.extents.first, extent.length <= Self.maxDirectoryBytes else {
            leftOut += 1
            return []
        }
        let bytes = source.read(at: extent.offset, count: Int(extent.length))
        var out: [Entry] = []
        var pending: Entry?
        var offset = 0
        var records = 0
        while offset < bytes.count, records < Self.maxEntries {
            let length = Int(bytes[offset])
            guard length > 0 else {
                // Records do not cross a sector: the rest of this one is padding.
                offset = (offset / Int(Self.sectorSize) + 1) * Int(Self.sectorSize)
                continue
            }
            guard length >= 34, offset + length <= bytes.count else { leftOut += 1; break }
            records += 1
            let record = Array(bytes[offset..<(offset + length)])
            offset += length
            let nameLength = Int(record[32])
            // "." and ".." are one byte, 0 or 1.
            if nameLength == 1, record[33] <= 1 { continue }
            guard let entry = Self.record(record, imageLength: source.length, path: path, leftOut: &leftOut) else { continue }
            let more = record[25] & 0x80 != 0
            if let part = pending, part.name == entry.name, part.extents.count < Self.maxExtents {
                pending = Entry(name: part.name, isDirectory: false, extents: part.extents + entry.extents)
            } else {
                if let part = pending { out.append(part) }
                pending = entry
            }
            if !more, let whole = pending {
                out.append(whole)
                pending = nil
            }
        }
        if let part = pending { out.append(part) }
        if records >= Self.maxEntries { leftOut += 1 }
        return out
    }

    /// One directory record: nil (counted) when its name or extent is not one an image may have.
    private static func record(_ r: [UInt8], imageLength: Int64, path: String, leftOut: inout Int, root: Bool = false) -> Entry? {
        let nameLength = Int(r[32])
        guard 33 + nameLength <= r.count, nameLength > 0 else { leftOut += 1; return nil }
        let lba = Int64(DiscBytes.le32(r, 2)), size = Int64(DiscBytes.le32(r, 10))
        let start = lba * sectorSize
        guard start <= imageLength, size <= imageLength - start else { leftOut += 1; return nil }
        var name = String(decoding: r[33..<(33 + nameLength)], as: UTF8.self)
        if let semicolon = name.firstIndex(of: ";") { name = String(name[..<semicolon]) }
        if name.hasSuffix(".") { name.removeLast() }
        // A name is one path part: no separator, no parent, nothing a terminal would act on.
        guard root || (!name.isEmpty && !name.contains("/") && name != ".." && TextSanitizer.clean(name) == name) else {
            leftOut += 1
            return nil
        }
        return Entry(name: name, isDirectory: r[25] & 0x02 != 0, extents: [DiscExtent(file: path, offset: start, length: size)])
    }
}

/// A directory entry of a disc image: its name (an ISO 9660 name without `;1`, as written),
/// whether it is a directory, and its bytes as extents of the image (several for a file
/// written in parts).
public struct DiscEntry: Sendable, Equatable {
    public let name: String
    public let isDirectory: Bool
    public let extents: [DiscExtent]
    public var size: Int64 { extents.byteCount }
}

/// Bytes of a file on a disc: `length` bytes at `offset` of the file at `file` (a disc image,
/// or a file of a disc folder).
public struct DiscExtent: Sendable, Equatable {
    public let file: String
    public let offset: Int64
    public let length: Int64

    public init(file: String, offset: Int64, length: Int64) {
        self.file = file
        self.offset = offset
        self.length = length
    }
}

extension Array where Element == DiscExtent {
    /// The bytes of a file made of these extents.
    public var byteCount: Int64 { reduce(0) { $0 + $1.length } }

    /// The part `range` of a file made of these extents, as extents (fewer at the file's end).
    public func slice(_ range: Range<Int64>) -> [DiscExtent] {
        var out: [DiscExtent] = []
        var at: Int64 = 0
        for extent in self {
            defer { at += extent.length }
            let from = Swift.max(range.lowerBound, at), to = Swift.min(range.upperBound, at + extent.length)
            if from < to { out.append(DiscExtent(file: extent.file, offset: extent.offset + from - at, length: to - from)) }
        }
        return out
    }
}

/// Little- and big-endian fields of a disc's structures (bounds-checked: 0 past the end).
enum DiscBytes {
    static func le16(_ b: [UInt8], _ i: Int) -> Int { i + 2 <= b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }
    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        i + 4 <= b.count ? UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24 : 0
    }
    static func be16(_ b: [UInt8], _ i: Int) -> Int { i >= 0 && i + 2 <= b.count ? Int(b[i]) << 8 | Int(b[i + 1]) : 0 }
    static func be32(_ b: [UInt8], _ i: Int) -> Int {
        i >= 0 && i + 4 <= b.count ? Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) : 0
    }
}
