import AetherBase
@testable import AetherDisc
import AetherStructure
import AetherTestSupport
import Foundation
import Testing

/// Blu-ray read by our own readers (unit tier): the generated disc (make-disc-fixtures.sh,
/// make-bluray.py) as a UDF 2.50 image, as the folder holding BDMV and as BDMV itself gives the
/// same titles and the same bytes; hostile playlists, clip information and images are refused
/// in part, never read out of bounds.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: TestEnvironment.fixture("disc/bluray.iso")), "no disc fixtures (make-disc-fixtures.sh)"))
struct BlurayTests {
    static var iso: String { TestEnvironment.fixture("disc/bluray.iso") }
    static var folder: String { TestEnvironment.fixture("disc/bluray") }

    @Test(arguments: ["iso", "folder", "BDMV"])
    func eachFormOfTheDiscHasItsTitles(form: String) throws {
        let path = form == "iso" ? Self.iso : form == "folder" ? Self.folder : Self.folder + "/BDMV/"
        let disc = try #require(BlurayDisc.open(path), "\(path) is not read as a Blu-ray")
        // 00000 plays 1 s (no title), 00003 plays what 00001 does (no title).
        #expect(disc.info.playlists.map(\.name) == ["00000.MPLS", "00001.MPLS", "00002.MPLS", "00003.MPLS"])
        let titles = disc.info.titles
        #expect(titles.map(\.name) == ["00001.MPLS", "00002.MPLS"] && titles.map(\.number) == [1, 2])
        #expect(titles.map { ($0.duration * 1000).rounded() / 1000 } == [10.0, 6.0], "\(titles.map(\.duration))")
        let main = try #require(disc.info.mainTitle)
        #expect(main.number == 1 && main.items.map(\.clip) == ["00001", "00002"])
        #expect(main.chapters.map { ($0 * 1000).rounded() / 1000 } == [0, 4, 6], "\(main.chapters)")
        #expect(main.languages == [0x1100: "eng", 0x1200: "fra"] && titles[1].languages == [0x1100: "deu", 0x1200: "spa"])
        // Its bytes: both clips whole (no entry point after either's out-time), the second's
        // clock moved 4 s on (both recordings start at the same time).
        let plan = disc.plan(of: main)
        #expect(plan.packing == .transportStream)
        let clips = ["00001", "00002"].map { disc.files.files["STREAM/\($0).M2TS"]!.reduce(0) { $0 + $1.length } }
        #expect(plan.pieces.map(\.length) == clips)
        #expect(plan.pieces.map(\.shift) == [0, 360_000], "\(plan.pieces.map(\.shift))")
        #expect(plan.pieces.map(\.extents.count) == (form == "iso" ? [1, 2] : [1, 1]), "the image writes clip 00002 in two extents")
        let head = disc.files.read(plan.extents[0], at: 0, count: 5)
        #expect(head.count == 5 && head[4] == 0x47, "a source packet: 4 bytes of arrival time, then a TS sync byte")
        #expect(disc.clip("00001")?.entryPoints.count == 4 && disc.clip("00002")?.entryPoints.count == 6)
    }

    /// The image's files are the folder's, byte for byte: the metadata partition's entries, a
    /// stream in two extents with another between them.
    @Test func theImageReadsAsTheFolder() throws {
        let image = try #require(BlurayDisc.open(Self.iso)), folder = try #require(BlurayDisc.open(Self.folder))
        #expect(image.files.label == "AETHER_BD")
        #expect(Set(image.files.files.keys) == Set(folder.files.files.keys), "\(image.files.files.keys.sorted())")
        for name in image.files.files.keys.sorted() {
            #expect(image.files.read(name, limit: 4 << 20) == folder.files.read(name, limit: 4 << 20), "\(name)")
        }
        let udf = try #require(UDFImage(source: try FileByteSource(path: Self.iso), path: Self.iso))
        let stream = try #require(udf.directory(["bdmv", "stream"]))
        #expect(stream.map(\.name).sorted() == ["00001.m2ts", "00002.m2ts", "00003.m2ts"] && udf.leftOut == 0)
        // Clip 00002's stream in two extents with 00001's between them, cut inside a source packet.
        let parts = try #require(stream.first { $0.name == "00002.m2ts" }?.extents)
        #expect(parts.count == 2 && parts[0].length % 192 != 0 && parts[1].offset > parts[0].offset + parts[0].length)
    }

