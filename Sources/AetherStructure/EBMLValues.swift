import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Leaf elements read by their type: unsigned and signed numbers, floats, strings, dates and
/// binary, with the meaning of the IDs that have one (TrackType, durations, chapter times, times
/// in ticks, SeekID, CRC-32); and elements the table does not know, by their size and first
/// bytes. Owns the timestamp scale, learned from Info's TimestampScale, that ticks are read in.
final class EBMLValues: EBMLReader {
    let source: any ByteSource
    let budget: StructureBudget
    /// Nanoseconds per tick (Info's TimestampScale once it has been read; Matroska's default).
    var timestampScale: UInt64 = 1_000_000

    /// Bytes of a binary element shown in hex.
    static let hexPreview: Int64 = 16

    init(source: any ByteSource, budget: StructureBudget) {
        self.source = source
        self.budget = budget
    }

    /// A leaf's value (its size known) as its summary and fields.
    func leaf(_ element: MatroskaParser.Element, type: EBMLType, damage: String?)
        -> (summary: String?, fields: [StructureField], damage: String?) {
        let size = element.payloadSize
        var damage = damage
        func addDamage(_ text: String) { damage = (damage.map { $0 + "; " } ?? "") + text }
        /// The payload (at most 8 bytes) and its big-endian value; nil (and the damage said) when
        /// the file ends inside it.
        func bigEndian() -> (bytes: [UInt8], raw: UInt64)? {
            let bytes = payload(of: element, limit: 8)
            guard bytes.count == Int(size) else {
                addDamage("its value at offset \(ContainerScan.grouped(element.payloadOffset)) is cut off at the end of the file")
                return nil
            }
            return (bytes, bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        switch type {
        case .uint, .int, .date:
            guard size <= 8 else {
                addDamage("a number of \(ContainerScan.grouped(size)) bytes at offset \(ContainerScan.grouped(element.offset)) (at most 8)")
                return (nil, [StructureField("size", ContainerScan.grouped(size) + " bytes")], damage)
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
            let date = EBMLText.isoDate(nanosecondsSince2001: signed)
            return (date, [StructureField("value", date), StructureField("nanoseconds since 2001", String(signed))], damage)
        case .float:
            guard size == 0 || size == 4 || size == 8 else {
                addDamage("a float of \(ContainerScan.grouped(size)) bytes at offset \(ContainerScan.grouped(element.offset)) (0, 4 or 8)")
                return (nil, [StructureField("size", ContainerScan.grouped(size) + " bytes")], damage)
            }
            guard let raw = bigEndian()?.raw else { return (nil, [], damage) }
            let value = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : size == 8 ? Double(bitPattern: raw) : 0
            var text = EBMLText.number(value)
            var fields = [StructureField("value", text)]
            if element.id == 0x4489, value.isFinite {  // Duration, in ticks
                let seconds = value * Double(timestampScale) / 1e9
                fields.append(StructureField("seconds", EBMLText.number(seconds)))
                text += " (\(EBMLText.number(seconds)) s)"
            }
            return (text, fields, damage)
        case .string, .utf8:
            let bytes = payload(of: element, limit: EBMLText.maxStringBytes)
            var text = EBMLText.text(bytes)
            if Int64(bytes.count) < size { text += "…" }
            var fields = [StructureField("value", text)]
            if Int64(bytes.count) < size { fields.append(StructureField("size", ContainerScan.grouped(size) + " bytes")) }
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
            if let name = names[value] {
                summary += " (\(name))"
                fields.append(StructureField("meaning", name))
            }
        case 0x23E383, 0x234E7A:  // DefaultDuration, DefaultDecodedFieldDuration (ns)
            let seconds = Double(value) / 1e9
            fields.append(StructureField("seconds", EBMLText.number(seconds)))
            if value > 0 { fields.append(StructureField("per second", EBMLText.number(1e9 / Double(value)))) }
            summary += " ns"
        case 0x91, 0x92:  // ChapterTimeStart/End (ns)
            let text = EBMLText.clock(nanoseconds: value)
            fields.append(StructureField("time", text))
            summary = text
        case 0xB3, MatroskaElements.clusterTimestamp:  // CueTime, Timestamp (ticks)
            let seconds = Double(value) * Double(timestampScale) / 1e9
            fields.append(StructureField("seconds", EBMLText.number(seconds)))
            summary += " (\(EBMLText.number(seconds)) s)"
        default:
            break
        }
        return (summary, fields)
    }

    func binaryValue(_ element: MatroskaParser.Element, damage: String?) -> (String?, [StructureField], String?) {
        let size = element.payloadSize
        var fields = [StructureField("size", ContainerScan.grouped(size) + " bytes")]
        switch element.id {
        case 0xEC:  // Void: padding, nothing to show
            return (ContainerScan.grouped(size) + " bytes", fields, damage)
        default:
            let preview = payload(of: element, limit: element.id == 0x53AB ? 4 : Self.hexPreview)
            if !preview.isEmpty { fields.append(StructureField("first bytes", EBMLText.hexBytes(preview))) }
            var summary = ContainerScan.grouped(size) + " bytes"
            if element.id == 0x53AB, !preview.isEmpty {  // SeekID: the element it points at
                let id = preview.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let name = EBMLText.name(of: id)
                fields.append(StructureField("element", name))
                summary = name
            } else if element.id == 0xBF, preview.count == 4 {  // CRC-32, little-endian
                summary = EBMLText.hexBytes(preview.reversed())
            } else if size <= Self.hexPreview, !preview.isEmpty {
                summary = EBMLText.hexBytes(preview)
            }
            return (summary, fields, damage)
        }
    }

    /// An element the table does not know: its size and first bytes.
    func unknown(_ element: MatroskaParser.Element) -> (summary: String?, fields: [StructureField]) {
        var fields = [StructureField("size", ContainerScan.grouped(element.payloadSize) + " bytes")]
        let preview = payload(of: element, limit: Self.hexPreview)
        if !preview.isEmpty { fields.append(StructureField("first bytes", EBMLText.hexBytes(preview))) }
        return (element.declared == nil ? "unknown size" : nil, fields)
    }
}
