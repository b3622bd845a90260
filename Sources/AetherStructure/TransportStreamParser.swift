import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
                        if stats.duplicateSeen {
                            ccError(&stats, offset)
                        } else {
                            stats.duplicates += 1
                            stats.duplicateSeen = true
                        }
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
    }
}

extension TransportStreamParser.Assembler {
    /// The section's whole length (3 + section_length), once its header is in.
    var expected: Int? {
        guard bytes.count >= 3 else { return nil }
        return 3 + (Int(bytes[1] & 0x0F) << 8 | Int(bytes[2]))
    }
}
