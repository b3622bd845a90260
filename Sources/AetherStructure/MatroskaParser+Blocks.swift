import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// Blocks and clusters (track tallies, keyframes) and the one-line summaries of master elements.
extension MatroskaParser {
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
    func count(_ element: Element, into result: inout LevelResult, steps: inout Int) {
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

    func tally(_ counts: inout [UInt64: (blocks: Int, keys: Int)], track: UInt64, key: Bool) {
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
    func masterSummary(_ element: Element) -> String? {
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
}
