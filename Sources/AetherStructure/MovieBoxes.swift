import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The movie's own boxes: file and segment types, the movie, track and media headers, handlers,
/// edit lists, sample description and data reference lists, metadata containers and values, and
/// the payload-only boxes (media data, free space) summarised by their size.
struct MovieBoxes: BoxFamily {
    static let boxes = ["mdat", "free", "skip", "wide", "meta", "stsd", "dref", "ftyp", "styp", "mvhd", "mdhd", "tkhd", "mehd",
                        "hdlr", "elst", "url ", "urn ", "data"]
    let window: ContainerScan.Window
    let budget: StructureBudget

    func read(_ node: inout StructureNode, type: String, damage: inout [String]) {
        let at = "at offset \(ContainerScan.grouped(node.offset))"
        func short(_ what: String) { tooShort(node, type, what, &damage) }
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
            guard fullBox(&c, &node), let n = c.u32() else {
                short("entry count")
                node.isContainer = false
                return
            }
            node.fields.append(StructureField("entries", count: n))
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
            guard fullBox(&c, &node), let pre = c.take(4), let handler = c.take(4), c.skip(12) else {
                short("handler type")
                return
            }
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
            guard let (version, _) = versionFlags(&c, &node), let n = c.u32() else {
                short("entry count")
                return
            }
            node.summary = ContainerScan.grouped(n) + (n == 1 ? " edit" : " edits")
            node.fields.append(StructureField("entries", count: n))
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

    /// A `tkhd` transformation matrix as its rows (`a b u; c d v; x y w`): a, b, c, d, x and y
    /// are 16.16 fixed point, u, v and w 2.30.
    static func matrixText(_ m: [Int32]) -> String {
        func value(_ k: Int) -> String {
            let fraction = k % 3 == 2 ? Double(1 << 30) : 65536
            let text = String(cFormat: "%.4f", Double(m[k]) / fraction)
            // 1.0000 → 1, -0.5000 → -0.5
            var trimmed = text.contains(".") ? String(text.reversed().drop { $0 == "0" }.reversed()) : text
            if trimmed.hasSuffix(".") { trimmed.removeLast() }
            return trimmed == "-0" ? "0" : trimmed
        }
        return stride(from: 0, to: 9, by: 3).map { row in (row..<row + 3).map(value).joined(separator: " ") }.joined(separator: "; ")
    }

    /// The movie, media and track headers (and the movie extends header's fragment duration):
    /// times, timescale and duration, the media's language, the track's ID, flags and size.
    func timedHeader(_ node: inout StructureNode, type: String, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 128))
        guard let (version, flags) = versionFlags(&c, &node) else {
            damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its version")
            return
        }
        let wide = version == 1 ? 8 : 4
        if type == "mehd" {
            guard let d = c.uint(wide) else {
                damage.append("'mehd' at offset \(ContainerScan.grouped(node.offset)) is too short for its duration")
                return
            }
            node.fields.append(StructureField("fragment duration", count: d))
            node.summary = "duration \(ContainerScan.grouped(d))"
            return
        }
        guard let created = c.uint(wide), let modified = c.uint(wide) else {
            damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its times")
            return
        }
        node.fields += [StructureField("creation time", count: created), StructureField("modification time", count: modified)]
        switch type {
        case "mvhd", "mdhd":
            guard let scale = c.u32(), let duration = c.uint(wide) else {
                damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its timescale and duration")
                return
            }
            node.fields += [StructureField("timescale", count: scale), StructureField("duration", count: duration)]
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
                  let volume = c.u16(), c.skip(2), case let matrix = (0..<9).compactMap({ _ in c.u32().map { Int32(bitPattern: $0) } }),
                  matrix.count == 9, let w = c.u32(), let h = c.u32() else {
                damage.append("'tkhd' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
                return
            }
            node.fields += [StructureField("track ID", String(id)), StructureField("duration", count: duration),
                            StructureField("enabled", flags & 1 == 1 ? "yes" : "no"), StructureField("layer", String(Int16(bitPattern: layer))),
                            StructureField("alternate group", String(group)), StructureField("volume", String(cFormat: "%.2f", Double(volume) / 256)),
                            StructureField("matrix", Self.matrixText(matrix)),
                            StructureField("width", String(cFormat: "%.2f", Double(w) / 65536)), StructureField("height", String(cFormat: "%.2f", Double(h) / 65536))]
            // What turns a phone's video upright (as the player reads it from libavformat).
            let rotation = StillGeometry.rotation(matrix: matrix)
            if rotation != 0 { node.fields.append(StructureField("rotation", "\(rotation)° counter-clockwise")) }
            node.summary = "track \(id)" + (w > 0 || h > 0 ? ", \(w >> 16)×\(h >> 16)" : "") + (rotation != 0 ? ", rotated \(rotation)°" : "")
        }
    }
}
