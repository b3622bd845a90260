import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// Element headers (ID, size, unknown sizes) and the nodes made of elements: leaves, unsigned and binary values.
extension MatroskaParser {
    typealias Header = EBMLHeader

    /// An element header from the bytes at its offset (``EBMLHeader``).
    static func parseHeader(_ b: [UInt8]) -> Header { EBMLHeader.parse(b) }

    /// One element being read: its header and where it ends (clipped to its parent).
    struct Element {
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
    func payload(of element: Element, limit: Int64) -> [UInt8] {
        let wanted = min(element.payloadSize, limit, Int64(budget.maxFieldBytes))
        guard wanted > 0 else { return [] }
        let start = Int(element.headerSize)
        if Int64(element.head.count - start) >= wanted { return Array(element.head[start..<(start + Int(wanted))]) }
        return source.read(at: element.payloadOffset, count: Int(wanted))
    }

    // MARK: - Nodes

    func node(for element: Element) -> StructureNode {
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
    func leaf(_ element: Element, type: EBMLType, damage: String?)
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

    func uintValue(_ id: UInt32, _ value: UInt64) -> (String, [StructureField]) {
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

    func binaryValue(_ element: Element, damage: String?) -> (String?, [StructureField], String?) {
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
}
