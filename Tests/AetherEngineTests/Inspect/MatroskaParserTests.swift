import AetherEngine
@testable import AetherStructure
import AetherTestSupport
import Foundation
import Testing

/// Reading the tree the way the inspector does: every container expanded, in file order, each
/// Cluster refined (its block counts) once its blocks are read.
enum EBMLTree {
    static func parser(_ path: String) throws -> MatroskaParser {
        MatroskaParser(source: try FileByteSource(path: path))
    }

    /// Pre-order: each node followed by its children.
    static func expandAll(_ parser: MatroskaParser, limit: Int = 200_000) -> [StructureNode] {
        var out: [StructureNode] = []
        func visit(_ nodes: [StructureNode]) {
            for node in nodes where out.count < limit {
                guard node.isContainer else { out.append(node); continue }
                let (children, _) = parser.children(of: node)
                out.append(parser.refined(node))
                visit(children)
            }
        }
        visit(parser.top().nodes)
        return out
    }

    static func first(_ nodes: [StructureNode], _ name: String) -> StructureNode? { nodes.first { $0.name == name } }
    static func all(_ nodes: [StructureNode], _ name: String) -> [StructureNode] { nodes.filter { $0.name == name } }
    static func field(_ node: StructureNode?, _ name: String) -> String? { node?.fields.first { $0.name == name }?.value }

    /// `1234567` → `1,234,567`, as damage texts write offsets.
    static func grouped(_ value: Int64) -> String { ContainerScan.grouped(value) }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// The tree equals mkvtoolnix's `mkvinfo` (an independent EBML reader): every element's depth,
/// position and size, in order. mkvinfo hides CRC-32 elements and shows each laced frame as a
/// line of its own (no "data size"); both are left out of the comparison.
@Suite struct MatroskaTreeTests {
    struct Entry: Equatable, CustomStringConvertible {
        var depth: Int
        var offset: Int64
        var size: Int64?
        var label: String
        static func == (a: Entry, b: Entry) -> Bool { a.depth == b.depth && a.offset == b.offset && a.size == b.size }
        var description: String { "\(String(repeating: " ", count: depth))\(label) @\(offset) size \(size.map(String.init) ?? "unknown")" }
    }

    /// mkvinfo's `-a -p -z` lines: `|  + Seek ID: … at 0x42 size 7 data size 4`, or
    /// `+ Segment: size unknown at 0x24 size is unknown`; the `+`'s column is the depth.
    static func mkvinfo(_ path: String) throws -> [Entry] {
        let r = Process.run(["/usr/bin/env", "mkvinfo", "-a", "-p", "-z", "--ui-language", "en_US", path], timeout: 120)
        try #require(r.status == 0 && !r.stdout.isEmpty, "mkvinfo (Debian's mkvtoolnix; Tests/Scripts/install-deps.sh) failed: \(r.stderr)")
        var entries: [Entry] = []
        for line in r.stdout.split(separator: "\n") {
            guard let plus = line.firstIndex(of: "+") else { continue }
            let depth = line.distance(from: line.startIndex, to: plus)
            if let m = line.firstMatch(of: /at 0x([0-9a-f]+) size ([0-9]+) data size [0-9]+$/) {
                entries.append(Entry(depth: depth, offset: Int64(m.1, radix: 16)!, size: Int64(m.2)!, label: String(line[plus...].prefix(40))))
            } else if let m = line.firstMatch(of: /at 0x([0-9a-f]+) size is unknown$/) {
                entries.append(Entry(depth: depth, offset: Int64(m.1, radix: 16)!, size: nil, label: String(line[plus...].prefix(40))))
            }
        }
        return entries
    }

    static func ours(_ path: String) throws -> [Entry] {
        EBMLTree.expandAll(try EBMLTree.parser(path)).filter { $0.name != "CRC-32" }.map {
            Entry(depth: $0.depth, offset: $0.offset, size: $0.size, label: $0.name)
        }
    }

    static let fixtures = ["h264-aac-2audio-srt-ass.mkv", "ebml-attachments.mkv", "ebml-live.webm", "ebml-mkvmerge-hdr.mkv",
                           "vp9-opus.webm", "av1-opus.webm", "vp8-vorbis.webm", "multi-audio.mkv", "dvdsub.mkv",
                           "h264-bframes.mkv", "h264-720p.mkv", "tones-51.mkv", "video-only.mkv", "sine-1k.mkv",
                           "frames-sar2.mkv", "extreme-timestamps.mkv", "damaged-h264.mkv"]

