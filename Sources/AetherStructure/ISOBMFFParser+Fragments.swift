import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// Sample tables, movie fragments (tfhd, trun), segment indexes and event messages.
extension ISOBMFFParser {
    func sampleTable(_ node: inout StructureNode, type: String, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 64 + budget.maxListedEntries * 16))
        guard let (version, _) = versionFlags(&c, &node) else { damage.append("'\(type)' \(at) is too short for its version"); return }
        let total = payloadLength(node)
        var entrySize: Int64
        var count: UInt32
        var unit = "entries"
        switch type {
        case "stsz":
            guard let fixed = c.u32(), let n = c.u32() else { damage.append("'stsz' \(at) is too short for its sample count"); return }
            node.fields += [StructureField("sample size", fixed == 0 ? "per sample" : ContainerScan.grouped(fixed)), StructureField("sample count", ContainerScan.grouped(n))]
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " sample" : " samples")
            count = n
            guard fixed == 0 else { return }
            entrySize = 4
            unit = "sample sizes"
        case "stz2":
            guard c.skip(3), let fieldSize = c.u8(), let n = c.u32() else { damage.append("'stz2' \(at) is too short for its sample count"); return }
            node.fields += [StructureField("field size", String(fieldSize)), StructureField("sample count", ContainerScan.grouped(n))]
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " sample" : " samples")
            guard [4, 8, 16].contains(fieldSize) else { damage.append("'stz2' \(at) has a field size of \(fieldSize) (4, 8 or 16)"); return }
            // Bytes needed: n × fieldSize / 8, rounded up.
            let needed = (Int64(n) * Int64(fieldSize) + 7) / 8
            if needed > total - 8 { damage.append("'stz2' \(at) claims \(ContainerScan.grouped(n)) sample sizes (\(ContainerScan.grouped(needed)) bytes) but holds \(ContainerScan.grouped(max(0, total - 8)))") }
            return
        case "sdtp":
            node.summary = ContainerScan.grouped(max(0, total - 4)) + " samples"
            return
        case "sbgp":
            guard let grouping = c.take(4) else { damage.append("'sbgp' \(at) is too short"); return }
            if version == 1 { _ = c.skip(4) }
            guard let n = c.u32() else { damage.append("'sbgp' \(at) is too short for its entry count"); return }
            node.fields += [StructureField("grouping type", ContainerScan.fourCC(grouping)), StructureField("entries", ContainerScan.grouped(n))]
            node.summary = "\(ContainerScan.fourCC(grouping)), \(ContainerScan.grouped(n)) entries"
            return
        default:
            guard let n = c.u32() else { damage.append("'\(type)' \(at) is too short for its entry count"); return }
            count = n
            entrySize = ["stts": 8, "ctts": 8, "stss": 4, "stps": 4, "stsc": 12, "stco": 4, "co64": 8][type] ?? 4
            let noun = ["stts": "entries", "ctts": "entries", "stss": "sync samples", "stps": "sync samples", "stsc": "entries", "stco": "chunks", "co64": "chunks"][type] ?? "entries"
            unit = noun
            node.fields.append(StructureField("entries", ContainerScan.grouped(n)))
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

    func tfhd(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 40))
        guard let (_, flags) = versionFlags(&c, &node), let id = c.u32() else { damage.append("'tfhd' at offset \(ContainerScan.grouped(node.offset)) is too short"); return }
        node.fields.append(StructureField("track ID", String(id)))
        let optional: [(UInt32, String, Int)] = [(0x1, "base data offset", 8), (0x2, "sample description", 4), (0x8, "default duration", 4),
                                                 (0x10, "default size", 4), (0x20, "default flags", 4)]
        for (bit, name, n) in optional where flags & bit != 0 {
            guard let v = c.uint(n) else { damage.append("'tfhd' at offset \(ContainerScan.grouped(node.offset)) ends before its \(name)"); break }
            node.fields.append(StructureField(name, bit == 0x20 ? String(cFormat: "0x%08llx", v) : ContainerScan.grouped(v)))
        }
        if flags & 0x10000 != 0 { node.fields.append(StructureField("duration is empty", "yes")) }
        if flags & 0x20000 != 0 { node.fields.append(StructureField("default base is moof", "yes")) }
        node.summary = "track \(id)"
    }

    func trun(_ node: inout StructureNode, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 16 + budget.maxListedEntries * 16))
        guard let (version, flags) = versionFlags(&c, &node), let n = c.u32() else { damage.append("'trun' \(at) is too short for its sample count"); return }
        node.fields.append(StructureField("sample count", ContainerScan.grouped(n)))
        node.summary = ContainerScan.grouped(n) + (n == 1 ? " sample" : " samples")
        if flags & 0x1 != 0 {
            guard let off = c.u32() else { damage.append("'trun' \(at) ends before its data offset"); return }
            node.fields.append(StructureField("data offset", String(Int32(bitPattern: off))))
        }
        if flags & 0x4 != 0 {
            guard let f = c.u32() else { damage.append("'trun' \(at) ends before its first sample flags"); return }
            node.fields.append(StructureField("first sample flags", String(cFormat: "0x%08x", f)))
        }
        let per: [(UInt32, String)] = [(0x100, "duration"), (0x200, "size"), (0x400, "flags"), (0x800, "composition offset")]
        let present = per.filter { flags & $0.0 != 0 }
        let entrySize = Int64(present.count * 4)
        guard entrySize > 0 else { return }
        let header = Int64(c.at)
        let total = payloadLength(node)
        let needed = Int64(n) * entrySize
        if needed > total - header {
            damage.append("'trun' \(at) claims \(ContainerScan.grouped(n)) samples (\(ContainerScan.grouped(needed)) bytes) but holds \(ContainerScan.grouped(max(0, total - header) / entrySize))")
        }
        for i in 0..<Int(min(Int64(n), Int64(budget.maxListedEntries))) {
            var parts: [String] = []
            for (bit, name) in present {
                guard let v = c.u32() else { break }
                let shown = bit == 0x400 ? String(cFormat: "0x%08x", v) : bit == 0x800 && version == 1 ? String(Int32(bitPattern: v)) : ContainerScan.grouped(v)
                parts.append("\(name) \(shown)")
            }
            guard parts.count == present.count else { break }
            node.fields.append(StructureField("sample \(i + 1)", parts.joined(separator: ", ")))
        }
    }

    func sidx(_ node: inout StructureNode, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 32 + budget.maxListedEntries * 12))
        guard let (version, _) = versionFlags(&c, &node), let ref = c.u32(), let scale = c.u32(),
              let ept = c.uint(version == 0 ? 4 : 8), let first = c.uint(version == 0 ? 4 : 8), c.skip(2), let count = c.u16() else {
            damage.append("'sidx' \(at) is too short for its header")
            return
        }
        node.fields += [StructureField("reference ID", String(ref)), StructureField("timescale", ContainerScan.grouped(scale)),
                        StructureField("earliest presentation time", ContainerScan.grouped(ept) + (ContainerScan.seconds(ept, UInt64(scale)).map { " (\($0) s)" } ?? "")),
                        StructureField("first offset", ContainerScan.grouped(first)), StructureField("references", String(count))]
        node.summary = "\(count) references, timescale \(ContainerScan.grouped(scale))"
        let header = Int64(c.at)
        if Int64(count) * 12 > payloadLength(node) - header {
            damage.append("'sidx' \(at) claims \(count) references but holds \(max(0, payloadLength(node) - header) / 12)")
        }
        for i in 0..<min(Int(count), budget.maxListedEntries) {
            guard let a = c.u32(), let d = c.u32(), let s = c.u32() else { break }
            node.fields.append(StructureField("reference \(i + 1)",
                                              "\(a >> 31 == 1 ? "index" : "media"), size \(ContainerScan.grouped(a & 0x7FFF_FFFF)), duration \(ContainerScan.grouped(d)), SAP \(s >> 31 == 1 ? "starts" : "no") type \(s >> 28 & 7), delta \(s & 0x0FFF_FFFF)"))
        }
    }

    func emsg(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 4096))
        guard let (version, _) = versionFlags(&c, &node) else { damage.append("'emsg' at offset \(ContainerScan.grouped(node.offset)) is too short"); return }
        var scheme = "", value = ""
        var scale: UInt32?, time: UInt64?, duration: UInt32?, id: UInt32?
        var timeName = "presentation time"
        if version == 0 {
            scheme = c.cString(limit: 512)
            value = c.cString(limit: 512)
            scale = c.u32(); time = c.u32().map(UInt64.init); duration = c.u32(); id = c.u32()
            timeName = "presentation time delta"
        } else {
            scale = c.u32(); time = c.u64(); duration = c.u32(); id = c.u32()
            scheme = c.cString(limit: 512)
            value = c.cString(limit: 512)
        }
        guard let scale, let time, let duration, let id else { damage.append("'emsg' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields"); return }
        let headerBytes = Int64(c.at)
        node.fields += [StructureField("scheme", scheme), StructureField("value", value), StructureField("timescale", ContainerScan.grouped(scale)),
                        StructureField(timeName, ContainerScan.grouped(time) + (ContainerScan.seconds(time, UInt64(scale)).map { " (\($0) s)" } ?? "")),
                        StructureField("duration", duration == 0xFFFF_FFFF ? "unknown" : ContainerScan.grouped(duration)), StructureField("ID", String(id)),
                        StructureField("message size", ContainerScan.grouped(max(0, payloadLength(node) - headerBytes)))]
        node.summary = "\(scheme) id \(id)"
    }
}
