import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Common encryption: protection system headers (pssh) and the protection scheme boxes (the
/// original format, scheme, track encryption defaults, sample encryption and its auxiliary
/// information).
struct ProtectionBoxes: BoxFamily {
    static let boxes = ["pssh", "saio", "saiz", "senc", "tenc", "frma", "schm"]
    let window: ContainerScan.Window
    let budget: StructureBudget

    static let drmSystems: [String: String] = [
        "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine", "9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay", "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "ClearKey (W3C)",
        "e2719d58-a985-b3c9-781a-b030af78d30e": "ClearKey (DASH-IF)", "3ea8778f-7742-4bf9-b18b-e834b2acbd47": "ClearKey (AES-128)",
    ]

    func read(_ node: inout StructureNode, type: String, damage: inout [String]) {
        if type == "pssh" {
            pssh(&node, damage: &damage)
        } else {
            protection(&node, type: type, damage: &damage)
        }
    }

    func pssh(_ node: inout StructureNode, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 64 + budget.maxListedEntries * 16))
        guard let (version, _) = versionFlags(&c, &node), let system = c.take(16) else {
            damage.append("'pssh' \(at) is too short for its system ID")
            return
        }
        let id = ContainerScan.uuid(system)
        let name = Self.drmSystems[id]
        node.fields.append(StructureField("system ID", id + (name.map { " (\($0))" } ?? "")))
        node.summary = name ?? id
        var kidCount: UInt32 = 0
        if version > 0 {
            guard let n = c.u32() else { damage.append("'pssh' \(at) ends before its KID count"); return }
            kidCount = n
            node.fields.append(StructureField("KIDs", count: n))
            if Int64(n) * 16 + 24 > payloadLength(node) { damage.append("'pssh' \(at) claims \(ContainerScan.grouped(n)) KIDs but has room for \(max(0, payloadLength(node) - 24) / 16)") }
            for i in 0..<Int(min(n, UInt32(budget.maxListedEntries))) {
                guard let kid = c.take(16) else { break }
                node.fields.append(StructureField("KID \(i + 1)", ContainerScan.uuid(kid)))
            }
        }
        // The data size sits after every KID: computed from the offset, not read past the window.
        let dataSizeAt = 20 + (version > 0 ? 4 + Int64(kidCount) * 16 : 0)
        if dataSizeAt + 4 <= payloadLength(node) {
            var d = ContainerScan.Cursor(window.read(at: node.payloadOffset + dataSizeAt, count: 4))
            if let size = d.u32() {
                node.fields.append(StructureField("data size", count: size))
                if Int64(size) > payloadLength(node) - dataSizeAt - 4 { damage.append("'pssh' \(at) claims \(ContainerScan.grouped(size)) bytes of data but holds \(ContainerScan.grouped(payloadLength(node) - dataSizeAt - 4))") }
            }
        } else {
            damage.append("'pssh' \(at) ends before its data size")
        }
        if version > 0 { node.summary = (node.summary ?? "") + ", \(kidCount) KID" + (kidCount == 1 ? "" : "s") }
    }

    func protection(_ node: inout StructureNode, type: String, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 64 + budget.maxListedEntries * 8))
        if type == "frma" {
            guard let f = c.take(4) else { damage.append("'frma' \(at) is too short"); return }
            node.fields.append(StructureField("original format", ContainerScan.fourCC(f)))
            node.summary = ContainerScan.fourCC(f)
            return
        }
        guard let (version, flags) = versionFlags(&c, &node) else {
            damage.append("'\(type)' \(at) is too short")
            return
        }
        switch type {
        case "schm":
            guard let scheme = c.take(4), let v = c.u32() else {
                damage.append("'schm' \(at) is too short")
                return
            }
            node.fields += [StructureField("scheme", ContainerScan.fourCC(scheme)), StructureField("scheme version", String(cFormat: "0x%08x", v))]
            node.summary = ContainerScan.fourCC(scheme)
        case "saio", "saiz":
            if flags & 1 != 0 {
                guard let t = c.take(4), let p = c.u32() else {
                    damage.append("'\(type)' \(at) is too short")
                    return
                }
                node.fields += [StructureField("aux info type", ContainerScan.fourCC(t)), StructureField("aux info parameter", String(p))]
            }
            if type == "saiz" {
                guard let def = c.u8(), let n = c.u32() else {
                    damage.append("'saiz' \(at) is too short for its sample count")
                    return
                }
                node.fields += [StructureField("default size", String(def)), StructureField("sample count", count: n)]
                node.summary = ContainerScan.grouped(n) + " samples" + (def != 0 ? ", \(def) bytes each" : "")
                if def == 0, Int64(n) > payloadLength(node) - Int64(c.at) { damage.append("'saiz' \(at) claims \(ContainerScan.grouped(n)) sizes but holds \(max(0, payloadLength(node) - Int64(c.at)))") }
            } else {
                guard let n = c.u32() else {
                    damage.append("'saio' \(at) is too short for its entry count")
                    return
                }
                node.fields.append(StructureField("entries", count: n))
                let wide = version == 0 ? 4 : 8
                for i in 0..<Int(min(n, UInt32(budget.maxListedEntries))) {
                    guard let o = c.uint(wide) else { break }
                    node.fields.append(StructureField("offset \(i + 1)", count: o))
                }
                node.summary = ContainerScan.grouped(n) + (n == 1 ? " offset" : " offsets")
            }
        case "senc":
            guard let n = c.u32() else {
                damage.append("'senc' \(at) is too short for its sample count")
                return
            }
            node.fields += [StructureField("sample count", count: n), StructureField("subsamples", flags & 2 != 0 ? "yes" : "no")]
            node.summary = ContainerScan.grouped(n) + " samples" + (flags & 2 != 0 ? " with subsamples" : "")
        case "tenc":
            guard c.skip(1), let pattern = c.u8(), let protected = c.u8(), let ivSize = c.u8(), let kid = c.take(16) else {
                damage.append("'tenc' \(at) is too short")
                return
            }
            if version > 0 { node.fields.append(StructureField("pattern", "crypt \(pattern >> 4), skip \(pattern & 15)")) }
            node.fields += [StructureField("protected", protected != 0 ? "yes" : "no"), StructureField("IV size", String(ivSize)), StructureField("KID", ContainerScan.uuid(kid))]
            if protected != 0, ivSize == 0, let n = c.u8(), let iv = c.take(Int(n)) { node.fields.append(StructureField("constant IV", HexText.string(iv))) }
            node.summary = "KID \(ContainerScan.uuid(kid))"
        default:
            break
        }
    }
}