    @Test(arguments: fixtures)
    func treeEqualsMkvinfo(fixture: String) throws {
        let path = TestEnvironment.fixture(fixture)
        let theirs = try Self.mkvinfo(path)
        let ours = try Self.ours(path)
        #expect(theirs.count > 10, "mkvinfo printed \(theirs.count) elements")
        let firstDifference = (0..<min(theirs.count, ours.count)).first { theirs[$0] != ours[$0] }
        if let i = firstDifference ?? (theirs.count == ours.count ? nil : min(theirs.count, ours.count)) {
            let context = { (list: [Entry]) in list[max(0, i - 3)..<min(list.count, i + 3)].map(\.description).joined(separator: "\n") }
            Issue.record("\(fixture): element \(i) differs (mkvinfo \(theirs.count), ours \(ours.count))\nmkvinfo:\n\(context(theirs))\nours:\n\(context(ours))")
        }
        // A well-formed file carries no damage.
        let damaged = EBMLTree.expandAll(try EBMLTree.parser(path)).filter { $0.damage != nil }
        #expect(damaged.isEmpty, "\(damaged.prefix(3).map { "\($0.name) @\($0.offset): \($0.damage!)" })")
    }

    @Test func everyKindOfElementIsDecoded() throws {
        let nodes = EBMLTree.expandAll(try EBMLTree.parser(TestEnvironment.fixture("ebml-attachments.mkv")))
        let has = Set(nodes.map(\.name))
        for name in ["EBML", "DocType", "Segment", "SeekHead", "Seek", "SeekID", "SeekPosition", "Info", "TimestampScale",
                     "Duration", "Title", "MuxingApp", "WritingApp", "Tracks", "TrackEntry", "TrackNumber", "TrackUID",
                     "TrackType", "CodecID", "CodecPrivate", "Language", "Name", "FlagDefault", "DefaultDuration", "Video",
                     "PixelWidth", "PixelHeight", "Audio", "SamplingFrequency", "Channels", "Chapters", "EditionEntry",
                     "ChapterAtom", "ChapterTimeStart", "ChapterDisplay", "ChapString", "Attachments", "AttachedFile",
                     "FileName", "FileMediaType", "FileData", "Tags", "Tag", "Targets", "SimpleTag", "TagName", "TagString",
                     "Cluster", "Timestamp", "SimpleBlock", "BlockGroup", "Block", "BlockDuration", "Cues", "CuePoint",
                     "CueTime", "CueTrackPositions", "CueClusterPosition", "Void", "CRC-32"] {
            #expect(has.contains(name), "no \(name)")
        }
        #expect(EBMLTree.first(nodes, "EBML")?.summary == "matroska, v4")
        #expect(EBMLTree.first(nodes, "DocType")?.summary == "matroska")
        #expect(EBMLTree.first(nodes, "TimestampScale")?.fields.first?.value == "1000000")
        #expect(EBMLTree.field(EBMLTree.first(nodes, "Duration"), "seconds") == "4.032")
        // The title carries a raw ESC [31m: sanitised.
        #expect(EBMLTree.first(nodes, "Title")?.summary == "Demo Title")
        #expect(EBMLTree.first(nodes, "CodecID")?.summary == "V_MPEG4/ISO/AVC")
        #expect(EBMLTree.first(nodes, "TrackEntry")?.summary == "track 1, video, V_MPEG4/ISO/AVC, 320×240, und")
        #expect(EBMLTree.all(nodes, "TrackEntry")[1].summary == "track 2, audio, A_AAC, 48000 Hz, 2 ch, eng, “English Stereo”")
        #expect(EBMLTree.first(nodes, "TrackType")?.summary == "1 (video)")
        #expect(EBMLTree.first(nodes, "Seek")?.summary?.hasPrefix("Info, at ") == true)
        #expect(EBMLTree.first(nodes, "SeekID")?.summary == "Info")
        #expect(EBMLTree.all(nodes, "ChapString").compactMap(\.summary) == ["Opening", "Middle", "End"])
        #expect(EBMLTree.all(nodes, "ChapterAtom").compactMap(\.summary) == ["0:00:00.000, “Opening”", "0:00:01.000, “Middle”", "0:00:02.500, “End”"])
        #expect(EBMLTree.first(nodes, "FileName")?.summary == "note.txt")
        #expect(EBMLTree.first(nodes, "FileMediaType")?.summary == "text/plain")
        #expect(EBMLTree.first(nodes, "FileData")?.fields.first?.value == "14 bytes")
        #expect(EBMLTree.first(nodes, "AttachedFile")?.summary == "note.txt, text/plain")
        #expect(EBMLTree.all(nodes, "SimpleTag").contains { $0.summary == "COMMENT = ebml fixture" })
        let block = try #require(EBMLTree.first(nodes, "SimpleBlock"))
        #expect(EBMLTree.field(block, "track") == "1")
        #expect(EBMLTree.field(block, "relative timestamp") == "0")
        #expect(EBMLTree.field(block, "flags") == "keyframe")
        #expect(block.summary == "track 1, +0, key")
        let group = try #require(EBMLTree.first(nodes, "Block"))
        #expect(EBMLTree.field(group, "flags") == "none")
        #expect(EBMLTree.first(nodes, "BlockDuration")?.summary == "1000")
        let cluster = try #require(EBMLTree.first(nodes, "Cluster"))
        #expect(cluster.summary?.hasPrefix("timestamp 0; ") == true && cluster.summary!.contains("track 1 ×"), "\(cluster.summary ?? "")")
        #expect(EBMLTree.first(nodes, "CRC-32")?.summary?.count == 11)
    }

