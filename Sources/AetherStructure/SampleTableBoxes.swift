import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The sample tables (`stbl`'s children): times, composition offsets, sync samples, chunks,
/// sizes, dependencies and sample groups, each listed to ``StructureBudget/maxListedEntries``
/// entries after its count is checked against the bytes the box holds.
struct SampleTableBoxes: BoxFamily {
    static let boxes = ["stts", "ctts", "stss", "stsc", "stco", "co64", "stsz", "stz2", "stps", "sdtp", "sbgp"]
    let window: ContainerScan.Window
    let budget: StructureBudget

    func read(_ node: inout StructureNode, type: String, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 64 + budget.maxListedEntries * 16))
        guard let (version, _) = versionFlags(&c, &node) else {
            damage.append("'\(type)' \(at) is too short for its version")
            return
        }
        let total = payloadLength(node)
        var entrySize: Int64
        var count: UInt32
        var unit = "entries"
        switch type {
        case "stsz":
            guard let fixed = c.u32(), let n = c.u32() else {
                damage.append("'stsz' \(at) is too short for its sample count")
                return
            }
            node.fields += [StructureField("sample size", fixed == 0 ? "per sample" : ContainerScan.grouped(fixed)), StructureField("sample count", count: n)]
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " sample" : " samples")
            count = n
            guard fixed == 0 else { return }
            entrySize = 4
            unit = "sample sizes"
        case "stz2":
            guard c.skip(3), let fieldSize = c.u8(), let n = c.u32() else {
                damage.append("'stz2' \(at) is too short for its sample count")
                return
            }
            node.fields += [StructureField("field size", String(fieldSize)), StructureField("sample count", count: n)]
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " sample" : " samples")
            guard [4, 8, 16].contains(fieldSize) else {
                damage.append("'stz2' \(at) has a field size of \(fieldSize) (4, 8 or 16)")
                return
            }
            // Bytes needed: n × fieldSize / 8, rounded up.
            let needed = (Int64(n) * Int64(fieldSize) + 7) / 8
            if needed > total - 8 { damage.append("'stz2' \(at) claims \(ContainerScan.grouped(n)) sample sizes (\(ContainerScan.grouped(needed)) bytes) but holds \(ContainerScan.grouped(max(0, total - 8)))") }
            return
        case "sdtp":
            node.summary = ContainerScan.grouped(max(0, total - 4)) + " samples"
            return
        case "sbgp":
            guard let grouping = c.take(4) else {
                damage.append("'sbgp' \(at) is too short")
                return
            }
            if version == 1 { _ = c.skip(4) }
            guard let n = c.u32() else {
                damage.append("'sbgp' \(at) is too short for its entry count")
                return
            }
            node.fields += [StructureField("grouping type", ContainerScan.fourCC(grouping)), StructureField("entries", count: n)]
            node.summary = "\(ContainerScan.fourCC(grouping)), \(ContainerScan.grouped(n)) entries"
            return
        default:
            guard let n = c.u32() else {
                damage.append("'\(type)' \(at) is too short for its entry count")
                return
            }
            count = n
            entrySize = ["stts": 8, "ctts": 8, "stss": 4, "stps": 4, "stsc": 12, "stco": 4, "co64": 8][type] ?? 4
            let noun = ["stts": "entries", "ctts": "entries", "stss": "sync samples", "stps": "sync samples", "stsc": "entries", "stco": "chunks", "co64": "chunks"][type] ?? "entries"
            unit = noun
            node.fields.append(StructureField("entries", count: n))
            node.summary = ContainerScan.grouped(n) + " " + (n == 1 ? String(noun.dropLast(noun.hasSuffix("ies") ? 3 : 1)) + (noun.hasSuffix("ies") ? "y" : "") : noun)
        }
        let header = Int64(c.at)
        // The count is believed only as far as the box holds it (a truncated table claiming 2^32
        // entries is read for what it has).
        let needed = Int64(count) * entrySize
        let held = max(0, total - header) / entrySize
        if needed > total - header {
            damage.append("'\(type)' \(at) claims \(ContainerScan.grouped(count)) \(unit) (\(ContainerScan.grouped(needed)) bytes) but holds \(ContainerScan.grouped(held))")
        }
        let listed = Int(min(Int64(count), held, Int64(budget.maxListedEntries)))
        var sttsSamples: UInt64 = 0
        for i in 0..<listed {
            var parts: [String] = []
            for _ in 0..<Int(entrySize / (type == "co64" ? 8 : 4)) {
                guard let v = c.uint(type == "co64" ? 8 : 4) else { break }
                if type == "stts", parts.isEmpty { sttsSamples += v }   // ≤ 32 × 2^32: no overflow
                parts.append(type == "ctts" && version == 1 && parts.count == 1 ? String(Int32(truncatingIfNeeded: v)) : ContainerScan.grouped(v))
            }
            guard !parts.isEmpty else { break }
            let text: String
            switch type {
            case "stts", "ctts": text = "\(parts[0]) × \(parts.count > 1 ? parts[1] : "?")"
            case "stsc": text = "first chunk \(parts[0]), \(parts.count > 1 ? parts[1] : "?") samples, description \(parts.count > 2 ? parts[2] : "?")"
            default: text = parts.joined(separator: " ")
            }
            node.fields.append(StructureField("\(i + 1)", text))
        }
        if Int64(count) > Int64(listed) { node.fields.append(StructureField("…", "\(ContainerScan.grouped(Int64(count) - Int64(listed))) more")) }
        if type == "stts", Int64(listed) == Int64(count) {
            node.summary = (node.summary ?? "") + ", \(ContainerScan.grouped(sttsSamples)) samples"
        }
    }
}
