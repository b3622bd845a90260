import AetherMedia
import Foundation

/// An MPEG transport stream (188-byte packets, or M2TS's 192 with a 4-byte timestamp first) as a
/// ``StructureNode`` tree: a summary of the scan, the PAT, one PMT per program with its
/// elementary streams, SDT and NIT when present, and every PID seen with its packet counts,
/// continuity errors and PCRs.
///
/// Unlike boxes, a transport stream has no index: the tree comes from one scan of the first
/// ``StructureBudget/maxScanBytes`` (made on the first `top()`, then kept), and the summary says
/// how much of the file that was. Lost sync is searched for again and counted as damage, never
/// trusted; a section is believed only whole and with a good CRC.
public final class TransportStreamParser: StructureParser {
    public let format = ContainerFormat.mpegts
    let source: any ByteSource
    let budget: StructureBudget
    private var scanned: Scan?

    public init(source: any ByteSource, budget: StructureBudget = StructureBudget()) {
        self.source = source
        self.budget = budget
    }

    public func top() -> (nodes: [StructureNode], omitted: Int) {
        let scan = result()
        return (scan.topNodes(budget: budget), max(0, scan.programs.count - Scan.shownPrograms(budget)))
    }

    public func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int) {
        guard node.isContainer, node.depth == 0, node.depth < budget.maxDepth else { return ([], 0) }
        let scan = result()
        let kind = node.tag >> 32, index = Int(node.tag & 0xFFFF_FFFF)
        switch kind {
        case Tag.program:
            guard index < scan.programs.count else { return ([], 0) }
            return (scan.streamNodes(scan.programs[index], budget: budget), 0)
        case Tag.pids:
            let all = scan.pidNodes()
            return (Array(all.prefix(budget.maxChildren)), max(0, all.count - budget.maxChildren))
        default:
            return ([], 0)
        }
    }

    enum Tag {
        static let program: UInt64 = 1
        static let pids: UInt64 = 2
    }

    private func result() -> Scan {
        if let scanned { return scanned }
        var scan = Scan(length: source.length, budget: budget)
        scan.run(source)
        scanned = scan
        return scan
    }

    // MARK: the scan

    /// One elementary stream of a PMT.
    struct Stream {
        var pid: Int
        var type: UInt8
        var descriptors: [String] = []
        var language: String?
        var kind: String
        var name: String
    }

    struct Program {
        var number: Int
        var pmtPID: Int
        var pcrPID: Int?
        var infoDescriptors = 0
        var version = 0
        var streams: [Stream] = []
        var offset: Int64?
        var crcErrors = 0
    }

    struct PIDStats {
        var firstOffset: Int64
        var packets = 0
        var unitStarts = 0
        var scrambled = 0
        var adaptation = 0
        var ccErrors = 0
        var ccErrorOffsets: [Int64] = []
        var duplicates = 0
        var discontinuities = 0
        var transportErrors = 0
        var pcrCount = 0
        var firstPCR: UInt64?
        var lastPCR: UInt64?
        var maxPCRInterval: UInt64 = 0
        var lastCC: UInt8?
        var duplicateSeen = false
    }

    /// A PSI section being gathered across packets.
    struct Assembler {
        var bytes: [UInt8] = []
        var startOffset: Int64 = 0
        var active = false
    }

    struct Scan {
        let length: Int64
        let budget: StructureBudget
        var stride = 188
        var firstSync: Int64 = -1
        var scanEnd: Int64 = 0
        var packets = 0
        var syncLosses = 0
        var syncLossOffsets: [Int64] = []
        var invalidAdaptation = 0
        var reservedAdaptation = 0
        var trailing: Int64 = 0
        var pids: [Int: PIDStats] = [:]
        var assemblers: [Int: Assembler] = [:]
        var patOffset: Int64?
        var patCRCErrors = 0
        var tsid: Int?
        var patVersion = 0
        var programs: [Program] = []
        var patSections = Set<Int>()
        var nitPID = 0x10
        var sdt: (offset: Int64, fields: [StructureField], services: Int)?
        var nit: (offset: Int64, fields: [StructureField])?
        var otherCRCErrors = 0
        static let maxOffsetsKept = 5
        /// Past this many losses of sync the stream is not a transport stream worth scanning on.
        static let maxSyncLosses = 10_000
        var gaveUp: Int64?

        init(length: Int64, budget: StructureBudget) {
            self.length = length
            self.budget = budget
        }

        /// Where packets start and their stride: three sync bytes a stride apart.
        mutating func findSync(_ source: any ByteSource, from start: Int64, limit: Int64) -> Int64? {
            var base = start
            // Sync is usually found again within a packet: read a little first, more if not.
            var step = 4096
            while base < limit {
                let want = Int(min(limit - base, Int64(step))) + 2 * stride + 1
                step = min(step * 4, 1 << 20)
                let chunk = source.read(at: base, count: want)
                // At the end of the source a packet is confirmed by the syncs that are there.
                let final = chunk.count < want
                let last = final ? chunk.count : chunk.count - 2 * stride
                guard last > 0 else { return nil }
                for i in 0..<last where chunk[i] == 0x47
                    && (i + stride >= chunk.count || chunk[i + stride] == 0x47)
                    && (i + 2 * stride >= chunk.count || chunk[i + 2 * stride] == 0x47) {
                    guard base + Int64(i) < limit else { return nil }
                    return base + Int64(i)
                }
                if final { return nil }
                base += Int64(last)
            }
            return nil
        }

        mutating func run(_ source: any ByteSource) {
            let limit = min(length, max(0, budget.maxScanBytes))
            // The stride: the one whose sync pattern starts first in the first 64 KiB.
            var best: (Int64, Int)?
            for s in [188, 192, 204] {
                stride = s
                if let at = findSync(source, from: 0, limit: min(limit, 65536)), best == nil || at < best!.0 { best = (at, s) }
            }
            if let best {
                stride = best.1
            } else {
                stride = 188
            }
            guard let start = best?.0 ?? findSync(source, from: 0, limit: limit) else {
                scanEnd = limit
                return
            }
            firstSync = start
            var pos = start
            var chunkBase: Int64 = 0
            var chunk: [UInt8] = []
            let chunkSize = stride * 4096
            while pos < limit {
                if pos < chunkBase || pos + 188 > chunkBase + Int64(chunk.count) {
                    chunkBase = pos
                    chunk = source.read(at: pos, count: Int(min(Int64(chunkSize), limit - pos)))
                    if chunk.count < 188 {
                        trailing = Int64(chunk.count)
                        break
                    }
                }
                let i = Int(pos - chunkBase)
                if chunk[i] != 0x47 {
                    syncLosses += 1
                    if syncLossOffsets.count < Self.maxOffsetsKept { syncLossOffsets.append(pos) }
                    if syncLosses >= Self.maxSyncLosses {
                        gaveUp = pos
                        break
                    }
                    guard let next = findSync(source, from: pos + 1, limit: limit) else {
                        trailing = limit - pos
                        break
                    }
                    pos = next
                    continue
                }
                packet(chunk, i, at: pos)
                pos += Int64(stride)
            }
            scanEnd = min(limit, pos)
        }

        mutating func packet(_ b: [UInt8], _ i: Int, at offset: Int64) {
            packets += 1
            let pid = Int(b[i + 1] & 0x1F) << 8 | Int(b[i + 2])
            let unitStart = b[i + 1] & 0x40 != 0
            let scrambling = b[i + 3] >> 6
            let control = b[i + 3] >> 4 & 3
            let cc = b[i + 3] & 0x0F
            var stats = pids[pid] ?? PIDStats(firstOffset: offset)
            stats.packets += 1
            if b[i + 1] & 0x80 != 0 { stats.transportErrors += 1 }
            if unitStart { stats.unitStarts += 1 }
            if scrambling != 0 { stats.scrambled += 1 }
            var payloadStart = 4
            var discontinuity = false
            if control == 0 { reservedAdaptation += 1 }
            if control & 2 != 0 {
                stats.adaptation += 1
                let length = Int(b[i + 4])
                if length > (control == 3 ? 182 : 183) {
                    invalidAdaptation += 1
                    payloadStart = 188
                } else {
                    payloadStart = 5 + length
                    if length > 0 {
                        let flags = b[i + 5]
                        discontinuity = flags & 0x80 != 0
                        if discontinuity { stats.discontinuities += 1 }
                        if flags & 0x10 != 0, length >= 7 {
                            var base: UInt64 = 0
                            for k in 0..<4 { base = base << 8 | UInt64(b[i + 6 + k]) }
                            base = base << 1 | UInt64(b[i + 10] >> 7)
                            let ext = UInt64(b[i + 10] & 1) << 8 | UInt64(b[i + 11])
                            let pcr = base * 300 + ext   // < 2^42
                            stats.pcrCount += 1
                            if let last = stats.lastPCR, !discontinuity {
                                let wrap: UInt64 = (1 << 33) * 300
                                let interval = pcr >= last ? pcr - last : pcr + wrap - last
                                stats.maxPCRInterval = max(stats.maxPCRInterval, interval)
                            }
                            if stats.firstPCR == nil { stats.firstPCR = pcr }
                            stats.lastPCR = pcr
                        }
                    }
                }
            }
            // Continuity (ISO/IEC 13818-1 2.4.3.3): counted on packets with a payload; one
            // duplicate is allowed; a discontinuity indicator resets; null packets are exempt.
            if control & 1 != 0, pid != 0x1FFF {
                if discontinuity || stats.lastCC == nil {
                    stats.duplicateSeen = false
                } else if let last = stats.lastCC {
                    if cc == last {
                        if stats.duplicateSeen { ccError(&stats, offset) } else { stats.duplicates += 1; stats.duplicateSeen = true }
                    } else if cc == (last + 1) & 0x0F {
                        stats.duplicateSeen = false
                    } else {
                        ccError(&stats, offset)
                        stats.duplicateSeen = false
                    }
                }
                stats.lastCC = cc
            }
            pids[pid] = stats
            if control & 1 != 0, scrambling == 0, payloadStart < 188, isPSI(pid) {
                section(pid: pid, payload: b[(i + payloadStart)..<(i + 188)], unitStart: unitStart, offset: offset)
            }
        }

        mutating func ccError(_ stats: inout PIDStats, _ offset: Int64) {
            stats.ccErrors += 1
            if stats.ccErrorOffsets.count < Self.maxOffsetsKept { stats.ccErrorOffsets.append(offset) }
        }

        func isPSI(_ pid: Int) -> Bool {
            pid == 0 || pid == 0x11 || pid == nitPID || programs.contains { $0.pmtPID == pid }
        }

        // MARK: sections

        mutating func section(pid: Int, payload: ArraySlice<UInt8>, unitStart: Bool, offset: Int64) {
            var a = assemblers[pid] ?? Assembler()
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
                a = Assembler()
                // Sections in this packet, until stuffing (0xFF).
                while p < payload.endIndex, payload[p] != 0xFF {
                    a = Assembler(bytes: Array(payload[p...]), startOffset: offset, active: true)
                    guard let total = a.expected, total <= a.bytes.count else { break }
                    a.bytes.removeSubrange(total...)
                    finish(pid: pid, &a)
                    p += total
                    a = Assembler()
                }
            } else if a.active {
                a.bytes += payload
                if let total = a.expected, total <= a.bytes.count {
                    a.bytes.removeSubrange(total...)
                    finish(pid: pid, &a)
                    a = Assembler()
                }
            }
            if a.bytes.count > 4096 + 3 { a = Assembler() }
            assemblers[pid] = a
        }

        mutating func finish(pid: Int, _ a: inout Assembler) {
            defer { a = Assembler() }
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
                    programs.append(Program(number: program, pmtPID: pid))
                }
                k += 4
            }
        }

        mutating func parsePMT(_ s: [UInt8], into program: inout Program, offset: Int64) {
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
                var stream = Stream(pid: pid, type: type, kind: "", name: "")
                var tags: [UInt8] = []
                var registration: String?
                while k + 2 <= descEnd {
                    let tag = s[k], n = Int(s[k + 1])
                    let body = Array(s[min(descEnd, k + 2)..<min(descEnd, k + 2 + n)])
                    tags.append(tag)
                    var text = String(format: "0x%02X", tag) + (Self.descriptorNames[tag].map { " " + $0 } ?? "")
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
                return (String(format: "stream type 0x%02X", type), "data")
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

        // MARK: nodes

        /// PMT nodes listed at the top, leaving room for the other five (summary, PAT, SDT, NIT,
        /// PIDs) within the children budget.
        static func shownPrograms(_ budget: StructureBudget) -> Int { max(0, budget.maxChildren - 5) }

        static func pidName(_ pid: Int) -> String { String(format: "0x%04X", pid) }

        func pcrSeconds(_ v: UInt64) -> String { String(format: "%.6f", Double(v) / 27_000_000) }

        func topNodes(budget: StructureBudget) -> [StructureNode] {
            var nodes: [StructureNode] = []
            var fields: [StructureField] = []
            var damage: [String] = []
            let whole = scanEnd >= length
            if firstSync < 0 {
                damage.append("no sync bytes (0x47 every 188, 192 or 204 bytes) in the first \(ContainerScan.grouped(scanEnd)) bytes")
            } else {
                fields += [StructureField("packet size", stride == 192 ? "192 (M2TS: 4-byte timestamp + 188)" : String(stride)),
                           StructureField("first sync byte at", ContainerScan.grouped(firstSync))]
            }
            fields += [StructureField("scanned", "\(ContainerScan.grouped(scanEnd)) of \(ContainerScan.grouped(length)) bytes" + (whole ? " (all)" : " (the first \(ContainerScan.grouped(budget.maxScanBytes)); the rest is not counted)")),
                       StructureField("packets", ContainerScan.grouped(packets)), StructureField("PIDs", String(pids.count)),
                       StructureField("sync losses", ContainerScan.grouped(syncLosses))]
            if syncLosses > 0 {
                damage.append("lost sync \(ContainerScan.grouped(syncLosses)) time\(syncLosses == 1 ? "" : "s"), first at offset\(syncLossOffsets.count == 1 ? "" : "s") \(syncLossOffsets.map { ContainerScan.grouped($0) }.joined(separator: ", "))")
            }
            if let gaveUp { damage.append("gave up after \(ContainerScan.grouped(syncLosses)) losses of sync at offset \(ContainerScan.grouped(gaveUp))") }
            if invalidAdaptation > 0 { damage.append("\(ContainerScan.grouped(invalidAdaptation)) packets with an adaptation field longer than the packet") }
            if reservedAdaptation > 0 { fields.append(StructureField("packets with reserved adaptation control", ContainerScan.grouped(reservedAdaptation))) }
            if trailing > 0 { fields.append(StructureField("trailing bytes", ContainerScan.grouped(trailing))) }
            let cc = pids.values.reduce(0) { $0 + $1.ccErrors }
            fields.append(StructureField("continuity errors", ContainerScan.grouped(cc)))
            if firstSync >= 0, patOffset == nil { damage.append("no PAT in the scanned bytes (\(ContainerScan.grouped(scanEnd)))") }
            if patCRCErrors + otherCRCErrors > 0 { damage.append("\(patCRCErrors + otherCRCErrors) PSI sections fail their CRC") }
            let summary = firstSync < 0 ? "no packets" : "\(stride)-byte packets, \(ContainerScan.grouped(packets)) scanned, \(programs.count) program\(programs.count == 1 ? "" : "s")"
            nodes.append(StructureNode(name: "Transport stream", offset: 0, headerSize: 0, size: length, summary: summary, fields: fields,
                                       damage: damage.isEmpty ? nil : damage.joined(separator: "; "), depth: 0))
            if let patOffset {
                var f = [StructureField("transport_stream_id", String(tsid ?? 0)), StructureField("version", String(patVersion))]
                if nitPID != 0x10 { f.append(StructureField("NIT PID", Self.pidName(nitPID))) }
                for p in programs.prefix(budget.maxListedEntries) { f.append(StructureField("program \(p.number)", "PMT PID \(Self.pidName(p.pmtPID))")) }
                if programs.count > budget.maxListedEntries { f.append(StructureField("…", "\(programs.count - budget.maxListedEntries) more")) }
                nodes.append(StructureNode(name: "PAT", offset: patOffset, headerSize: 4, size: 188, summary: "\(programs.count) program\(programs.count == 1 ? "" : "s")", fields: f,
                                           damage: patCRCErrors > 0 ? "\(patCRCErrors) PAT sections fail their CRC" : nil, depth: 0))
            }
            for (index, p) in programs.prefix(Self.shownPrograms(budget)).enumerated() {
                let name = "PMT program \(p.number) (PID \(Self.pidName(p.pmtPID)))"
                guard let offset = p.offset else {
                    nodes.append(StructureNode(name: name, offset: patOffset ?? 0, headerSize: 0, size: 0,
                                               damage: "the PAT names PMT PID \(Self.pidName(p.pmtPID)), but no valid PMT for program \(p.number) is in the scanned bytes" + (p.crcErrors > 0 ? " (\(p.crcErrors) failed their CRC)" : ""),
                                               depth: 0))
                    continue
                }
                var f = [StructureField("PCR PID", p.pcrPID.map(Self.pidName) ?? "none"), StructureField("program info descriptors", String(p.infoDescriptors)),
                         StructureField("version", String(p.version)), StructureField("streams", String(p.streams.count))]
                if p.pcrPID == 0x1FFF { f[0] = StructureField("PCR PID", "0x1FFF (none)") }
                nodes.append(StructureNode(name: name, offset: offset, headerSize: 4, size: 188,
                                           summary: p.streams.map(\.name).joined(separator: ", "), fields: f,
                                           damage: p.crcErrors > 0 ? "\(p.crcErrors) PMT sections fail their CRC" : nil,
                                           isContainer: !p.streams.isEmpty, depth: 0, tag: TransportStreamParser.Tag.program << 32 | UInt64(index)))
            }
            if let sdt {
                nodes.append(StructureNode(name: "SDT", offset: sdt.offset, headerSize: 4, size: 188, summary: "\(sdt.services) service\(sdt.services == 1 ? "" : "s")", fields: sdt.fields, depth: 0))
            }
            if let nit { nodes.append(StructureNode(name: "NIT", offset: nit.offset, headerSize: 4, size: 188, fields: nit.fields, depth: 0)) }
            if firstSync >= 0 {
                nodes.append(StructureNode(name: "PIDs", offset: firstSync, headerSize: 0, size: max(0, scanEnd - firstSync),
                                           summary: "\(pids.count) PID\(pids.count == 1 ? "" : "s")", isContainer: !pids.isEmpty,
                                           depth: 0, tag: TransportStreamParser.Tag.pids << 32))
            }
            return nodes
        }

        func streamNodes(_ p: Program, budget: StructureBudget) -> [StructureNode] {
            guard let offset = p.offset else { return [] }
            return p.streams.map { s in
                var f = [StructureField("PID", Self.pidName(s.pid)), StructureField("stream type", String(format: "0x%02X ", s.type) + s.name),
                         StructureField("kind", s.kind)]
                if let lang = s.language { f.append(StructureField("language", lang)) }
                for (i, d) in s.descriptors.prefix(budget.maxListedEntries).enumerated() { f.append(StructureField("descriptor \(i + 1)", d)) }
                let seen = pids[s.pid]
                return StructureNode(name: "PID \(Self.pidName(s.pid))", offset: offset, headerSize: 4, size: 188,
                                     summary: "\(s.name)" + (s.language.map { ", \($0)" } ?? "") + (seen == nil ? ", no packets" : ""),
                                     fields: f, depth: 1)
            }
        }

        /// What a PID carries, from the tables.
        func role(_ pid: Int) -> String {
            switch pid {
            case 0: return "PAT"
            case 1: return "CAT"
            case 0x11: return "SDT"
            case 0x12: return "EIT"
            case 0x14: return "TDT/TOT"
            case 0x1FFF: return "null"
            default: break
            }
            if pid == nitPID { return "NIT" }
            var roles: [String] = []
            for p in programs {
                if p.pmtPID == pid { roles.append("PMT \(p.number)") }
                if let s = p.streams.first(where: { $0.pid == pid }) { roles.append(s.name) }
                if p.pcrPID == pid, !p.streams.contains(where: { $0.pid == pid }) { roles.append("PCR") }
            }
            return roles.isEmpty ? "not in any table" : roles.joined(separator: ", ")
        }

        func pidNodes() -> [StructureNode] {
            pids.keys.sorted().map { pid in
                let s = pids[pid]!
                var f = [StructureField("carries", role(pid)), StructureField("packets", ContainerScan.grouped(s.packets)),
                         StructureField("payload unit starts", ContainerScan.grouped(s.unitStarts)), StructureField("scrambled", ContainerScan.grouped(s.scrambled)),
                         StructureField("adaptation fields", ContainerScan.grouped(s.adaptation)),
                         StructureField("continuity errors", ContainerScan.grouped(s.ccErrors) + (s.ccErrorOffsets.isEmpty ? "" : " (first at " + s.ccErrorOffsets.map { ContainerScan.grouped($0) }.joined(separator: ", ") + ")")),
                         StructureField("duplicates", ContainerScan.grouped(s.duplicates)),
                         StructureField("discontinuity indicators", ContainerScan.grouped(s.discontinuities)),
                         StructureField("PCRs", ContainerScan.grouped(s.pcrCount))]
                if s.transportErrors > 0 { f.append(StructureField("transport errors", ContainerScan.grouped(s.transportErrors))) }
                if let first = s.firstPCR, let last = s.lastPCR {
                    f += [StructureField("first PCR", pcrSeconds(first) + " s"), StructureField("last PCR", pcrSeconds(last) + " s"),
                          StructureField("max PCR interval", String(format: "%.3f ms", Double(s.maxPCRInterval) / 27_000))]
                }
                var damage: [String] = []
                if s.ccErrors > 0 {
                    damage.append("\(ContainerScan.grouped(s.ccErrors)) continuity error\(s.ccErrors == 1 ? "" : "s"), first at offset\(s.ccErrorOffsets.count == 1 ? "" : "s") " + s.ccErrorOffsets.map { ContainerScan.grouped($0) }.joined(separator: ", "))
                }
                if s.transportErrors > 0 { damage.append("\(ContainerScan.grouped(s.transportErrors)) packets flagged with transport errors") }
                return StructureNode(name: "PID \(Self.pidName(pid))", offset: s.firstOffset, headerSize: 4, size: 188,
                                     summary: "\(role(pid)), \(ContainerScan.grouped(s.packets)) packet\(s.packets == 1 ? "" : "s")" + (s.ccErrors > 0 ? ", \(s.ccErrors) CC errors" : ""),
                                     fields: f, damage: damage.isEmpty ? nil : damage.joined(separator: "; "), depth: 1)
            }
        }
    }
}

extension TransportStreamParser.Assembler {
    /// The section's whole length (3 + section_length), once its header is in.
    var expected: Int? {
        guard bytes.count >= 3 else { return nil }
        return 3 + (Int(bytes[1] & 0x0F) << 8 | Int(bytes[2]))
    }
}