    @Test func hdrColourAndMkvmergesFieldsAreDecoded() throws {
        let nodes = EBMLTree.expandAll(try EBMLTree.parser(TestEnvironment.fixture("ebml-mkvmerge-hdr.mkv")))
        #expect(EBMLTree.first(nodes, "MaxCLL")?.summary == "1000")
        #expect(EBMLTree.first(nodes, "MaxFALL")?.summary == "400")
        #expect(EBMLTree.first(nodes, "MatrixCoefficients")?.summary == "9")
        #expect(EBMLTree.first(nodes, "TransferCharacteristics")?.summary == "16")
        #expect(EBMLTree.first(nodes, "Primaries")?.summary == "9")
        #expect(EBMLTree.first(nodes, "LuminanceMax")?.summary == "1000")
        #expect(EBMLTree.first(nodes, "LuminanceMin")?.summary == "9.99999975e-05")
        #expect(EBMLTree.first(nodes, "PrimaryRChromaticityX")?.summary == "0.680000007")
        #expect(EBMLTree.first(nodes, "MasteringMetadata")?.isContainer == true)
        #expect(EBMLTree.first(nodes, "LanguageBCP47")?.summary == "en")
        #expect(EBMLTree.first(nodes, "Name")?.summary == "HDR video")
        #expect(EBMLTree.first(nodes, "SegmentUUID")?.fields.first { $0.name == "first bytes" }?.value.count == 47)
        // mkvmerge laces AC-3: blocks that carry several frames say how many.
        let laced = nodes.filter { $0.name == "SimpleBlock" && EBMLTree.field($0, "frames") != nil }
        #expect(!laced.isEmpty)
        #expect(laced.allSatisfy { EBMLTree.field($0, "flags")!.contains("lacing") })
    }

    @Test func datesAreISO8601() {
        #expect(EBMLText.isoDate(nanosecondsSince2001: 0) == "2001-01-01T00:00:00Z")
        #expect(EBMLText.isoDate(nanosecondsSince2001: -978_307_200_000_000_000) == "1970-01-01T00:00:00Z")
        #expect(EBMLText.isoDate(nanosecondsSince2001: 1) == "2001-01-01T00:00:00Z")
        #expect(EBMLText.isoDate(nanosecondsSince2001: -1) == "2000-12-31T23:59:59Z")
        // 2024-02-29T12:34:56Z (a leap day) is 730,902,896 s after 2001.
        #expect(EBMLText.isoDate(nanosecondsSince2001: 730_902_896_000_000_000) == "2024-02-29T12:34:56Z")
        #expect(EBMLText.isoDate(nanosecondsSince2001: .max) == "2293-04-11T23:47:16Z")
        #expect(EBMLText.isoDate(nanosecondsSince2001: .min) == "1708-09-22T00:12:43Z")
    }