    /// A DVD image made by genisoimage carries a UDF 1.02 bridge: the same files as its ISO 9660 side.
    @Test func aDVDsUDFSideListsWhatItsISO9660SideDoes() throws {
        let path = TestEnvironment.fixture("disc/dvd.iso")
        let source = try FileByteSource(path: path)
        let udf = try #require(UDFImage(source: source, path: path)), iso = try #require(ISO9660Image(source: source, path: path))
        let a = try #require(udf.directory(["VIDEO_TS"])), b = try #require(iso.directory(["VIDEO_TS"]))
        #expect(a.map(\.name).sorted() == b.map(\.name).sorted() && a.count == 9)
        for entry in a {
            #expect(entry.extents.map(\.offset) == b.first { $0.name == entry.name }?.extents.map(\.offset), "\(entry.name)")
        }
    }

    /// The inspector's container tab on a Blu-ray: titles, playlists (those that are no title
    /// say why) with their play items, and clips.
    @Test func theInspectorShowsTheDiscsStructure() throws {
        let parser = try #require(DiscStructureParser(path: Self.iso))
        #expect(parser.format == .bluray)
        let top = parser.top().nodes
        #expect(top.map(\.name) == ["Titles", "Playlists", "Clips"], "\(top.map(\.name))")
        #expect(parser.children(of: top[0]).nodes.map(\.summary) == ["10.000 s, 3 chapters, playlist 00001.MPLS (main)", "6.000 s, 1 chapters, playlist 00002.MPLS"])
        let lists = parser.children(of: top[1]).nodes
        #expect(lists.map(\.summary) == ["1.000 s, 1 play item, no title: shorter than 3 s", "10.000 s, 2 play items, title 1",
                                         "6.000 s, 1 play item, title 2", "10.000 s, 2 play items, no title: plays what an earlier one does"])
        #expect(parser.children(of: lists[1]).nodes.map(\.summary) == ["clip 00001, 4.000 s", "clip 00002, 6.000 s"])
        #expect(parser.children(of: top[2]).nodes.map(\.name) == ["00001", "00002", "00003"])
    }

    /// A folder's files are read only as regular files inside it: a stream that is a link out
    /// of the disc is left out (its items then play nothing, one line), as is a linked directory.
    @Test func aFolderIsReadOnlyInside() throws {
        let dir = NSTemporaryDirectory() + "aether-bd-\(UUID().uuidString)"
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/BDMV/STREAM", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        try fm.copyItem(atPath: Self.folder + "/BDMV/index.bdmv", toPath: dir + "/BDMV/index.bdmv")
        try fm.copyItem(atPath: Self.folder + "/BDMV/PLAYLIST", toPath: dir + "/BDMV/PLAYLIST")
        try fm.createSymbolicLink(atPath: dir + "/BDMV/CLIPINF", withDestinationPath: Self.folder + "/BDMV/CLIPINF")
        try fm.copyItem(atPath: Self.folder + "/BDMV/STREAM/00001.m2ts", toPath: dir + "/BDMV/STREAM/00001.m2ts")
        try fm.createSymbolicLink(atPath: dir + "/BDMV/STREAM/00002.m2ts", withDestinationPath: Self.folder + "/BDMV/STREAM/00002.m2ts")
        let disc = try #require(BlurayDisc.open(dir))
        #expect(disc.files.files["STREAM/00002.M2TS"] == nil && !disc.files.files.keys.contains { $0.hasPrefix("CLIPINF/") })
        let plan = disc.plan(of: try #require(disc.title(1)))
        #expect(plan.pieces.count == 1 && plan.extents.count == 1 && plan.extents[0].file.hasSuffix("00001.m2ts"), "\(plan.extents)")
        #expect(disc.plan(of: try #require(disc.title(2))).extents.isEmpty)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/BDMV/" + name)))
    }

    /// Playlists that lie: cut at every length, counts past the bytes, an item whose clip is no
    /// number or that ends before it starts, a mark outside its item. Refused in part.
    @Test func hostilePlaylistsAreRefusedInPart() throws {
        let good = try Self.fixture("PLAYLIST/00001.mpls")
        let base = try #require(BlurayPlaylist.parse(good, name: "x"))
        for cut in 0..<good.count { _ = BlurayPlaylist.parse(Array(good.prefix(cut)), name: "x") }
        // The first item's clip name made no number: the item is left out, the second kept and
        // its marks moved to the playlist's start.
        let list = DiscBytes.be32(good, 8)
        var odd = good
        odd[list + 12] = UInt8(ascii: "/")
        let kept = try #require(BlurayPlaylist.parse(odd, name: "x"))
        #expect(kept.items.map(\.clip) == ["00002"] && kept.leftOut == 1 && kept.chapters.map { ($0 * 1000).rounded() / 1000 } == [0, 2])
        // An out-time before its in-time; an item count past the bytes.
        var backwards = good
        backwards[list + 10 + 2 + 16...list + 10 + 2 + 19] = [0, 0, 0, 0]
        #expect(BlurayPlaylist.parse(backwards, name: "x")?.items.count == 1)
        var many = good
        many[list + 6] = 0x03; many[list + 7] = 0xE7
        let cutShort = try #require(BlurayPlaylist.parse(many, name: "x"))
        #expect(cutShort.items == base.items && cutShort.leftOut == 999 - 2)
        #expect(BlurayPlaylist.parse(Array("MPLS0200".utf8) + [UInt8](repeating: 0xFF, count: 64), name: "x") == nil)
        // No title from nothing; a duplicate is not a second title.
        let info = BlurayInfo.parse(playlists: [("A.MPLS", good), ("B.MPLS", good), ("C.MPLS", [1, 2, 3])])
        #expect(info.titles.map(\.name) == ["A.MPLS"] && info.playlists.count == 2 && info.leftOut == 1)
    }

    @Test func hostileClipInformationIsRefusedInPart() throws {
        let good = try Self.fixture("CLIPINF/00002.clpi")
        let clip = try #require(BlurayClip.parse(good))
        #expect(clip.entryPoints.count == 6 && clip.entryPoints.map(\.pts) == clip.entryPoints.map(\.pts).sorted())
        // From the key frame at 2 s (an item's in-time is a key frame's) to the one at 4 s: from
        // that entry point's packet to the next one's after it.
        let r = clip.byteRange(inTime: clip.entryPoints[2].pts / 2, outTime: clip.entryPoints[4].pts / 2, length: 1 << 30)
        #expect(r == clip.entryPoints[2].packet * 192..<clip.entryPoints[5].packet * 192, "\(r)")
        #expect(clip.byteRange(inTime: 0, outTime: 1, length: 1000).upperBound <= 1000)
        // From the first entry point: the clip's first byte (its tables come before it).
        #expect(clip.byteRange(inTime: clip.entryPoints[0].pts / 2, outTime: clip.entryPoints[1].pts / 2, length: 1 << 30) == 0..<clip.entryPoints[2].packet * 192)
        for cut in 0..<good.count { _ = BlurayClip.parse(Array(good.prefix(cut))) }
        // A fine-entry count past the bytes.
        let cpi = DiscBytes.be32(good, 16)
        var many = good
        many[cpi + 6 + 2 + 5] = 0xFF; many[cpi + 6 + 2 + 7] = 0xFF
        #expect(BlurayClip.parse(many) == nil)
    }

    /// An image whose file entry points its stream outside the image: that file is left out
    /// (counted), the rest read; cut images and damaged descriptors are refused, not read past.
    @Test func anImageIsReadOnlyInside() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.iso)))
        let udf = try #require(UDFImage(source: MemoryByteSource(bytes), path: "mem"))
        let stream = try #require(udf.directory(["BDMV", "STREAM"]))
        // 00003.m2ts's long allocation descriptor: its block moved far past the image.
        let entry = stream.first { $0.name == "00003.m2ts" }!.extents[0]
        let partitionStart: Int64 = 272 * 2048
        let block = UInt32((entry.offset - partitionStart) / 2048)
        let needle = withUnsafeBytes(of: block.littleEndian, Array.init)
        let efeTag = bytes.indices.lazy.filter { at in at % 2048 == 0 && bytes[at] == 0x0A && bytes[at + 1] == 0x01 && Array(bytes[(at + 216 + 4)..<(at + 216 + 8)]) == needle }.first
        let at = try #require(efeTag)
        bytes[at + 216 + 4...at + 216 + 7] = [0xFF, 0xFF, 0xFF, 0x7F]
        let hostile = try #require(UDFImage(source: MemoryByteSource(bytes), path: "mem"))
        let kept = try #require(hostile.directory(["BDMV", "STREAM"]))
        #expect(kept.first { $0.name == "00003.m2ts" }?.extents.isEmpty == true && hostile.leftOut == 1)
        #expect(kept.filter { $0.name != "00003.m2ts" }.allSatisfy { !$0.extents.isEmpty })
        for cut in stride(from: 0, to: 300 * 2048, by: 2048) { _ = UDFImage(source: MemoryByteSource(Array(bytes.prefix(cut))), path: "mem")?.directory(["BDMV"]) }
        var damaged = bytes
        damaged[256 * 2048 + 4] &+= 1
        #expect(UDFImage(source: MemoryByteSource(damaged), path: "mem") == nil, "an anchor whose checksum fails")
    }
}

