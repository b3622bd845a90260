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
///
/// The walk over levels, unknown sizes and damage is the parser's; what an element says is read
/// by its family (``families``: ``ClusterBlocks``, ``MasterSummaries``), a leaf no family names
/// by its type (``EBMLValues``), and the search after a broken header by ``EBMLResync``.
public final class MatroskaParser: StructureParser {
    public var format: ContainerFormat { .matroska }

    let source: any ByteSource
    let budget: StructureBudget
    /// Where elements of unknown size were found to end (by their offset), learned when their
    /// parent was listed: their children are read up to there.
    var resolvedEnds: [Int64: Int64] = [:]
    /// Leaves no family reads, by their type (and elements the table does not know).
    let values: EBMLValues
    /// The Cluster family, which also tallies a Cluster's blocks as its children are walked.
    let clusters: ClusterBlocks
    /// The element families that read their elements in their own way, by the IDs each reads.
    let families: [UInt32: any ElementFamily]
    /// Where to go on after a header that is not EBML.
    let resync: EBMLResync

    /// Bytes read at each element: the longest header (4 + 8) and what follows it, enough for a
    /// number's value, a block's header or a Cluster's first child (its Timestamp).
    static let headerProbe: Int64 = 64

    public init(source: any ByteSource, budget: StructureBudget = StructureBudget()) {
        self.source = source
        self.budget = budget
        values = EBMLValues(source: source, budget: budget)
        clusters = ClusterBlocks(source: source, budget: budget)
        var families: [UInt32: any ElementFamily] = [:]
        for family: any ElementFamily in [clusters, MasterSummaries(source: source, budget: budget)] {
            for id in type(of: family).ids {
                assert(families[id] == nil, "\(EBMLText.name(of: id)) is read by two element families")
                families[id] = family
            }
        }
        self.families = families
        resync = EBMLResync(source: source)
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
        let level = Level(parentID: id, parentName: "\(EBMLText.name(of: id)) at offset \(ContainerScan.grouped(node.offset))",
                          start: node.payloadOffset, limit: limit, unknownSize: node.size == nil, depth: node.depth + 1)
        let result = walk(level, collect: true, steps: &steps)
        if id == MatroskaElements.cluster { clusters.record(node, result.tally, complete: !result.stopped) }
        return (result.nodes, result.omitted)
    }

    /// A Cluster with its block counts per track and keyframes in its summary (counted when it
    /// was expanded, or now); other nodes unchanged.
    public func refined(_ node: StructureNode) -> StructureNode {
        guard node.tag == UInt64(MatroskaElements.cluster), node.isContainer else { return node }
        if clusters.summaries[node.offset] == nil { _ = children(of: node) }
        var copy = node
        copy.summary = clusters.summaries[node.offset].map { TextSanitizer.clean($0) } ?? node.summary
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
        /// A Cluster's Timestamp and blocks per track.
        var tally = ClusterBlocks.Tally()
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
                        damage: "reading stopped at offset \(ContainerScan.grouped(pos)) after \(ContainerScan.grouped(budget.maxScanSteps)) elements: "
                            + "the rest of \(level.parentName) (\(ContainerScan.grouped(rest)) bytes) is not read",
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
                                  damage: "an element header at offset \(ContainerScan.grouped(pos)) is cut off: only \(ContainerScan.grouped(available)) bytes "
                                      + "are left of \(level.parentName)\(level.limit == source.length ? " (the file ends)" : "")",
                                  depth: level.depth))
                pos = level.limit
            case let .invalid(what, byte):
                let resumed = resync.resume(level, after: pos, what: what, byte: byte, add: add)
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
                                      damage: "the header of \(EBMLText.name(of: id)) at offset \(ContainerScan.grouped(pos)) needs \(headerSize) bytes; "
                                          + "only \(ContainerScan.grouped(available)) are left of \(level.parentName)",
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
                        element.damage = "\(element.name) at offset \(ContainerScan.grouped(pos)) claims \(ContainerScan.grouped(size)) bytes, "
                            + "\(ContainerScan.grouped(over)) more than \(level.limit == source.length && level.parentID == 0 ? "the file" : level.parentName) holds "
                            + "(it ends at offset \(ContainerScan.grouped(level.limit))): clipped"
                        element.end = level.limit
                    } else {
                        element.end = payload + Int64(size)
                    }
                } else {
                    element.end = unknownSizeEnd(of: &element, in: level, steps: &steps)
                }
                if level.parentID == MatroskaElements.cluster {
                    clusters.count(element, into: &result.tally, steps: &steps)
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
            element.damage = "\(element.name) at offset \(ContainerScan.grouped(element.offset)) has an unknown size: "
                + "only a Segment or a Cluster may leave it open (live muxing)"
        }
        let end: Int64
        if element.id == MatroskaElements.segment {
            end = level.limit
        } else if element.info?.type == .master, level.depth < budget.maxDepth {
            let inner = Level(parentID: element.id, parentName: "\(element.name) at offset \(ContainerScan.grouped(element.offset))",
                              start: element.offset + element.headerSize, limit: level.limit, unknownSize: true, depth: level.depth + 1)
            let walked = walk(inner, collect: false, steps: &steps)
            if walked.stopped {
                element.damage = (element.damage.map { $0 + "; " } ?? "")
                    + "its end was not found within \(ContainerScan.grouped(budget.maxScanSteps)) elements"
            }
            end = walked.end
        } else {
            end = level.limit
            let why = element.damage ?? "\(element.name) at offset \(ContainerScan.grouped(element.offset)) has an unknown size"
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
}
