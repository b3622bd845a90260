import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// ISO base media boxes (MP4, MOV, M4A, fragmented MP4 and DASH segments) as a ``StructureNode``
/// tree, read lazily: `top()` reads the top-level headers, `children(of:)` one container's.
///
/// A box's header is trusted only as far as its parent lets it: a size that overruns the parent
/// (or the file) is clipped to it and says by how much, a size below 8 ends the level (nothing
/// after it can be located), a size of 0 runs to the end of the parent. Field decoding reads at
/// most ``StructureBudget/maxFieldBytes`` (and never more than 64 KiB) of a box, and lists at most
/// ``StructureBudget/maxListedEntries`` table entries; every count read from the file is checked
/// against the bytes actually there before it is believed.
///
/// The walk and its header rules are the parser's; what a payload says is read by the box's
/// family (``families``: the movie's own boxes, sample tables, codec configurations, fragments,
/// protection), and a sample description's entries by ``SampleEntries``.
public final class ISOBMFFParser: StructureParser {
    public let format = ContainerFormat.isobmff
    let window: ContainerScan.Window
    let budget: StructureBudget
    /// The reader of each box type whose fields are decoded (one per family of ``families``).
    let readers: [String: any BoxFamily]
    /// The entries of sample descriptions, read by their parent (`stsd`), not by their type.
    let sampleEntries: SampleEntries

    /// The box families whose payloads are decoded into fields; a box no family names keeps its
    /// header only (or, for ``plainContainers``, its children).
    static var families: [any BoxFamily.Type] {
        [MovieBoxes.self, SampleTableBoxes.self, CodecConfigurationBoxes.self, FragmentBoxes.self, ProtectionBoxes.self]
    }

    public init(source: any ByteSource, budget: StructureBudget = StructureBudget()) {
        window = ContainerScan.Window(source)
        self.budget = budget
        var readers: [String: any BoxFamily] = [:]
        for family in Self.families {
            let reader = family.init(window: window, budget: budget)
            for type in family.boxes {
                assert(readers[type] == nil, "'\(type)' is read by two box families")
                readers[type] = reader
            }
        }
        self.readers = readers
        sampleEntries = SampleEntries(window: window, budget: budget)
    }

    public func top() -> (nodes: [StructureNode], omitted: Int) {
        scan(from: 0, to: window.length, depth: 0, parent: nil)
    }

