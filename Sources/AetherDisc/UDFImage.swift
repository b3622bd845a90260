import AetherBase

/// A UDF file system (ECMA-167 as UDF 1.02 to 2.60 restricts it) read from an image: the anchor
/// at sector 256, the volume descriptors it points to (the partitions, the logical volume and
/// its partition maps, the metadata partition of UDF 2.50 included), the file set, then
/// directories as asked for. A file's bytes may lie in several extents (fragmented allocation,
/// short or long allocation descriptors, continued in allocation extent descriptors) or inside
/// its entry. What an image says is hostile: every descriptor's tag is checked (identifier and
/// checksum), every extent must lie inside the image, a directory is at most
/// ``maxDirectoryBytes`` and ``maxEntries`` identifiers, a file at most ``maxExtents`` extents;
/// what breaks a rule is left out (counted in ``leftOut``), the rest read.
///
/// Used from one thread.
public final class UDFImage: DiscFileSystem {
    public static let maxDirectoryBytes = 1 << 20
    public static let maxEntries = 4096
    public static let maxExtents = 4096
    /// Allocation extent descriptors followed for one file.
    public static let maxContinuations = 64
    static let sector: Int64 = 2048

    public let source: ByteSource
    public let path: String
    public let volumeName: String
    public private(set) var leftOut = 0
    /// Per partition reference (the logical volume's maps): a physical partition's first
    /// sector, or the metadata partition's extents of its metadata file.
    private let maps: [PartitionMap]
    private let root: (partition: Int, block: Int64)

    enum PartitionMap {
        case physical(start: Int64, length: Int64)
        case metadata(extents: [DiscExtent])
    }

    /// Nil when `source` holds no UDF volume (no anchor, no logical volume, no file set).
    public init?(source: ByteSource, path: String) {
        self.source = source
        self.path = path
        func sector(_ n: Int64) -> [UInt8]? {
            let b = source.read(at: n * Self.sector, count: Int(Self.sector))
            return b.count == Int(Self.sector) ? b : nil
        }
        guard let anchor = sector(256), Self.tag(anchor) == 2 else { return nil }
        let vdsLength = Int64(DiscBytes.le32(anchor, 16)), vdsStart = Int64(DiscBytes.le32(anchor, 20))
        var partitions: [Int: (start: Int64, length: Int64)] = [:]
        var lvd: [UInt8]?
        var name = ""
        for n in 0..<min(vdsLength / Self.sector, 64) {
            guard let d = sector(vdsStart + n) else { break }
            let id = Self.tag(d)
            if id == 8 { break }
            if id == 1, name.isEmpty { name = Self.dstring(d[24..<56]) }
            if id == 5 { partitions[DiscBytes.le16(d, 22)] = (Int64(DiscBytes.le32(d, 188)), Int64(DiscBytes.le32(d, 192))) }
            if id == 6, lvd == nil { lvd = d }
        }
        guard let lvd, DiscBytes.le32(lvd, 212) == 2048 else { return nil }
        volumeName = TextSanitizer.clean(name.isEmpty ? Self.dstring(lvd[84..<212]) : name)
        // The partition maps: type 1 names a partition; type 2 a metadata partition over one.
        var maps: [PartitionMap] = []
        var at = 440
        let mapEnd = min(lvd.count, 440 + Int(DiscBytes.le32(lvd, 264)))
        for _ in 0..<min(Int(DiscBytes.le32(lvd, 268)), 8) {
            guard at + 2 <= mapEnd, lvd[at + 1] >= 6, at + Int(lvd[at + 1]) <= mapEnd else { break }
            defer { at += Int(lvd[at + 1]) }
            if lvd[at] == 1, let p = partitions[DiscBytes.le16(lvd, at + 4)] {
                maps.append(.physical(start: p.start, length: p.length))
            } else if lvd[at] == 2, lvd[at + 1] >= 64, String(decoding: lvd[(at + 5)..<(at + 28)], as: UTF8.self).hasPrefix("*UDF Metadata Partition"),
                      let p = partitions[DiscBytes.le16(lvd, at + 38)] {
                maps.append(.metadata(extents: []))
                // Its metadata file (or the mirror): short allocation descriptors in that partition.
                var skipped = 0
                for file in [DiscBytes.le32(lvd, at + 40), DiscBytes.le32(lvd, at + 44)] {
                    let d = source.read(at: (p.start + Int64(file)) * Self.sector, count: Int(Self.sector))
                    guard let entry = Self.entry(d, source: source, path: path, resolve: { _, b in (p.start + b) * Self.sector }, leftOut: &skipped),
                          !entry.extents.isEmpty else { continue }
                    maps[maps.count - 1] = .metadata(extents: entry.extents)
                    break
                }
            } else {
                // A map we do not read (virtual, sparable): its blocks resolve to nothing.
                maps.append(.metadata(extents: []))
            }
        }
        self.maps = maps
        // The file set descriptor (the logical volume's contents use), then its root directory.
        let fsdPartition = DiscBytes.le16(lvd, 256), fsdBlock = Int64(DiscBytes.le32(lvd, 252))
        guard let fsdAt = Self.offset(maps, fsdPartition, fsdBlock) else { return nil }
        let fsd = source.read(at: fsdAt, count: Int(Self.sector))
        guard Self.tag(fsd) == 256 else { return nil }
        root = (DiscBytes.le16(fsd, 408), Int64(DiscBytes.le32(fsd, 404)))
    }

