import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The Cluster family: a Cluster's timestamp, its blocks' headers (track, relative timestamp,
/// flags, lacing), and its blocks and keyframes tallied per track as it is walked. Owns the
/// summaries of the Clusters walked so far, which ``MatroskaParser/refined(_:)`` shows.
final class ClusterBlocks: ElementFamily {
    static let ids = [MatroskaElements.cluster, MatroskaElements.simpleBlock, MatroskaElements.block]
    let source: any ByteSource
    let budget: StructureBudget
    /// The summaries of the Clusters walked so far (by offset): block counts per track and keyframes.
    private(set) var summaries: [Int64: String] = [:]

    /// Tracks named in a Cluster's summary (a hostile cluster can name thousands).
    static let summaryTracks = 8

    /// A Cluster's Timestamp and blocks per track (track → blocks, keyframes), counted as its
    /// children are walked.
    struct Tally {
        var timestamp: UInt64?
        var counts: [UInt64: (blocks: Int, keys: Int)] = [:]
    }

    init(source: any ByteSource, budget: StructureBudget) {
        self.source = source
        self.budget = budget
    }

    func read(_ element: MatroskaParser.Element, damage: String?) -> (summary: String?, fields: [StructureField], damage: String?) {
        guard element.id != MatroskaElements.cluster else { return (timestamp(of: element), [], damage) }
        let size = element.payloadSize
        var fields = [StructureField("size", ContainerScan.grouped(size) + " bytes")]
        let bytes = payload(of: element, limit: 32)
        guard let block = Self.blockHeader(bytes, simple: element.id == MatroskaElements.simpleBlock) else {
            return (nil, fields, (damage.map { $0 + "; " } ?? "") + "the block header at offset \(ContainerScan.grouped(element.payloadOffset)) is not valid")
        }
        fields = [StructureField("track", String(block.track)),
                  StructureField("relative timestamp", String(block.timestamp)),
                  StructureField("flags", block.flagNames.isEmpty ? "none" : block.flagNames.joined(separator: ", "))]
        if let frames = block.frames { fields.append(StructureField("frames", String(frames))) }
        fields.append(StructureField("data", ContainerScan.grouped(max(0, size - Int64(block.headerLength))) + " bytes"))
        var summary = "track \(block.track), \(block.timestamp >= 0 ? "+" : "")\(block.timestamp)"
        if block.keyframe { summary += ", key" }
        return (summary, fields, damage)
    }

    /// A Cluster's Timestamp when it is its first child, inside the bytes read with the header.
    func timestamp(of element: MatroskaParser.Element) -> String? {
        // The Timestamp is normally the Cluster's first child, inside the header read.
        let start = Int(element.headerSize)
        guard element.head.count > start,
              case let .element(id, size?, headerSize) = EBMLHeader.parse(Array(element.head[start...])),
              id == MatroskaElements.clusterTimestamp, size <= 8, element.head.count >= start + Int(headerSize) + Int(size) else { return nil }
        let from = start + Int(headerSize)
        let value = element.head[from..<(from + Int(size))].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return "timestamp \(value)"
    }

    /// Keeps the summary of a Cluster whose children were walked (`complete`: to its end).
    func record(_ cluster: StructureNode, _ tally: Tally, complete: Bool) {
        summaries[cluster.offset] = Self.summary(timestamp: tally.timestamp, counts: tally.counts, complete: complete,
                                                 unknownSize: cluster.size == nil)
    }

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

    /// Counts a Cluster child into the Cluster's tally: its Timestamp, or a block of a track (a
    /// BlockGroup's Block is a keyframe when the group has no ReferenceBlock).
    func count(_ element: MatroskaParser.Element, into tally: inout Tally, steps: inout Int) {
        switch element.id {
        case MatroskaElements.clusterTimestamp:
            let bytes = payload(of: element, limit: 8)
            if element.payloadSize <= 8, bytes.count == Int(element.payloadSize) {
                tally.timestamp = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
        case MatroskaElements.simpleBlock:
            if let block = Self.blockHeader(payload(of: element, limit: 16), simple: true) {
                add(to: &tally.counts, track: block.track, key: block.keyframe)
            }
        case MatroskaElements.blockGroup:
            var track: UInt64?
            var referenced = false
            var pos = element.payloadOffset
            var inGroup = 0
            while pos < element.end, inGroup < 64, steps < budget.maxScanSteps {
                steps += 1
                inGroup += 1
                let head = source.read(at: pos, count: Int(min(MatroskaParser.headerProbe, element.end - pos)))
                guard case let .element(id, size?, headerSize) = EBMLHeader.parse(head), headerSize <= element.end - pos else { break }
                if id == MatroskaElements.block, head.count > Int(headerSize) {
                    track = Self.blockHeader(Array(head[Int(headerSize)...]), simple: false)?.track
                } else if id == MatroskaElements.referenceBlock {
                    referenced = true
                }
                guard size <= UInt64(element.end - pos - headerSize) else { break }
                pos += headerSize + Int64(size)
            }
            if let track { add(to: &tally.counts, track: track, key: !referenced) }
        default:
            break
        }
    }

    /// One more block of `track` (a keyframe when `key`).
    func add(to counts: inout [UInt64: (blocks: Int, keys: Int)], track: UInt64, key: Bool) {
        var entry = counts[track] ?? (0, 0)
        entry.blocks += 1
        if key { entry.keys += 1 }
        counts[track] = entry
    }

    /// A walked Cluster's line: its timestamp, and its blocks and keyframes in all and per track
    /// (the first ``summaryTracks``); "at least" when the walk stopped before its end.
    static func summary(timestamp: UInt64?, counts: [UInt64: (blocks: Int, keys: Int)], complete: Bool, unknownSize: Bool) -> String {
        var parts: [String] = []
        if unknownSize { parts.append("unknown size") }
        if let timestamp { parts.append("timestamp \(timestamp)") }
        let blocks = counts.values.reduce(0) { $0 + $1.blocks }
        let keys = counts.values.reduce(0) { $0 + $1.keys }
        var text = "\(complete ? "" : "at least ")\(ContainerScan.grouped(blocks)) block\(blocks == 1 ? "" : "s") (\(ContainerScan.grouped(keys)) key)"
        let tracks = counts.keys.sorted()
        if !tracks.isEmpty {
            text += ": " + tracks.prefix(summaryTracks).map { track in
                let entry = counts[track]!
                return "track \(track) ×\(ContainerScan.grouped(entry.blocks)) (\(ContainerScan.grouped(entry.keys)) key)"
            }.joined(separator: ", ")
            if tracks.count > summaryTracks { text += ", … \(tracks.count - summaryTracks) more tracks" }
        }
        parts.append(text)
        return parts.joined(separator: "; ")
    }
}
