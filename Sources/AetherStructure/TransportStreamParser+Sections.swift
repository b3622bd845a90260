import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif


// The scan's PSI/SI sections: assembling them, PAT, PMT, SDT, NIT, descriptors and CRC.
extension TransportStreamParser.Scan {
    mutating func section(pid: Int, payload: ArraySlice<UInt8>, unitStart: Bool, offset: Int64) {
        var a = assemblers[pid] ?? TransportStreamParser.Assembler()
        var p = payload.startIndex
        if unitStart {
            let pointer = Int(payload[p])
            p += 1
            if a.active {
                let tail = payload[p..<min(payload.endIndex, p + pointer)]
                a.bytes += tail
                finish(pid: pid, &a)
            }
            p = min(payload.endIndex, p + pointer)
            a = TransportStreamParser.Assembler()
            // Sections in this packet, until stuffing (0xFF).
            while p < payload.endIndex, payload[p] != 0xFF {
                a = TransportStreamParser.Assembler(bytes: Array(payload[p...]), startOffset: offset, active: true)
                guard let total = a.expected, total <= a.bytes.count else { break }
                a.bytes.removeSubrange(total...)
                finish(pid: pid, &a)
                p += total
                a = TransportStreamParser.Assembler()
            }
        } else if a.active {
            a.bytes += payload
            if let total = a.expected, total <= a.bytes.count {
                a.bytes.removeSubrange(total...)
                finish(pid: pid, &a)
                a = TransportStreamParser.Assembler()
            }
        }
        if a.bytes.count > 4096 + 3 { a = TransportStreamParser.Assembler() }
        assemblers[pid] = a
    }

    mutating func finish(pid: Int, _ a: inout TransportStreamParser.Assembler) {
        defer { a = TransportStreamParser.Assembler() }
        guard let total = a.expected, a.bytes.count >= total, total >= 8 else { return }
        let s = Array(a.bytes.prefix(total))
        let syntax = s[1] & 0x80 != 0
        guard syntax else { return }
        let good = Self.crc32(s) == 0
        let table = s[0]
        switch (pid, table) {
        case (0, 0x00):
            guard good else { patCRCErrors += 1; return }
            parsePAT(s, offset: a.startOffset)
        case (0x11, 0x42):
            guard good else { otherCRCErrors += 1; return }
            if sdt == nil { parseSDT(s, offset: a.startOffset) }
        case (nitPID, 0x40):
            guard good else { otherCRCErrors += 1; return }
            if nit == nil { parseNIT(s, offset: a.startOffset) }
        case (_, 0x02):
            guard let index = programs.firstIndex(where: { $0.pmtPID == pid && $0.number == Int(s[3]) << 8 | Int(s[4]) }) else { return }
            guard good else { programs[index].crcErrors += 1; return }
            if programs[index].offset == nil {
                var program = programs[index]
                parsePMT(s, into: &program, offset: a.startOffset)
                programs[index] = program
            }
        default:
            break
        }
    }

    mutating func parsePAT(_ s: [UInt8], offset: Int64) {
        let version = Int(s[5] >> 1 & 0x1F)
        let number = Int(s[6])
        if tsid != nil, version != patVersion { return }   // the first version seen is shown
        guard !patSections.contains(number) else { return }
        patSections.insert(number)
        tsid = Int(s[3]) << 8 | Int(s[4])
        patVersion = version
        if patOffset == nil { patOffset = offset }
        var k = 8
        while k + 4 <= s.count - 4, programs.count < budget.maxChildren {
            let program = Int(s[k]) << 8 | Int(s[k + 1])
            let pid = Int(s[k + 2] & 0x1F) << 8 | Int(s[k + 3])
            if program == 0 { nitPID = pid } else if !programs.contains(where: { $0.number == program }) {
                programs.append(TransportStreamParser.Program(number: program, pmtPID: pid))
            }
            k += 4
        }
    }