    @Test func liveFilesHaveUnknownSizesWithoutDamage() throws {
        let parser = try EBMLTree.parser(TestEnvironment.fixture("ebml-live.webm"))
        let top = parser.top().nodes
        let segment = try #require(EBMLTree.first(top, "Segment"))
        #expect(segment.size == nil && segment.summary == "unknown size" && segment.damage == nil)
        let children = parser.children(of: segment).nodes
        let clusters = EBMLTree.all(children, "Cluster")
        #expect(clusters.count > 1)
        #expect(clusters.allSatisfy { $0.size == nil && $0.damage == nil && $0.summary?.hasPrefix("unknown size; timestamp ") == true })
        // Each live Cluster ends where the next begins: its blocks stop there.
        for (cluster, next) in zip(clusters, clusters.dropFirst()) {
            let blocks = parser.children(of: cluster).nodes
            #expect(blocks.count > 2 && blocks.allSatisfy { $0.end! <= next.offset })
            #expect(blocks.last!.end == next.offset)
        }
        let length = try FileByteSource(path: TestEnvironment.fixture("ebml-live.webm")).length
        #expect(parser.children(of: clusters.last!).nodes.last?.end == length)
    }
}

/// Files built to hurt: each opens (top level, then whatever is shown expanded) in under a
/// second, shows the damage with its offset, and goes on with what it can trust.
// A runaway (a budget that stops nothing) fails at the limit; the budgets themselves are
// judged by counts (what is listed, left out, read), not by the clock.
@Suite(.timeLimit(.minutes(1))) struct MatroskaHostileTests {
    static func vint(_ value: UInt64, length: Int) -> [UInt8] {
        (0..<length).map { i in UInt8(truncatingIfNeeded: value >> (8 * UInt64(length - 1 - i))) | (i == 0 ? UInt8(0x80) >> (length - 1) : 0) }
    }

    static func element(_ id: UInt32, _ payload: [UInt8], sizeLength: Int = 8) -> [UInt8] {
        idBytes(id) + vint(UInt64(payload.count), length: sizeLength) + payload
    }

    static func idBytes(_ id: UInt32) -> [UInt8] {
        let bytes = [UInt8(id >> 24), UInt8(truncatingIfNeeded: id >> 16), UInt8(truncatingIfNeeded: id >> 8), UInt8(truncatingIfNeeded: id)]
        return Array(bytes.drop { $0 == 0 })
    }

    static let header = element(0x1A45DFA3, element(0x4282, Array("matroska".utf8), sizeLength: 1), sizeLength: 1)
    static let info = element(0x1549A966, element(0x2AD7B1, [0x0F, 0x42, 0x40], sizeLength: 1), sizeLength: 1)
    static func cluster(_ timestamp: UInt8) -> [UInt8] {
        element(0x1F43B675, element(0xE7, [timestamp], sizeLength: 1) + element(0xA3, [0x81, 0x00, 0x00, 0x80, 0xAA], sizeLength: 1), sizeLength: 1)
    }

    /// Opens the bytes as the inspector does and expands everything within `cap` nodes.
    static func open(_ bytes: [UInt8], cap: Int = 20_000) -> (nodes: [StructureNode], seconds: Double) {
        var nodes: [StructureNode] = []
        let seconds = EBMLTree.seconds {
            nodes = EBMLTree.expandAll(MatroskaParser(source: MemoryByteSource(bytes)), limit: cap)
        }
        return (nodes, seconds)
    }

    @Test func unknownSizeAtTheTopLevelIsDamageAndTheSegmentIsStillShown() {
        // An EBML header of unknown size: it ends where the Segment (not its child) begins.
        let unknownHeader = [0x1A, 0x45, 0xDF, 0xA3, 0xFF] + Self.element(0x4282, Array("webm".utf8), sizeLength: 1)
        let segment = Self.element(0x18538067, Self.info + Self.cluster(0))
        let (nodes, _) = Self.open(unknownHeader + segment)
        let ebml = EBMLTree.first(nodes, "EBML")
        #expect(ebml?.size == nil && ebml?.damage?.contains("at offset 0 has an unknown size") == true, "\(ebml?.damage ?? "")")
        #expect(EBMLTree.first(nodes, "DocType")?.summary == "webm")
        #expect(EBMLTree.first(nodes, "Segment")?.offset == Int64(unknownHeader.count))
        #expect(EBMLTree.first(nodes, "SimpleBlock") != nil)

        // A Void (not a master) of unknown size at the top: it runs to the end of the file.
        let void: [UInt8] = [0xEC, 0xFF, 1, 2, 3]
        let (after, _) = Self.open(Self.header + void + segment)
        let node = EBMLTree.first(after, "Void")
        #expect(node?.damage?.contains("Void at offset \(Self.header.count) has an unknown size") == true && node?.damage?.contains("the end of the file") == true,
                "\(node?.damage ?? "")")
        // An unknown-size Info inside a Segment: damage, ends at the Cluster.
        let inner = Self.element(0x18538067, [0x15, 0x49, 0xA9, 0x66, 0xFF] + Self.element(0x7BA9, Array("t".utf8), sizeLength: 1) + Self.cluster(3))
        let (innerNodes, _) = Self.open(Self.header + inner)
        let info = EBMLTree.first(innerNodes, "Info")
        #expect(info?.damage?.contains("only a Segment or a Cluster may leave it open") == true)
        #expect(EBMLTree.first(innerNodes, "Title")?.summary == "t")
        #expect(EBMLTree.first(innerNodes, "Cluster")?.damage == nil)
    }