    /// The entries of the directory at `path` (names matched without case; `[]`: the root);
    /// nil when there is no such directory.
    public func directory(_ path: [String]) -> [DiscEntry]? {
        var current = root
        for part in path {
            guard let next = identifiers(current)?.first(where: { $0.isDirectory && $0.name.uppercased() == part.uppercased() }) else { return nil }
            current = next.icb
        }
        return identifiers(current)?.compactMap { id in
            guard let file = fileEntry(id.icb) else { leftOut += 1; return nil }
            return DiscEntry(name: id.name, isDirectory: file.isDirectory, extents: file.extents)
        }
    }

    private struct Identifier {
        let name: String
        let isDirectory: Bool
        let icb: (partition: Int, block: Int64)
    }

    /// The file identifiers of the directory whose entry is at `icb` (parent and deleted ones
    /// skipped); nil when that is no directory.
    private func identifiers(_ icb: (partition: Int, block: Int64)) -> [Identifier]? {
        guard let dir = fileEntry(icb), dir.isDirectory else { return nil }
        guard dir.size <= Int64(Self.maxDirectoryBytes) else { leftOut += 1; return [] }
        var bytes: [UInt8] = dir.embedded ?? []
        if dir.embedded == nil {
            for extent in dir.extents { bytes += source.read(at: extent.offset, count: Int(extent.length)) }
        }
        var out: [Identifier] = []
        var at = 0
        while at + 38 <= bytes.count, out.count < Self.maxEntries {
            guard Self.tag(bytes, at: at) == 257 else { leftOut += 1; break }
            let characteristics = bytes[at + 18], nameLength = Int(bytes[at + 19]), useLength = DiscBytes.le16(bytes, at + 36)
            let nameAt = at + 38 + useLength
            guard nameAt + nameLength <= bytes.count else { leftOut += 1; break }
            let icb = (DiscBytes.le16(bytes, at + 28), Int64(DiscBytes.le32(bytes, at + 24)))
            at += (38 + useLength + nameLength + 3) & ~3
            if characteristics & 0x0C != 0 { continue }
            let name = Self.dstring(bytes[nameAt..<(nameAt + nameLength)], sized: false)
            // A name is one path part: no separator, no parent, nothing a terminal would act on.
            guard !name.isEmpty, !name.contains("/"), name != "..", name != ".", TextSanitizer.clean(name) == name else {
                leftOut += 1
                continue
            }
            out.append(Identifier(name: name, isDirectory: characteristics & 0x02 != 0, icb: icb))
        }
        if out.count >= Self.maxEntries { leftOut += 1 }
        return out
    }

    private struct FileEntry {
        let isDirectory: Bool
        let size: Int64
        let extents: [DiscExtent]
        /// The bytes of a file stored inside its entry.
        let embedded: [UInt8]?
    }

    /// The file entry (or extended file entry) at `icb`, its allocation read as extents of the image.
    private func fileEntry(_ icb: (partition: Int, block: Int64)) -> FileEntry? {
        guard let at = Self.offset(maps, icb.partition, icb.block) else { return nil }
        let maps = maps
        return Self.entry(source.read(at: at, count: Int(Self.sector)), source: source, path: path,
                          resolve: { part, block in Self.offset(maps, part ?? icb.partition, block) }, leftOut: &leftOut)
    }