    mutating func parsePMT(_ s: [UInt8], into program: inout TransportStreamParser.Program, offset: Int64) {
        program.offset = offset
        program.version = Int(s[5] >> 1 & 0x1F)
        guard s.count >= 16 else { return }
        let pcr = Int(s[8] & 0x1F) << 8 | Int(s[9])
        program.pcrPID = pcr
        let infoLength = Int(s[10] & 0x0F) << 8 | Int(s[11])
        var k = 12
        let end = s.count - 4
        let infoEnd = min(end, k + infoLength)
        while k + 2 <= infoEnd {
            program.infoDescriptors += 1
            k += 2 + Int(s[k + 1])
        }
        k = infoEnd
        while k + 5 <= end {
            let type = s[k]
            let pid = Int(s[k + 1] & 0x1F) << 8 | Int(s[k + 2])
            let esLength = Int(s[k + 3] & 0x0F) << 8 | Int(s[k + 4])
            k += 5
            let descEnd = min(end, k + esLength)
            var stream = TransportStreamParser.Stream(pid: pid, type: type, kind: "", name: "")
            var tags: [UInt8] = []
            var registration: String?
            while k + 2 <= descEnd {
                let tag = s[k], n = Int(s[k + 1])
                let body = Array(s[min(descEnd, k + 2)..<min(descEnd, k + 2 + n)])
                tags.append(tag)
                var text = String(cFormat: "0x%02X", tag) + (Self.descriptorNames[tag].map { " " + $0 } ?? "")
                switch tag {
                case 0x0A, 0x59, 0x56:
                    if body.count >= 3 {
                        let lang = TextSanitizer.clean(bytes: body[0..<3])
                        stream.language = stream.language ?? lang
                        text += ": " + lang
                    }
                case 0x05:
                    if body.count >= 4 {
                        registration = ContainerScan.fourCC(body[0..<4])
                        text += ": " + registration!
                    }
                default: break
                }
                stream.descriptors.append(text)
                k += 2 + n
            }
            k = descEnd
            (stream.name, stream.kind) = Self.describe(type, tags: tags, registration: registration)
            if program.streams.count < budget.maxChildren { program.streams.append(stream) }
        }
    }

    mutating func parseSDT(_ s: [UInt8], offset: Int64) {
        guard s.count >= 15 else { return }
        var fields = [StructureField("transport_stream_id", String(Int(s[3]) << 8 | Int(s[4]))),
                      StructureField("original_network_id", String(Int(s[8]) << 8 | Int(s[9])))]
        var k = 11, services = 0
        let end = s.count - 4
        while k + 5 <= end {
            let id = Int(s[k]) << 8 | Int(s[k + 1])
            let loop = Int(s[k + 3] & 0x0F) << 8 | Int(s[k + 4])
            k += 5
            let descEnd = min(end, k + loop)
            var names: [String] = []
            while k + 2 <= descEnd {
                let tag = s[k], n = Int(s[k + 1])
                let body = Array(s[min(descEnd, k + 2)..<min(descEnd, k + 2 + n)])
                if tag == 0x48, body.count >= 2 {
                    var c = ContainerScan.Cursor(body, at: 1)
                    let pn = Int(c.u8() ?? 0)
                    let provider = c.take(min(pn, c.remaining)) ?? []
                    let sn = Int(c.u8() ?? 0)
                    let service = c.take(min(sn, c.remaining)) ?? []
                    names.append("provider \"\(Self.dvbText(provider))\", name \"\(Self.dvbText(service))\"")
                }
                k += 2 + n
            }
            k = descEnd
            services += 1
            if services <= budget.maxListedEntries {
                fields.append(StructureField("service \(id)", names.isEmpty ? "no service descriptor" : names.joined(separator: "; ")))
            }
        }
        sdt = (offset, fields, services)
    }

    mutating func parseNIT(_ s: [UInt8], offset: Int64) {
        guard s.count >= 16 else { return }
        var fields = [StructureField("network_id", String(Int(s[3]) << 8 | Int(s[4])))]
        let length = Int(s[8] & 0x0F) << 8 | Int(s[9])
        var k = 10
        let end = min(s.count - 4, k + length)
        while k + 2 <= end {
            let tag = s[k], n = Int(s[k + 1])
            if tag == 0x40 { fields.append(StructureField("network name", Self.dvbText(Array(s[min(end, k + 2)..<min(end, k + 2 + n)])))) }
            k += 2 + n
        }
        nit = (offset, fields)
    }

