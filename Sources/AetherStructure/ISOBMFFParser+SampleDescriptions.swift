import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// Track headers and sample descriptions: mdhd/tkhd/mvhd, sample entries, avcC, colr, esds.
extension ISOBMFFParser {
    func timedHeader(_ node: inout StructureNode, type: String, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 128))
        guard let (version, flags) = versionFlags(&c, &node) else { damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its version"); return }
        let wide = version == 1 ? 8 : 4
        if type == "mehd" {
            guard let d = c.uint(wide) else { damage.append("'mehd' at offset \(ContainerScan.grouped(node.offset)) is too short for its duration"); return }
            node.fields.append(StructureField("fragment duration", ContainerScan.grouped(d)))
            node.summary = "duration \(ContainerScan.grouped(d))"
            return
        }
        guard let created = c.uint(wide), let modified = c.uint(wide) else { damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its times"); return }
        node.fields += [StructureField("creation time", ContainerScan.grouped(created)), StructureField("modification time", ContainerScan.grouped(modified))]
        switch type {
        case "mvhd", "mdhd":
            guard let scale = c.u32(), let duration = c.uint(wide) else { damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its timescale and duration"); return }
            node.fields += [StructureField("timescale", ContainerScan.grouped(scale)), StructureField("duration", ContainerScan.grouped(duration))]
            let secs = ContainerScan.seconds(duration, UInt64(scale))
            if let secs { node.fields.append(StructureField("duration (s)", secs)) }
            if type == "mdhd" {
                if let lang = c.u16() {
                    let code = [lang >> 10 & 31, lang >> 5 & 31, lang & 31].map { UInt8($0) &+ 0x60 }
                    // QuickTime keeps Macintosh language codes below 0x400 (0x7FFF: unspecified).
                    let text = lang == 0x7FFF ? "unspecified (QuickTime)" : lang < 0x400 ? "Macintosh language \(lang)"
                        : code.allSatisfy({ (0x61...0x7A).contains($0) }) ? String(decoding: code, as: UTF8.self) : String(cFormat: "0x%04x", lang)
                    node.fields.append(StructureField("language", text))
                    node.summary = "timescale \(ContainerScan.grouped(scale)), \(secs.map { $0 + " s" } ?? "no duration"), \(text)"
                }
            } else {
                if let rate = c.u32(), let volume = c.u16(), c.skip(10 + 36 + 24), let next = c.u32() {
                    node.fields += [StructureField("rate", String(cFormat: "%.4f", Double(rate) / 65536)), StructureField("volume", String(cFormat: "%.2f", Double(volume) / 256)),
                                    StructureField("next track ID", String(next))]
                }
                node.summary = "timescale \(ContainerScan.grouped(scale)), \(secs.map { $0 + " s" } ?? "no duration")"
            }
        default:  // tkhd
            guard let id = c.u32(), c.skip(4), let duration = c.uint(wide), c.skip(8), let layer = c.u16(), let group = c.u16(),
                  let volume = c.u16(), c.skip(2 + 36), let w = c.u32(), let h = c.u32() else {
                damage.append("'tkhd' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
                return
            }
            node.fields += [StructureField("track ID", String(id)), StructureField("duration", ContainerScan.grouped(duration)),
                            StructureField("enabled", flags & 1 == 1 ? "yes" : "no"), StructureField("layer", String(Int16(bitPattern: layer))),
                            StructureField("alternate group", String(group)), StructureField("volume", String(cFormat: "%.2f", Double(volume) / 256)),
                            StructureField("width", String(cFormat: "%.2f", Double(w) / 65536)), StructureField("height", String(cFormat: "%.2f", Double(h) / 65536))]
            node.summary = "track \(id)" + (w > 0 || h > 0 ? ", \(w >> 16)×\(h >> 16)" : "")
        }
    }

    func sampleEntry(_ node: inout StructureNode, type: String, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 256))
        guard c.skip(6), let dref = c.u16() else { damage.append("sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short"); return }
        node.fields.append(StructureField("codec", type))
        node.fields.append(StructureField("data reference", String(dref)))
        var fixed: Int? = nil
        if Self.visualEntries.contains(type) {
            guard c.skip(16), let w = c.u16(), let h = c.u16(), let hr = c.u32(), let vr = c.u32(), c.skip(4), let frames = c.u16(),
                  let nameField = c.take(32), let depth = c.u16() else {
                damage.append("visual sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
                return
            }
            let nameLength = min(31, Int(nameField[0]))
            let compressor = TextSanitizer.clean(bytes: nameField[1..<(1 + nameLength)])
            node.fields += [StructureField("width", String(w)), StructureField("height", String(h)),
                            StructureField("resolution", "\(hr >> 16)×\(vr >> 16) dpi"), StructureField("frames per sample", String(frames)),
                            StructureField("compressor", compressor), StructureField("depth", String(cFormat: "0x%04x", depth))]
            node.summary = "\(type) \(w)×\(h)"
            fixed = 78
        } else if Self.audioEntries.contains(type) {
            guard let version = c.u16(), c.skip(6), let channels = c.u16(), let bits = c.u16(), c.skip(4), let rate = c.u32() else {
                damage.append("audio sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
                return
            }
            var shownRate = String(rate >> 16)
            var shownChannels = String(channels)
            var extra = 0
            switch version {
            case 1: extra = 16
            case 2:
                extra = 36
                // QuickTime v2 keeps the real rate (a Double) and channel count after the fixed part.
                if c.skip(4), let bitsRate = c.u64(), let ch = c.u32() {
                    let r = Double(bitPattern: bitsRate)
                    if r.isFinite, r >= 0, r < 1e9 { shownRate = String(cFormat: "%.0f", r) }
                    shownChannels = String(ch)
                }
            default: break
            }
            node.fields += [StructureField("channels", shownChannels), StructureField("sample size", String(bits)), StructureField("sample rate", shownRate)]
            if version != 0 { node.fields.append(StructureField("QuickTime version", String(version))) }
            node.summary = "\(type) \(shownChannels) ch, \(shownRate) Hz"
            fixed = 28 + extra
        } else {
            switch type {
            case "tx3g":
                fixed = 38
                node.summary = "timed text"
            case "wvtt":
                fixed = 8
                node.summary = "WebVTT"
            case "stpp", "mett", "metx", "sbtt":
                // Strings after the 8 fixed bytes: namespace, schema location, MIME types
                // (stpp); content encoding and MIME type (sbtt, mett).
                var strings: [String] = []
                let count = type == "stpp" ? 3 : 2
                for _ in 0..<count where c.remaining > 0 { strings.append(c.cString(limit: 256)) }
                if let first = strings.first { node.fields.append(StructureField(type == "stpp" ? "namespace" : "encoding", first)) }
                node.summary = type == "stpp" ? "TTML" : type
                fixed = c.at
            case "mp4s":
                fixed = 8
            default:
                node.summary = type
            }
        }
        if let fixed, Int64(fixed) <= payloadLength(node) {
            node.isContainer = true
            node.tag = UInt64(node.payloadOffset + Int64(fixed))
        } else if fixed != nil {
            damage.append("sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is shorter than its fixed fields")
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
        guard let kind = c.take(4) else { damage.append("'colr' at offset \(ContainerScan.grouped(node.offset)) is too short for its colour type"); return }
        let k = ContainerScan.fourCC(kind)
        node.fields.append(StructureField("colour type", k))
        switch k {
        case "nclx", "nclc":
            guard let p = c.u16(), let t = c.u16(), let m = c.u16() else { damage.append("'colr' at offset \(ContainerScan.grouped(node.offset)) is too short for its colour values"); return }
            node.fields += [StructureField("primaries", "\(p) \(ColourNames.primaries[Int(p)] ?? "")"), StructureField("transfer", "\(t) \(ColourNames.transfer[Int(t)] ?? "")"),
                            StructureField("matrix", "\(m) \(ColourNames.matrix[Int(m)] ?? "")")]
            var full = ""
            if k == "nclx", let f = c.u8() {
                full = f & 0x80 != 0 ? "full" : "limited"
                node.fields.append(StructureField("full range", f & 0x80 != 0 ? "yes" : "no"))
            }
            node.summary = "\(k) \(ColourNames.primaries[Int(p)] ?? String(p))/\(ColourNames.transfer[Int(t)] ?? String(t))/\(ColourNames.matrix[Int(m)] ?? String(m))" + (full.isEmpty ? "" : " \(full)")
        case "rICC", "prof":
            node.fields.append(StructureField("ICC profile size", ContainerScan.grouped(max(0, payloadLength(node) - 4))))
            node.summary = "\(k) ICC \(ContainerScan.grouped(max(0, payloadLength(node) - 4))) bytes"
        default:
            node.summary = k
        }
    }

    func esds(_ node: inout StructureNode, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 1024))
        guard fullBox(&c, &node) else { damage.append("'esds' at offset \(ContainerScan.grouped(node.offset)) is too short"); return }
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
                        StructureField("stream type", String(stream >> 2)), StructureField("max bit rate", ContainerScan.grouped(maxR)),
                        StructureField("average bit rate", ContainerScan.grouped(avg))]
        node.summary = names[object] ?? String(cFormat: "object type 0x%02x", object)
        if let (tag5, n) = descriptor(&c), tag5 == 5, n > 0, let first = c.u8() {
            let aot = first >> 3
            let aotNames: [UInt8: String] = [1: "AAC Main", 2: "AAC LC", 3: "AAC SSR", 4: "AAC LTP", 5: "SBR (HE-AAC)", 29: "PS (HE-AAC v2)", 31: "escape"]
            node.fields.append(StructureField("audio object type", "\(aot) \(aotNames[aot] ?? "")"))
            if object == 0x40, let n = aotNames[aot] { node.summary = n }
        }
    }
}
