import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// Matroska and WebM: EBML elements (RFC 8794) as a tree. An element is an ID (a VINT of 1–4
// bytes), a size (a VINT of 1–8 bytes; all value bits set means "unknown") and a payload; a master
// element's payload is more elements. Every element header is read with one small `pread`, so
// listing a 2 GB file's Segment costs one read per Cluster, and a Cluster's blocks are read only
// when it is expanded.
//
// What the file says is checked before it is used: a size that runs past the parent (or the file)
// is clipped to it and named as damage; an ID or size that is not a VINT (a zero first byte) is
// damage, and the parser looks for the next Cluster ID (bounded) to go on from; an unknown size
// is legal only for the Segment and its Clusters (live muxing), which end where an element of
// their own level or above begins (the next Cluster, the Cues; a Segment at the end of the
// file). Nothing is allocated from a size field: payload reads are clamped to a few hundred
// bytes per field and to the budget's `maxFieldBytes`.

/// The EBML structure reader (see the file's header comment for the rules it keeps).
public final class MatroskaParser: StructureParser {
    public var format: ContainerFormat { .matroska }

    let source: any ByteSource
    let budget: StructureBudget
    /// Where elements of unknown size were found to end (by their offset), learned when their
    /// parent was listed: their children are read up to there.
    var resolvedEnds: [Int64: Int64] = [:]
    /// Block counts of the clusters read so far (by offset), for ``refined(_:)``.
    var clusterSummaries: [Int64: String] = [:]
    /// Nanoseconds per tick (Info's TimestampScale once it has been read; Matroska's default).
    var timestampScale: UInt64 = 1_000_000

    /// Bytes read at each element: the longest header (4 + 8) and what follows it, enough for a
    /// number's value, a block's header or a Cluster's first child (its Timestamp).
    static let headerProbe: Int64 = 64
    /// How far past a broken header the parser looks for the next Cluster ID.
    static let resyncWindow: Int64 = 16 << 20
    /// Characters of a string shown (the rest is cut and marked with `…`).
    static let maxTextCharacters = 256
    /// Bytes of a string element read.
    static let maxStringBytes: Int64 = 1024
    /// Bytes of a binary element shown in hex.
    static let hexPreview: Int64 = 16
    /// Bytes of a small master read at once to summarise it (a TrackEntry's number, type, codec).
    static let summaryBytes: Int64 = 16 << 10
    /// Tracks named in a Cluster's summary (a hostile cluster can name thousands).
    static let summaryTracks = 8

    public init(source: any ByteSource, budget: StructureBudget = StructureBudget()) {
        self.source = source
        self.budget = budget
    }

    public func top() -> (nodes: [StructureNode], omitted: Int) {
        var steps = 0
        let level = Level(parentID: 0, parentName: "the file", start: 0, limit: source.length,
                          unknownSize: false, depth: 0)
        let result = walk(level, collect: true, steps: &steps)
        return (result.nodes, result.omitted)
    }

