import AetherMedia
import Foundation

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

    private let source: any ByteSource
    private let budget: StructureBudget
    /// Where elements of unknown size were found to end (by their offset), learned when their
    /// parent was listed: their children are read up to there.
    private var resolvedEnds: [Int64: Int64] = [:]
    /// Block counts of the clusters read so far (by offset), for ``refined(_:)``.
    private var clusterSummaries: [Int64: String] = [:]
    /// Nanoseconds per tick (Info's TimestampScale once it has been read; Matroska's default).
    private var timestampScale: UInt64 = 1_000_000

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
    private struct Level {
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

    private struct LevelResult {
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
    private func walk(_ level: Level, collect: Bool, steps: inout Int) -> LevelResult {
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
    private func unknownSizeEnd(of element: inout Element, in level: Level, steps: inout Int) -> Int64 {
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
    private static func ends(_ parentID: UInt32, at element: EBMLElement) -> Bool {
        guard !element.mayBeChild(of: parentID) else { return false }
        let parentLevels = MatroskaElements.byID[parentID]?.parents ?? []
        return element.parents.contains { $0 == 0 || $0 == MatroskaElements.segment || parentLevels.contains($0) }
    }

    /// After a header that is not EBML: a damage node, and where to go on (the next Cluster ID
    /// in a Segment or a live Cluster, the next Segment or EBML header at the top level), or nil
    /// (the rest of the level is not read).
    private func resync(_ level: Level, after pos: Int64, what: String, byte: UInt8,
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
    private func find(_ targets: [(id: UInt32, name: String)], from start: Int64, to end: Int64) -> (Int64, String)? {
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

    // MARK: - Element headers

    private enum Header {
        case element(id: UInt32, size: UInt64?, headerSize: Int64)
        case invalid(what: String, byte: UInt8)
        case cut
    }

    /// An element header from the bytes at its offset: the ID's and size's lengths come from
    /// their first byte's leading zeros (none of them all zero).
    private static func parseHeader(_ b: [UInt8]) -> Header {
        guard let first = b.first else { return .cut }
        let idLength = first.leadingZeroBitCount + 1
        guard first != 0, idLength <= 4 else { return .invalid(what: "ID", byte: first) }
        guard b.count > idLength else { return .cut }
        var id: UInt32 = 0
        for i in 0..<idLength { id = id << 8 | UInt32(b[i]) }
        // All value bits set is reserved (RFC 8794 5): 0xFF, 0x7FFF, 0x3FFFFF, 0x1FFFFFFF.
        let valueBits = UInt32(7 * idLength)
        if id & ((1 << valueBits) - 1) == (1 << valueBits) - 1 { return .invalid(what: "ID", byte: first) }
        let sizeFirst = b[idLength]
        guard sizeFirst != 0 else { return .invalid(what: "size", byte: sizeFirst) }
        let sizeLength = sizeFirst.leadingZeroBitCount + 1
        guard b.count >= idLength + sizeLength else { return .cut }
        let mask = UInt8(truncatingIfNeeded: 0xFF >> sizeLength)
        var value = UInt64(sizeFirst & mask)
        var allOnes = sizeFirst & mask == mask
        for i in 1..<sizeLength {
            let byte = b[idLength + i]
            value = value << 8 | UInt64(byte)
            allOnes = allOnes && byte == 0xFF
        }
        return .element(id: id, size: allOnes ? nil : value, headerSize: Int64(idLength + sizeLength))
    }

    /// One element being read: its header and where it ends (clipped to its parent).
    private struct Element {
        let id: UInt32
        let info: EBMLElement?
        let offset: Int64
        let headerSize: Int64
        /// The size the header states (nil: unknown).
        let declared: UInt64?
        var end: Int64
        /// The bytes read at `offset` (`headerProbe` of them, fewer at the parent's end).
        let head: [UInt8]
        let depth: Int
        var damage: String?

        init(id: UInt32, info: EBMLElement?, offset: Int64, headerSize: Int64, declared: UInt64?, end: Int64,
             head: [UInt8], depth: Int) {
            self.id = id
            self.info = info
            self.offset = offset
            self.headerSize = headerSize
            self.declared = declared
            self.end = end
            self.head = head
            self.depth = depth
        }

        var name: String { info?.name ?? MatroskaParser.hexID(id) }
        var payloadOffset: Int64 { offset + headerSize }
        var payloadSize: Int64 { end - payloadOffset }
    }

    /// Up to `limit` bytes of an element's payload (from the header read when they are in it).
    private func payload(of element: Element, limit: Int64) -> [UInt8] {
        let wanted = min(element.payloadSize, limit, Int64(budget.maxFieldBytes))
        guard wanted > 0 else { return [] }
        let start = Int(element.headerSize)
        if Int64(element.head.count - start) >= wanted { return Array(element.head[start..<(start + Int(wanted))]) }
        return source.read(at: element.payloadOffset, count: Int(wanted))
    }

    // MARK: - Nodes

    private func node(for element: Element) -> StructureNode {
        var damage = element.damage
        var fields: [StructureField] = []
        var summary: String?
        var isContainer = false
        let size: Int64? = element.declared == nil ? nil : element.end - element.offset
        switch element.info?.type {
        case .master:
            if element.depth >= budget.maxDepth {
                damage = (damage.map { $0 + "; " } ?? "")
                    + "\(element.name) at offset \(Self.grouped(element.offset)) is nested \(element.depth + 1) levels deep: "
                    + "its children (past the limit of \(budget.maxDepth)) are not read"
            } else {
                isContainer = true
            }
            summary = masterSummary(element)
            if element.declared == nil { summary = "unknown size" + (summary.map { "; " + $0 } ?? "") }
        case .some(let type):
            (summary, fields, damage) = leaf(element, type: type, damage: damage)
        case nil:
            if element.declared == nil { summary = "unknown size" }
            fields = [StructureField("size", Self.grouped(element.payloadSize) + " bytes")]
            let preview = payload(of: element, limit: Self.hexPreview)
            if !preview.isEmpty { fields.append(StructureField("first bytes", Self.hexBytes(preview))) }
        }
        return StructureNode(name: element.name, offset: element.offset, headerSize: element.headerSize, size: size,
                             summary: summary.map(Self.clip), fields: fields, damage: damage, isContainer: isContainer,
                             depth: element.depth, tag: UInt64(element.id))
    }

    /// A leaf's value as its summary and fields.
    private func leaf(_ element: Element, type: EBMLType, damage: String?)
        -> (summary: String?, fields: [StructureField], damage: String?) {
        let size = element.payloadSize
        var damage = damage
        func addDamage(_ text: String) { damage = (damage.map { $0 + "; " } ?? "") + text }
        if element.declared == nil {
            return ("unknown size", [StructureField("size", "unknown")], damage)
        }
        /// The payload (at most 8 bytes) and its big-endian value; nil (and the damage said) when
        /// the file ends inside it.
        func bigEndian() -> (bytes: [UInt8], raw: UInt64)? {
            let bytes = payload(of: element, limit: 8)
            guard bytes.count == Int(size) else {
                addDamage("its value at offset \(Self.grouped(element.payloadOffset)) is cut off at the end of the file")
                return nil
            }
            return (bytes, bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        switch type {
        case .uint, .int, .date:
            guard size <= 8 else {
                addDamage("a number of \(Self.grouped(size)) bytes at offset \(Self.grouped(element.offset)) (at most 8)")
                return (nil, [StructureField("size", Self.grouped(size) + " bytes")], damage)
            }
            guard let (bytes, raw) = bigEndian() else { return (nil, [], damage) }
            if type == .uint {
                let (summary, fields) = uintValue(element.id, raw)
                return (summary, fields, damage)
            }
            let shift = UInt64(64 - 8 * bytes.count)
            let signed = bytes.isEmpty ? 0 : Int64(bitPattern: raw << shift) >> Int64(shift)
            if type == .int {
                let text = String(signed)
                return (text, [StructureField("value", text)], damage)
            }
            let date = Self.isoDate(nanosecondsSince2001: signed)
            return (date, [StructureField("value", date), StructureField("nanoseconds since 2001", String(signed))], damage)
        case .float:
            guard size == 0 || size == 4 || size == 8 else {
                addDamage("a float of \(Self.grouped(size)) bytes at offset \(Self.grouped(element.offset)) (0, 4 or 8)")
                return (nil, [StructureField("size", Self.grouped(size) + " bytes")], damage)
            }
            guard let raw = bigEndian()?.raw else { return (nil, [], damage) }
            let value = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : size == 8 ? Double(bitPattern: raw) : 0
            var text = Self.number(value)
            var fields = [StructureField("value", text)]
            if element.id == 0x4489, value.isFinite {  // Duration, in ticks
                let seconds = value * Double(timestampScale) / 1e9
                fields.append(StructureField("seconds", Self.number(seconds)))
                text += " (\(Self.number(seconds)) s)"
            }
            return (text, fields, damage)
        case .string, .utf8:
            let bytes = payload(of: element, limit: Self.maxStringBytes)
            var text = Self.text(bytes)
            if Int64(bytes.count) < size { text += "…" }
            var fields = [StructureField("value", text)]
            if Int64(bytes.count) < size { fields.append(StructureField("size", Self.grouped(size) + " bytes")) }
            return (text, fields, damage)
        case .binary:
            return binaryValue(element, damage: damage)
        case .master:
            return (nil, [], damage)
        }
    }

    private func uintValue(_ id: UInt32, _ value: UInt64) -> (String, [StructureField]) {
        var fields = [StructureField("value", String(value))]
        var summary = String(value)
        switch id {
        case MatroskaElements.timestampScale:
            if value > 0 { timestampScale = value }
            summary += " ns per tick"
        case 0x83:  // TrackType
            let names: [UInt64: String] = [1: "video", 2: "audio", 3: "complex", 0x10: "logo", 0x11: "subtitle", 0x12: "buttons", 0x20: "control", 0x21: "metadata"]
            if let name = names[value] { summary += " (\(name))"; fields.append(StructureField("meaning", name)) }
        case 0x23E383, 0x234E7A:  // DefaultDuration, DefaultDecodedFieldDuration (ns)
            let seconds = Double(value) / 1e9
            fields.append(StructureField("seconds", Self.number(seconds)))
            if value > 0 { fields.append(StructureField("per second", Self.number(1e9 / Double(value)))) }
            summary += " ns"
        case 0x91, 0x92:  // ChapterTimeStart/End (ns)
            let text = Self.clock(nanoseconds: value)
            fields.append(StructureField("time", text))
            summary = text
        case 0xB3, MatroskaElements.clusterTimestamp:  // CueTime, Timestamp (ticks)
            let seconds = Double(value) * Double(timestampScale) / 1e9
            fields.append(StructureField("seconds", Self.number(seconds)))
            summary += " (\(Self.number(seconds)) s)"
        default:
            break
        }
        return (summary, fields)
    }

    private func binaryValue(_ element: Element, damage: String?) -> (String?, [StructureField], String?) {
        let size = element.payloadSize
        var fields = [StructureField("size", Self.grouped(size) + " bytes")]
        switch element.id {
        case MatroskaElements.simpleBlock, MatroskaElements.block:
            let bytes = payload(of: element, limit: 32)
            guard let block = Self.blockHeader(bytes, simple: element.id == MatroskaElements.simpleBlock) else {
                return (nil, fields, (damage.map { $0 + "; " } ?? "") + "the block header at offset \(Self.grouped(element.payloadOffset)) is not valid")
            }
            fields = [StructureField("track", String(block.track)),
                      StructureField("relative timestamp", String(block.timestamp)),
                      StructureField("flags", block.flagNames.isEmpty ? "none" : block.flagNames.joined(separator: ", "))]
            if let frames = block.frames { fields.append(StructureField("frames", String(frames))) }
            fields.append(StructureField("data", Self.grouped(max(0, size - Int64(block.headerLength))) + " bytes"))
            var summary = "track \(block.track), \(block.timestamp >= 0 ? "+" : "")\(block.timestamp)"
            if block.keyframe { summary += ", key" }
            return (summary, fields, damage)
        case 0xEC:  // Void: padding, nothing to show
            return (Self.grouped(size) + " bytes", fields, damage)
        default:
            let preview = payload(of: element, limit: element.id == 0x53AB ? 4 : Self.hexPreview)
            if !preview.isEmpty { fields.append(StructureField("first bytes", Self.hexBytes(preview))) }
            var summary = Self.grouped(size) + " bytes"
            if element.id == 0x53AB, !preview.isEmpty {  // SeekID: the element it points at
                let id = preview.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let name = Self.name(of: id)
                fields.append(StructureField("element", name))
                summary = name
            } else if element.id == 0xBF, preview.count == 4 {  // CRC-32, little-endian
                summary = Self.hexBytes(preview.reversed())
            } else if size <= Self.hexPreview, !preview.isEmpty {
                summary = Self.hexBytes(preview)
            }
            return (summary, fields, damage)
        }
    }

    // MARK: - Blocks

    struct BlockHeader {
        var track: UInt64
        var timestamp: Int16
        var flags: UInt8
        var simple: Bool
        var frames: Int?
        var headerLength: Int

        var keyframe: Bool { simple && flags & 0x80 != 0 }
        var flagNames: [String] {
            var names: [String] = []
            if keyframe { names.append("keyframe") }
            if flags & 0x08 != 0 { names.append("invisible") }
            switch (flags >> 1) & 3 {
            case 1: names.append("Xiph lacing")
            case 2: names.append("fixed-size lacing")
            case 3: names.append("EBML lacing")
            default: break
            }
            if simple, flags & 0x01 != 0 { names.append("discardable") }
            return names
        }
    }

    /// A (Simple)Block's header: the track number (a VINT), a 16-bit timestamp relative to the
    /// Cluster's, the flags, and with lacing the frame count.
    static func blockHeader(_ b: [UInt8], simple: Bool) -> BlockHeader? {
        guard let first = b.first, first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard b.count >= length + 3 else { return nil }
        var track = UInt64(first & UInt8(truncatingIfNeeded: 0xFF >> length))
        for i in 1..<length { track = track << 8 | UInt64(b[i]) }
        let timestamp = Int16(bitPattern: UInt16(b[length]) << 8 | UInt16(b[length + 1]))
        let flags = b[length + 2]
        var header = BlockHeader(track: track, timestamp: timestamp, flags: flags, simple: simple, frames: nil, headerLength: length + 3)
        if (flags >> 1) & 3 != 0, b.count > length + 3 {
            header.frames = Int(b[length + 3]) + 1
            header.headerLength += 1
        }
        return header
    }

    /// Counts a Cluster child into the level's block counts (a BlockGroup's Block is a keyframe
    /// when the group has no ReferenceBlock).
    private func count(_ element: Element, into result: inout LevelResult, steps: inout Int) {
        switch element.id {
        case MatroskaElements.clusterTimestamp:
            let bytes = payload(of: element, limit: 8)
            if element.payloadSize <= 8, bytes.count == Int(element.payloadSize) {
                result.clusterTimestamp = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
        case MatroskaElements.simpleBlock:
            if let block = Self.blockHeader(payload(of: element, limit: 16), simple: true) {
                tally(&result.counts, track: block.track, key: block.keyframe)
            }
        case MatroskaElements.blockGroup:
            var track: UInt64?
            var referenced = false
            var pos = element.payloadOffset
            var inGroup = 0
            while pos < element.end, inGroup < 64, steps < budget.maxScanSteps {
                steps += 1
                inGroup += 1
                let head = source.read(at: pos, count: Int(min(Self.headerProbe, element.end - pos)))
                guard case let .element(id, size?, headerSize) = Self.parseHeader(head), headerSize <= element.end - pos else { break }
                if id == MatroskaElements.block, head.count > Int(headerSize) {
                    track = Self.blockHeader(Array(head[Int(headerSize)...]), simple: false)?.track
                } else if id == MatroskaElements.referenceBlock {
                    referenced = true
                }
                guard size <= UInt64(element.end - pos - headerSize) else { break }
                pos += headerSize + Int64(size)
            }
            if let track { tally(&result.counts, track: track, key: !referenced) }
        default:
            break
        }
    }

    private func tally(_ counts: inout [UInt64: (blocks: Int, keys: Int)], track: UInt64, key: Bool) {
        var entry = counts[track] ?? (0, 0)
        entry.blocks += 1
        if key { entry.keys += 1 }
        counts[track] = entry
    }

    static func clusterSummary(timestamp: UInt64?, counts: [UInt64: (blocks: Int, keys: Int)], complete: Bool, unknownSize: Bool) -> String {
        var parts: [String] = []
        if unknownSize { parts.append("unknown size") }
        if let timestamp { parts.append("timestamp \(timestamp)") }
        let blocks = counts.values.reduce(0) { $0 + $1.blocks }
        let keys = counts.values.reduce(0) { $0 + $1.keys }
        var text = "\(complete ? "" : "at least ")\(grouped(blocks)) block\(blocks == 1 ? "" : "s") (\(grouped(keys)) key)"
        let tracks = counts.keys.sorted()
        if !tracks.isEmpty {
            text += ": " + tracks.prefix(summaryTracks).map { track in
                let entry = counts[track]!
                return "track \(track) ×\(grouped(entry.blocks)) (\(grouped(entry.keys)) key)"
            }.joined(separator: ", ")
            if tracks.count > summaryTracks { text += ", … \(tracks.count - summaryTracks) more tracks" }
        }
        parts.append(text)
        return parts.joined(separator: "; ")
    }

    // MARK: - Master summaries

    /// One line for the masters worth a glance before expanding (read from the master's first
    /// bytes in one read; nothing for large or unlisted ones).
    private func masterSummary(_ element: Element) -> String? {
        switch element.id {
        case MatroskaElements.cluster:
            // The Timestamp is normally the Cluster's first child, inside the header read.
            let start = Int(element.headerSize)
            guard element.head.count > start,
                  case let .element(id, size?, headerSize) = Self.parseHeader(Array(element.head[start...])),
                  id == MatroskaElements.clusterTimestamp, size <= 8, element.head.count >= start + Int(headerSize) + Int(size) else { return nil }
            let from = start + Int(headerSize)
            let value = element.head[from..<(from + Int(size))].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return "timestamp \(value)"
        case MatroskaElements.ebml, MatroskaElements.trackEntry, 0x4DBB, 0xB6, 0x61A7, 0x67C8, 0xBB:
            break
        default:
            return nil
        }
        let bytes = payload(of: element, limit: Self.summaryBytes)
        let children = Self.shallow(bytes[...])
        func uint(_ id: UInt32, in list: [(id: UInt32, value: ArraySlice<UInt8>)] = children) -> UInt64? {
            guard let v = list.first(where: { $0.id == id })?.value, v.count <= 8 else { return nil }
            return v.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        func string(_ id: UInt32, in list: [(id: UInt32, value: ArraySlice<UInt8>)] = children) -> String? {
            list.first(where: { $0.id == id }).map { Self.text(Array($0.value.prefix(Int(Self.maxStringBytes)))) }
        }
        func float(_ id: UInt32, in list: [(id: UInt32, value: ArraySlice<UInt8>)]) -> Double? {
            guard let v = list.first(where: { $0.id == id })?.value else { return nil }
            let raw = v.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            switch v.count {
            case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))
            case 8: return Double(bitPattern: raw)
            default: return nil
            }
        }
        var parts: [String] = []
        switch element.id {
        case MatroskaElements.ebml:
            if let type = string(0x4282) { parts.append(type) }
            if let version = uint(0x4287) { parts.append("v\(version)") }
        case MatroskaElements.trackEntry:
            if let number = uint(0xD7) { parts.append("track \(number)") }
            let kinds: [UInt64: String] = [1: "video", 2: "audio", 0x11: "subtitle", 0x12: "buttons", 0x20: "control", 0x21: "metadata"]
            if let type = uint(0x83) { parts.append(kinds[type] ?? "type \(type)") }
            if let codec = string(0x86) { parts.append(codec) }
            if let video = children.first(where: { $0.id == 0xE0 }).map({ Self.shallow($0.value) }),
               let w = uint(0xB0, in: video), let h = uint(0xBA, in: video) {
                parts.append("\(w)×\(h)")
            }
            if let audio = children.first(where: { $0.id == 0xE1 }).map({ Self.shallow($0.value) }) {
                if let rate = float(0xB5, in: audio), rate.isFinite { parts.append("\(Self.number(rate)) Hz") }
                if let channels = uint(0x9F, in: audio) { parts.append("\(channels) ch") }
            }
            if let language = string(0x22B59D) ?? string(0x22B59C) { parts.append(language) }
            if let name = string(0x536E) { parts.append("“\(name)”") }
        case 0x4DBB:  // Seek
            if let target = children.first(where: { $0.id == 0x53AB })?.value, target.count <= 4 {
                parts.append(Self.name(of: target.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
            }
            if let position = uint(0x53AC) { parts.append("at \(Self.grouped(position))") }
        case 0xB6:  // ChapterAtom
            if let start = uint(0x91) { parts.append(Self.clock(nanoseconds: start)) }
            if let display = children.first(where: { $0.id == 0x80 }).map({ Self.shallow($0.value) }),
               let title = string(0x85, in: display) {
                parts.append("“\(title)”")
            }
        case 0x61A7:  // AttachedFile
            if let name = string(0x466E) { parts.append(name) }
            if let type = string(0x4660) { parts.append(type) }
        case 0x67C8:  // SimpleTag
            if let name = string(0x45A3) { parts.append(name + (string(0x4487).map { " = " + $0 } ?? "")) }
        case 0xBB:  // CuePoint
            if let time = uint(0xB3) { parts.append("time \(time)") }
            let positions = children.filter { $0.id == 0xB7 }.count
            if positions > 0 { parts.append("\(positions) track position\(positions == 1 ? "" : "s")") }
        default:
            break
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The direct children of a master's payload held in memory (at most 256; one cut off at
    /// the end keeps what is there).
    static func shallow(_ bytes: ArraySlice<UInt8>) -> [(id: UInt32, value: ArraySlice<UInt8>)] {
        var out: [(id: UInt32, value: ArraySlice<UInt8>)] = []
        var i = bytes.startIndex
        while i < bytes.endIndex, out.count < 256 {
            guard case let .element(id, size?, headerSize) = parseHeader(Array(bytes[i..<min(bytes.endIndex, i + 12)])) else { break }
            let start = i + Int(headerSize)
            guard start <= bytes.endIndex else { break }
            let room = bytes.endIndex - start
            let length = size > UInt64(room) ? room : Int(size)
            out.append((id, bytes[start..<(start + length)]))
            i = start + length
        }
        return out
    }

    // MARK: - Text

    static func name(of id: UInt32) -> String { MatroskaElements.byID[id]?.name ?? hexID(id) }

    static func hexID(_ id: UInt32) -> String {
        let digits = String(id, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: digits.count % 2) + digits
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    static func hexBytes<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        bytes.map { b in
            let digits = String(b, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }.joined(separator: " ")
    }

    /// `1234567` → `1,234,567`.
    static func grouped<T: BinaryInteger>(_ value: T) -> String {
        let digits = Array(String(value.magnitude))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// A string element's text: up to the first NUL (EBML pads with them), invalid UTF-8
    /// replaced, clipped; control characters are the node's sanitiser's.
    static func text(_ bytes: [UInt8]) -> String {
        let content = bytes.prefix { $0 != 0 }
        return clip(String(decoding: content, as: UTF8.self))
    }

    static func clip(_ text: String) -> String {
        text.count > maxTextCharacters ? String(text.prefix(maxTextCharacters)) + "…" : text
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(format: "%.0f", value) }
        return String(format: "%.9g", value)
    }

    /// Nanoseconds as `h:mm:ss.mmm`.
    static func clock(nanoseconds: UInt64) -> String {
        let ms = nanoseconds / 1_000_000
        let s = ms / 1000, m = s / 60, h = m / 60
        func two(_ v: UInt64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let frac = ms % 1000
        return "\(h):\(two(m % 60)):\(two(s % 60)).\(frac < 10 ? "00" : frac < 100 ? "0" : "")\(frac)"
    }

    /// A Matroska date (signed nanoseconds since 2001-01-01T00:00:00 UTC) in ISO 8601.
    static func isoDate(nanosecondsSince2001 ns: Int64) -> String {
        // Whole seconds, rounded down, then the civil date (days from 1970 by Hinnant's algorithm).
        let billion: Int64 = 1_000_000_000
        var seconds = ns / billion
        if ns % billion < 0 { seconds -= 1 }
        let unix = seconds + 978_307_200
        var days = unix / 86_400
        var rest = unix % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest % 3600 / 60, 2)):\(pad(rest % 60, 2))Z"
    }
}
