import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where reading goes on after a header that is not EBML: the next ID that may start the level
/// again (a Cluster in a Segment or a live Cluster, a Segment or an EBML header at the top
/// level), searched for in at most ``resyncWindow`` bytes; anywhere else the rest of the level is
/// not read.
struct EBMLResync {
    let source: any ByteSource

    /// How far past a broken header the search looks.
    static let resyncWindow: Int64 = 16 << 20

    /// After a header that is not EBML: a damage node, and where to go on (the next Cluster ID
    /// in a Segment or a live Cluster, the next Segment or EBML header at the top level), or nil
    /// (the rest of the level is not read).
    func resume(_ level: MatroskaParser.Level, after pos: Int64, what: String, byte: UInt8,
                add: (StructureNode) -> Void) -> Int64? {
        let targets: [(id: UInt32, name: String)]
        switch level.parentID {
        case 0: targets = [(MatroskaElements.segment, "Segment"), (MatroskaElements.ebml, "EBML header")]
        case MatroskaElements.segment: targets = [(MatroskaElements.cluster, "Cluster")]
        case MatroskaElements.cluster where level.unknownSize: targets = [(MatroskaElements.cluster, "Cluster")]
        default: targets = []
        }
        let bad = "invalid EBML \(what) at offset \(ContainerScan.grouped(pos)) (first byte \(EBMLText.hex(byte)))"
        let rest = level.limit - pos
        guard !targets.isEmpty else {
            add(StructureNode(name: "(invalid)", offset: pos, headerSize: 0, size: rest,
                              damage: "\(bad): the rest of \(level.parentName) (\(ContainerScan.grouped(rest)) bytes) is not read",
                              depth: level.depth))
            return nil
        }
        let searchEnd = pos + min(rest, Self.resyncWindow)
        let names = targets.map(\.name).joined(separator: " or ")
        if let (found, name) = find(targets, from: pos + 1, to: searchEnd) {
            add(StructureNode(name: "(invalid)", offset: pos, headerSize: 0, size: found - pos,
                              damage: "\(bad); resynced at the next \(name) ID at offset \(ContainerScan.grouped(found)) "
                                  + "(\(ContainerScan.grouped(found - pos)) bytes on)",
                              depth: level.depth))
            return found
        }
        let searched = searchEnd - pos - 1
        add(StructureNode(name: "(invalid)", offset: pos, headerSize: 0, size: rest,
                          damage: "\(bad); no \(names) ID in the next \(ContainerScan.grouped(max(0, searched))) bytes: "
                              + "the rest of \(level.parentName) (\(ContainerScan.grouped(rest)) bytes) is not read",
                          depth: level.depth))
        return nil
    }

    /// The first offset in `start..<end` where one of the 4-byte IDs begins, read in chunks.
    func find(_ targets: [(id: UInt32, name: String)], from start: Int64, to end: Int64) -> (Int64, String)? {
        let chunk: Int64 = 64 << 10
        var startsTarget = [Bool](repeating: false, count: 256)
        for target in targets { startsTarget[Int(target.id >> 24)] = true }
        var at = start
        while at < end {
            let count = min(chunk + 3, end - at + 3)
            let bytes = source.read(at: at, count: Int(count))
            guard bytes.count >= 4 else { return nil }
            let stop = Int(min(Int64(bytes.count - 3), end - at))
            let hit: (Int, String)? = bytes.withUnsafeBufferPointer { b in
                var i = 0
                while i < stop {
                    // Most bytes start no target: one table lookup each.
                    if startsTarget[Int(b[i])] {
                        let word = UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
                        if let target = targets.first(where: { $0.id == word }) { return (i, target.name) }
                    }
                    i += 1
                }
                return nil
            }
            if let (i, name) = hit { return (at + Int64(i), name) }
            at += chunk
        }
        return nil
    }
}
