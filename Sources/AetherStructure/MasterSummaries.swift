import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The masters worth a glance before they are expanded (the EBML header, a TrackEntry, a Seek, a
/// ChapterAtom, an AttachedFile, a SimpleTag, a CuePoint): one line from the children in their
/// first bytes.
final class MasterSummaries: ElementFamily {
    /// The EBML header, TrackEntry, Seek, ChapterAtom, AttachedFile, SimpleTag, CuePoint.
    static let ids = [MatroskaElements.ebml, MatroskaElements.trackEntry, 0x4DBB, 0xB6, 0x61A7, 0x67C8, 0xBB]
    let source: any ByteSource
    let budget: StructureBudget

    /// Bytes of a master read at once to summarise it (a TrackEntry's number, type, codec).
    static let summaryBytes: Int64 = 16 << 10

    init(source: any ByteSource, budget: StructureBudget) {
        self.source = source
        self.budget = budget
    }

    func read(_ element: MatroskaParser.Element, damage: String?) -> (summary: String?, fields: [StructureField], damage: String?) {
        (summary(of: element), [], damage)
    }

    /// One line for the master (read from its first bytes in one read; nothing when they hold
    /// none of the children it is summarised by).
    func summary(of element: MatroskaParser.Element) -> String? {
        let bytes = payload(of: element, limit: Self.summaryBytes)
        let children = Self.shallow(bytes[...])
        func uint(_ id: UInt32, in list: [(id: UInt32, value: ArraySlice<UInt8>)] = children) -> UInt64? {
            guard let v = list.first(where: { $0.id == id })?.value, v.count <= 8 else { return nil }
            return v.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        func string(_ id: UInt32, in list: [(id: UInt32, value: ArraySlice<UInt8>)] = children) -> String? {
            list.first(where: { $0.id == id }).map { EBMLText.text(Array($0.value.prefix(Int(EBMLText.maxStringBytes)))) }
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
                if let rate = float(0xB5, in: audio), rate.isFinite { parts.append("\(EBMLText.number(rate)) Hz") }
                if let channels = uint(0x9F, in: audio) { parts.append("\(channels) ch") }
            }
            if let language = string(0x22B59D) ?? string(0x22B59C) { parts.append(language) }
            if let name = string(0x536E) { parts.append("“\(name)”") }
        case 0x4DBB:  // Seek
            if let target = children.first(where: { $0.id == 0x53AB })?.value, target.count <= 4 {
                parts.append(EBMLText.name(of: target.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
            }
            if let position = uint(0x53AC) { parts.append("at \(ContainerScan.grouped(position))") }
        case 0xB6:  // ChapterAtom
            if let start = uint(0x91) { parts.append(EBMLText.clock(nanoseconds: start)) }
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
            guard case let .element(id, size?, headerSize) = EBMLHeader.parse(Array(bytes[i..<min(bytes.endIndex, i + 12)])) else { break }
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
