import AetherBase
@testable import AetherDisc
import AetherMedia
import AetherStructure
import AetherTestSupport
import Foundation
import Testing

/// DVD-Video read by our own readers (unit tier): the generated disc (make-disc-fixtures.sh) as
/// an ISO 9660 image, as the folder holding VIDEO_TS, and as VIDEO_TS itself gives the same
/// titles; hostile IFOs and images are refused in part, never read out of bounds.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: TestEnvironment.fixture("disc/dvd.iso")), "no disc fixtures (dvdauthor, genisoimage)"))
struct DiscTests {
    static var iso: String { TestEnvironment.fixture("disc/dvd.iso") }
    static var folder: String { TestEnvironment.fixture("disc/dvd") }

    @Test(arguments: ["iso", "folder", "VIDEO_TS"])
    func eachFormOfTheDiscHasItsTitles(form: String) throws {
        let path = form == "iso" ? Self.iso : form == "folder" ? Self.folder : Self.folder + "/VIDEO_TS/"
        let disc = try #require(DVDDisc.open(path), "\(path) is not read as a DVD")
        let titles = disc.info.titles
        #expect(titles.map(\.number) == [1, 2] && titles.map(\.titleSet) == [1, 2])
        #expect(titles.map { ($0.duration * 10).rounded() / 10 } == [3.0, 8.0], "\(titles.map(\.duration))")
        // The main title is the longest by playback time, though its VOB is the smaller.
        let main = try #require(disc.info.mainTitle)
        #expect(main.number == 2)
        #expect(main.chapters.count == 2 && main.chapters[0] == 0 && abs(main.chapters[1] - 4.2) < 0.05, "\(main.chapters)")
        #expect(main.audioLanguages == ["fr"] && titles[0].audioLanguages == ["en"])
        // Its bytes: the title set's VOB, sector by sector.
        let extents = disc.plan(of: main).extents
        let size = extents.reduce(0) { $0 + $1.length }
        #expect(size == Int64((main.cells.last!.last - main.cells.first!.first + 1) * 2048))
        #expect(extents.allSatisfy { $0.file.hasSuffix(form == "iso" ? "dvd.iso" : "VTS_02_1.VOB") })
        let head = disc.files.read(extents[0], at: 0, count: 4)
        #expect(head == [0, 0, 1, 0xBA], "an MPEG-PS pack header: \(head)")
    }

    /// The inspector's container tab on a disc: titles, then title sets, chains and cells.
    @Test func theInspectorShowsTheDiscsStructure() throws {
        let document = try StructureDocument.open(path: Self.iso, network: NetworkSettings(), interrupt: InterruptToken(clock: .monotonic))
        let parser = try #require(DiscStructureParser(path: Self.iso))
        #expect(parser.format == .dvd)
        let top = parser.top().nodes
        #expect(top.map(\.name) == ["Titles", "Title set 1", "Title set 2"], "\(top.map(\.name))")
        #expect(parser.children(of: top[0]).nodes.map(\.summary) == ["3.000 s, 2 chapters, title set 1", "8.000 s, 2 chapters, title set 2 (main)"])
        let first = try #require(parser.children(of: top[1]).nodes.first)
        #expect(parser.children(of: first).nodes.map(\.name) == ["Cell 1", "Cell 2"], "title 1: two cells, one a recording")
        let chain = try #require(parser.children(of: top[2]).nodes.first)
        #expect(parser.children(of: chain).nodes.map(\.name) == ["Cell 1", "Cell 2"] && chain.summary?.hasPrefix("8.000 s, 2 programs") == true)
        _ = document
    }

    @Test func whatIsNotADiscIsNotReadAsOne() {
        #expect(DVDDisc.open(TestEnvironment.fixture("h264-720p.mkv")) == nil)
        #expect(DVDDisc.open(TestEnvironment.fixture("disc")) == nil)   // holds dvd/, not VIDEO_TS
        #expect(DVDDisc.open("/nonexistent/x.iso") == nil)
    }