    /// DVB text: a first byte below 0x20 picks a character table; shown as Latin text.
    static func dvbText(_ b: [UInt8]) -> String {
        var bytes = b
        if let first = bytes.first, first < 0x20 { bytes.removeFirst(first == 0x10 ? min(3, bytes.count) : 1) }
        return TextSanitizer.clean(bytes: bytes.prefix(256))
    }

    static let descriptorNames: [UInt8: String] = [
        0x02: "video stream", 0x03: "audio stream", 0x05: "registration", 0x06: "data stream alignment", 0x09: "CA",
        0x0A: "ISO 639 language", 0x0E: "maximum bitrate", 0x28: "AVC video", 0x2A: "AVC timing and HRD", 0x38: "HEVC video",
        0x52: "stream identifier", 0x56: "teletext", 0x59: "subtitling", 0x6A: "AC-3", 0x7A: "enhanced AC-3", 0x7B: "DTS",
        0x7C: "AAC", 0x7F: "extension", 0x86: "caption service", 0x81: "ATSC AC-3", 0x45: "VBI data", 0x46: "VBI teletext",
    ]

    /// A stream type's name and kind (video, audio, subtitle, data), from the type and, for
    /// private data (0x06), its descriptors.
    static func describe(_ type: UInt8, tags: [UInt8], registration: String?) -> (String, String) {
        switch type {
        case 0x01: return ("MPEG-1 video", "video")
        case 0x02: return ("MPEG-2 video", "video")
        case 0x03: return ("MPEG-1 audio", "audio")
        case 0x04: return ("MPEG-2 audio", "audio")
        case 0x05: return ("private sections", "data")
        case 0x0F: return ("AAC (ADTS)", "audio")
        case 0x10: return ("MPEG-4 Visual", "video")
        case 0x11: return ("AAC (LATM)", "audio")
        case 0x15: return ("ID3 metadata", "data")
        case 0x1B: return ("H.264", "video")
        case 0x1C: return ("MPEG-4 audio", "audio")
        case 0x24: return ("HEVC", "video")
        case 0x33: return ("VVC", "video")
        case 0x42: return ("AVS video", "video")
        case 0x80: return ("PCM (Blu-ray)", "audio")
        case 0x81: return ("AC-3", "audio")
        case 0x82: return ("DTS", "audio")
        case 0x83: return ("TrueHD", "audio")
        case 0x84, 0x87: return ("E-AC-3", "audio")
        case 0x85: return ("DTS-HD", "audio")
        case 0x86: return ("SCTE-35", "data")
        case 0x90: return ("PGS subtitles", "subtitle")
        case 0x92: return ("text subtitles", "subtitle")
        case 0xD1: return ("Dirac", "video")
        case 0xEA: return ("VC-1", "video")
        case 0x06:
            if tags.contains(0x59) { return ("DVB subtitles", "subtitle") }
            if tags.contains(0x56) || tags.contains(0x46) { return ("teletext", "subtitle") }
            if tags.contains(0x6A) || registration == "AC-3" { return ("AC-3", "audio") }
            if tags.contains(0x7A) || registration == "EAC3" { return ("E-AC-3", "audio") }
            if tags.contains(0x7B) { return ("DTS", "audio") }
            if tags.contains(0x7C) { return ("AAC", "audio") }
            if registration == "Opus" { return ("Opus", "audio") }
            if registration == "HEVC" { return ("HEVC", "video") }
            if registration == "KLVA" { return ("KLV metadata", "data") }
            return ("private PES", "data")
        default:
            return (String(cFormat: "stream type 0x%02X", type), "data")
        }
    }

    /// CRC-32/MPEG-2 (no reflection, no final xor): a whole section with its CRC gives 0.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