    public func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int) {
        guard node.isContainer, node.depth < budget.maxDepth, node.tag != 0, node.tag <= UInt64(UInt32.max) else { return ([], 0) }
        let id = UInt32(node.tag)
        let limit = min(node.end ?? resolvedEnds[node.offset] ?? source.length, source.length)
        guard node.payloadOffset >= 0, node.payloadOffset <= limit else { return ([], 0) }
        var steps = 0
        let level = Level(parentID: id, parentName: "\(Self.name(of: id)) at offset \(Self.grouped(node.offset))",
                          start: node.payloadOffset, limit: limit, unknownSize: node.size == nil, depth: node.depth + 1)
        let result = walk(level, collect: true, steps: &steps)
        if id == MatroskaElements.cluster {
            clusterSummaries[node.offset] = Self.clusterSummary(timestamp: result.clusterTimestamp, counts: result.counts,
                                                                complete: !result.stopped, unknownSize: node.size == nil)
        }
        return (result.nodes, result.omitted)
    }

    /// A Cluster with its block counts per track and keyframes in its summary (counted when it
    /// was expanded, or now); other nodes unchanged.
    public func refined(_ node: StructureNode) -> StructureNode {
        guard node.tag == UInt64(MatroskaElements.cluster), node.isContainer else { return node }
        if clusterSummaries[node.offset] == nil { _ = children(of: node) }
        var copy = node
        copy.summary = clusterSummaries[node.offset].map { TextSanitizer.clean($0) } ?? node.summary
        return copy
    }

    // MARK: - Levels

    /// The children of one element (or the file's top level) being read.
    struct Level {
        /// The parent's ID (0: the top level).
        let parentID: UInt32
        /// For damage messages: `Segment at offset 40`, `the file`.
        let parentName: String
        let start: Int64
        /// Where the level must end: the parent's end (already clipped) or the file's.
        let limit: Int64
        /// The parent's size is unknown: the level also ends at the first element of the
        /// parent's own level or above (``ends(_:at:)``).
        let unknownSize: Bool
        /// The children's depth.
        let depth: Int
    }

    struct LevelResult {
        var nodes: [StructureNode] = []
        var omitted = 0
        /// Where the level ended (for a parent of unknown size, its real extent).
        var end: Int64
        /// The scan budget ran out before the end.
        var stopped = false
        /// A Cluster's Timestamp and blocks per track (track → blocks, keyframes).
        var clusterTimestamp: UInt64?
        var counts: [UInt64: (blocks: Int, keys: Int)] = [:]
    }

    /// Reads one level, element by element. With `collect` false it only finds where the level
    /// ends (an element of unknown size inside another level).
    func walk(_ level: Level, collect: Bool, steps: inout Int) -> LevelResult {
        var result = LevelResult(end: level.limit)
        var pos = level.start
        var listed = 0
        func add(_ node: StructureNode) {
            guard collect else { return }
            if listed < budget.maxChildren {
                result.nodes.append(node)
                listed += 1
            } else {
                result.omitted += 1
            }
        }
        while pos < level.limit {
            guard steps < budget.maxScanSteps else {
                result.stopped = true
                let rest = level.limit - pos
                if collect {
                    result.nodes.append(StructureNode(
                        name: "(not read)", offset: pos, headerSize: 0, size: rest,
                        damage: "reading stopped at offset \(Self.grouped(pos)) after \(Self.grouped(budget.maxScanSteps)) elements: "
                            + "the rest of \(level.parentName) (\(Self.grouped(rest)) bytes) is not read",
                        depth: level.depth))
                }
                break
            }
            steps += 1
            let available = level.limit - pos
            let head = source.read(at: pos, count: Int(min(Self.headerProbe, available)))
            switch Self.parseHeader(head) {
            case .cut:
                add(StructureNode(name: "(cut off)", offset: pos, headerSize: 0, size: available,
                                  damage: "an element header at offset \(Self.grouped(pos)) is cut off: only \(Self.grouped(available)) bytes "
                                      + "are left of \(level.parentName)\(level.limit == source.length ? " (the file ends)" : "")",
                                  depth: level.depth))
                pos = level.limit
            case let .invalid(what, byte):
                let resumed = resync(level, after: pos, what: what, byte: byte, add: add)
                if let resumed {
                    if level.parentID == MatroskaElements.cluster, level.unknownSize {
                        // The next Cluster ends this one.
                        result.end = resumed
                        return result
                    }
                    pos = resumed
                } else {
                    pos = level.limit
                }
            case let .element(id, size, headerSize):
                let info = MatroskaElements.byID[id]
                if level.unknownSize, level.parentID != 0, let info, Self.ends(level.parentID, at: info) {
                    result.end = pos
                    return result
                }
                guard headerSize <= available else {
                    add(StructureNode(name: "(cut off)", offset: pos, headerSize: 0, size: available,
                                      damage: "the header of \(Self.name(of: id)) at offset \(Self.grouped(pos)) needs \(headerSize) bytes; "
                                          + "only \(Self.grouped(available)) are left of \(level.parentName)",
                                      depth: level.depth))
                    pos = level.limit
                    continue
                }
                var element = Element(id: id, info: info, offset: pos, headerSize: headerSize, declared: size,
                                      end: level.limit, head: head, depth: level.depth)
                if let size {
                    let payload = pos + headerSize
                    let room = UInt64(level.limit - payload)
                    if size > room {
                        let over = size - room
                        element.damage = "\(element.name) at offset \(Self.grouped(pos)) claims \(Self.grouped(size)) bytes, "
                            + "\(Self.grouped(over)) more than \(level.limit == source.length && level.parentID == 0 ? "the file" : level.parentName) holds "
                            + "(it ends at offset \(Self.grouped(level.limit))): clipped"
                        element.end = level.limit
                    } else {
                        element.end = payload + Int64(size)
                    }
                } else {
                    element.end = unknownSizeEnd(of: &element, in: level, steps: &steps)
                }
                if level.parentID == MatroskaElements.cluster {
                    count(element, into: &result, steps: &steps)
                }
                if collect {
                    if listed < budget.maxChildren { add(node(for: element)) } else { result.omitted += 1 }
                }
                pos = max(element.end, pos + 1)
            }
        }
        return result
    }

    /// Where an element of unknown size ends: a Segment at the end of its level (the file); a
    /// Cluster (or, as damage, any other master) where an element that cannot be its child
    /// begins; anything else at the end of its parent, since nothing says where it stops.
    func unknownSizeEnd(of element: inout Element, in level: Level, steps: inout Int) -> Int64 {
        let legal = (element.id == MatroskaElements.segment && level.parentID == 0)
            || (element.id == MatroskaElements.cluster && level.parentID == MatroskaElements.segment)
        if !legal {
            element.damage = "\(element.name) at offset \(Self.grouped(element.offset)) has an unknown size: "
                + "only a Segment or a Cluster may leave it open (live muxing)"
        }
        let end: Int64
        if element.id == MatroskaElements.segment {
            end = level.limit
        } else if element.info?.type == .master, level.depth < budget.maxDepth {
            let inner = Level(parentID: element.id, parentName: "\(element.name) at offset \(Self.grouped(element.offset))",
                              start: element.offset + element.headerSize, limit: level.limit, unknownSize: true, depth: level.depth + 1)
            let walked = walk(inner, collect: false, steps: &steps)
            if walked.stopped {
                element.damage = (element.damage.map { $0 + "; " } ?? "")
                    + "its end was not found within \(Self.grouped(budget.maxScanSteps)) elements"
            }
            end = walked.end
        } else {
            end = level.limit
            let why = element.damage ?? "\(element.name) at offset \(Self.grouped(element.offset)) has an unknown size"
            element.damage = why + "; taken to run to the end of \(level.parentName)"
        }
        resolvedEnds[element.offset] = end
        return end
    }

    /// Whether `element` ends a parent of unknown size: it cannot be the parent's child, and it
    /// belongs at the parent's level or above (a top-level element, a child of the Segment, or a
    /// sibling of the parent: the next Cluster ends a live Cluster). An element that fits nowhere
    /// near (a misplaced known ID, or an unknown one) is read as a child, as in a parent of known size.
    static func ends(_ parentID: UInt32, at element: EBMLElement) -> Bool {
        guard !element.mayBeChild(of: parentID) else { return false }
        let parentLevels = MatroskaElements.byID[parentID]?.parents ?? []
        return element.parents.contains { $0 == 0 || $0 == MatroskaElements.segment || parentLevels.contains($0) }
    }

    /// After a header that is not EBML: a damage node, and where to go on (the next Cluster ID
    /// in a Segment or a live Cluster, the next Segment or EBML header at the top level), or nil
    /// (the rest of the level is not read).
    func resync(_ level: Level, after pos: Int64, what: String, byte: UInt8,
                        add: (StructureNode) -> Void) -> Int64? {
        let targets: [(id: UInt32, name: String)]
        switch level.parentID {
        case 0: targets = [(MatroskaElements.segment, "Segment"), (MatroskaElements.ebml, "EBML header")]
        case MatroskaElements.segment: targets = [(MatroskaElements.cluster, "Cluster")]
        case MatroskaElements.cluster where level.unknownSize: targets = [(MatroskaElements.cluster, "Cluster")]
        default: targets = []
        }
        let bad = "invalid EBML \(what) at offset \(Self.grouped(pos)) (first byte \(Self.hex(byte)))"
        let rest = level.limit - pos
        guard !targets.isEmpty else {
            add(StructureNode(name: "(invalid)", offset: pos, headerSize: 0, size: rest,
                              damage: "\(bad): the rest of \(level.parentName) (\(Self.grouped(rest)) bytes) is not read",
                              depth: level.depth))
            return nil
        }
        let searchEnd = pos + min(rest, Self.resyncWindow)
        let names = targets.map(\.name).joined(separator: " or ")
        if let (found, name) = find(targets, from: pos + 1, to: searchEnd) {
            add(StructureNode(name: "(invalid)", offset: pos, headerSize: 0, size: found - pos,
                              damage: "\(bad); resynced at the next \(name) ID at offset \(Self.grouped(found)) "
                                  + "(\(Self.grouped(found - pos)) bytes on)",
                              depth: level.depth))
            return found
        }
        let searched = searchEnd - pos - 1
        add(StructureNode(name: "(invalid)", offset: pos, headerSize: 0, size: rest,
                          damage: "\(bad); no \(names) ID in the next \(Self.grouped(max(0, searched))) bytes: "
                              + "the rest of \(level.parentName) (\(Self.grouped(rest)) bytes) is not read",
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