    @Test func aTruncatedClusterNamesWhereItIsCut() throws {
        let path = TestEnvironment.fixture("h264-720p.mkv")
        let whole = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        let parser = MatroskaParser(source: MemoryByteSource(whole))
        let segment = try #require(EBMLTree.first(parser.top().nodes, "Segment"))
        let clusters = EBMLTree.all(parser.children(of: segment).nodes, "Cluster")
        try #require(clusters.count >= 2)
        let blocks = EBMLTree.all(parser.children(of: clusters[1]).nodes, "SimpleBlock")
        let victim = blocks[blocks.count / 2]
        let cut = Int(victim.offset + victim.size! / 2)
        let (nodes, _) = Self.open(Array(whole[..<cut]))
        let damaged = nodes.filter { $0.damage != nil }
        #expect(damaged.map(\.name) == ["Segment", "Cluster", "SimpleBlock"], "\(damaged.map { "\($0.name): \($0.damage!)" })")
        let block = try #require(damaged.last)
        #expect(block.offset == victim.offset && block.end == Int64(cut))
        #expect(block.damage!.contains("SimpleBlock at offset \(EBMLTree.grouped(victim.offset)) claims"), "\(block.damage!)")
        #expect(block.damage!.contains("(it ends at offset \(EBMLTree.grouped(Int64(cut))))"))
        #expect(damaged[1].damage!.contains("Cluster at offset \(EBMLTree.grouped(clusters[1].offset))"))
        // Everything before the cut is still there, unchanged.
        let before = EBMLTree.expandAll(parser).filter { $0.end.map { $0 <= Int64(cut) } ?? false && $0.name != "Segment" }
        #expect(before.allSatisfy { node in nodes.contains { $0.offset == node.offset && $0.size == node.size && $0.damage == nil } })
    }

    @Test func aSizeOf2To56BytesIsClipped() {
        // 0x01 FF FF FF FF FF FF FE: 2^56 - 2, the largest size that is not "unknown".
        let segment = [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE] + Self.info + Self.cluster(0)
        let bytes = Self.header + segment
        let (nodes, _) = Self.open(bytes)
        let node = EBMLTree.first(nodes, "Segment")
        #expect(node?.size == Int64(segment.count))
        let expected = "Segment at offset \(Self.header.count) claims 72,057,594,037,927,934 bytes"
        #expect(node?.damage?.hasPrefix(expected) == true && node?.damage?.hasSuffix("clipped") == true, "\(node?.damage ?? "")")
        #expect(EBMLTree.first(nodes, "SimpleBlock")?.damage == nil)
        // The same inside a Cluster: a block claiming 2^56 is clipped to the cluster.
        let block: [UInt8] = [0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0x81, 0x00, 0x00, 0x80]
        let clusterBytes = Self.element(0x1F43B675, block)
        let (inCluster, _) = Self.open(Self.header + Self.element(0x18538067, clusterBytes))
        let clipped = EBMLTree.first(inCluster, "SimpleBlock")
        #expect(clipped?.damage?.contains("more than Cluster at offset") == true, "\(clipped?.damage ?? "")")
        #expect(EBMLTree.field(clipped, "track") == "1")
    }

