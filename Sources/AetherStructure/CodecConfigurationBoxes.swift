import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The codec configuration boxes a sample entry holds: the decoder records (avcC, hvcC, av1C,
/// vpcC, esds, dOps, dfLa, dac3, Dolby Vision's), colour (colr, mdcv, clli), pixel aspect and bit
/// rates.
struct CodecConfigurationBoxes: BoxFamily {
    static let boxes = ["avcC", "hvcC", "av1C", "vpcC", "colr", "dOps", "dfLa", "dac3", "mdcv", "clli", "dvcC", "dvvC", "dvwC",
                        "pasp", "btrt", "esds"]
    let window: ContainerScan.Window
    let budget: StructureBudget

    func read(_ node: inout StructureNode, type: String, damage: inout [String]) {
        func short(_ what: String) { tooShort(node, type, what, &damage) }
        switch type {
        case "avcC":
            avcC(&node, damage: &damage)
        case "hvcC":
            var c = ContainerScan.Cursor(payload(node, limit: 64))
            guard let version = c.u8(), let b = c.u8(), c.skip(4 + 6), let level = c.u8(), c.skip(3),
                  let chroma = c.u8(), let luma = c.u8(), let chromaDepth = c.u8(), c.skip(2), let last = c.u8() else {
                short("configuration")
                return
            }
            let profile = Int(b & 0x1F), tier = b >> 5 & 1
            let profileName = [1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Range Extensions", 5: "High Throughput", 9: "Screen Content"][profile] ?? "profile \(profile)"
            node.fields += [StructureField("version", String(version)), StructureField("profile", "\(profileName) (\(profile))"),
                            StructureField("tier", tier == 1 ? "High" : "Main"), StructureField("level", "\(level) (\(Double(level) / 30))"),
                            StructureField("chroma format", ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][Int(chroma & 3)]),
                            StructureField("bit depth", "luma \(Int(luma & 7) + 8), chroma \(Int(chromaDepth & 7) + 8)"),
                            StructureField("NAL length size", String(Int(last & 3) + 1))]
            node.summary = "\(profileName), level \(Double(level) / 30), \(Int(luma & 7) + 8)-bit"
        case "av1C":
            var c = ContainerScan.Cursor(payload(node, limit: 16))
            guard let m = c.u8(), let a = c.u8(), let b = c.u8() else { short("configuration"); return }
            let profile = a >> 5, level = a & 0x1F
            let depth = b & 0x40 != 0 ? (b & 0x20 != 0 ? 12 : 10) : 8
            node.fields += [StructureField("version", String(m & 0x7F)), StructureField("profile", "\(profile < 3 ? ["Main", "High", "Professional"][Int(profile)] : "?") (\(profile))"),
                            StructureField("level", String(level)), StructureField("tier", b & 0x80 != 0 ? "High" : "Main"),
                            StructureField("bit depth", String(depth)), StructureField("monochrome", b & 0x10 != 0 ? "yes" : "no"),
                            StructureField("chroma subsampling", "\(b >> 3 & 1) \(b >> 2 & 1)")]
            node.summary = "profile \(profile), level \(level), \(depth)-bit"
        case "vpcC":
            var c = ContainerScan.Cursor(payload(node, limit: 16))
            guard fullBox(&c, &node), let profile = c.u8(), let level = c.u8(), let b = c.u8(), let p = c.u8(), let t = c.u8(), let m = c.u8() else {
                short("configuration")
                return
            }
            node.fields += [StructureField("profile", String(profile)), StructureField("level", String(level)),
                            StructureField("bit depth", String(b >> 4)), StructureField("chroma subsampling", String(b >> 1 & 7)),
                            StructureField("full range", b & 1 == 1 ? "yes" : "no"), StructureField("colour primaries", String(p)),
                            StructureField("transfer", String(t)), StructureField("matrix", String(m))]
            node.summary = "profile \(profile), level \(level), \(b >> 4)-bit"
        case "colr":
            colr(&node, damage: &damage)
        case "dOps":
            var c = ContainerScan.Cursor(payload(node, limit: 16))
            guard let version = c.u8(), let channels = c.u8(), let preSkip = c.u16(), let rate = c.u32(), let gain = c.u16(), let family = c.u8() else {
                short("Opus header")
                return
            }
            node.fields += [StructureField("version", String(version)), StructureField("channels", String(channels)), StructureField("pre-skip", String(preSkip)),
                            StructureField("input sample rate", String(rate)), StructureField("output gain", String(Int16(bitPattern: gain))),
                            StructureField("channel mapping family", String(family))]
            node.summary = "\(channels) ch, pre-skip \(preSkip)"
        case "dfLa":
            // A full box holding FLAC metadata blocks; the first is STREAMINFO.
            var c = ContainerScan.Cursor(payload(node, limit: 64))
            guard fullBox(&c, &node), let header = c.u8(), c.skip(3), header & 0x7F == 0, let minBlock = c.u16(), let maxBlock = c.u16(), c.skip(6),
                  let packed = c.u64() else { short("STREAMINFO"); return }
            let rate = packed >> 44, channels = (packed >> 41 & 7) + 1, bits = (packed >> 36 & 31) + 1, samples = packed & 0xF_FFFF_FFFF
            node.fields += [StructureField("block size", "\(minBlock)–\(maxBlock)"), StructureField("sample rate", String(rate)),
                            StructureField("channels", String(channels)), StructureField("bits per sample", String(bits)),
                            StructureField("total samples", count: samples)]
            node.summary = "\(rate) Hz, \(channels) ch, \(bits)-bit"
        case "dac3":
            var c = ContainerScan.Cursor(payload(node, limit: 3))
            guard let v = c.u24() else { short("AC-3 configuration"); return }
            let acmod = Int(v >> 11 & 7), lfe = v >> 10 & 1
            let layouts = ["1+1", "1/0 (mono)", "2/0 (stereo)", "3/0", "2/1", "3/1", "2/2", "3/2"]
            node.fields += [StructureField("sample rate code", String(v >> 22)), StructureField("bsid", String(v >> 17 & 31)),
                            StructureField("bsmod", String(v >> 14 & 7)), StructureField("acmod", "\(acmod) \(layouts[acmod])"),
                            StructureField("LFE", lfe == 1 ? "yes" : "no"), StructureField("bit rate code", String(v >> 5 & 31))]
            node.summary = layouts[acmod] + (lfe == 1 ? " + LFE" : "")
        case "mdcv":
            var c = ContainerScan.Cursor(payload(node, limit: 24))
            var xy: [(UInt16, UInt16)] = []
            for _ in 0..<4 { if let x = c.u16(), let y = c.u16() { xy.append((x, y)) } }
            guard xy.count == 4, let maxL = c.u32(), let minL = c.u32() else {
                short("mastering display")
                return
            }
            func point(_ p: (UInt16, UInt16)) -> String { String(cFormat: "(%.4f, %.4f)", Double(p.0) / 50000, Double(p.1) / 50000) }
            node.fields += [StructureField("primaries (G B R)", xy[0..<3].map(point).joined(separator: " ")),
                            StructureField("white point", point(xy[3])),
                            StructureField("max luminance", String(cFormat: "%.4f cd/m²", Double(maxL) / 10000)),
                            StructureField("min luminance", String(cFormat: "%.4f cd/m²", Double(minL) / 10000))]
            node.summary = String(cFormat: "%.0f / %.4f cd/m²", Double(maxL) / 10000, Double(minL) / 10000)
        case "clli":
            var c = ContainerScan.Cursor(payload(node, limit: 4))
            guard let cll = c.u16(), let fall = c.u16() else { short("light levels"); return }
            node.fields += [StructureField("MaxCLL", "\(cll) cd/m²"), StructureField("MaxFALL", "\(fall) cd/m²")]
            node.summary = "MaxCLL \(cll), MaxFALL \(fall)"
        case "dvcC", "dvvC", "dvwC":
            var c = ContainerScan.Cursor(payload(node, limit: 24))
            guard let major = c.u8(), let minor = c.u8(), let bits = c.u16(), let compat = c.u8() else {
                short("configuration")
                return
            }
            let profile = bits >> 9, level = bits >> 3 & 0x3F
            node.fields += [StructureField("version", "\(major).\(minor)"), StructureField("profile", String(profile)), StructureField("level", String(level)),
                            StructureField("RPU present", bits >> 2 & 1 == 1 ? "yes" : "no"), StructureField("EL present", bits >> 1 & 1 == 1 ? "yes" : "no"),
                            StructureField("BL present", bits & 1 == 1 ? "yes" : "no"), StructureField("BL compatibility ID", String(compat >> 4))]
            node.summary = "Dolby Vision profile \(profile), level \(level)"
        case "pasp":
            var c = ContainerScan.Cursor(payload(node, limit: 8))
            guard let h = c.u32(), let v = c.u32() else { short("spacing"); return }
            node.fields += [StructureField("h spacing", String(h)), StructureField("v spacing", String(v))]
            node.summary = "\(h):\(v)"
        case "btrt":
            var c = ContainerScan.Cursor(payload(node, limit: 12))
            guard let buf = c.u32(), let maxR = c.u32(), let avg = c.u32() else { short("bit rates"); return }
            node.fields += [StructureField("buffer size", count: buf), StructureField("max bit rate", count: maxR),
                            StructureField("average bit rate", count: avg)]
            node.summary = "avg \(ContainerScan.grouped(avg)) b/s"
        case "esds":
            esds(&node, damage: &damage)
        default:
            break
        }
    }

    func avcC(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 4096))
        guard let version = c.u8(), let profile = c.u8(), let compat = c.u8(), let level = c.u8(), let ls = c.u8(), let nsps = c.u8() else {
            damage.append("'avcC' at offset \(ContainerScan.grouped(node.offset)) is too short for its configuration")
            return
        }
        let names: [UInt8: String] = [66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive", 44: "CAVLC 4:4:4"]
        var name = names[profile] ?? "profile \(profile)"
        if profile == 66, compat & 0x40 != 0 { name = "Constrained Baseline" }
        node.fields += [StructureField("version", String(version)), StructureField("profile", "\(name) (\(profile))"),
                        StructureField("compatibility", String(cFormat: "0x%02x", compat)), StructureField("level", String(cFormat: "%.1f", Double(level) / 10)),
                        StructureField("NAL length size", String(Int(ls & 3) + 1))]
        var spsCount = 0, ppsCount = 0
        var ok = true
        for _ in 0..<Int(nsps & 0x1F) {
            guard let n = c.u16(), c.skip(Int(n)) else { ok = false; break }
            spsCount += 1
        }
        if ok, let np = c.u8() {
            for _ in 0..<Int(np) {
                guard let n = c.u16(), c.skip(Int(n)) else { ok = false; break }
                ppsCount += 1
            }
        } else { ok = false }
        node.fields += [StructureField("SPS", String(spsCount)), StructureField("PPS", String(ppsCount))]
        var depth = 8
        if ok, [100, 110, 122, 144].contains(profile), let chroma = c.u8(), let luma = c.u8(), let chromaDepth = c.u8() {
            depth = Int(luma & 7) + 8
            node.fields += [StructureField("chroma format", ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][Int(chroma & 3)]),
                            StructureField("bit depth", "luma \(depth), chroma \(Int(chromaDepth & 7) + 8)")]
        }
        if !ok { damage.append("'avcC' at offset \(ContainerScan.grouped(node.offset)) ends inside its parameter sets") }
        node.summary = "\(name), level \(String(cFormat: "%.1f", Double(level) / 10)), \(depth)-bit"
    }

    func colr(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 16))
        guard let kind = c.take(4) else {
            damage.append("'colr' at offset \(ContainerScan.grouped(node.offset)) is too short for its colour type")
            return
        }
        let k = ContainerScan.fourCC(kind)
        node.fields.append(StructureField("colour type", k))
        switch k {
        case "nclx", "nclc":
            guard let p = c.u16(), let t = c.u16(), let m = c.u16() else {
                damage.append("'colr' at offset \(ContainerScan.grouped(node.offset)) is too short for its colour values")
                return
            }
            node.fields += [StructureField("primaries", "\(p) \(ColourNames.primaries[Int(p)] ?? "")"), StructureField("transfer", "\(t) \(ColourNames.transfer[Int(t)] ?? "")"),
                            StructureField("matrix", "\(m) \(ColourNames.matrix[Int(m)] ?? "")")]
            var full = ""
            if k == "nclx", let f = c.u8() {
                full = f & 0x80 != 0 ? "full" : "limited"
                node.fields.append(StructureField("full range", f & 0x80 != 0 ? "yes" : "no"))
            }
            node.summary = "\(k) \(ColourNames.primaries[Int(p)] ?? String(p))/\(ColourNames.transfer[Int(t)] ?? String(t))/\(ColourNames.matrix[Int(m)] ?? String(m))" + (full.isEmpty ? "" : " \(full)")
        case "rICC", "prof":
            node.fields.append(StructureField("ICC profile size", count: max(0, payloadLength(node) - 4)))
            node.summary = "\(k) ICC \(ContainerScan.grouped(max(0, payloadLength(node) - 4))) bytes"
        default:
            node.summary = k
        }
    }

    func esds(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 1024))
        guard fullBox(&c, &node) else {
            damage.append("'esds' at offset \(ContainerScan.grouped(node.offset)) is too short")
            return
        }
        /// An MPEG-4 descriptor's tag and length (1 to 4 bytes of 7 bits).
        func descriptor(_ c: inout ContainerScan.Cursor) -> (UInt8, Int)? {
            guard let tag = c.u8() else { return nil }
            var length = 0
            for _ in 0..<4 {
                guard let b = c.u8() else { return nil }
                length = length << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { break }
            }
            return (tag, length)
        }
        guard let (tag, _) = descriptor(&c), tag == 3, let esid = c.u16(), let flags = c.u8() else {
            damage.append("'esds' at offset \(ContainerScan.grouped(node.offset)) has no ES descriptor")
            return
        }
        node.fields.append(StructureField("ES ID", String(esid)))
        if flags & 0x80 != 0 { _ = c.skip(2) }
        if flags & 0x40 != 0, let n = c.u8() { _ = c.skip(Int(n)) }
        if flags & 0x20 != 0 { _ = c.skip(2) }
        guard let (tag4, _) = descriptor(&c), tag4 == 4, let object = c.u8(), let stream = c.u8(), c.skip(3), let maxR = c.u32(), let avg = c.u32() else {
            damage.append("'esds' at offset \(ContainerScan.grouped(node.offset)) has no decoder configuration")
            return
        }
        let names: [UInt8: String] = [0x20: "MPEG-4 Visual", 0x21: "H.264", 0x23: "HEVC", 0x40: "AAC (MPEG-4 Audio)", 0x60: "MPEG-2 Visual", 0x61: "MPEG-2 Visual",
                                      0x66: "MPEG-2 AAC Main", 0x67: "MPEG-2 AAC LC", 0x68: "MPEG-2 AAC SSR", 0x69: "MP3 (MPEG-2 Audio)", 0x6A: "MPEG-1 Visual",
                                      0x6B: "MP3 (MPEG-1 Audio)", 0x6C: "JPEG", 0xA5: "AC-3", 0xA6: "E-AC-3", 0xA9: "DTS", 0xAD: "Opus", 0xDD: "Vorbis", 0xE1: "QCELP"]
        node.fields += [StructureField("object type", String(cFormat: "0x%02x", object) + (names[object].map { " " + $0 } ?? "")),
                        StructureField("stream type", String(stream >> 2)), StructureField("max bit rate", count: maxR),
                        StructureField("average bit rate", count: avg)]
        node.summary = names[object] ?? String(cFormat: "object type 0x%02x", object)
        if let (tag5, n) = descriptor(&c), tag5 == 5, n > 0, let first = c.u8() {
            let aot = first >> 3
            let aotNames: [UInt8: String] = [1: "AAC Main", 2: "AAC LC", 3: "AAC SSR", 4: "AAC LTP", 5: "SBR (HE-AAC)", 29: "PS (HE-AAC v2)", 31: "escape"]
            node.fields.append(StructureField("audio object type", "\(aot) \(aotNames[aot] ?? "")"))
            if object == 0x40, let n = aotNames[aot] { node.summary = n }
        }
    }
}

/// The names ISO/IEC 23091-2 (H.273) gives colour code points, as ffprobe prints them.
enum ColourNames {
    static let primaries: [Int: String] = [1: "bt709", 2: "unknown", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m", 8: "film", 9: "bt2020",
                                           10: "smpte428", 11: "smpte431", 12: "smpte432", 22: "jedec-p22"]
    static let transfer: [Int: String] = [1: "bt709", 2: "unknown", 4: "gamma22", 5: "gamma28", 6: "smpte170m", 7: "smpte240m", 8: "linear", 9: "log100",
                                          10: "log316", 11: "iec61966-2-4", 12: "bt1361e", 13: "iec61966-2-1", 14: "bt2020-10", 15: "bt2020-12",
                                          16: "smpte2084", 17: "smpte428", 18: "arib-std-b67"]
    static let matrix: [Int: String] = [0: "gbr", 1: "bt709", 2: "unknown", 4: "fcc", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m", 8: "ycgco", 9: "bt2020nc",
                                        10: "bt2020c", 11: "smpte2085", 12: "chroma-derived-nc", 13: "chroma-derived-c", 14: "ictcp"]
}
