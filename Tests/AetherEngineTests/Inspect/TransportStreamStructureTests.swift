import AetherEngine
@testable import AetherStructure
import AetherTestSupport
import Foundation
import Testing

/// The container tab's MPEG-TS parser: its program table against `ffprobe -show_programs` on
/// every TS fixture, the continuity rule of ISO/IEC 13818-1 packet by packet, and hostile streams
/// (lost sync, continuity errors, nothing but null packets, random bytes, a scan budget smaller
/// than the file).
// A runaway (a budget that stops nothing) fails at the limit; the budgets themselves are
// judged by counts (what is listed, left out, read), not by the clock.
@Suite(.timeLimit(.minutes(1))) struct TransportStreamStructureTests {
    typealias S = StructureTestSupport

    static let fixtures = ["dvbsub.ts", "mpeg2-interlaced-mp2.ts", "inspect-2programs.ts", "inspect-m2ts.m2ts",
                           "hostile/h264-bad-nal.ts", "hostile/interlaced-switch.ts", "hostile/interlaced-switch-mpeg2.ts",
                           "hostile/no-keyframe-start.ts", "hostile/ts-offset-3600.ts", "hostile/ts-pts-wrap.ts", "hostile/ts-video-late.ts"]

    static func parser(_ bytes: [UInt8], budget: StructureBudget = StructureBudget()) -> TransportStreamParser {
        TransportStreamParser(source: MemoryByteSource(bytes), budget: budget)
    }

    /// A PID as ffprobe prints it (`0x100`) from ours (`0x0100`).
    static func hexPID(_ s: String?) -> Int? { s.flatMap { Int($0.dropFirst(2), radix: 16) } }

    @Test func theProgramTableEqualsFfprobes() throws {
        for name in Self.fixtures {
            let path = S.fixture(name)
            let r = Process.run(["/usr/bin/env", "ffprobe", "-v", "error", "-show_programs", "-of", "json", path])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let programs = (json["programs"] as? [[String: Any]] ?? []).sorted { ($0["program_num"] as? Int ?? 0) < ($1["program_num"] as? Int ?? 0) }
            let parser = TransportStreamParser(source: try FileByteSource(path: path))
            let top = parser.top().nodes
            let pmts = top.filter { $0.name.hasPrefix("PMT program ") }
            #expect(pmts.count == programs.count, "\(name): \(pmts.map(\.name)) vs \(programs.count) programs")
            #expect(top.first?.damage == nil, "\(name): \(top.first?.damage ?? "")")
            for (pmt, program) in zip(pmts, programs) {
                let number = program["program_num"] as? Int ?? -1
                let pmtPID = program["pmt_pid"] as? Int ?? -1
                #expect(pmt.name == "PMT program \(number) (PID \(String(format: "0x%04X", pmtPID)))", "\(name): \(pmt.name)")
                #expect(Self.hexPID(S.field(pmt, "PCR PID")) == program["pcr_pid"] as? Int, "\(name): PCR PID \(S.field(pmt, "PCR PID") ?? "nil")")
                let ours = parser.children(of: pmt).nodes.map { (Self.hexPID(S.field($0, "PID")) ?? -1, S.field($0, "kind") ?? "") }
                let theirs = (program["streams"] as? [[String: Any]] ?? []).map { (Int(($0["id"] as? String ?? "").dropFirst(2), radix: 16) ?? -2, $0["codec_type"] as? String ?? "") }
                #expect(ours.map(\.0) == theirs.map(\.0), "\(name) program \(number): PIDs \(ours) vs \(theirs)")
                #expect(ours.map(\.1) == theirs.map(\.1), "\(name) program \(number): kinds \(ours) vs \(theirs)")
            }
            // Every PID of the PMTs is in the PID list with packets.
            let pids = try #require(top.first { $0.name == "PIDs" })
            let listed = Set(parser.children(of: pids).nodes.map(\.name))
            for pmt in pmts { for es in parser.children(of: pmt).nodes { #expect(listed.contains(es.name), "\(name): \(es.name) has no packets") } }
        }
    }

    @Test func detectionPicksTheseParsersForTheFixtures() throws {
        for name in Self.fixtures {
            #expect(StructureDocument.detect(try FileByteSource(path: S.fixture(name))) == .mpegts, "\(name)")
        }
        for name in ISOBMFFStructureTests.fixtures {
            #expect(StructureDocument.detect(try FileByteSource(path: S.fixture(name))) == .isobmff, "\(name)")
        }
    }

    @Test func theM2TSFixtureIsReadAs192BytePackets() throws {
        let parser = TransportStreamParser(source: try FileByteSource(path: S.fixture("inspect-m2ts.m2ts")))
        let first = try #require(parser.top().nodes.first)
        #expect(S.field(first, "packet size")?.hasPrefix("192") == true && S.field(first, "first sync byte at") == "4")
        #expect(S.field(first, "sync losses") == "0" && S.field(first, "continuity errors") == "0")
        let pmt = try #require(parser.top().nodes.first { $0.name.hasPrefix("PMT") })
        #expect(parser.children(of: pmt).nodes.map(\.summary) == ["H.264", "AC-3"])
    }

    @Test func pidStatisticsAndServicesAreShown() throws {
        let parser = TransportStreamParser(source: try FileByteSource(path: S.fixture("inspect-2programs.ts")))
        let top = parser.top().nodes
        #expect(top.map(\.name) == ["Transport stream", "PAT", "PMT program 1 (PID 0x1000)", "PMT program 2 (PID 0x1001)", "SDT", "PIDs"])
        #expect(S.field(top[1], "program 2") == "PMT PID 0x1001")
        #expect(S.field(top[4], "service 2") == "provider \"FFmpeg\", name \"Two\"")
        let mp2 = try #require(parser.children(of: top[3]).nodes.first)
        #expect(mp2.summary == "MPEG-1 audio, fra" && S.field(mp2, "language") == "fra")
        let pids = parser.children(of: top[5]).nodes
        let video = try #require(pids.first { $0.name == "PID 0x0100" })
        #expect(Int(S.field(video, "PCRs") ?? "") ?? 0 > 10 && S.field(video, "first PCR") != nil && S.field(video, "continuity errors") == "0")
        #expect(pids.allSatisfy { $0.damage == nil })
    }

    // MARK: the continuity rule

    @Test func continuityFollowsISO13818() {
        let pid = 0x100
        var stream: [[UInt8]] = []
        for cc in [0, 1, 1] { stream.append(S.packet(pid: pid, cc: cc)) }          // one duplicate: allowed
        stream.append(S.packet(pid: pid, cc: 1))                                       // a second: error (offset 564)
        stream.append(S.packet(pid: pid, cc: 2))
        stream.append(S.packet(pid: pid, cc: 2, adaptation: [0x00], hasPayload: false)) // no payload: not checked
        stream.append(S.packet(pid: pid, cc: 3))
        stream.append(S.packet(pid: pid, cc: 9))                                       // a jump: error (offset 1,316)
        stream.append(S.packet(pid: pid, cc: 2, adaptation: [0x80]))                   // discontinuity indicator: reset
        stream.append(S.packet(pid: pid, cc: 3))
        stream.append(S.packet(pid: 0x1FFF, cc: 0))
        stream.append(S.packet(pid: 0x1FFF, cc: 0))                                    // null packets: never checked
        let parser = Self.parser(stream.flatMap { $0 })
        let pids = parser.children(of: parser.top().nodes.last!).nodes
        let node = pids.first { $0.name == "PID 0x0100" }
        #expect(S.field(node, "continuity errors") == "2 (first at 564, 1,316)")
        #expect(S.field(node, "duplicates") == "1" && S.field(node, "discontinuity indicators") == "1")
        #expect(node?.damage == "2 continuity errors, first at offsets 564, 1,316")
        #expect(pids.first { $0.name == "PID 0x1FFF" }?.damage == nil)
    }

    // MARK: hostile

    static func open(_ bytes: [UInt8], budget: StructureBudget = StructureBudget()) -> [StructureNode] {
        let parser = Self.parser(bytes, budget: budget)
        let (nodes, seconds) = S.timed { S.walk(parser) }
        return nodes
    }

    @Test func lostSyncAndContinuityErrorsAreDamageWithOffsets() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: S.fixture("dvbsub.ts"))))
        // Five stray bytes before packet 100, and packet 300 of the video PID (0x100) cut out.
        bytes.insert(contentsOf: [1, 2, 3, 4, 5], at: 100 * 188)
        var dropped: Int64 = -1
        for k in 300..<bytes.count / 188 {
            let at = k * 188 + 5
            if bytes[at] == 0x47, (Int(bytes[at + 1] & 0x1F) << 8 | Int(bytes[at + 2])) == 0x100, bytes[at + 3] & 0x10 != 0 {
                bytes.removeSubrange(at..<(at + 188))
                // The error is seen on the next packet of that PID.
                var next = at
                while next + 188 <= bytes.count, !((Int(bytes[next + 1] & 0x1F) << 8 | Int(bytes[next + 2])) == 0x100 && bytes[next + 3] & 0x10 != 0) { next += 188 }
                dropped = Int64(next)
                break
            }
        }
        try #require(dropped > 0)
        let nodes = Self.open(bytes)
        #expect(nodes[0].damage?.contains("lost sync 1 time, first at offset 18,800") == true, "\(nodes[0].damage ?? "nil")")
        #expect(S.field(nodes[0], "sync losses") == "1")
        let video = try #require(nodes.first { $0.name == "PID 0x0100" && $0.depth == 1 && S.field($0, "packets") != nil })
        #expect(video.damage == "1 continuity error, first at offset \(ContainerScan.grouped(dropped))", "\(video.damage ?? "nil")")
        // The tables are still read.
        #expect(nodes.contains { $0.name == "PMT program 1 (PID 0x1000)" })
    }

    @Test func nothingButNullPacketsSaysThereIsNoPAT() {
        let bytes = (0..<20_000).flatMap { S.packet(pid: 0x1FFF, cc: $0 & 15) }
        let nodes = Self.open(bytes)
        #expect(nodes[0].damage == "no PAT in the scanned bytes (3,760,000)", "\(nodes[0].damage ?? "nil")")
        #expect(nodes.map(\.name) == ["Transport stream", "PIDs", "PID 0x1FFF"])
        #expect(nodes[2].summary == "null, 20,000 packets")
    }

    @Test func randomBytesOpenWithoutACrash() throws {
        let random = [UInt8](try Data(contentsOf: URL(fileURLWithPath: S.fixture("random.mkv"))))
        let nodes = Self.open(random)
        #expect(nodes.first?.damage != nil)
        // Random bytes with sync bytes every 188 (a plausible stream of garbage packets).
        var fake = random
        for k in stride(from: 0, to: fake.count - 188, by: 188) { fake[k] = 0x47 }
        let garbage = Self.open(fake)
        #expect(garbage.first.map { S.field($0, "packets") != "0" } == true)
    }

    @Test func aScanBudgetSmallerThanTheFileSaysHowMuchWasRead() throws {
        var budget = StructureBudget()
        budget.maxScanBytes = 188 * 100
        let path = S.fixture("dvbsub.ts")
        let parser = TransportStreamParser(source: try FileByteSource(path: path), budget: budget)
        let first = try #require(parser.top().nodes.first)
        // The file's size as this release's FFmpeg made it.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let digits = Array(String(size))
        let grouped = digits.enumerated().map { i, c in (i > 0 && (digits.count - i) % 3 == 0 ? "," : "") + String(c) }.joined()
        #expect(S.field(first, "scanned") == "18,800 of \(grouped) bytes (the first 18,800; the rest is not counted)")
        #expect(S.field(first, "packets") == "100")
    }

    @Test func aCorruptPATSectionFailsItsCRCAndSaysSo() {
        var pat = S.section(table: 0, id: 1, body: S.be16(1) + S.be16(0xE000 | 0x1000))
        pat[pat.count - 1] ^= 0xFF
        let bytes = S.packet(pid: 0, cc: 0, unitStart: true, payload: [0] + pat) + S.packet(pid: 0x1FFF, cc: 0)
        let nodes = Self.open(bytes)
        #expect(nodes[0].damage == "no PAT in the scanned bytes (376); 1 PSI sections fail their CRC", "\(nodes[0].damage ?? "nil")")
    }
}
