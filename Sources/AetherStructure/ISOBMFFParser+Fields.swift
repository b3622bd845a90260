import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// A box's payload decoded into fields: the dispatch on the box type, and full-box headers.
extension ISOBMFFParser {
    /// The bytes of a box's payload that field decoding may read.
    func payload(_ node: StructureNode, limit: Int = Int.max) -> [UInt8] {
        let available = (node.size ?? 0) - node.headerSize
        guard available > 0 else { return [] }
        let cap = min(limit, budget.maxFieldBytes, 64 << 10)
        return window.read(at: node.payloadOffset, count: Int(min(available, Int64(max(0, cap)))))
    }

    /// The payload's full length (what the box says it holds, clipped to its parent).
    func payloadLength(_ node: StructureNode) -> Int64 { max(0, (node.size ?? 0) - node.headerSize) }

    /// Sets `node`'s summary, fields, container flag and children's start (`tag`).
    func describe(_ node: inout StructureNode, type: String, parent: String?, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        func short(_ what: String) { damage.append("'\(type)' \(at) is too short for its \(what)") }
        node.tag = UInt64(node.payloadOffset)
        if parent == "stsd" {
            sampleEntry(&node, type: type, damage: &damage)
            return
        }
        if parent == "ilst" {
            node.isContainer = true
            return
        }
        if Self.plainContainers.contains(type) {
            node.isContainer = true
            return
        }
        switch type {
        case "mdat", "free", "skip", "wide":
            node.summary = ContainerScan.grouped(payloadLength(node)) + " bytes"
        case "meta":
            // ISO's meta is a full box; QuickTime's (in moov/udta) is not: its first child's type
            // (hdlr) then sits 4 bytes in.
            let p = payload(node, limit: 12)
            node.isContainer = true
            if p.count >= 8, Array(p[4..<8]) == Array("hdlr".utf8) {
                node.fields.append(StructureField("layout", "QuickTime (no version and flags)"))
            } else {
                node.tag = UInt64(node.payloadOffset + 4)
                if p.count < 4 { short("version and flags") }
            }
        case "stsd", "dref":
            var c = ContainerScan.Cursor(payload(node, limit: 8))
            node.isContainer = true
            node.tag = UInt64(node.payloadOffset + 8)
            guard fullBox(&c, &node), let n = c.u32() else { short("entry count"); node.isContainer = false; return }
            node.fields.append(StructureField("entries", ContainerScan.grouped(n)))
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " entry" : " entries")
        case "ftyp", "styp":
            var c = ContainerScan.Cursor(payload(node))
            guard let major = c.take(4), let minor = c.u32() else { short("brands"); return }
            var brands: [String] = []
            while let b = c.take(4) { brands.append(ContainerScan.fourCC(b)) }
            node.fields += [StructureField("major brand", ContainerScan.fourCC(major)), StructureField("minor version", String(minor)),
                            StructureField("compatible brands", brands.prefix(budget.maxListedEntries).joined(separator: " "))]
            node.summary = ContainerScan.fourCC(major) + (brands.isEmpty ? "" : " (" + brands.prefix(6).joined(separator: ", ") + (brands.count > 6 ? ", …" : "") + ")")
        case "mvhd", "mdhd", "tkhd", "mehd":
            timedHeader(&node, type: type, damage: &damage)
        case "hdlr":
            var c = ContainerScan.Cursor(payload(node, limit: 1024))
            guard fullBox(&c, &node), let pre = c.take(4), let handler = c.take(4), c.skip(12) else { short("handler type"); return }
            var nameBytes = Array(c.bytes[c.at...])
            // QuickTime writes a Pascal string (a length byte first), ISO a C string.
            if let first = nameBytes.first, Int(first) == nameBytes.count - 1, first > 0, pre != [0, 0, 0, 0] {
                nameBytes.removeFirst()
            }
            if let nul = nameBytes.firstIndex(of: 0) { nameBytes = Array(nameBytes[..<nul]) }
            let name = TextSanitizer.clean(bytes: nameBytes.prefix(256))
            node.fields += [StructureField("handler", ContainerScan.fourCC(handler)), StructureField("name", name)]
            if pre != [0, 0, 0, 0] { node.fields.append(StructureField("component type", ContainerScan.fourCC(pre))) }
            node.summary = ContainerScan.fourCC(handler) + (name.isEmpty ? "" : " \"\(name)\"")
        case "elst":
            var c = ContainerScan.Cursor(payload(node))
            guard let (version, _) = versionFlags(&c, &node), let n = c.u32() else { short("entry count"); return }
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " edit" : " edits")
            node.fields.append(StructureField("entries", ContainerScan.grouped(n)))
            for i in 0..<Int(min(n, UInt32(budget.maxListedEntries))) {
                let wide = version == 1 ? 8 : 4
                guard let dur = c.uint(wide), let time = c.uint(wide), let ri = c.u16(), let rf = c.u16() else {
                    damage.append("'elst' \(at) claims \(ContainerScan.grouped(n)) entries but ends after \(i)")
                    break
                }
                let signed = wide == 4 ? Int64(Int32(truncatingIfNeeded: time)) : Int64(bitPattern: time)
                let mediaTime = signed == -1 ? "empty" : String(signed)
                node.fields.append(StructureField("edit \(i + 1)", "duration \(ContainerScan.grouped(dur)), media time \(mediaTime), rate \(Int16(bitPattern: ri)).\(rf)"))
            }
        case "avcC":
            avcC(&node, damage: &damage)
        case "hvcC":
            var c = ContainerScan.Cursor(payload(node, limit: 64))
            guard let version = c.u8(), let b = c.u8(), c.skip(4 + 6), let level = c.u8(), c.skip(3),
                  let chroma = c.u8(), let luma = c.u8(), let chromaDepth = c.u8(), c.skip(2), let last = c.u8() else { short("configuration"); return }
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
            guard fullBox(&c, &node), let profile = c.u8(), let level = c.u8(), let b = c.u8(), let p = c.u8(), let t = c.u8(), let m = c.u8() else { short("configuration"); return }
            node.fields += [StructureField("profile", String(profile)), StructureField("level", String(level)),
                            StructureField("bit depth", String(b >> 4)), StructureField("chroma subsampling", String(b >> 1 & 7)),
                            StructureField("full range", b & 1 == 1 ? "yes" : "no"), StructureField("colour primaries", String(p)),
                            StructureField("transfer", String(t)), StructureField("matrix", String(m))]
            node.summary = "profile \(profile), level \(level), \(b >> 4)-bit"
        case "colr":
            colr(&node, damage: &damage)
        case "dOps":
            var c = ContainerScan.Cursor(payload(node, limit: 16))
            guard let version = c.u8(), let channels = c.u8(), let preSkip = c.u16(), let rate = c.u32(), let gain = c.u16(), let family = c.u8() else { short("Opus header"); return }
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
                            StructureField("total samples", ContainerScan.grouped(samples))]
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
            guard xy.count == 4, let maxL = c.u32(), let minL = c.u32() else { short("mastering display"); return }
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
            guard let major = c.u8(), let minor = c.u8(), let bits = c.u16(), let compat = c.u8() else { short("configuration"); return }
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
            node.fields += [StructureField("buffer size", ContainerScan.grouped(buf)), StructureField("max bit rate", ContainerScan.grouped(maxR)),
                            StructureField("average bit rate", ContainerScan.grouped(avg))]
            node.summary = "avg \(ContainerScan.grouped(avg)) b/s"
        case "esds":
            esds(&node, damage: &damage)
        case "stts", "ctts", "stss", "stsc", "stco", "co64", "stsz", "stz2", "stps", "sdtp", "sbgp":
            sampleTable(&node, type: type, damage: &damage)
        case "mfhd":
            var c = ContainerScan.Cursor(payload(node, limit: 8))
            guard fullBox(&c, &node), let seq = c.u32() else { short("sequence number"); return }
            node.fields.append(StructureField("sequence number", String(seq)))
            node.summary = "sequence \(seq)"
        case "tfhd":
            tfhd(&node, damage: &damage)
        case "tfdt":
            var c = ContainerScan.Cursor(payload(node, limit: 12))
            guard let (version, _) = versionFlags(&c, &node), let t = c.uint(version == 1 ? 8 : 4) else { short("decode time"); return }
            node.fields.append(StructureField("base media decode time", ContainerScan.grouped(t)))
            node.summary = "decode time \(ContainerScan.grouped(t))"
        case "trun":
            trun(&node, damage: &damage)
        case "trex":
            var c = ContainerScan.Cursor(payload(node, limit: 24))
            guard fullBox(&c, &node), let id = c.u32(), let desc = c.u32(), let dur = c.u32(), let sz = c.u32(), let fl = c.u32() else { short("defaults"); return }
            node.fields += [StructureField("track ID", String(id)), StructureField("default sample description", String(desc)),
                            StructureField("default duration", ContainerScan.grouped(dur)), StructureField("default size", ContainerScan.grouped(sz)),
                            StructureField("default flags", String(cFormat: "0x%08x", fl))]
            node.summary = "track \(id)"
        case "sidx":
            sidx(&node, damage: &damage)
        case "emsg":
            emsg(&node, damage: &damage)
        case "pssh":
            pssh(&node, damage: &damage)
        case "saio", "saiz", "senc", "tenc", "frma", "schm":
            protection(&node, type: type, damage: &damage)
        case "url ", "urn ":
            var c = ContainerScan.Cursor(payload(node, limit: 1024))
            guard let (_, flags) = versionFlags(&c, &node) else { short("flags"); return }
            node.summary = flags & 1 == 1 ? "media in this file" : c.cString()
        case "data":
            // An iTunes metadata value: type indicator, locale, then the value.
            var c = ContainerScan.Cursor(payload(node, limit: 256))
            guard let kind = c.u32(), c.skip(4) else { short("type"); return }
            let length = payloadLength(node) - 8
            node.fields.append(StructureField("type", String(kind & 0xFFFFFF)))
            if kind & 0xFFFFFF == 1 {
                let text = TextSanitizer.clean(bytes: c.bytes[c.at...].prefix(200))
                node.summary = "\"\(text)\"" + (length > 200 ? "…" : "")
            } else {
                node.summary = ContainerScan.grouped(length) + " bytes" + ([13: " JPEG", 14: " PNG"][Int(kind & 0xFFFFFF)] ?? "")
            }
        default:
            break
        }
    }

    /// Reads a full box's version and flags into `node`'s fields.
    func versionFlags(_ c: inout ContainerScan.Cursor, _ node: inout StructureNode) -> (UInt8, UInt32)? {
        guard let v = c.u8(), let f = c.u24() else { return nil }
        node.fields.append(StructureField("version", String(v)))
        if f != 0 { node.fields.append(StructureField("flags", String(cFormat: "0x%06x", f))) }
        return (v, f)
    }

    func fullBox(_ c: inout ContainerScan.Cursor, _ node: inout StructureNode) -> Bool { versionFlags(&c, &node) != nil }
}
