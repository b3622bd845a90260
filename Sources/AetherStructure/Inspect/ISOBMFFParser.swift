import AetherMedia
import Foundation

/// ISO base media boxes (MP4, MOV, M4A, fragmented MP4 and DASH segments) as a ``StructureNode``
/// tree, read lazily: `top()` reads the top-level headers, `children(of:)` one container's.
///
/// A box's header is trusted only as far as its parent lets it: a size that overruns the parent
/// (or the file) is clipped to it and says by how much, a size below 8 ends the level (nothing
/// after it can be located), a size of 0 runs to the end of the parent. Field decoding reads at
/// most ``StructureBudget/maxFieldBytes`` (and never more than 64 KiB) of a box, and lists at most
/// ``StructureBudget/maxListedEntries`` table entries; every count read from the file is checked
/// against the bytes actually there before it is believed.
public final class ISOBMFFParser: StructureParser {
    public let format = ContainerFormat.isobmff
    let window: ContainerScan.Window
    let budget: StructureBudget

    public init(source: any ByteSource, budget: StructureBudget = StructureBudget()) {
        window = ContainerScan.Window(source)
        self.budget = budget
    }

    public func top() -> (nodes: [StructureNode], omitted: Int) {
        scan(from: 0, to: window.length, depth: 0, parent: nil)
    }