    /// A folder's files are read only as regular files inside it: a VOB that is a link to a
    /// file outside the disc is left out (the title then has no bytes), as is `..`.
    @Test func aFolderIsReadOnlyInside() throws {
        let dir = NSTemporaryDirectory() + "aether-dvd-\(UUID().uuidString)"
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/VIDEO_TS", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        for name in ["VIDEO_TS.IFO", "VTS_01_0.IFO", "VTS_02_0.IFO", "VTS_01_1.VOB"] {
            try fm.copyItem(atPath: Self.folder + "/VIDEO_TS/" + name, toPath: dir + "/VIDEO_TS/" + name)
        }
        try fm.createSymbolicLink(atPath: dir + "/VIDEO_TS/VTS_02_1.VOB", withDestinationPath: Self.folder + "/VIDEO_TS/VTS_02_1.VOB")
        let disc = try #require(DVDDisc.open(dir))
        #expect(disc.files.files["VTS_02_1.VOB"] == nil)
        #expect(disc.plan(of: try #require(disc.title(2))).extents.isEmpty)
        #expect(!disc.plan(of: try #require(disc.title(1))).extents.isEmpty)
    }

    static func ifo(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/VIDEO_TS/" + name)))
    }

    /// Offsets, counts and times a hostile IFO may hold: each broken field leaves its title or
    /// chain out, the rest is kept; nothing is read outside the bytes.
    @Test func hostileIFOsAreRefusedInPart() throws {
        let vmg = try Self.ifo("VIDEO_TS.IFO"), vts1 = try Self.ifo("VTS_01_0.IFO"), vts2 = try Self.ifo("VTS_02_0.IFO")
        let sets = [1: vts1, 2: vts2]
        #expect(DVDInfo.parse(vmg: vmg) { sets[$0] }.titles.count == 2)
        // The title table's pointer past the end; the title count over its budget.
        var far = vmg
        far[0xC4...0xC7] = [0x7F, 0xFF, 0xFF, 0xFF]
        #expect(DVDInfo.parse(vmg: far) { sets[$0] }.titles.isEmpty)
        var many = vmg
        let table = DiscBytes.be32(vmg, 0xC4) * 2048
        many[table] = 0xFF
        #expect(DVDInfo.parse(vmg: many) { sets[$0] }.leftOut > 0)
        // Title set 2 broken: title 1 still plays.
        var broken = vts2
        broken[0xCC...0xCF] = [0, 0, 0x40, 0]
        let info = DVDInfo.parse(vmg: vmg) { $0 == 2 ? broken : sets[$0] }
        #expect(info.titles.map(\.number) == [1] && info.leftOut > 0)
        // Truncated files, at every length a sector apart: no crash, no title from a cut table.
        for cut in stride(from: 0, to: vts2.count, by: 512) {
            let partial = DVDInfo.parse(vmg: vmg) { $0 == 2 ? Array(vts2.prefix(cut)) : sets[$0] }
            #expect(partial.titles.allSatisfy { $0.titleSet == 1 || cut >= 0x800 })
        }
        for cut in stride(from: 0, to: vmg.count, by: 256) { _ = DVDInfo.parse(vmg: Array(vmg.prefix(cut))) { sets[$0] } }
        // 32 subpicture streams said in a title set of 0x300 bytes (the fuzzer's): their table
        // runs past the end, and is read as far as it goes.
        var short = Array(vts2.prefix(0x300))
        short[0x254...0x255] = [0, 32]
        _ = DVDInfo.parse(vmg: vmg) { $0 == 2 ? short : sets[$0] }
        // A BCD time whose digits are not decimal is 0, not a large number.
        #expect(DVDTitleSet.time([0xFF, 0x00, 0x08, 0xC0], 0) == 0)
        let expected: Double = 3723 + 15 * 1001.0 / 30000
        #expect(DVDTitleSet.time([0x01, 0x02, 0x03, 0xD5], 0) == expected)
    }

    /// An image whose directory records point outside it: left out, counted, the rest read.
    @Test func anImageIsReadOnlyInside() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.iso)))
        let source = MemoryByteSource(bytes)
        let iso = try #require(ISO9660Image(source: source, path: "mem"))
        let entries = try #require(iso.directory(["video_ts"]))
        #expect(entries.count == 9 && iso.volumeName == "AETHER_DVD")
        // VTS_02_1.VOB's record: its extent moved past the image's end.
        let name = Array("VTS_02_1.VOB;1".utf8)
        // (The directories are in the image's first megabyte.)
        let at = try #require(bytes.prefix(1 << 20).firstRange(of: name)?.lowerBound) - 33
        bytes[at + 2...at + 5] = [0xFF, 0xFF, 0xFF, 0x7F]
        let hostile = try #require(ISO9660Image(source: MemoryByteSource(bytes), path: "mem"))
        let kept = try #require(hostile.directory(["VIDEO_TS"]))
        #expect(kept.count == 8 && !kept.contains { $0.name == "VTS_02_1.VOB" } && hostile.leftOut == 1)
        for cut in stride(from: 0, to: 64 << 10, by: 2048) { _ = ISO9660Image(source: MemoryByteSource(Array(bytes.prefix(cut))), path: "mem")?.directory(["VIDEO_TS"]) }
    }
}