    @Test func anInvalidVINTResyncsAtTheNextCluster() {
        let garbage: [UInt8] = [0x00, 0x00, 0x13, 0x37] + Array(repeating: 0x42, count: 100)
        let payload = Self.info + Self.cluster(0) + garbage + Self.cluster(1) + Self.cluster(2)
        let segment = Self.element(0x18538067, payload)
        let bytes = Self.header + segment
        let (nodes, _) = Self.open(bytes)
        let bad = Int64(Self.header.count + 12 + Self.info.count + Self.cluster(0).count)
        let invalid = EBMLTree.first(nodes, "(invalid)")
        #expect(invalid?.offset == bad && invalid?.size == Int64(garbage.count))
        #expect(invalid?.damage == "invalid EBML ID at offset \(bad) (first byte 0x00); resynced at the next Cluster ID at offset \(bad + Int64(garbage.count)) (104 bytes on)",
                "\(invalid?.damage ?? "")")
        #expect(EBMLTree.all(nodes, "Cluster").count == 3)
        #expect(EBMLTree.all(nodes, "Timestamp").compactMap { $0.fields.first?.value } == ["0", "1", "2"])
        // A zero size byte, and no Cluster after it: the rest of the Segment is not read.
        let noCluster = Self.element(0x18538067, Self.info + [0x42, 0x86, 0x00, 0x01] + Array(repeating: 0x55, count: 50))
        let (rest, _) = Self.open(Self.header + noCluster)
        let where_ = Int64(Self.header.count + 12 + Self.info.count)
        #expect(EBMLTree.first(rest, "(invalid)")?.damage?.hasPrefix("invalid EBML size at offset \(where_) (first byte 0x00); no Cluster ID in the next 53 bytes") == true,
                "\(EBMLTree.first(rest, "(invalid)")?.damage ?? "")")
        // Inside Tracks there is nothing to resync at: the rest of Tracks is skipped, the Segment goes on.
        let tracks = Self.element(0x1654AE6B, [0x00, 0x01, 0x02])
        let (inTracks, _) = Self.open(Self.header + Self.element(0x18538067, tracks + Self.cluster(5)))
        #expect(EBMLTree.first(inTracks, "(invalid)")?.damage?.contains("the rest of Tracks at offset") == true)
        #expect(EBMLTree.first(inTracks, "Cluster")?.summary == "timestamp 5; 1 block (1 key): track 1 ×1 (1 key)")
    }

    @Test func aMillionNestedMastersStopAtTheDepthLimit() {
        // ChapterAtom may hold ChapterAtoms: 10^6 of them, each 9 bytes of header.
        let depth = 1_000_000
        var bytes = [UInt8](repeating: 0, count: depth * 9)
        bytes.withUnsafeMutableBufferPointer { out in
            for level in 0..<depth {
                let size = UInt64((depth - level - 1) * 9)
                out[level * 9] = 0xB6
                out[level * 9 + 1] = 0x01
                for i in 1..<8 { out[level * 9 + 1 + i] = UInt8(truncatingIfNeeded: size >> (8 * UInt64(7 - i))) }
            }
        }
        let (nodes, _) = Self.open(bytes)
        let budget = StructureBudget()
        #expect(nodes.count == budget.maxDepth + 1)
        let deepest = nodes.last!
        #expect(deepest.depth == budget.maxDepth && !deepest.isContainer)
        #expect(deepest.damage?.contains("nested 49 levels deep") == true, "\(deepest.damage ?? "")")

        // The same with unknown sizes: where each ends is searched only down to the limit. Each
        // of the maxDepth + 1 listings reads one header a level, from its own down to the limit,
        // and the summary of the node it lists: at most (maxDepth + 1) × (maxDepth + 2) reads,
        // where a search that went past the limit would read up to maxScanSteps headers a listing.
        let open = (0..<(depth * 2)).map { $0 % 2 == 0 ? UInt8(0xB6) : 0xFF }
        let source = StructureTestSupport.CountingSource(MemoryByteSource(open))
        let unknown = EBMLTree.expandAll(MatroskaParser(source: source), limit: 20_000)
        #expect(source.reads <= (budget.maxDepth + 1) * (budget.maxDepth + 2), "\(source.reads) reads of \(source.bytesRead) bytes")
        #expect(unknown.count == budget.maxDepth + 1 && unknown.allSatisfy { $0.damage != nil })
        #expect(unknown[0].damage?.hasPrefix("ChapterAtom at offset 0 has an unknown size") == true)
    }

    @Test func aMillionSiblingsAreBoundedByTheBudget() {
        let count = 1_000_000
        var payload = [UInt8](repeating: 0x80, count: count * 2)
        for i in 0..<count { payload[i * 2] = 0xEC }  // Void, size 0
        let bytes = Self.header + Self.element(0x18538067, payload)
        var children: (nodes: [StructureNode], omitted: Int) = ([], 0)
        _ = EBMLTree.seconds {
            let parser = MatroskaParser(source: MemoryByteSource(bytes))
            let segment = parser.top().nodes[1]
            children = parser.children(of: segment)
        }
        let budget = StructureBudget()
        #expect(children.nodes.count == budget.maxChildren + 1)
        #expect(children.omitted == budget.maxScanSteps - budget.maxChildren)
        let stop = children.nodes.last!
        let stopAt = Int64(Self.header.count + 12 + 2 * budget.maxScanSteps)
        #expect(stop.offset == stopAt && stop.damage?.hasPrefix("reading stopped at offset \(EBMLTree.grouped(stopAt)) after 200,000 elements") == true,
                "\(stop.damage ?? "")")
    }

    @Test(arguments: [1, 2, 3])
    func randomBytesNeverHang(seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let noise = (0..<(1 << 20)).map { _ in next() }
        for bytes in [noise, Self.header + [0x18, 0x53, 0x80, 0x67, 0xFF] + noise] {
            let (nodes, _) = Self.open(bytes)
            #expect(!nodes.isEmpty)
            #expect(nodes.contains { $0.damage != nil })
            for node in nodes where node.damage != nil {
                #expect(node.damage!.contains("offset"), "\(node.damage!)")
            }
        }
    }
}