    public func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int) {
        guard node.isContainer, node.depth < budget.maxDepth, let end = node.end, end > node.offset else { return ([], 0) }
        let start = Int64(bitPattern: node.tag)
        let stop = min(end, window.length)
        guard start >= node.offset, start <= stop else { return ([], 0) }
        return scan(from: start, to: stop, depth: node.depth + 1, parent: node.name)
    }

    // MARK: the box walk

    /// Boxes whose payload is only boxes.
    static let plainContainers: Set<String> = [
        "moov", "trak", "mdia", "minf", "stbl", "dinf", "edts", "udta", "mvex", "moof", "traf", "mfra",
        "sinf", "schi", "rinf", "tref", "trgr", "strk", "strd", "meco", "gmhd", "wave", "ipro", "iprp", "ipco",
        "clip", "matt", "tapt", "mdra", "rmra", "rmda", "imap", "hinf", "hnti", "ilst", "fiin", "paen", "moof",
    ]
    /// Sample entries whose fixed fields are a visual sample entry's (78 bytes after the header).
    static let visualEntries: Set<String> = [
        "avc1", "avc2", "avc3", "avc4", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "vp08", "vp09",
        "mp4v", "encv", "s263", "jpeg", "mjpa", "mjpb", "apcn", "apch", "apcs", "apco", "ap4h", "ap4x", "vvc1",
        "vvi1", "evc1", "mp2v", "resv", "rv60", "uncv", "j2ki", "png ",
    ]
    /// Sample entries whose fixed fields are an audio sample entry's (28 bytes, QuickTime
    /// versions 1 and 2 add 16 and 36).
    static let audioEntries: Set<String> = [
        "mp4a", "ac-3", "ec-3", "ac-4", "Opus", "fLaC", "alac", "enca", "sowt", "twos", "lpcm", "ipcm", "fpcm",
        "dtsc", "dtsh", "dtsl", "dtse", "dtsx", "mha1", "mha2", "mhm1", "mhm2", ".mp3", "ulaw", "alaw", "samr",
        "sawb", "in24", "in32", "fl32", "fl64", "raw ", "mlpa",
    ]

    /// One level: boxes from `start` to `end` at `depth`, `parent` naming what holds them (nil:
    /// the file).
    func scan(from start: Int64, to end: Int64, depth: Int, parent: String?) -> (nodes: [StructureNode], omitted: Int) {
        var nodes: [StructureNode] = []
        var omitted = 0
        var pos = start
        var steps = 0
        let whose = parent.map { "\($0)" } ?? "the file"
        while pos < end {
            if steps >= budget.maxScanSteps {
                nodes.append(StructureNode(name: "(not read)", offset: pos, headerSize: 0, size: end - pos,
                                           damage: "the scan budget (\(ContainerScan.grouped(budget.maxScanSteps)) boxes) ran out at offset \(ContainerScan.grouped(pos)); \(ContainerScan.grouped(end - pos)) bytes of \(whose) were not read",
                                           depth: depth))
                break
            }
            steps += 1
            let next: Int64?
            if nodes.count < budget.maxChildren {
                let (node, after) = box(at: pos, end: end, depth: depth, parent: parent)
                nodes.append(node)
                next = after
            } else {
                // Past the listing budget boxes are only counted: no node, no text.
                omitted += 1
                next = skip(at: pos, end: end)
            }
            guard let next, next > pos else { break }
            pos = next
        }
        return (nodes, omitted)
    }

    /// Where the box after the one at `pos` starts, read from its header only (nil: the level
    /// ends with this box). The same size rules as ``box(at:end:depth:parent:)``.
    func skip(at pos: Int64, end: Int64) -> Int64? {
        let remaining = end - pos
        var c = ContainerScan.Cursor(window.read(at: pos, count: Int(min(remaining, 16))))
        guard let size32 = c.u32(), c.skip(4) else { return nil }
        let size: Int64
        switch size32 {
        case 0, 2..<8: return nil
        case 1:
            guard let large = c.u64(), large >= 16 else { return nil }
            size = large > UInt64(remaining) ? remaining : Int64(large)
        default:
            size = min(Int64(size32), remaining)
        }
        return pos + size < end ? pos + size : nil
    }

    /// The box at `pos` in a level ending at `end`, and where the next one starts (nil: the level
    /// ends here, after damage or a box that runs to its end).
    func box(at pos: Int64, end: Int64, depth: Int, parent: String?) -> (StructureNode, Int64?) {
        let remaining = end - pos
        let head = window.read(at: pos, count: Int(min(remaining, 32)))
        let whose = parent ?? "the file"
        if head.count < 8 {
            // QuickTime ends some lists with a 32-bit zero: not damage.
            if head.count == 4, head.allSatisfy({ $0 == 0 }) {
                return (StructureNode(name: "(terminator)", offset: pos, headerSize: 4, size: 4, summary: "32-bit zero", depth: depth), nil)
            }
            return (StructureNode(name: "(truncated)", offset: pos, headerSize: Int64(head.count), size: Int64(head.count),
                                  damage: "a box header needs 8 bytes but \(whose) has \(head.count) left at offset \(ContainerScan.grouped(pos))",
                                  depth: depth), nil)
        }
        var c = ContainerScan.Cursor(head)
        let size32 = c.u32()!
        let typeBytes = c.take(4)!
        let type = ContainerScan.fourCC(typeBytes)
        var headerSize: Int64 = 8
        var size: Int64
        var damage: [String] = []
        var fields: [StructureField] = []
        switch size32 {
        case 1:
            guard let large = c.u64() else {
                return (StructureNode(name: type, offset: pos, headerSize: 8, size: remaining,
                                      damage: "'\(type)' at offset \(ContainerScan.grouped(pos)) says its size is 64-bit, but \(whose) ends before it",
                                      depth: depth), nil)
            }
            headerSize = 16
            fields.append(StructureField("largesize", ContainerScan.grouped(large)))
            if large < 16 {
                return (StructureNode(name: type, offset: pos, headerSize: 16, size: remaining, fields: fields,
                                      damage: "64-bit size \(ContainerScan.grouped(large)) at offset \(ContainerScan.grouped(pos)) is smaller than its own header; nothing after it in \(whose) can be located",
                                      depth: depth), nil)
            }
            if large > UInt64(remaining) {
                damage.append("size \(ContainerScan.grouped(large)) at offset \(ContainerScan.grouped(pos)) runs \(ContainerScan.grouped(large - UInt64(remaining))) bytes past the end of \(whose) (offset \(ContainerScan.grouped(end))); clipped")
                size = remaining
            } else {
                size = Int64(large)
            }
        case 0:
            size = remaining
            fields.append(StructureField("size", "0 (to the end of \(whose))"))
            if parent != nil || typeBytes != Array("mdat".utf8) {
                damage.append("size 0 at offset \(ContainerScan.grouped(pos)): taken to run to the end of \(whose) (offset \(ContainerScan.grouped(end))), over whatever follows; only a last box may say so")
            }
        case 2..<8:
            return (StructureNode(name: type, offset: pos, headerSize: 8, size: remaining,
                                  damage: "size \(size32) at offset \(ContainerScan.grouped(pos)) is smaller than a box header; nothing after it in \(whose) can be located",
                                  depth: depth), nil)
        default:
            if Int64(size32) > remaining {
                damage.append("size \(ContainerScan.grouped(size32)) at offset \(ContainerScan.grouped(pos)) runs \(ContainerScan.grouped(Int64(size32) - remaining)) bytes past the end of \(whose) (offset \(ContainerScan.grouped(end))); clipped")
                size = remaining
            } else {
                size = Int64(size32)
            }
        }
        if type == "uuid" {
            if let ext = c.take(16), headerSize + 16 <= size {
                headerSize += 16
                fields.append(StructureField("extended type", ContainerScan.uuid(ext)))
            } else {
                damage.append("'uuid' at offset \(ContainerScan.grouped(pos)) has no room for its 16-byte extended type")
            }
        }
        if headerSize > size {
            damage.append("the header (\(headerSize) bytes) does not fit in \(whose) at offset \(ContainerScan.grouped(pos))")
            headerSize = size
        }
        var node = StructureNode(name: type, offset: pos, headerSize: headerSize, size: size, fields: fields, depth: depth)
        describe(&node, type: type, parent: parent, damage: &damage)
        if !damage.isEmpty { node.damage = TextSanitizer.clean(damage.joined(separator: "; ")) }
        if node.isContainer, depth >= budget.maxDepth {
            node.isContainer = false
            node.damage = TextSanitizer.clean((node.damage.map { $0 + "; " } ?? "") + "nested deeper than \(budget.maxDepth) levels at offset \(ContainerScan.grouped(pos)): its boxes are not read")
        }
        let next = pos + size   // size ≤ remaining = end - pos: cannot overflow
        return (node, next < end ? next : nil)
    }

    // MARK: fields

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
            func point(_ p: (UInt16, UInt16)) -> String { String(format: "(%.4f, %.4f)", Double(p.0) / 50000, Double(p.1) / 50000) }
            node.fields += [StructureField("primaries (G B R)", xy[0..<3].map(point).joined(separator: " ")),
                            StructureField("white point", point(xy[3])),
                            StructureField("max luminance", String(format: "%.4f cd/m²", Double(maxL) / 10000)),
                            StructureField("min luminance", String(format: "%.4f cd/m²", Double(minL) / 10000))]
            node.summary = String(format: "%.0f / %.4f cd/m²", Double(maxL) / 10000, Double(minL) / 10000)
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
                            StructureField("default flags", String(format: "0x%08x", fl))]
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
        if f != 0 { node.fields.append(StructureField("flags", String(format: "0x%06x", f))) }
        return (v, f)
    }

    func fullBox(_ c: inout ContainerScan.Cursor, _ node: inout StructureNode) -> Bool { versionFlags(&c, &node) != nil }

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
                        : code.allSatisfy({ (0x61...0x7A).contains($0) }) ? String(decoding: code, as: UTF8.self) : String(format: "0x%04x", lang)
                    node.fields.append(StructureField("language", text))
                    node.summary = "timescale \(ContainerScan.grouped(scale)), \(secs.map { $0 + " s" } ?? "no duration"), \(text)"
                }
            } else {
                if let rate = c.u32(), let volume = c.u16(), c.skip(10 + 36 + 24), let next = c.u32() {
                    node.fields += [StructureField("rate", String(format: "%.4f", Double(rate) / 65536)), StructureField("volume", String(format: "%.2f", Double(volume) / 256)),
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
                            StructureField("alternate group", String(group)), StructureField("volume", String(format: "%.2f", Double(volume) / 256)),
                            StructureField("width", String(format: "%.2f", Double(w) / 65536)), StructureField("height", String(format: "%.2f", Double(h) / 65536))]
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
                            StructureField("compressor", compressor), StructureField("depth", String(format: "0x%04x", depth))]
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
                    if r.isFinite, r >= 0, r < 1e9 { shownRate = String(format: "%.0f", r) }
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
                        StructureField("compatibility", String(format: "0x%02x", compat)), StructureField("level", String(format: "%.1f", Double(level) / 10)),
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
        node.summary = "\(name), level \(String(format: "%.1f", Double(level) / 10)), \(depth)-bit"
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
        node.fields += [StructureField("object type", String(format: "0x%02x", object) + (names[object].map { " " + $0 } ?? "")),
                        StructureField("stream type", String(stream >> 2)), StructureField("max bit rate", ContainerScan.grouped(maxR)),
                        StructureField("average bit rate", ContainerScan.grouped(avg))]
        node.summary = names[object] ?? String(format: "object type 0x%02x", object)
        if let (tag5, n) = descriptor(&c), tag5 == 5, n > 0, let first = c.u8() {
            let aot = first >> 3
            let aotNames: [UInt8: String] = [1: "AAC Main", 2: "AAC LC", 3: "AAC SSR", 4: "AAC LTP", 5: "SBR (HE-AAC)", 29: "PS (HE-AAC v2)", 31: "escape"]
            node.fields.append(StructureField("audio object type", "\(aot) \(aotNames[aot] ?? "")"))
            if object == 0x40, let n = aotNames[aot] { node.summary = n }
        }
    }

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
            node.fields.append(StructureField(name, bit == 0x20 ? String(format: "0x%08llx", v) : ContainerScan.grouped(v)))
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
            node.fields.append(StructureField("first sample flags", String(format: "0x%08x", f)))
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
                let shown = bit == 0x400 ? String(format: "0x%08x", v) : bit == 0x800 && version == 1 ? String(Int32(bitPattern: v)) : ContainerScan.grouped(v)
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

    static let drmSystems: [String: String] = [
        "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine", "9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay", "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "ClearKey (W3C)",
        "e2719d58-a985-b3c9-781a-b030af78d30e": "ClearKey (DASH-IF)", "3ea8778f-7742-4bf9-b18b-e834b2acbd47": "ClearKey (AES-128)",
    ]

    func pssh(_ node: inout StructureNode, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        var c = ContainerScan.Cursor(payload(node, limit: 64 + budget.maxListedEntries * 16))
        guard let (version, _) = versionFlags(&c, &node), let system = c.take(16) else { damage.append("'pssh' \(at) is too short for its system ID"); return }
        let id = ContainerScan.uuid(system)
        let name = Self.drmSystems[id]
        node.fields.append(StructureField("system ID", id + (name.map { " (\($0))" } ?? "")))
        node.summary = name ?? id
        var kidCount: UInt32 = 0
        if version > 0 {
            guard let n = c.u32() else { damage.append("'pssh' \(at) ends before its KID count"); return }
            kidCount = n
            node.fields.append(StructureField("KIDs", ContainerScan.grouped(n)))
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
                node.fields.append(StructureField("data size", ContainerScan.grouped(size)))
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
        guard let (version, flags) = versionFlags(&c, &node) else { damage.append("'\(type)' \(at) is too short"); return }
        switch type {
        case "schm":
            guard let scheme = c.take(4), let v = c.u32() else { damage.append("'schm' \(at) is too short"); return }
            node.fields += [StructureField("scheme", ContainerScan.fourCC(scheme)), StructureField("scheme version", String(format: "0x%08x", v))]
            node.summary = ContainerScan.fourCC(scheme)
        case "saio", "saiz":
            if flags & 1 != 0 {
                guard let t = c.take(4), let p = c.u32() else { damage.append("'\(type)' \(at) is too short"); return }
                node.fields += [StructureField("aux info type", ContainerScan.fourCC(t)), StructureField("aux info parameter", String(p))]
            }
            if type == "saiz" {
                guard let def = c.u8(), let n = c.u32() else { damage.append("'saiz' \(at) is too short for its sample count"); return }
                node.fields += [StructureField("default size", String(def)), StructureField("sample count", ContainerScan.grouped(n))]
                node.summary = ContainerScan.grouped(n) + " samples" + (def != 0 ? ", \(def) bytes each" : "")
                if def == 0, Int64(n) > payloadLength(node) - Int64(c.at) { damage.append("'saiz' \(at) claims \(ContainerScan.grouped(n)) sizes but holds \(max(0, payloadLength(node) - Int64(c.at)))") }
            } else {
                guard let n = c.u32() else { damage.append("'saio' \(at) is too short for its entry count"); return }
                node.fields.append(StructureField("entries", ContainerScan.grouped(n)))
                let wide = version == 0 ? 4 : 8
                for i in 0..<Int(min(n, UInt32(budget.maxListedEntries))) {
                    guard let o = c.uint(wide) else { break }
                    node.fields.append(StructureField("offset \(i + 1)", ContainerScan.grouped(o)))
                }
                node.summary = ContainerScan.grouped(n) + (n == 1 ? " offset" : " offsets")
            }
        case "senc":
            guard let n = c.u32() else { damage.append("'senc' \(at) is too short for its sample count"); return }
            node.fields += [StructureField("sample count", ContainerScan.grouped(n)), StructureField("subsamples", flags & 2 != 0 ? "yes" : "no")]
            node.summary = ContainerScan.grouped(n) + " samples" + (flags & 2 != 0 ? " with subsamples" : "")
        case "tenc":
            guard c.skip(1), let pattern = c.u8(), let protected = c.u8(), let ivSize = c.u8(), let kid = c.take(16) else { damage.append("'tenc' \(at) is too short"); return }
            if version > 0 { node.fields.append(StructureField("pattern", "crypt \(pattern >> 4), skip \(pattern & 15)")) }
            node.fields += [StructureField("protected", protected != 0 ? "yes" : "no"), StructureField("IV size", String(ivSize)), StructureField("KID", ContainerScan.uuid(kid))]
            if protected != 0, ivSize == 0, let n = c.u8(), let iv = c.take(Int(n)) { node.fields.append(StructureField("constant IV", ContainerScan.hex(iv))) }
            node.summary = "KID \(ContainerScan.uuid(kid))"
        default:
            break
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