/// The program stream's timestamps moved a pack at a time (unit tier): PTS and DTS of each PES
/// packet, the 33-bit wrap, and packs that lie about their lengths.
@Suite struct ProgramStreamRetimerTests {
    /// A 2048-byte MPEG-2 pack: header (no stuffing), a video PES with PTS `pts` and DTS `dts`, padding.
    static func pack(pts: Int64, dts: Int64) -> [UInt8] {
        func stamp(_ prefix: UInt8, _ v: Int64) -> [UInt8] {
            [prefix << 4 | UInt8(v >> 29 & 0x0E) | 1, UInt8(v >> 22 & 0xFF), UInt8(v >> 14 & 0xFE) | 1, UInt8(v >> 7 & 0xFF), UInt8(v << 1 & 0xFE) | 1]
        }
        var b: [UInt8] = [0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 1, 0x89, 0xC3, 0xF8]
        let payload = 100
        b += [0, 0, 1, 0xE0, 0, UInt8(3 + 10 + payload), 0x81, 0xC0, 10] + stamp(3, pts) + stamp(1, dts) + [UInt8](repeating: 0xAB, count: payload)
        let rest = 2048 - b.count - 6
        b += [0, 0, 1, 0xBE, UInt8(rest >> 8), UInt8(rest & 0xFF)] + [UInt8](repeating: 0xFF, count: rest)
        return b
    }
    static func read(_ b: [UInt8], at: Int) -> Int64 {
        Int64(b[at] >> 1 & 7) << 30 | Int64(b[at + 1]) << 22 | Int64(b[at + 2] >> 1) << 15 | Int64(b[at + 3]) << 7 | Int64(b[at + 4] >> 1)
    }

    @Test func ptsAndDtsMoveAndWrap() {
        var b = Self.pack(pts: 93_003, dts: 90_000)
        #expect(ProgramStreamRetimer.shift(&b, by: 270_000) == 2)
        #expect(Self.read(b, at: 23) == 363_003 && Self.read(b, at: 28) == 360_000)
        #expect(b[23] >> 4 == 3 && b[28] >> 4 == 1 && b[23] & 1 == 1 && b[27] & 1 == 1, "prefixes and markers kept")
        #expect(b.count == 2048 && b[33] == 0xAB, "the payload is untouched")
        var wrap = Self.pack(pts: (1 << 33) - 10, dts: (1 << 33) - 10)
        ProgramStreamRetimer.shift(&wrap, by: 20)
        #expect(Self.read(wrap, at: 23) == 10)
        var back = Self.pack(pts: 5, dts: 5)
        ProgramStreamRetimer.shift(&back, by: -10)
        #expect(Self.read(back, at: 23) == (1 << 33) - 5)
    }

    @Test func packsThatLieAreReadOnlyInside() {
        // A PES length past the pack, a header cut at every length, bytes that are no pack.
        var long = Self.pack(pts: 1, dts: 1)
        long[18] = 0xFF; long[19] = 0xFF
        #expect(ProgramStreamRetimer.shift(&long, by: 1) == 2, "the first packet's stamps are inside")
        for cut in stride(from: 0, to: 40, by: 1) {
            var short = Array(Self.pack(pts: 1, dts: 1).prefix(cut))
            _ = ProgramStreamRetimer.shift(&short, by: 90_000)
            #expect(short.count == cut)
        }
        var noise = (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(ProgramStreamRetimer.shift(&noise, by: 5) == 0)
        #expect(ProgramStreamRetimer.vobuStart(noise[...]) == nil && ProgramStreamRetimer.vobuStart([0, 0, 1][...]) == nil)
        #expect(ProgramStreamRetimer.hideNavigation(&noise) == 0)
        for cut in stride(from: 0, to: 40, by: 1) {
            var short = Array(Self.navigationPack().prefix(cut))
            _ = ProgramStreamRetimer.hideNavigation(&short)
            #expect(short.count == cut)
        }
    }

    /// A navigation pack: header, system header, PCI and DSI in private stream 2, padding.
    static func navigationPack() -> [UInt8] {
        var b: [UInt8] = [0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 1, 0x89, 0xC3, 0xF8]
        b += [0, 0, 1, 0xBB, 0, 18] + [UInt8](repeating: 0x80, count: 18)
        b += [0, 0, 1, 0xBF, 0x03, 0xD4] + [0] + [UInt8](repeating: 0x11, count: 0x3D4 - 1)   // PCI
        b += [0, 0, 1, 0xBF, 0x03, 0xE2] + [1] + [UInt8](repeating: 0x22, count: 0x3E2 - 1)   // DSI (shortened)
        let rest = 2048 - b.count - 6
        return b + [0, 0, 1, 0xBE, UInt8(rest >> 8), UInt8(rest & 0xFF)] + [UInt8](repeating: 0xFF, count: rest)
    }

    /// #62 item 17: a DVD's navigation packets become padding (the demuxer skips them and makes
    /// no stream of them); nothing else in the pack changes, and a pack of pictures is left alone.
    @Test func navigationPacketsBecomePadding() {
        var nav = Self.navigationPack()
        let before = nav
        #expect(nav.count == 2048 && ProgramStreamRetimer.vobuStart(nav[...]) != nil)
        #expect(ProgramStreamRetimer.hideNavigation(&nav) == 2)
        #expect(nav[41] == 0xBE && nav[41 + 6 + 0x3D4] == 0xBE)
        #expect(zip(nav, before).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset) == [41, 41 + 6 + 0x3D4])
        var video = Self.pack(pts: 1, dts: 1)
        let same = video
        #expect(ProgramStreamRetimer.hideNavigation(&video) == 0 && video == same)
    }
}