/// A 2 GB file (sparse: a real WebM's Segment, 10,000 small Clusters, then a 2 GB Void over a
/// hole) opens lazily: the top level and the Segment's children in well under a second, with
/// little memory.
// A runaway (a budget that stops nothing) fails at the limit; the budgets themselves are
// judged by counts (what is listed, left out, read), not by the clock.
@Suite(.timeLimit(.minutes(1))) struct MatroskaLazyTests {
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }

    @Test func twoGigabytesOpenLazily() throws {
        let source = try #require(FileManager.default.contents(atPath: TestEnvironment.fixture("vp9-opus.webm"))).map { $0 }
        let parser = MatroskaParser(source: MemoryByteSource(source))
        let top = parser.top().nodes
        let segment = try #require(EBMLTree.first(top, "Segment"))
        let original = Array(source[Int(segment.payloadOffset)..<Int(segment.end!)])
        var clusters: [UInt8] = []
        for i in 0..<10_000 {
            let t = UInt64(4000 + i * 40)
            clusters += MatroskaHostileTests.element(0x1F43B675,
                MatroskaHostileTests.element(0xE7, withUnsafeBytes(of: UInt32(t).bigEndian, Array.init), sizeLength: 1)
                + MatroskaHostileTests.element(0xA3, [0x81, 0x00, 0x00, 0x80, 0x00], sizeLength: 1), sizeLength: 1)
        }
        let voidPayload: Int64 = 2_000_000_000
        let voidHeader: [UInt8] = [0xEC] + MatroskaHostileTests.vint(UInt64(voidPayload), length: 8)
        let segmentPayload = Int64(original.count + clusters.count + voidHeader.count) + voidPayload
        let head = Array(source[..<Int(segment.offset)]) + [0x18, 0x53, 0x80, 0x67] + MatroskaHostileTests.vint(UInt64(segmentPayload), length: 8)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aether-ebml-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("huge.webm").path
        try Data(head + original + clusters + voidHeader).write(to: URL(fileURLWithPath: path))
        let length = Int64(head.count) + segmentPayload
        #expect(truncate(path, off_t(length)) == 0)
        var st = stat()
        #expect(stat(path, &st) == 0 && Int64(st.st_size) == length && Int64(st.st_blocks) * 512 < 64 << 20)

        let before = Self.residentKiB()
        var listed: (nodes: [StructureNode], omitted: Int) = ([], 0)
        var topLevel: [StructureNode] = []
        let seconds = try EBMLTree.seconds {
            let huge = MatroskaParser(source: try FileByteSource(path: path))
            topLevel = huge.top().nodes
            listed = huge.children(of: topLevel[1])
        }
        let grown = Self.residentKiB() - before
        print("lazy 2 GB: \(length) bytes, top + Segment's children in \(String(format: "%.3f", seconds)) s, VmRSS \(before) → \(before + grown) KiB (+\(grown)), "
              + "\(listed.nodes.count) children listed, \(listed.omitted) omitted")
        #expect(grown < 100 << 10)
        #expect(topLevel.map(\.name) == ["EBML", "Segment"] && topLevel.allSatisfy { $0.damage == nil })
        #expect(topLevel[1].size == length - topLevel[1].offset)
        let budget = StructureBudget()
        #expect(listed.nodes.count == budget.maxChildren)
        let originalChildren = parser.children(of: segment).nodes.count
        #expect(listed.omitted == originalChildren + 10_000 + 1 - budget.maxChildren)
        #expect(listed.nodes.allSatisfy { $0.damage == nil })
    }
}

