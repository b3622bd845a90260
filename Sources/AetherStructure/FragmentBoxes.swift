import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Movie fragments and segments: the fragment header, track fragment header and decode time,
/// track runs, the track defaults (trex), segment indexes and event messages.
struct FragmentBoxes: BoxFamily {
    static let boxes = ["mfhd", "tfhd", "tfdt", "trun", "trex", "sidx", "emsg"]
    let window: ContainerScan.Window
    let budget: StructureBudget

    func read(_ node: inout StructureNode, type: String, damage: inout [String]) {
        func short(_ what: String) { tooShort(node, type, what, &damage) }
        switch type {
        case "mfhd":
            var c = ContainerScan.Cursor(payload(node, limit: 8))
            guard fullBox(&c, &node), let seq = c.u32() else { short("sequence number"); return }
            node.fields.append(StructureField("sequence number", String(seq)))
            node.summary = "sequence \(seq)"
        case "tfhd":
            tfhd(&node, damage: &damage)
        case "tfdt":
            var c = ContainerScan.Cursor(payload(node, limit: 12))
            guard let (version, _) = versionFlags(&c, &node), let t = c.uint(version == 1 ? 8 : 4) else {
                short("decode time")
                return
            }
            node.fields.append(StructureField("base media decode time", count: t))
            node.summary = "decode time \(ContainerScan.grouped(t))"
        case "trun":
            trun(&node, damage: &damage)
        case "trex":
            var c = ContainerScan.Cursor(payload(node, limit: 24))
            guard fullBox(&c, &node), let id = c.u32(), let desc = c.u32(), let dur = c.u32(), let sz = c.u32(), let fl = c.u32() else {
                short("defaults")
                return
            }
            node.fields += [StructureField("track ID", String(id)), StructureField("default sample description", String(desc)),
                            StructureField("default duration", count: dur), StructureField("default size", count: sz),
                            StructureField("default flags", String(cFormat: "0x%08x", fl))]
            node.summary = "track \(id)"
        case "sidx":
            sidx(&node, damage: &damage)
        case "emsg":
            emsg(&node, damage: &damage)
        default:
            break
        }
    }

    func tfhd(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 40))
        guard let (_, flags) = versionFlags(&c, &node), let id = c.u32() else {
            damage.append("'tfhd' at offset \(ContainerScan.grouped(node.offset)) is too short")
            return
        }
        node.fields.append(StructureField("track ID", String(id)))
        let optional: [(UInt32, String, Int)] = [(0x1, "base data offset", 8), (0x2, "sample description", 4), (0x8, "default duration", 4),
                                                 (0x10, "default size", 4), (0x20, "default flags", 4)]
        for (bit, name, n) in optional where flags & bit != 0 {
            guard let v = c.uint(n) else {
                damage.append("'tfhd' at offset \(ContainerScan.grouped(node.offset)) ends before its \(name)")
                break
            }
            node.fields.append(StructureField(name, bit == 0x20 ? String(cFormat: "0x%08llx", v) : ContainerScan.grouped(v)))
        }
        if flags & 0x10000 != 0 { node.fields.append(StructureField("duration is empty", "yes")) }
        if flags & 0x20000 != 0 { node.fields.append(StructureField("default base is moof", "yes")) }
        node.summary = "track \(id)"
    }

    func trun(_ node: inout StructureNode, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 16 + budget.maxListedEntries * 16))
        guard let (version, flags) = versionFlags(&c, &node), let n = c.u32() else {
            damage.append("'trun' \(at) is too short for its sample count")
            return
        }
        node.fields.append(StructureField("sample count", count: n))
        node.summary = ContainerScan.grouped(n) + (n == 1 ? " sample" : " samples")
        if flags & 0x1 != 0 {
            guard let off = c.u32() else {
                damage.append("'trun' \(at) ends before its data offset")
                return
            }
            node.fields.append(StructureField("data offset", String(Int32(bitPattern: off))))
        }
        if flags & 0x4 != 0 {
            guard let f = c.u32() else {
                damage.append("'trun' \(at) ends before its first sample flags")
                return
            }
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
        node.fields += [StructureField("reference ID", String(ref)), StructureField("timescale", count: scale),
                        StructureField("earliest presentation time", ContainerScan.grouped(ept) + (ContainerScan.seconds(ept, UInt64(scale)).map { " (\($0) s)" } ?? "")),
                        StructureField("first offset", count: first), StructureField("references", String(count))]
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
        guard let (version, _) = versionFlags(&c, &node) else {
            damage.append("'emsg' at offset \(ContainerScan.grouped(node.offset)) is too short")
            return
        }
        var scheme = "", value = ""
        var scale: UInt32?, time: UInt64?, duration: UInt32?, id: UInt32?
        var timeName = "presentation time"
        if version == 0 {
            scheme = c.cString(limit: 512)
            value = c.cString(limit: 512)
            scale = c.u32()
            time = c.u32().map(UInt64.init)
            duration = c.u32()
            id = c.u32()
            timeName = "presentation time delta"
        } else {
            scale = c.u32()
            time = c.u64()
            duration = c.u32()
            id = c.u32()
            scheme = c.cString(limit: 512)
            value = c.cString(limit: 512)
        }
        guard let scale, let time, let duration, let id else {
            damage.append("'emsg' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
            return
        }
        let headerBytes = Int64(c.at)
        node.fields += [StructureField("scheme", scheme), StructureField("value", value), StructureField("timescale", count: scale),
                        StructureField(timeName, ContainerScan.grouped(time) + (ContainerScan.seconds(time, UInt64(scale)).map { " (\($0) s)" } ?? "")),
                        StructureField("duration", duration == 0xFFFF_FFFF ? "unknown" : ContainerScan.grouped(duration)), StructureField("ID", String(id)),
                        StructureField("message size", count: max(0, payloadLength(node) - headerBytes))]
        node.summary = "\(scheme) id \(id)"
    }
}