/// The transport stream's clocks moved a source packet at a time (unit tier).
@Suite struct TransportStreamRetimerTests {
    /// A 192-byte source packet: arrival time, TS header (PUSI, adaptation and payload), an
    /// adaptation field with a PCR, then a video PES with PTS and DTS.
    static func packet(pcr: Int64, pts: Int64, dts: Int64) -> [UInt8] {
        func stamp(_ prefix: UInt8, _ v: Int64) -> [UInt8] {
            [prefix << 4 | UInt8(v >> 29 & 0x0E) | 1, UInt8(v >> 22 & 0xFF), UInt8(v >> 14 & 0xFE) | 1, UInt8(v >> 7 & 0xFF), UInt8(v << 1 & 0xFE) | 1]
        }
        var b: [UInt8] = [0, 0, 0, 0, 0x47, 0x50, 0x11, 0x30, 7, 0x50]
        b += [UInt8(pcr >> 25 & 0xFF), UInt8(pcr >> 17 & 0xFF), UInt8(pcr >> 9 & 0xFF), UInt8(pcr >> 1 & 0xFF), UInt8(pcr & 1) << 7 | 0x7E, 0]
        b += [0, 0, 1, 0xE0, 0, 0, 0x80, 0xC0, 10] + stamp(3, pts) + stamp(1, dts)
        return b + [UInt8](repeating: 0xAB, count: 192 - b.count)
    }