    /// A file entry `d`: its allocation descriptors, short (8 bytes: `resolve(nil, block)`, the
    /// entry's partition) or long (16 bytes: `resolve(partition, block)`), as extents of the image.
    private static func entry(_ d: [UInt8], source: ByteSource, path: String, resolve: (Int?, Int64) -> Int64?, leftOut: inout Int) -> FileEntry? {
        let id = tag(d)
        guard id == 261 || id == 266 else { return nil }
        let extended = id == 266
        let eaLength = Int(DiscBytes.le32(d, extended ? 208 : 168)), adLength = Int(DiscBytes.le32(d, extended ? 212 : 172))
        let adStart = (extended ? 216 : 176) + eaLength
        guard eaLength >= 0, adLength >= 0, adStart + adLength <= d.count else { leftOut += 1; return nil }
        let size = Int64(DiscBytes.le32(d, 56)) | Int64(DiscBytes.le32(d, 60) & 0x7FFF_FFFF) << 32
        let isDirectory = d[27] == 4, kind = DiscBytes.le16(d, 34) & 7
        if kind == 3 {
            return FileEntry(isDirectory: isDirectory, size: size, extents: [], embedded: Array(d[adStart..<(adStart + min(adLength, Int(size)))]))
        }
        guard kind <= 1 else { leftOut += 1; return nil }
        var extents: [DiscExtent] = []
        var area = Array(d[adStart..<(adStart + adLength)])
        var continuations = 0
        var left = size
        var k = 0
        let step = kind == 0 ? 8 : 16
        while k + step <= area.count, left > 0 {
            let word = DiscBytes.le32(area, k)
            let length = Int64(word & 0x3FFF_FFFF), type = word >> 30
            let at = resolve(kind == 0 ? nil : DiscBytes.le16(area, k + 8), Int64(DiscBytes.le32(area, k + 4)))
            k += step
            if length == 0 { break }
            if type == 3 {
                // The rest is in an allocation extent descriptor.
                guard continuations < maxContinuations, let at else { leftOut += 1; break }
                continuations += 1
                let aed = source.read(at: at, count: Int(sector))
                let more = Int(DiscBytes.le32(aed, 20))
                guard tag(aed) == 258, 24 + more <= aed.count else { leftOut += 1; break }
                area = Array(aed[24..<(24 + more)])
                k = 0
                continue
            }
            let take = min(length, left)
            left -= take
            // Allocated but not written: zeros we do not have; the file ends there for us.
            guard type == 0, let at, at >= 0, at <= source.length, take <= source.length - at, extents.count < maxExtents else {
                leftOut += 1
                break
            }
            extents.append(DiscExtent(file: path, offset: at, length: take))
        }
        return FileEntry(isDirectory: isDirectory, size: size, extents: extents, embedded: nil)
    }

    /// Where logical block `block` of partition reference `partition` lies in the image.
    private static func offset(_ maps: [PartitionMap], _ partition: Int, _ block: Int64) -> Int64? {
        guard maps.indices.contains(partition), block >= 0 else { return nil }
        switch maps[partition] {
        case .physical(let start, let length):
            guard block < length else { return nil }
            return (start + block) * sector
        case .metadata(let extents):
            var at = block * sector
            for extent in extents {
                if at < extent.length { return extent.offset + at }
                at -= extent.length
            }
            return nil
        }
    }

    /// The identifier of the descriptor tag at `at` of `d` when its checksum holds (nil otherwise).
    static func tag(_ d: [UInt8], at: Int = 0) -> Int? {
        guard at >= 0, at + 16 <= d.count else { return nil }
        var sum: UInt8 = 0
        for i in 0..<16 where i != 4 { sum &+= d[at + i] }
        return sum == d[at + 4] ? DiscBytes.le16(d, at) : nil
    }

    /// A d-string (its last byte the length) or, `sized: false`, a file identifier: a
    /// compression id (8: one byte a character, 16: UTF-16 big-endian), then the characters.
    static func dstring(_ s: ArraySlice<UInt8>, sized: Bool = true) -> String {
        let b = Array(s)
        guard let first = b.first else { return "" }
        let used = sized ? min(Int(b.last ?? 0), b.count - 1) : b.count
        guard used > 1 else { return "" }
        let body = b[1..<used]
        if first == 16 {
            let units = stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
            return String(decoding: units, as: UTF16.self).trimmingWhitespace()
        }
        return first == 8 ? String(body.map { Character(Unicode.Scalar($0)) }).trimmingWhitespace() : ""
    }
}
