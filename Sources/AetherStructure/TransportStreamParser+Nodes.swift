import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif


// The scan as structure nodes: the top level, programs, streams and PIDs.
extension TransportStreamParser.Scan {
    /// PMT nodes listed at the top, leaving room for the other five (summary, PAT, SDT, NIT,
    /// PIDs) within the children budget.
    static func shownPrograms(_ budget: StructureBudget) -> Int { max(0, budget.maxChildren - 5) }

    static func pidName(_ pid: Int) -> String { String(cFormat: "0x%04X", pid) }

    func pcrSeconds(_ v: UInt64) -> String { String(cFormat: "%.6f", Double(v) / 27_000_000) }

    func topNodes(budget: StructureBudget) -> [StructureNode] {
        var nodes: [StructureNode] = []
        var fields: [StructureField] = []
        var damage: [String] = []
        let whole = scanEnd >= length
        if firstSync < 0 {
            damage.append("no sync bytes (0x47 every 188, 192 or 204 bytes) in the first \(ContainerScan.grouped(scanEnd)) bytes")
        } else {
            fields += [StructureField("packet size", stride == 192 ? "192 (M2TS: 4-byte timestamp + 188)" : String(stride)),
                       StructureField("first sync byte at", count: firstSync)]
        }
        fields += [StructureField("scanned", "\(ContainerScan.grouped(scanEnd)) of \(ContainerScan.grouped(length)) bytes" + (whole ? " (all)" : " (the first \(ContainerScan.grouped(budget.maxScanBytes)); the rest is not counted)")),
                   StructureField("packets", count: packets), StructureField("PIDs", String(pids.count)),
                   StructureField("sync losses", count: syncLosses)]
        if syncLosses > 0 {
            damage.append("lost sync \(ContainerScan.grouped(syncLosses)) time\(syncLosses == 1 ? "" : "s"), first at offset\(syncLossOffsets.count == 1 ? "" : "s") \(syncLossOffsets.map { ContainerScan.grouped($0) }.joined(separator: ", "))")
        }
        if let gaveUp { damage.append("gave up after \(ContainerScan.grouped(syncLosses)) losses of sync at offset \(ContainerScan.grouped(gaveUp))") }
        if invalidAdaptation > 0 { damage.append("\(ContainerScan.grouped(invalidAdaptation)) packets with an adaptation field longer than the packet") }
        if reservedAdaptation > 0 { fields.append(StructureField("packets with reserved adaptation control", count: reservedAdaptation)) }
        if trailing > 0 { fields.append(StructureField("trailing bytes", count: trailing)) }
        let cc = pids.values.reduce(0) { $0 + $1.ccErrors }
        fields.append(StructureField("continuity errors", count: cc))
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

    func streamNodes(_ p: TransportStreamParser.Program, budget: StructureBudget) -> [StructureNode] {
        guard let offset = p.offset else { return [] }
        return p.streams.map { s in
            var f = [StructureField("PID", Self.pidName(s.pid)), StructureField("stream type", String(cFormat: "0x%02X ", s.type) + s.name),
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
            var f = [StructureField("carries", role(pid)), StructureField("packets", count: s.packets),
                     StructureField("payload unit starts", count: s.unitStarts), StructureField("scrambled", count: s.scrambled),
                     StructureField("adaptation fields", count: s.adaptation),
                     StructureField("continuity errors", ContainerScan.grouped(s.ccErrors) + (s.ccErrorOffsets.isEmpty ? "" : " (first at " + s.ccErrorOffsets.map { ContainerScan.grouped($0) }.joined(separator: ", ") + ")")),
                     StructureField("duplicates", count: s.duplicates),
                     StructureField("discontinuity indicators", count: s.discontinuities),
                     StructureField("PCRs", count: s.pcrCount)]
            if s.transportErrors > 0 { f.append(StructureField("transport errors", count: s.transportErrors)) }
            if let first = s.firstPCR, let last = s.lastPCR {
                f += [StructureField("first PCR", pcrSeconds(first) + " s"), StructureField("last PCR", pcrSeconds(last) + " s"),
                      StructureField("max PCR interval", String(cFormat: "%.3f ms", Double(s.maxPCRInterval) / 27_000))]
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