    @Test func pcrPtsAndDtsMove() {
        var b = Self.packet(pcr: 126_000, pts: 129_003, dts: 126_000)
        #expect(TransportStreamRetimer.shift(&b, by: 360_000) == 3)
        let pcr = Int64(b[10]) << 25 | Int64(b[11]) << 17 | Int64(b[12]) << 9 | Int64(b[13]) << 1 | Int64(b[14] >> 7)
        #expect(pcr == 486_000 && b[14] & 0x7E == 0x7E, "the PCR's base moved, its reserved bits kept")
        #expect(ProgramStreamRetimerTests.read(b, at: 25) == 489_003 && ProgramStreamRetimerTests.read(b, at: 30) == 486_000)
        #expect(b.count == 192 && b[35] == 0xAB)
        var back = Self.packet(pcr: 5, pts: 5, dts: 5)
        TransportStreamRetimer.shift(&back, by: -10)
        #expect(ProgramStreamRetimerTests.read(back, at: 25) == (1 << 33) - 5)
    }

    /// A packet of `pid` with continuity counter `cc` (and a payload, or none).
    static func bare(pid: Int, cc: UInt8, payload: Bool = true) -> [UInt8] {
        [0, 0, 0, 0, 0x47, UInt8(pid >> 8), UInt8(pid & 0xFF), (payload ? 0x10 : 0x20) | cc] + [UInt8](repeating: 0xFF, count: 184)
    }

    /// At a join each PID's counters go on from the piece before: video ended at 7 and starts
    /// again at 0 (+8), audio ended at 3, the piece before renumbered by +2 (so 5), and its first
    /// packet carries no payload (so it keeps 5: +5); a PID the piece before did not carry is left.
    @Test func continuityCountersFollowOnAcrossAJoin() {
        let tail = Self.bare(pid: 0x1011, cc: 6) + Self.bare(pid: 0x1011, cc: 7) + Self.bare(pid: 0x1100, cc: 3) + Self.bare(pid: 0x1FFF, cc: 9)
        var head = Self.bare(pid: 0x1011, cc: 0) + Self.bare(pid: 0x1100, cc: 0, payload: false) + Self.bare(pid: 0x1200, cc: 4) + Self.bare(pid: 0x1011, cc: 1)
        let last = TransportStreamRetimer.continuity(tail).last
        #expect(last == [0x1011: 7, 0x1100: 3], "null packets are not counted")
        let deltas = TransportStreamRetimer.deltas(last: last, before: [0x1100: 2], first: TransportStreamRetimer.continuity(head).first)
        #expect(deltas == [0x1011: 8, 0x1100: 5])
        for at in stride(from: 0, to: head.count, by: 192) { TransportStreamRetimer.renumber(&head, from: at, by: deltas) }
        #expect([7, 199, 391, 583].map { head[$0] & 0x0F } == [8, 5, 4, 9], "\([7, 199, 391, 583].map { head[$0] & 0x0F })")
        #expect(head[199] & 0x30 == 0x20 && head[7] & 0xF0 == 0x10, "the other bits of the byte are kept")
    }

    @Test func packetsThatLieAreReadOnlyInside() {
        for cut in 0..<192 {
            var short = Array(Self.packet(pcr: 1, pts: 1, dts: 1).prefix(cut))
            #expect(TransportStreamRetimer.shift(&short, by: 90_000) == 0 && short.count == cut)
        }
        // An adaptation field that claims the whole packet: no PES read past it.
        var long = Self.packet(pcr: 1, pts: 1, dts: 1)
        long[8] = 0xFF
        #expect(TransportStreamRetimer.shift(&long, by: 1) == 1, "the PCR only")
        var noise = (0..<192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(TransportStreamRetimer.shift(&noise, by: 5) == 0)
    }
}