/// Field spot checks against ffprobe on the same files.
@Suite struct MatroskaFieldTests {
    static func ffprobe(_ arguments: [String]) throws -> String {
        let r = Process.run(["/usr/bin/env", "ffprobe", "-v", "error"] + arguments, timeout: 120)
        try #require(r.status == 0, "ffprobe: \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["h264-aac-2audio-srt-ass.mkv", "ebml-mkvmerge-hdr.mkv", "vp9-opus.webm", "ebml-live.webm", "h264-bframes.mkv"])
    func tracksTimesAndPacketsMatchFFprobe(fixture: String) throws {
        let path = TestEnvironment.fixture(fixture)
        let nodes = EBMLTree.expandAll(try EBMLTree.parser(path))
        let codecs = EBMLTree.all(nodes, "CodecID").compactMap(\.summary)
        let names = try Self.ffprobe(["-show_entries", "stream=codec_name", "-of", "default=nw=1:nk=1", path]).split(separator: "\n").map(String.init)
        #expect(codecs.count == names.count)
        let matroskaIDs = ["h264": "V_MPEG4/ISO/AVC", "hevc": "V_MPEGH/ISO/HEVC", "vp8": "V_VP8", "vp9": "V_VP9", "aac": "A_AAC",
                           "ac3": "A_AC3", "opus": "A_OPUS", "subrip": "S_TEXT/UTF8", "ass": "S_TEXT/ASS"]
        #expect(codecs == names.map { matroskaIDs[$0] ?? $0 }, "\(codecs) vs \(names)")

        #expect(EBMLTree.first(nodes, "TimestampScale")?.fields.first?.value == "1000000")
        if let duration = EBMLTree.field(EBMLTree.first(nodes, "Duration"), "seconds").flatMap(Double.init) {
            let theirs = try #require(Double(try Self.ffprobe(["-show_entries", "format=duration", "-of", "default=nw=1:nk=1", path])))
            #expect(abs(duration - theirs) < 0.002, "Duration \(duration) vs ffprobe \(theirs)")
        } else {
            #expect(fixture == "ebml-live.webm", "no Duration")
        }

        // The video track's SimpleBlocks, summed over the clusters, are ffprobe's packets.
        let video = try #require(EBMLTree.all(nodes, "TrackEntry").firstIndex { $0.summary?.contains("video") == true })
        let track = try #require(EBMLTree.all(nodes, "TrackEntry")[video].summary?.split(separator: ",").first?.split(separator: " ").last)
        let blocks = nodes.filter { $0.name == "SimpleBlock" && EBMLTree.field($0, "track") == String(track) }.count
        let packets = try Self.ffprobe(["-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets", "-of", "default=nw=1:nk=1", path])
        #expect(String(blocks) == packets, "\(blocks) blocks vs \(packets) packets")
        // The clusters' summaries count the same blocks.
        let counted = EBMLTree.all(nodes, "Cluster").compactMap(\.summary).reduce(0) { sum, summary in
            guard let m = summary.firstMatch(of: try! Regex("track \(track) ×([0-9,]+)")) else { return sum }
            return sum + Int((m.output[1].substring ?? "0").replacingOccurrences(of: ",", with: ""))!
        }
        #expect(counted == blocks)
    }
}