    public func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int) {
        guard node.isContainer, node.depth < budget.maxDepth, let end = node.end, end > node.offset else { return ([], 0) }
        let start = Int64(bitPattern: node.tag)
        let stop = min(end, window.length)
        guard start >= node.offset, start <= stop else { return ([], 0) }
        return scan(from: start, to: stop, depth: node.depth + 1, parent: node.name)
    }

    // MARK: the box walk

    /// Boxes whose payload is only boxes.
    static let plainContainers: Set<String> = [
        "moov", "trak", "mdia", "minf", "stbl", "dinf", "edts", "udta", "mvex", "moof", "traf", "mfra",
        "sinf", "schi", "rinf", "tref", "trgr", "strk", "strd", "meco", "gmhd", "wave", "ipro", "iprp", "ipco",
        "clip", "matt", "tapt", "mdra", "rmra", "rmda", "imap", "hinf", "hnti", "ilst", "fiin", "paen", "moof",
    ]

    /// One level: boxes from `start` to `end` at `depth`, `parent` naming what holds them (nil:
    /// the file).
    func scan(from start: Int64, to end: Int64, depth: Int, parent: String?) -> (nodes: [StructureNode], omitted: Int) {
        var nodes: [StructureNode] = []
        var omitted = 0
        var pos = start
        var steps = 0
        let whose = parent.map { "\($0)" } ?? "the file"
        while pos < end {
            if steps >= budget.maxScanSteps {
                nodes.append(StructureNode(name: "(not read)", offset: pos, headerSize: 0, size: end - pos,
                                           damage: "the scan budget (\(ContainerScan.grouped(budget.maxScanSteps)) boxes) ran out at offset \(ContainerScan.grouped(pos)); \(ContainerScan.grouped(end - pos)) bytes of \(whose) were not read",
                                           depth: depth))
                break
            }
            steps += 1
            let next: Int64?
            if nodes.count < budget.maxChildren {
                let (node, after) = box(at: pos, end: end, depth: depth, parent: parent)
                nodes.append(node)
                next = after
            } else {
                // Past the listing budget boxes are only counted: no node, no text.
                omitted += 1
                next = skip(at: pos, end: end)
            }
            guard let next, next > pos else { break }
            pos = next
        }
        return (nodes, omitted)
    }

    /// Where the box after the one at `pos` starts, read from its header only (nil: the level
    /// ends with this box). The same size rules as ``box(at:end:depth:parent:)``.
    func skip(at pos: Int64, end: Int64) -> Int64? {
        let remaining = end - pos
        let head = window.read(at: pos, count: Int(min(remaining, 16)))
        guard let header = ISOBMFFBoxes.header(head, at: 0, end: head.count) else { return nil }
        let size: Int64
        switch (header.length, header.size) {
        case (8, 0), (8, 2..<8), (16, 0..<16): return nil
        default: size = header.size > UInt64(remaining) ? remaining : Int64(header.size)
        }
        return pos + size < end ? pos + size : nil
    }

    /// The box at `pos` in a level ending at `end`, and where the next one starts (nil: the level
    /// ends here, after damage or a box that runs to its end).
    func box(at pos: Int64, end: Int64, depth: Int, parent: String?) -> (StructureNode, Int64?) {
        let remaining = end - pos
        let head = window.read(at: pos, count: Int(min(remaining, 32)))
        let whose = parent ?? "the file"
        if head.count < 8 {
            // QuickTime ends some lists with a 32-bit zero: not damage.
            if head.count == 4, head.allSatisfy({ $0 == 0 }) {
                return (StructureNode(name: "(terminator)", offset: pos, headerSize: 4, size: 4, summary: "32-bit zero", depth: depth), nil)
            }
            return (StructureNode(name: "(truncated)", offset: pos, headerSize: Int64(head.count), size: Int64(head.count),
                                  damage: "a box header needs 8 bytes but \(whose) has \(head.count) left at offset \(ContainerScan.grouped(pos))",
                                  depth: depth), nil)
        }
        // The header as the shared reader decodes it; the inspector's own rules (clipping, damage
        // in words, the name with its escapes) follow.
        let type = ContainerScan.fourCC(head[4..<8])
        guard let header = ISOBMFFBoxes.header(head, at: 0, end: head.count) else {
            return (StructureNode(name: type, offset: pos, headerSize: 8, size: remaining,
                                  damage: "'\(type)' at offset \(ContainerScan.grouped(pos)) says its size is 64-bit, but \(whose) ends before it",
                                  depth: depth), nil)
        }
        var c = ContainerScan.Cursor(head, at: header.length)
        let isMdat = header.code == 0x6D64_6174
        var headerSize = Int64(header.length)
        var size: Int64
        var damage: [String] = []
        var fields: [StructureField] = []
        let size32 = header.length == 16 ? 1 : UInt32(header.size)
        switch size32 {
        case 1:
            let large = header.size
            fields.append(StructureField("largesize", count: large))
            if large < 16 {
                return (StructureNode(name: type, offset: pos, headerSize: 16, size: remaining, fields: fields,
                                      damage: "64-bit size \(ContainerScan.grouped(large)) at offset \(ContainerScan.grouped(pos)) is smaller than its own header; nothing after it in \(whose) can be located",
                                      depth: depth), nil)
            }
            if large > UInt64(remaining) {
                damage.append("size \(ContainerScan.grouped(large)) at offset \(ContainerScan.grouped(pos)) runs \(ContainerScan.grouped(large - UInt64(remaining))) bytes past the end of \(whose) (offset \(ContainerScan.grouped(end))); clipped")
                size = remaining
            } else {
                size = Int64(large)
            }
        case 0:
            size = remaining
            fields.append(StructureField("size", "0 (to the end of \(whose))"))
            if parent != nil || !isMdat {
                damage.append("size 0 at offset \(ContainerScan.grouped(pos)): taken to run to the end of \(whose) (offset \(ContainerScan.grouped(end))), over whatever follows; only a last box may say so")
            }
        case 2..<8:
            return (StructureNode(name: type, offset: pos, headerSize: 8, size: remaining,
                                  damage: "size \(size32) at offset \(ContainerScan.grouped(pos)) is smaller than a box header; nothing after it in \(whose) can be located",
                                  depth: depth), nil)
        default:
            if Int64(size32) > remaining {
                damage.append("size \(ContainerScan.grouped(size32)) at offset \(ContainerScan.grouped(pos)) runs \(ContainerScan.grouped(Int64(size32) - remaining)) bytes past the end of \(whose) (offset \(ContainerScan.grouped(end))); clipped")
                size = remaining
            } else {
                size = Int64(size32)
            }
        }
        if type == "uuid" {
            if let ext = c.take(16), headerSize + 16 <= size {
                headerSize += 16
                fields.append(StructureField("extended type", ContainerScan.uuid(ext)))
            } else {
                damage.append("'uuid' at offset \(ContainerScan.grouped(pos)) has no room for its 16-byte extended type")
            }
        }
        if headerSize > size {
            damage.append("the header (\(headerSize) bytes) does not fit in \(whose) at offset \(ContainerScan.grouped(pos))")
            headerSize = size
        }
        var node = StructureNode(name: type, offset: pos, headerSize: headerSize, size: size, fields: fields, depth: depth)
        describe(&node, type: type, parent: parent, damage: &damage)
        if !damage.isEmpty { node.damage = TextSanitizer.clean(damage.joined(separator: "; ")) }
        if node.isContainer, depth >= budget.maxDepth {
            node.isContainer = false
            node.damage = TextSanitizer.clean((node.damage.map { $0 + "; " } ?? "") + "nested deeper than \(budget.maxDepth) levels at offset \(ContainerScan.grouped(pos)): its boxes are not read")
        }
        let next = pos + size   // size ≤ remaining = end - pos: cannot overflow
        return (node, next < end ? next : nil)
    }

    /// Sets `node`'s summary, fields, container flag and children's start (`tag`): a sample
    /// description's entry by ``sampleEntries``, a box of a family by that family's reader.
    func describe(_ node: inout StructureNode, type: String, parent: String?, damage: inout [String]) {
        node.tag = UInt64(node.payloadOffset)
        if parent == "stsd" {
            sampleEntries.read(&node, type: type, damage: &damage)
        } else if parent == "ilst" || Self.plainContainers.contains(type) {
            node.isContainer = true
        } else {
            readers[type]?.read(&node, type: type, damage: &damage)
        }
    }
}
