import AetherEngine
@testable import AetherMedia
@testable import AetherStreaming
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// The MPD parser without a network: the fixtures ffmpeg wrote (SegmentTimeline and `$Number$`
/// addressing), every addressing form written by hand, BaseURL at each level, joined periods,
/// live timing, the `sidx` reader, and hostile manifests (huge repeat counts, negative and
/// overflowing numbers, a million S elements, deep nesting, local files named by a remote
/// manifest).
@Suite struct DASHManifestTests {
    static let host = "http://media.example/dash/"
    static let root = TestEnvironment.fixture("net")

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    static func mpd(_ body: String, type: String = "static", extra: String = "") -> String {
        """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="\(type)" \(extra)>
        \(body)
        </MPD>
        """
    }

    // MARK: the fixtures

    @Test func theTimelineFixtureGivesTenSegmentsPerRepresentation() throws {
        let m = try DASHManifest.parse(try Self.text("dash-vod/manifest.mpd"), base: Self.host + "manifest.mpd")
        #expect(!m.isDynamic && m.duration == 20)
        let sets = try #require(m.periods.first?.adaptationSets)
        #expect(sets.map(\.contentType) == [.video, .audio])
        let video = sets[0].representations
        #expect(video.map(\.id) == ["0", "1"] && video.map(\.bandwidth) == [180_000, 540_000])
        #expect(video[1].width == 640 && video[1].height == 360 && video[1].codecs == "avc1.42c01e")
        #expect(video[0].initialization == .init(url: Self.host + "init-stream0.m4s", range: nil))
        #expect(video[0].segments.count == 10)
        #expect(video[0].segments.first?.resource.url == Self.host + "chunk-stream0-00001.m4s")
        #expect(video[1].segments.last?.resource.url == Self.host + "chunk-stream1-00010.m4s")
        #expect(video[0].segments.map(\.start) == stride(from: 0.0, to: 20, by: 2).map { $0 })
        #expect(video[0].segments.allSatisfy { $0.duration == 2 })
        let audio = try #require(sets[1].representations.first)
        #expect(audio.segments.count == 10)
        // <S t="0" d="95232"/> <S d="96256" r="5"/> ...: 960000 samples in all.
        let samples = audio.segments.reduce(0.0) { $0 + $1.duration } * 48000
        #expect(abs(samples - 960_000) < 0.01, "\(samples)")
        #expect(abs(audio.segments[1].start - 95232.0 / 48000) < 1e-9)
        #expect(m.tracks.map(\.contentType) == [.video, .audio])
    }

    @Test func theNumberFixtureCountsSegmentsFromThePeriodLength() throws {
        let m = try DASHManifest.parse(try Self.text("dash-number/manifest.mpd"), base: Self.host + "manifest.mpd")
        let reps = try #require(m.periods.first).adaptationSets.flatMap(\.representations)
        // 20 s / 2 s: ten each (the eleventh audio chunk is not addressed).
        #expect(reps.map(\.segments.count) == [10, 10, 10])
        #expect(reps[2].segments.last?.resource.url == Self.host + "chunk-stream2-00010.m4s")
        #expect(reps[0].segments[3].start == 6)
    }

    // MARK: addressing

    @Test func timeAndBandwidthIdentifiersWithWidthsAndRepeatUntilTheNextTime() throws {
        let m = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT20S"><AdaptationSet contentType="video">
              <SegmentTemplate timescale="1000" media="$RepresentationID$/$Bandwidth%09d$/t$Time%012d$.m4s" initialization="$RepresentationID$/init.mp4">
                <SegmentTimeline><S t="1000" d="2000" r="-1"/><S t="9000" d="4000" r="-1"/></SegmentTimeline>
              </SegmentTemplate>
              <Representation id="hd" bandwidth="3600000"/>
            </AdaptationSet></Period>
            """, extra: #"mediaPresentationDuration="PT20S""#), base: Self.host + "a/m.mpd")
        let rep = try #require(m.periods.first?.adaptationSets.first?.representations.first)
        #expect(rep.initialization?.url == Self.host + "a/hd/init.mp4")
        // 1000…9000 in 2000s (4 segments), then 9000…20000 in 4000s (3, the last cut by the period end).
        #expect(rep.segments.map { $0.resource.url.replacingOccurrences(of: Self.host + "a/hd/003600000/t", with: "") }
                == ["000000001000.m4s", "000000003000.m4s", "000000005000.m4s", "000000007000.m4s",
                    "000000009000.m4s", "000000013000.m4s", "000000017000.m4s"])
        #expect(rep.segments.first?.start == 1 && rep.segments[4].start == 9)
        #expect(rep.segments.map(\.number) == Array(1...7))
    }

    @Test func startNumberPresentationOffsetAndInheritedTemplateAttributes() throws {
        let m = try DASHManifest.parse(Self.mpd("""
            <Period start="PT10S" duration="PT6S">
              <SegmentTemplate timescale="90000" startNumber="41" presentationTimeOffset="900000"/>
              <AdaptationSet mimeType="audio/mp4" lang="fra">
                <SegmentTemplate duration="180000" media="s$Number$.mp4"/>
                <Representation id="a" bandwidth="96000"/>
              </AdaptationSet>
            </Period>
            """), base: Self.host + "m.mpd")
        let set = try #require(m.periods.first?.adaptationSets.first)
        #expect(set.contentType == .audio && set.language == "fra")
        let rep = try #require(set.representations.first)
        #expect(rep.segments.map(\.resource.url) == ["s41", "s42", "s43"].map { Self.host + $0 + ".mp4" })
        #expect(rep.segments.map(\.start) == [10, 12, 14])
    }

    @Test func segmentListWithRangesAndBaseURLAtEveryLevel() throws {
        let m = try DASHManifest.parse(Self.mpd("""
            <BaseURL>http://cdn.example/root/</BaseURL>
            <Period duration="PT4S"><BaseURL>p1/</BaseURL>
              <AdaptationSet contentType="video"><BaseURL>v/</BaseURL>
                <Representation id="r" bandwidth="1000"><BaseURL>media.mp4</BaseURL>
                  <SegmentList timescale="10" duration="20">
                    <Initialization range="0-799"/>
                    <SegmentURL mediaRange="800-1999"/>
                    <SegmentURL media="other.mp4" mediaRange="2000-2999"/>
                  </SegmentList>
                </Representation>
              </AdaptationSet>
            </Period>
            """), base: Self.host + "m.mpd")
        let rep = try #require(m.periods.first?.adaptationSets.first?.representations.first)
        #expect(rep.initialization == .init(url: "http://cdn.example/root/p1/v/media.mp4", range: .init(offset: 0, length: 800)))
        #expect(rep.segments.map(\.resource) == [
            .init(url: "http://cdn.example/root/p1/v/media.mp4", range: .init(offset: 800, length: 1200)),
            .init(url: "http://cdn.example/root/p1/v/other.mp4", range: .init(offset: 2000, length: 1000)),
        ])
        #expect(rep.segments.map(\.start) == [0, 2])
    }

    /// A hand-built `sidx` (version 0 and 1): three subsegments after the box.
    static func sidx(version: UInt8, timescale: UInt32 = 1000, earliest: UInt64 = 0, firstOffset: UInt64 = 0,
                     references: [(size: UInt32, duration: UInt32)], hierarchical: Bool = false) -> [UInt8] {
        var body: [UInt8] = [version, 0, 0, 0]
        func u32(_ v: UInt32) { body += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u64(_ v: UInt64) { u32(UInt32(v >> 32)); u32(UInt32(v & 0xFFFF_FFFF)) }
        u32(1); u32(timescale)
        if version == 0 { u32(UInt32(earliest)); u32(UInt32(firstOffset)) } else { u64(earliest); u64(firstOffset) }
        body += [0, 0, UInt8(references.count >> 8), UInt8(references.count & 0xFF)]
        for r in references { u32(r.size | (hierarchical ? 0x8000_0000 : 0)); u32(r.duration); u32(0x9000_0000) }
        let size = UInt32(body.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("sidx".utf8) + body
    }

    @Test func segmentBaseReadsItsSegmentsFromTheSidxBox() throws {
        var m = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT6S"><AdaptationSet contentType="audio">
              <Representation id="od" bandwidth="128000"><BaseURL>od.mp4</BaseURL>
                <SegmentBase indexRange="700-767"/>
              </Representation>
            </AdaptationSet></Period>
            """), base: Self.host + "m.mpd")
        #expect(m.needsIndex)
        for version: UInt8 in [0, 1] {
            var copy = m
            let box = Self.sidx(version: version, earliest: 0, firstOffset: 0,
                                references: [(1000, 2000), (1100, 2000), (900, 2000)])
            var asked: [DASHManifest.Resource] = []
            try copy.resolveIndexes { r in asked.append(r); return box }
            #expect(asked == [.init(url: Self.host + "od.mp4", range: .init(offset: 700, length: 68))])
            let rep = try #require(copy.periods.first?.adaptationSets.first?.representations.first)
            #expect(!copy.needsIndex)
            #expect(rep.initialization == .init(url: Self.host + "od.mp4", range: .init(offset: 0, length: 700)))
            let first = Int64(700 + box.count)
            #expect(rep.segments.map(\.resource.range) == [.init(offset: first, length: 1000), .init(offset: first + 1000, length: 1100),
                                                            .init(offset: first + 2100, length: 900)])
            #expect(rep.segments.map(\.start) == [0, 2, 4])
        }
        // An index that cannot be read drops the representation.
        try m.resolveIndexes { _ in nil }
        #expect(m.periods.first?.adaptationSets.first?.representations.isEmpty == true)
    }

    /// An Initialization range over the index, or past it into the first fragment (issue 59,
    /// item 6: `0-1048` over an index at `693-744`): the init section is what comes before the
    /// index. One that ends before the index is kept as written.
    @Test func anInitializationRangeOverTheIndexEndsBeforeIt() throws {
        for (written, kept) in [("0-1048", Int64(693)), ("0-744", 693), ("0-692", 693), ("0-500", 501)] {
            let m = try DASHManifest.parse(Self.mpd("""
                <Period duration="PT6S"><AdaptationSet contentType="audio">
                  <Representation id="od" bandwidth="128000"><BaseURL>od.mp4</BaseURL>
                    <SegmentBase indexRange="693-744"><Initialization range="\(written)"/></SegmentBase>
                  </Representation>
                </AdaptationSet></Period>
                """), base: Self.host + "m.mpd")
            let rep = try #require(m.periods.first?.adaptationSets.first?.representations.first)
            #expect(rep.initialization == .init(url: Self.host + "od.mp4", range: .init(offset: 0, length: kept)), "\(written)")
        }
    }

    /// `RepresentationIndex`: the index at its `@range` of its `@sourceURL` (else of the media),
    /// the segments in the media file, counted from the end of that range; the init section
    /// before an index in the media file. One without `@range` leaves its representation out.
    @Test func aRepresentationIndexNamesTheIndexAndTheSegmentsStayInTheMedia() throws {
        func manifest(_ index: String) throws -> DASHManifest {
            try DASHManifest.parse(Self.mpd("""
                <Period duration="PT6S"><AdaptationSet contentType="audio">
                  <Representation id="od" bandwidth="128000"><BaseURL>od.mp4</BaseURL><SegmentBase>\(index)</SegmentBase></Representation>
                  <Representation id="ok" bandwidth="64000"><BaseURL>ok.mp4</BaseURL><SegmentBase indexRange="700-767"/></Representation>
                </AdaptationSet></Period>
                """), base: Self.host + "m.mpd")
        }
        let box = Self.sidx(version: 0, references: [(1000, 2000), (1100, 2000), (900, 2000)])
        for (index, asked, initialization) in [
            (#"<RepresentationIndex range="700-767"/>"#, DASHManifest.Resource(url: Self.host + "od.mp4", range: .init(offset: 700, length: 68)),
             DASHManifest.Resource(url: Self.host + "od.mp4", range: .init(offset: 0, length: 700))),
            (#"<Initialization range="0-699"/><RepresentationIndex sourceURL="idx/od.sidx" range="0-67"/>"#,
             DASHManifest.Resource(url: Self.host + "idx/od.sidx", range: .init(offset: 0, length: 68)),
             DASHManifest.Resource(url: Self.host + "od.mp4", range: .init(offset: 0, length: 700))),
        ] {
            var m = try manifest(index)
            var seen: [DASHManifest.Resource] = []
            try m.resolveIndexes { r in seen.append(r); return box }
            #expect(seen.first == asked, "\(index)")
            let rep = try #require(m.periods.first?.adaptationSets.first?.representations.first { $0.id == "od" })
            #expect(rep.initialization == initialization, "\(index)")
            let first = (asked.range?.offset ?? 0) + Int64(box.count)
            #expect(rep.segments.map(\.resource) == [(first, 1000), (first + 1000, 1100), (first + 2100, 900)]
                .map { DASHManifest.Resource(url: Self.host + "od.mp4", range: .init(offset: $0.0, length: Int64($0.1))) }, "\(index)")
        }
        let m = try manifest(#"<RepresentationIndex sourceURL="od.sidx"/>"#)
        #expect(m.periods.first?.adaptationSets.first?.representations.map(\.id) == ["ok"])
        #expect(m.leftOut.contains { $0.contains("'od'") && $0.contains("RepresentationIndex without @range") }, "\(m.leftOut)")
    }

    @Test func hostileSegmentIndexesAreRefused() {
        let good = Self.sidx(version: 0, references: [(10, 10)])
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(Array(good.prefix(20)), at: 0) }
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(Self.sidx(version: 0, references: [(10, 10)], hierarchical: true), at: 0) }
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(Self.sidx(version: 0, timescale: 0, references: [(10, 10)]), at: 0) }
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(Self.sidx(version: 0, references: [(0, 10)]), at: 0) }
        // A count claiming 65535 references in a box holding one.
        var lying = good
        lying[lying.count - 14] = 0xFF
        lying[lying.count - 13] = 0xFF
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(lying, at: 0) }
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(Self.sidx(version: 1, earliest: .max, references: [(10, 10)]), at: 0) }
        #expect(throws: OutsideValue.Refusal.self) {
            try SegmentIndex.parse(Self.sidx(version: 0, references: Array(repeating: (10, 10), count: 50)), at: 0, maxReferences: 49)
        }
        #expect(throws: OutsideValue.Refusal.self) { try SegmentIndex.parse(Array("\0\0\0\u{10}moovxxxxxxxx".utf8), at: 0) }
        #expect((try? SegmentIndex.parse(good, at: 0))?.references.count == 1)
    }

    @Test func periodsJoinIntoTracksKeepingEachPeriodsInitSection() throws {
        let period = { (id: String, start: Int) in
            """
            <Period id="\(id)" start="PT\(start)S" duration="PT4S">
              <AdaptationSet contentType="video">
                <SegmentTemplate timescale="1" duration="2" media="\(id)/$RepresentationID$-$Number$.m4s" initialization="\(id)/$RepresentationID$-init.m4s"/>
                <Representation id="lo" bandwidth="500000"/><Representation id="hi" bandwidth="2000000"/>
              </AdaptationSet>
              <AdaptationSet contentType="audio" lang="eng">
                <SegmentTemplate timescale="1" duration="2" media="\(id)/a-$Number$.m4s"/>
                <Representation id="a" bandwidth="64000"/>
              </AdaptationSet>
            </Period>
            """
        }
        let m = try DASHManifest.parse(Self.mpd(period("p1", 0) + period("p2", 4)), base: Self.host + "m.mpd")
        let tracks = m.tracks
        #expect(tracks.map(\.contentType) == [.video, .audio])
        let hi = try #require(tracks.first?.representations.last)
        #expect(hi.id == "hi")
        #expect(hi.segments.map { $0.resource.url.replacingOccurrences(of: Self.host, with: "") }
                == ["p1/hi-1.m4s", "p1/hi-2.m4s", "p2/hi-1.m4s", "p2/hi-2.m4s"])
        #expect(hi.segments.map(\.start) == [0, 2, 4, 6])
        #expect(hi.segments.map(\.initialization?.url) == [nil, nil, Self.host + "p2/hi-init.m4s", Self.host + "p2/hi-init.m4s"])
    }

    /// Each period on the one timeline (issue 33, item 3): a segment's media timestamps move by
    /// its period's start less its presentationTimeOffset (a period whose media starts at 0
    /// again plays after the first), passed to the segment server only when there are periods
    /// to join; a later period in another codec is told apart.
    @Test func laterPeriodsAreOffsetOntoOneTimeline() throws {
        let period = { (id: String, start: Int, offset: Int, codecs: String) in
            """
            <Period id="\(id)" start="PT\(start)S" duration="PT4S"><AdaptationSet contentType="video" mimeType="video/mp4" codecs="\(codecs)">
              <SegmentTemplate timescale="10" duration="20" presentationTimeOffset="\(offset)" initialization="\(id)-init.m4s" media="\(id)-$Number$.m4s"/>
              <Representation id="v" bandwidth="1"/>
            </AdaptationSet></Period>
            """
        }
        let two = try DASHManifest.parse(Self.mpd(period("a", 0, 0, "avc1.64001f") + period("b", 4, 0, "avc1.64001f")), base: Self.host + "m.mpd")
        let segments = try #require(two.tracks.first?.representations.first?.segments)
        #expect(segments.map(\.start) == [0, 2, 4, 6] && segments.map(\.timeOffset) == [0, 0, 4, 4])
        #expect(!two.changesCodec)
        let p = try DASHPlaylists.make(two, url: Self.host + "m.mpd", preference: .max, range: .auto, audioLanguages: [])
        #expect(p.fetches[Self.host + "b-1.m4s#aether-period=1"]?.timeOffset == 4 && p.fetches[Self.host + "a-2.m4s"]?.timeOffset == 0)
        // A period whose media timestamps already count from its start: nothing to move.
        let aligned = try DASHManifest.parse(Self.mpd(period("a", 0, 0, "avc1") + period("b", 4, 40, "hvc1.1.6.L93.B0")), base: Self.host + "m.mpd")
        #expect(aligned.tracks.first?.representations.first?.segments.map(\.timeOffset) == [0, 0, 0, 0])
        #expect(aligned.changesCodec)
        // HEVC after H.264 follows (MPEG-TS carries both); AV1 after H.264 cannot, and says so.
        #expect(DASHPlaylists.unfollowable(aligned).isEmpty)
        let av1 = try DASHManifest.parse(Self.mpd(period("a", 0, 0, "avc1") + period("b", 4, 40, "av01.0.04M.08")), base: Self.host + "m.mpd")
        #expect(DASHPlaylists.unfollowable(av1) == ["period 'b': its video (av01.0.04M.08) cannot follow the first period's (avc1) and is left out"])
        let vp9 = try DASHManifest.parse(Self.mpd(period("a", 0, 0, "vp09.00.10.08") + period("b", 4, 40, "av01.0.04M.08")), base: Self.host + "m.mpd")
        #expect(DASHPlaylists.unfollowable(vp9).count == 1)
        // One period: the timestamps as they are, whatever its offset.
        let one = try DASHManifest.parse(Self.mpd(period("a", 0, 90, "avc1")), base: Self.host + "m.mpd")
        let q = try DASHPlaylists.make(one, url: Self.host + "m.mpd", preference: .max, range: .auto, audioLanguages: [])
        #expect(q.fetches.values.allSatisfy { $0.timeOffset == 0 })
    }

    /// A chapter at each period's start (issue 33, item 3), named by `Period@id` (sanitised),
    /// else by its start; one period has none.
    @Test func eachPeriodStartsAChapter() throws {
        let period = { (id: String?, start: Int) in
            """
            <Period\(id.map { " id=\"\($0)\"" } ?? "") start="PT\(start)S" duration="PT4S"><AdaptationSet contentType="video">
              <SegmentTemplate timescale="1" duration="2" media="$Number$.m4s"/><Representation id="v" bandwidth="1"/>
            </AdaptationSet></Period>
            """
        }
        let m = try DASHManifest.parse(Self.mpd(period("intro", 0) + period(nil, 4) + period("ad&#x1b;[2J", 8)), base: Self.host + "m.mpd")
        #expect(m.periodChapters.map(\.start) == [0, 4, 8])
        #expect(m.periodChapters.map(\.end) == [4, 8, 12])
        #expect(m.periodChapters.map(\.title) == ["Period intro", "Period at 4.0 s", "Period ad"])
        let one = try DASHManifest.parse(Self.mpd(period("only", 0)), base: Self.host + "m.mpd")
        #expect(one.periodChapters.isEmpty)
    }

    @Test func aDynamicManifestListsTheSegmentsAvailableNow() throws {
        let text = Self.mpd("""
            <Period start="PT0S"><AdaptationSet contentType="video">
              <SegmentTemplate timescale="1" duration="2" startNumber="1" media="live-$Number$.m4s" initialization="init.m4s"/>
              <Representation id="v" bandwidth="500000"/>
            </AdaptationSet></Period>
            """, type: "dynamic",
            extra: #"availabilityStartTime="2026-01-01T00:00:00Z" minimumUpdatePeriod="PT2S" timeShiftBufferDepth="PT10S""#)
        let start = 1_767_225_600.0  // 2026-01-01T00:00:00Z
        let m = try DASHManifest.parse(text, base: Self.host + "live.mpd", now: start + 61)
        #expect(m.isDynamic && m.minimumUpdatePeriod == 2 && m.timeShiftBufferDepth == 10)
        let rep = try #require(m.periods.first?.adaptationSets.first?.representations.first)
        // 61 s in: 30 segments have ended; the last 5 (10 s) are kept.
        #expect(rep.segments.map(\.number) == [26, 27, 28, 29, 30])
        #expect(rep.segments.first?.start == 50)
        let early = try DASHManifest.parse(text, base: Self.host + "live.mpd", now: start - 100)
        #expect(early.periods.first?.adaptationSets.first?.representations.first?.segments.isEmpty == true)
    }

    // MARK: hostile manifests

    /// What a user is told of `text`: the reader's refusal (the whole manifest: not XML, a
    /// budget passed, an unusable period), else the translation's when nothing playable is left
    /// (naming what was left out), else nil.
    static func refusal(_ text: String, base: String = host + "m.mpd") -> String? {
        do {
            let m = try DASHManifest.parse(text, base: base)
            _ = try DASHPlaylists.make(m, url: base, preference: .min, range: .auto, audioLanguages: [])
            return nil
        } catch {
            return error.message
        }
    }

    static func timeline(_ s: String, template: String = #"media="$Time$.m4s""#) -> String {
        mpd("""
            <Period duration="PT20S"><AdaptationSet contentType="video">
              <SegmentTemplate timescale="1000" \(template)><SegmentTimeline>\(s)</SegmentTimeline></SegmentTemplate>
              <Representation id="v" bandwidth="1000"/>
            </AdaptationSet></Period>
            """)
    }

    @Test func hostileNumbersAreRefusedWithOneLine() throws {
        let cases = [
            Self.timeline(#"<S t="0" d="2000" r="1000000000000"/>"#),
            Self.timeline(#"<S t="0" d="2000" r="99999999999999999999999"/>"#),
            Self.timeline(#"<S t="-5" d="2000"/>"#),
            Self.timeline(#"<S t="0" d="-2000"/>"#),
            Self.timeline(#"<S t="0" d="0"/>"#),
            Self.timeline(#"<S t="9007199254740992" d="9007199254740992" r="2"/>"#),
            Self.timeline(#"<S t="nan" d="2000"/>"#),
            Self.timeline(#"<S t="1e300" d="2000"/>"#),
            Self.timeline(#"<S d="2000" r="-1"/>"#, template: #"media="$Time$.m4s""#).replacingOccurrences(of: #"duration="PT20S""#, with: ""),
            Self.timeline(#"<S t="0" d="2000"/>"#, template: #"timescale="0" media="$Time$.m4s""#),
            Self.timeline(#"<S t="0" d="2000"/>"#, template: #"media="$Evil$.m4s""#),
            Self.timeline(#"<S t="0" d="2000"/>"#, template: #"startNumber="-1" media="$Number$.m4s""#),
            Self.mpd(#"<Period duration="PT20S"><AdaptationSet><SegmentTemplate duration="1" timescale="1000000" media="$Number$"/><Representation id="v" bandwidth="1"/></AdaptationSet></Period>"#),
            Self.mpd(#"<Period duration="P1Y"/>"#),
            Self.mpd(#"<Period duration="PT20S"><AdaptationSet><Representation id="v" bandwidth="inf"/></AdaptationSet></Period>"#),
            Self.mpd(#"<Period duration="PT20S"><AdaptationSet><Representation id="v" bandwidth="1" width="-3"/></AdaptationSet></Period>"#),
            Self.mpd(#"<Period duration="PT20S"><AdaptationSet><Representation id="v" bandwidth="1"><SegmentBase indexRange="900-100"/></Representation></AdaptationSet></Period>"#),
            Self.mpd("", type: "dynamic", extra: #"availabilityStartTime="yesterday""#),
        ]
        for (k, text) in cases.enumerated() {
            let why = Self.refusal(text)
            #expect(why != nil, "case \(k) was accepted")
            if let why { #expect(!why.contains("\n") && why.utf8.count < 300, "case \(k): \(why)") }
        }
        // The same shapes with sane values are taken (the refusals above are the values').
        #expect(Self.refusal(Self.timeline(#"<S t="0" d="2000" r="9"/>"#)) == nil)
    }

    @Test(.timeLimit(.minutes(1))) func aMillionSElementsAndDeepNestingAreRefused() throws {
        let million = Self.timeline(String(repeating: #"<S d="1"/>"#, count: 1_000_000))
        #expect(Self.refusal(million) != nil)
        // Under the XML element limit but over the segment budget.
        let many = Self.timeline(String(repeating: #"<S d="1"/>"#, count: 150_000))
        let why = try #require(Self.refusal(many))
        #expect(why.contains("100000"), "\(why)")
        let deep = Self.mpd(String(repeating: "<Period>", count: 100) + String(repeating: "</Period>", count: 100))
        #expect(Self.refusal(deep) != nil)
        // A single S repeated up to the segment budget is refused before anything is expanded.
        #expect(Self.refusal(Self.timeline(#"<S t="0" d="1" r="100000"/>"#)) != nil)
    }

    @Test func aRemoteManifestMayNotNameLocalFiles() throws {
        let base = """
            <BaseURL>file:///etc/</BaseURL>
            <Period duration="PT2S"><AdaptationSet contentType="video">
              <SegmentTemplate duration="2" media="passwd"/><Representation id="v" bandwidth="1"/>
            </AdaptationSet></Period>
            """
        let why = try #require(Self.refusal(Self.mpd(base)))
        #expect(why.contains("file:///etc/") && why.contains("http and https"), "\(why)")
        // The representation is left out, not the manifest: one beside it plays.
        let mixed = Self.mpd("""
            <Period duration="PT2S"><AdaptationSet contentType="video">
              <SegmentTemplate duration="2" media="$RepresentationID$.m4s"/>
              <Representation id="local" bandwidth="1"><BaseURL>file:///etc/</BaseURL></Representation>
              <Representation id="ok" bandwidth="2"/>
            </AdaptationSet></Period>
            """)
        #expect(Self.refusal(mixed) == nil)
        let kept = try DASHManifest.parse(mixed, base: Self.host + "m.mpd")
        #expect(kept.periods.first?.adaptationSets.first?.representations.map(\.id) == ["ok"])
        #expect(kept.leftOut.count == 1 && kept.leftOut[0].hasPrefix("representation 'local' left out: ") && kept.leftOut[0].contains("file:///etc/"),
                "\(kept.leftOut)")
        let media = Self.timeline(#"<S t="0" d="2000"/>"#, template: #"media="file:///etc/passwd""#)
        #expect(Self.refusal(media) != nil)
        let list = Self.mpd(#"<Period duration="PT2S"><AdaptationSet><Representation id="v" bandwidth="1"><SegmentList duration="2"><SegmentURL media="gopher://x/y"/></SegmentList></Representation></AdaptationSet></Period>"#)
        #expect(Self.refusal(list) != nil)
        let initialization = Self.timeline(#"<S t="0" d="2000"/>"#, template: #"media="a.m4s" initialization="file:/etc/shadow""#)
        #expect(Self.refusal(initialization) != nil)
        // A local manifest may name local files; a path on a remote one is a path on its server.
        #expect(Self.refusal(Self.mpd(base), base: "/tmp/local.mpd") == nil)
        let path = try DASHManifest.parse(Self.timeline(#"<S t="0" d="2000"/>"#, template: #"media="/etc/passwd""#), base: Self.host + "m.mpd")
        #expect(path.periods.first?.adaptationSets.first?.representations.first?.segments.first?.resource.url == "http://media.example/etc/passwd")
        // A control character would end a playlist line: refused, or percent-encoded by URL resolution.
        let broken = try? DASHManifest.parse(Self.timeline(#"<S t="0" d="2000"/>"#, template: "media=\"a&#10;#EXT-X-KEY.m4s\""), base: Self.host + "m.mpd")
        let urls = broken?.periods.flatMap { $0.adaptationSets.flatMap { $0.representations.flatMap { $0.segments.map(\.resource.url) } } } ?? []
        #expect(!urls.contains { $0.contains("\n") }, "\(urls)")
        #expect(Self.refusal(Self.timeline(#"<S t="0" d="2000"/>"#, template: "media=\"a&#10;b.m4s\""), base: "/tmp/local.mpd") != nil)
    }

    // MARK: manifests as others write them (issue 33)

    /// A representation without `@bandwidth`, or with 0, has an unknown rate: ranked after the
    /// known ones, chosen only when it is the only one; never a reason to refuse the manifest.
    @Test func anUnknownRateIsRankedAfterTheKnownOnes() throws {
        let text = Self.mpd("""
            <Period duration="PT4S">
              <AdaptationSet contentType="video"><SegmentTemplate duration="2" media="$RepresentationID$-$Number$.m4s"/>
                <Representation id="none" width="1920" height="1080"/>
                <Representation id="zero" bandwidth="0" width="1280" height="720"/>
                <Representation id="lo" bandwidth="300000" width="320" height="180"/>
                <Representation id="hi" bandwidth="900000" width="640" height="360"/>
              </AdaptationSet>
              <AdaptationSet contentType="audio" lang="en"><SegmentTemplate duration="2" media="$RepresentationID$-$Number$.m4s"/>
                <Representation id="a-none"/><Representation id="a-64" bandwidth="64000"/>
              </AdaptationSet>
              <AdaptationSet contentType="audio" lang="fr"><SegmentTemplate duration="2" media="$RepresentationID$-$Number$.m4s"/>
                <Representation id="fr-none"/>
              </AdaptationSet>
            </Period>
            """)
        let m = try DASHManifest.parse(text, base: Self.host + "m.mpd")
        #expect(m.leftOut.isEmpty, "\(m.leftOut)")
        let video = try #require(m.tracks.first { $0.contentType == .video })
        #expect(video.representations.map(\.id) == ["lo", "hi", "none", "zero"] || video.representations.map(\.id) == ["lo", "hi", "zero", "none"])
        #expect(DASHManifest.Representation.pick(video.representations, lowest: false)?.id == "hi")
        #expect(DASHManifest.Representation.pick(video.representations, lowest: true)?.id == "lo")
        for preference in [VariantPreference.min, .max, .auto] {
            let p = try DASHPlaylists.make(m, url: Self.host + "m.mpd", preference: preference, range: .auto, audioLanguages: ["en"])
            let chosen = try #require(p.chosen.map { p.variants[$0] })
            #expect(chosen.bandwidth > 0, "\(preference): an unknown rate chosen over known ones")
        }
        // Sound: the known rate in a set that has one; the unknown one where it is alone.
        let p = try DASHPlaylists.make(m, url: Self.host + "m.mpd", preference: .max, range: .auto, audioLanguages: ["en"])
        #expect(p.renditions.count == 2)
        #expect(p.documents.values.contains { $0.contains("a-64-1.m4s") } && !p.documents.values.contains { $0.contains("a-none-1.m4s") })
        #expect(p.documents.values.contains { $0.contains("fr-none-1.m4s") })
        // Only unknown rates: still played.
        let alone = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT4S"><AdaptationSet contentType="video"><SegmentTemplate duration="2" media="v-$Number$.m4s"/>
              <Representation id="v"/></AdaptationSet></Period>
            """), base: Self.host + "m.mpd")
        #expect(try DASHPlaylists.make(alone, url: Self.host + "m.mpd", preference: .auto, range: .auto, audioLanguages: []).chosen == 0)
        // $Bandwidth$ in a template needs a rate: that representation alone is left out.
        let named = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT4S"><AdaptationSet contentType="video"><SegmentTemplate duration="2" media="$Bandwidth$/$Number$.m4s"/>
              <Representation id="x"/><Representation id="y" bandwidth="5"/></AdaptationSet></Period>
            """), base: Self.host + "m.mpd")
        #expect(named.periods[0].adaptationSets[0].representations.map(\.id) == ["y"])
        #expect(named.leftOut == ["representation 'x' left out: its SegmentTemplate names $Bandwidth$ and it has no bandwidth"])
        // A set of a kind the player has no use for: one line, the rest plays.
        let odd = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT4S"><AdaptationSet mimeType="application/x-\u{1B}[31mfoo"><SegmentTemplate duration="2" media="x-$Number$"/>
              <Representation id="x" bandwidth="5"/></AdaptationSet>
              <AdaptationSet contentType="video"><SegmentTemplate duration="2" media="v-$Number$.m4s"/><Representation id="v" bandwidth="5"/></AdaptationSet></Period>
            """), base: Self.host + "m.mpd")
        #expect(odd.periods[0].adaptationSets.map(\.contentType) == [.video])
        #expect(odd.leftOut.count == 1 && odd.leftOut[0].hasPrefix("adaptation set '#1' left out: its content 'application/x-")
                && !odd.leftOut[0].contains("\u{1B}"), "\(odd.leftOut)")
    }

    /// Scheme identifiers are names, never resources: a manifest full of them is not refused.
    @Test func schemeIdentifiersAreNotURLs() {
        let names = Self.mpd("""
            <Period duration="PT2S" xmlns:xlink="http://www.w3.org/1999/xlink">
              <EventStream schemeIdUri="urn:dvb:iptv:rating:2014:15" value="1"><Event id="1">urn:dvb:iptv:rating:2014:15</Event></EventStream>
              <AdaptationSet contentType="video">
                <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
                <Accessibility schemeIdUri="urn:tva:metadata:cs:AudioPurposeCS:2007" value="1"/>
                <ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed" value="cenc"/>
                <EssentialProperty schemeIdUri="urn:mpeg:dash:urlparam:2014" value="x"/>
                <SupplementalProperty schemeIdUri="tag:example.com,2026:x" value="y"/>
                <InbandEventStream schemeIdUri="urn:mpeg:dash:event:2012" value="1"/>
                <SegmentTemplate duration="2" media="v-$Number$.m4s"/><Representation id="v" bandwidth="1"/>
              </AdaptationSet>
            </Period>
            """)
        #expect(Self.refusal(names) == nil)
    }

    /// A segment is as long as its manifest says, up to the presentation: a 2-hour SegmentBase
    /// film is one 7,200 s segment (not refused by the 3,600 s rule meant for HLS playlists);
    /// a period shorter than its media ends the segments at the period's end.
    @Test func segmentsAreBoundedByTheManifestNotThePlaylistRule() throws {
        let film = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT2H"><AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
              <BaseURL>film.mp4</BaseURL></Representation></AdaptationSet></Period>
            """, extra: #"mediaPresentationDuration="PT2H""#), base: Self.host + "m.mpd")
        #expect(film.periods[0].adaptationSets[0].representations[0].segments.map(\.duration) == [7200])
        let p = try DASHPlaylists.make(film, url: Self.host + "m.mpd", preference: .auto, range: .auto, audioLanguages: [])
        #expect(p.documents.values.contains { $0.contains("#EXTINF:7200.000000,") })
        // A template segment longer than its period: cut at the period's end; none after it.
        let short = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT5S"><AdaptationSet contentType="video"><SegmentTemplate duration="4" media="v-$Number$.m4s"/>
              <Representation id="v" bandwidth="1"/></AdaptationSet></Period>
            """), base: Self.host + "m.mpd")
        #expect(short.periods[0].adaptationSets[0].representations[0].segments.map(\.duration) == [4, 1])
        let timeline = try DASHManifest.parse(Self.timeline(#"<S t="0" d="4000" r="9"/>"#).replacingOccurrences(of: "PT20S", with: "PT10S"),
                                              base: Self.host + "m.mpd")
        let segments = timeline.periods[0].adaptationSets[0].representations[0].segments
        #expect(segments.count == 3 && segments.last?.duration == 2, "\(segments.map(\.duration))")
    }

    /// A gap in a timeline (`S@t` past the end of the segment before: 8 s to 10 s here) keeps
    /// the segments' own starts and durations, and the playlist gives the gap to the segment
    /// before it, so the playlist's timeline is the presentation's (a seek to 12 s finds the
    /// segment the manifest places at 12 s).
    @Test func aGapInATimelineKeepsThePlaylistOnThePresentationTimeline() throws {
        let m = try DASHManifest.parse(Self.timeline(#"<S t="0" d="2000" r="3"/><S t="10000" d="2000" r="4"/>"#), base: Self.host + "m.mpd")
        let segments = m.periods[0].adaptationSets[0].representations[0].segments
        #expect(segments.map(\.start) == [0, 2, 4, 6, 10, 12, 14, 16, 18])
        #expect(segments.allSatisfy { $0.duration == 2 })
        let p = try DASHPlaylists.make(m, url: Self.host + "m.mpd", preference: .max, range: .auto, audioLanguages: [])
        let playlist = try #require(p.documents.values.first { $0.contains("#EXTINF") })
        let lengths = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.map { String($0.dropFirst(8).dropLast()) }
        #expect(lengths == ["2.000000", "2.000000", "2.000000", "4.000000"] + Array(repeating: "2.000000", count: 5), "\(lengths)")
        #expect(playlist.contains("#EXT-X-TARGETDURATION:4\n"))
    }

    // MARK: translation into HLS playlists

    static let twoLanguages = mpd("""
        <Period duration="PT4S">
          <AdaptationSet contentType="video">
            <SegmentTemplate timescale="1" duration="2" media="$RepresentationID$-$Number$.m4s" initialization="$RepresentationID$-init.m4s"/>
            <Representation id="lo" bandwidth="500000" width="640" height="360" codecs="avc1.64001e"/>
            <Representation id="hi" bandwidth="2000000" width="1280" height="720" codecs="avc1.64001f"/>
          </AdaptationSet>
          <AdaptationSet contentType="audio" lang="en">
            <SegmentTemplate timescale="1" duration="2" media="en-$Number$.m4s" initialization="en-init.m4s"/>
            <Representation id="en" bandwidth="64000" codecs="mp4a.40.2"/>
          </AdaptationSet>
          <AdaptationSet contentType="audio" lang="fr">
            <SegmentTemplate timescale="1" duration="2" media="fr-$Number$.m4s" initialization="fr-init.m4s"/>
            <Representation id="fr" bandwidth="64000" codecs="mp4a.40.2"/>
          </AdaptationSet>
        </Period>
        """)

    @Test func theTranslationIsAMasterWithTheChosenVideoAndEveryAudioSet() throws {
        let url = "http://media.example/dash/m.mpd?token=1"
        let m = try DASHManifest.parse(Self.twoLanguages, base: url)
        let p = try DASHPlaylists.make(m, url: url, preference: .min, range: .auto, audioLanguages: ["fra"])
        #expect(p.masterURL == "http://media.example/dash/m.mpd/aether-dash/master.m3u8")
        #expect(p.variants.map(\.bandwidth) == [500_000, 2_000_000] && p.chosen == 0)
        let masterText = try #require(p.documents[p.masterURL])
        let master = try #require(HLSMasterPlaylist.parse(masterText, base: p.masterURL))
        // One variant: the other is never probed or fetched.
        #expect(master.variants.count == 1 && master.variants[0].uri == p.variants[0].uri)
        #expect(master.variants[0].width == 640 && master.needsRenditions(master.variants[0]))
        #expect(master.renditions.map(\.language) == ["en", "fr"])
        #expect(master.renditions.map(\.isDefault) == [false, true], "--alang=fra picks fr")
        let videoURI = try #require(p.variants[0].uri)
        let video = try #require(p.documents[videoURI])
        // No init section named: each fMP4 segment is fetched with it and served as MPEG-TS.
        #expect(!video.contains("#EXT-X-MAP"))
        #expect(p.fetches["http://media.example/dash/lo-1.m4s"]
                == .init(segment: .init(url: "http://media.example/dash/lo-1.m4s", range: nil),
                         initialization: .init(url: "http://media.example/dash/lo-init.m4s", range: nil)))
        #expect(video.contains("#EXT-X-PLAYLIST-TYPE:VOD") && video.hasSuffix("#EXT-X-ENDLIST\n"))
        let parsed = try HLSMediaPlaylist.parse(video, base: p.variants[0].uri ?? "")
        #expect(parsed.segments.map(\.uri) == ["lo-1.m4s", "lo-2.m4s"].map { "http://media.example/dash/" + $0 })
        #expect(parsed.isSwitchable && parsed.segments.map(\.duration) == [2, 2])
        #expect(p.mediaPlaylists.count == 4)
        let max = try DASHPlaylists.make(m, url: url, preference: .max, range: .auto, audioLanguages: [])
        #expect(max.chosen == 1 && max.renditions.map(\.isDefault) == [true, false])
    }

    @Test func rangedFMP4SegmentsAreNamedWithTheirRangeAndALaterPeriodStartsADiscontinuity() throws {
        var rep = DASHManifest.Representation(id: "r", bandwidth: 1)
        rep.initialization = .init(url: "http://h/a.mp4", range: .init(offset: 0, length: 800))
        rep.segments = [
            .init(resource: .init(url: "http://h/a.mp4", range: .init(offset: 800, length: 1200)), start: 0, duration: 2, number: 0),
            .init(resource: .init(url: "http://h/b.m4s", range: nil), start: 2, duration: 1.5, number: 1,
                  initialization: .init(url: "http://h/b-init.m4s", range: nil)),
        ]
        let text = DASHPlaylists.mediaPlaylist(rep, dynamic: false)
        #expect(text == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXTINF:2.000000,
            http://h/a.mp4#aether-range=800-1200
            #EXT-X-DISCONTINUITY
            #EXTINF:1.500000,
            http://h/b.m4s
            #EXT-X-ENDLIST

            """)
        // Without an init section a range stays a byte range (the bytes are served as they are).
        var plain = rep
        plain.initialization = nil
        plain.segments = [rep.segments[0]]
        #expect(DASHPlaylists.mediaPlaylist(plain, dynamic: false).contains("#EXT-X-BYTERANGE:1200@800\nhttp://h/a.mp4\n"))
        // Live: no end, the media sequence is the first segment's number.
        rep.segments[0].number = 41
        let live = DASHPlaylists.mediaPlaylist(rep, dynamic: true)
        #expect(live.contains("#EXT-X-MEDIA-SEQUENCE:41") && !live.contains("ENDLIST") && !live.contains("PLAYLIST-TYPE"))
    }

    static let liveMPD = mpd("""
        <Period start="PT0S"><AdaptationSet contentType="video">
          <SegmentTemplate timescale="1" duration="2" startNumber="1" media="live-$Number$.m4s" initialization="init.m4s"/>
          <Representation id="v" bandwidth="500000"/>
        </AdaptationSet></Period>
        """, type: "dynamic", extra: #"availabilityStartTime="2026-01-01T00:00:00Z" minimumUpdatePeriod="PT4S" timeShiftBufferDepth="PT10S""#)

    @Test func aLiveSourceFetchesTheManifestAgainEachMinimumUpdatePeriod() throws {
        let start = 1_767_225_600.0
        let now = Guarded(start + 21)
        let fetches = Guarded(0)
        let source = try DASHSource(url: "http://media.example/live.mpd", bytes: Array(Self.liveMPD.utf8),
                                    choice: .init(preference: .auto, range: .auto, audioLanguages: []),
                                    clock: { now.withLock { $0 } }, index: { _ in nil },
                                    refetch: { fetches.withLock { $0 += 1 }; return Array(Self.liveMPD.utf8) })
        let media = try #require(source.playlists.variants.first?.uri)
        func numbers() throws -> [Int] {
            let text = String(decoding: try #require(source.document(media)), as: UTF8.self)
            let playlist = try HLSMediaPlaylist.parse(text, base: media)
            #expect(!playlist.isEnded)
            return playlist.segments.map { Int(($0.uri as NSString).lastPathComponent.dropFirst(5).dropLast(4)) ?? -1 }
        }
        #expect(try numbers() == [6, 7, 8, 9, 10])
        #expect(source.updatePeriod == 4)
        // Within the update period: the same playlist, no fetch.
        now.withLock { $0 += 3 }
        #expect(try numbers() == [6, 7, 8, 9, 10] && fetches.withLock { $0 } == 0)
        // Past it: fetched again, two segments later.
        now.withLock { $0 += 1 }
        #expect(try numbers() == [8, 9, 10, 11, 12] && fetches.withLock { $0 } == 1)
        // The master is not a reason to fetch; a URL not of this source is not served.
        now.withLock { $0 += 10 }
        _ = source.document(source.playlists.masterURL)
        #expect(fetches.withLock { $0 } == 1)
        #expect(source.document("http://media.example/other.m3u8") == nil)
        #expect(source.document("http://media.example/live.mpd/aether-dash/nothing.m3u8") == nil)
    }

    /// A dynamic `$Time$` manifest whose `startNumber` stays put while its window slides (as
    /// `$Time$` servers do), two representations numbered apart (startNumber 1 and 101): the
    /// translated playlists carry program date-times from availabilityStartTime, the numbers
    /// carry on from one manifest to the next by start time (the HLS demuxer and the switcher
    /// follow a live playlist by them), and the switcher matches the other representation by
    /// date (its numbers do not line up) reading its playlist from memory at once.
    @Test func aLiveTimeTemplateManifestNumbersOnAndSwitchesByDate() throws {
        func manifest(from t: Int) -> String {
            func rep(_ id: String, _ rate: Int, _ startNumber: Int) -> String {
                """
                <Representation id="\(id)" bandwidth="\(rate)"><SegmentTemplate timescale="10" media="\(id)-$Time$.m4s"
                  initialization="\(id)-init.m4s" startNumber="\(startNumber)"><SegmentTimeline><S t="\(t)" d="20" r="3"/></SegmentTimeline>
                </SegmentTemplate></Representation>
                """
            }
            return Self.mpd(#"<Period start="PT0S"><AdaptationSet contentType="video">"# + rep("lo", 500_000, 1) + rep("hi", 3_000_000, 101)
                            + "</AdaptationSet></Period>", type: "dynamic",
                            extra: #"availabilityStartTime="2026-01-01T00:00:00Z" minimumUpdatePeriod="PT2S""#)
        }
        let start = 1_767_225_600.0
        let now = Guarded(start + 20)
        let served = Guarded(manifest(from: 100))
        let url = "http://media.example/live/m.mpd"
        let source = try DASHSource(url: url, bytes: Array(served.withLock { $0 }.utf8),
                                    choice: .init(preference: .min, range: .auto, audioLanguages: []),
                                    clock: { now.withLock { $0 } }, index: { _ in nil },
                                    refetch: { Array(served.withLock { $0 }.utf8) })
        let p = source.playlists
        let lo = try #require(p.variants.first?.uri), hi = try #require(p.variants.last?.uri)
        func playlist(_ uri: String) throws -> HLSMediaPlaylist {
            try HLSMediaPlaylist.parse(String(decoding: try #require(source.document(uri)), as: UTF8.self), base: uri)
        }
        let anchor = try playlist(lo)
        #expect(anchor.mediaSequence == 1 && anchor.segments.map(\.uri) == [100, 120, 140, 160].map { "http://media.example/live/lo-\($0).m4s" })
        #expect(anchor.segments.map(\.programDateTime) == [10.0, 12, 14, 16].map { start + $0 })
        #expect(try playlist(hi).mediaSequence == 101)

        let s = AdaptiveSwitcher(variants: p.variants, ladder: [0, 1], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(),
                                 localLoader: true, clock: .monotonic) { source.document($0).map { String(decoding: $0, as: UTF8.self) } }
        #expect(s.isLive)
        s.setBufferLevel { 30 }
        s.arm()
        for k in 0..<3 {
            let plan = try #require(s.plan(for: anchor.segments[k].uri))
            s.downloaded(plan, bytes: 2_000_000, seconds: 0.5)
        }
        let plan = try #require(s.plan(for: anchor.segments[3].uri))
        #expect(plan.url == "http://media.example/live/hi-160.m4s" && plan.rung == 1, "\(plan)")
        #expect(source.fetch(for: plan.url)?.initialization.url == "http://media.example/live/hi-init.m4s")

        // The window slides by two segments; startNumber stays 1 and 101: the numbers carry on.
        served.withLock { $0 = manifest(from: 140) }
        now.withLock { $0 += 4 }
        let slid = try playlist(lo)
        #expect(slid.mediaSequence == 3 && slid.segments.first?.uri == "http://media.example/live/lo-140.m4s", "\(slid.mediaSequence)")
        #expect(try playlist(hi).mediaSequence == 103)
        // A segment that just left the window is still fetched with its init section.
        #expect(source.fetch(for: "http://media.example/live/lo-100.m4s")?.initialization.url == "http://media.example/live/lo-init.m4s")
    }

    /// The numbering rule on its own: a common start carries the number on; without one the
    /// manifest's number when it is past the last, else the last + the segments the gap holds;
    /// at most Int32.max.
    @Test func liveNumberingCarriesOnAcrossManifests() {
        func segments(_ starts: [Double], number: Int64) -> [DASHManifest.Segment] {
            starts.enumerated().map { .init(resource: .init(url: "http://h/\($0.offset)", range: nil), start: $0.element, duration: 2,
                                            number: number + Int64($0.offset)) }
        }
        let previous = DASHPlaylists.Numbering(first: 40, starts: [10, 12, 14, 16])
        #expect(DASHPlaylists.sequence(of: segments([14, 16, 18], number: 1), after: previous) == 42)
        #expect(DASHPlaylists.sequence(of: segments([14.3, 16.3], number: 1), after: previous) == 42)
        // No common start: the manifest's own number past the last, else the gap counted.
        #expect(DASHPlaylists.sequence(of: segments([30, 32], number: 90), after: previous) == 90)
        #expect(DASHPlaylists.sequence(of: segments([30, 32], number: 1), after: previous) == 50)
        #expect(DASHPlaylists.sequence(of: segments([18], number: 1), after: previous) == 44)
        #expect(DASHPlaylists.sequence(of: segments([0], number: 1 << 40), after: nil) == Int(Int32.max))
        #expect(DASHPlaylists.sequence(of: segments([0], number: 7), after: nil) == 7)
    }

    /// The translated playlists as the switcher's rungs: a fast link moves the next segment to
    /// the higher representation at the same time (its own init section goes with it).
    @Test func theSwitcherTakesTheTranslatedPlaylistsAsRungs() throws {
        let url = "http://media.example/dash/m.mpd"
        let m = try DASHManifest.parse(Self.twoLanguages, base: url)
        let p = try DASHPlaylists.make(m, url: url, preference: .auto, range: .auto, audioLanguages: [])
        #expect(p.chosen == 0)
        let anchorURI = try #require(p.variants[0].uri)
        let anchor = try #require(p.mediaPlaylists[anchorURI])
        let s = AdaptiveSwitcher(variants: p.variants, ladder: [0, 1], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(), clock: .monotonic) {
            p.documents[$0]
        }
        s.setBufferLevel { 30 }
        s.arm()
        // A fast link: three quick 2 s downloads of the low representation, then the next segment.
        for k in 0..<3 {
            let plan = try #require(s.plan(for: anchor.segments[k % 2].uri))
            s.downloaded(plan, bytes: 2_000_000, seconds: 0.5)
        }
        let plan = try #require(s.plan(for: anchor.segments[1].uri))
        #expect(plan.url == "http://media.example/dash/hi-2.m4s" && plan.rung == 1, "\(plan)")
        #expect(s.status.switchCount == 1)
        #expect(p.fetches[plan.url]?.initialization.url == "http://media.example/dash/hi-init.m4s")
    }

    /// Byte-range representations (`SegmentList` here; `SegmentBase` translates the same once its
    /// sidx is read) as rungs: each fragment is named by its file and range, so the switcher
    /// plans the other representation's range at the same time, fetched with that file's own
    /// init range. Without an init section the ranges stay `EXT-X-BYTERANGE` (the same URL for
    /// every segment) and the representation is not switched, and the log says why.
    @Test func byteRangeRepresentationsAreRungsWhenTheyHaveAnInitSection() throws {
        func rep(_ id: String, _ rate: Int, initialization: Bool) -> String {
            """
            <Representation id="\(id)" bandwidth="\(rate)"><BaseURL>\(id).mp4</BaseURL>
              <SegmentList timescale="1" duration="2">\(initialization ? #"<Initialization range="0-799"/>"# : "")
                <SegmentURL mediaRange="800-1999"/><SegmentURL mediaRange="2000-2999"/><SegmentURL mediaRange="3000-3999"/>
              </SegmentList>
            </Representation>
            """
        }
        let url = "http://media.example/dash/sl.mpd"
        let m = try DASHManifest.parse(Self.mpd(#"<Period duration="PT6S"><AdaptationSet contentType="video">"#
            + rep("lo", 500_000, initialization: true) + rep("hi", 3_000_000, initialization: true) + "</AdaptationSet></Period>"), base: url)
        let p = try DASHPlaylists.make(m, url: url, preference: .auto, range: .auto, audioLanguages: [])
        let anchorURI = try #require(p.variants[0].uri)
        let anchor = try #require(p.mediaPlaylists[anchorURI])
        #expect(anchor.isSwitchable && anchor.segments.map(\.uri) == ["800-1200", "2000-1000", "3000-1000"].map { "http://media.example/dash/lo.mp4#aether-range=\($0)" })
        let s = AdaptiveSwitcher(variants: p.variants, ladder: [0, 1], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(), clock: .monotonic) {
            p.documents[$0]
        }
        s.setBufferLevel { 30 }
        s.arm()
        for _ in 0..<3 {
            let plan = try #require(s.plan(for: anchor.segments[0].uri))
            s.downloaded(plan, bytes: 2_000_000, seconds: 0.5)
        }
        let plan = try #require(s.plan(for: anchor.segments[1].uri))
        #expect(plan.url == "http://media.example/dash/hi.mp4#aether-range=2000-1000" && plan.rung == 1, "\(plan)")
        let fetch = try #require(p.fetches[plan.url])
        #expect(fetch.segment == .init(url: "http://media.example/dash/hi.mp4", range: .init(offset: 2000, length: 1000)))
        #expect(fetch.initialization == .init(url: "http://media.example/dash/hi.mp4", range: .init(offset: 0, length: 800)))

        let bare = try DASHManifest.parse(Self.mpd(#"<Period duration="PT6S"><AdaptationSet contentType="video">"#
            + rep("lo", 500_000, initialization: false) + rep("hi", 3_000_000, initialization: false) + "</AdaptationSet></Period>"), base: url)
        let q = try DASHPlaylists.make(bare, url: url, preference: .auto, range: .auto, audioLanguages: [])
        let plain = try #require(q.variants[0].uri.flatMap { q.mediaPlaylists[$0] })
        #expect(plain.switchRefusal == "uses byte ranges (EXT-X-BYTERANGE)")
    }

    /// `SegmentBase` rungs whose sidx do not agree: the middle representation's index cuts 3 s
    /// fragments where the others cut 2 s, so it is left out of the ladder (its segments do not
    /// line up) and the switcher goes from the lowest to the top one; a sidx that lies about its
    /// count refuses the manifest in one line (``hostileSegmentIndexesAreRefused``).
    @Test func aSegmentBaseRungWhoseSidxDoesNotLineUpIsLeftOut() throws {
        func rep(_ id: String, _ rate: Int) -> String {
            #"<Representation id="\#(id)" bandwidth="\#(rate)"><BaseURL>\#(id).mp4</BaseURL><SegmentBase indexRange="700-799"/></Representation>"#
        }
        let url = "http://media.example/dash/sb.mpd"
        var m = try DASHManifest.parse(Self.mpd(#"<Period duration="PT12S"><AdaptationSet contentType="video">"#
            + rep("lo", 500_000) + rep("mid", 1_500_000) + rep("hi", 3_000_000) + "</AdaptationSet></Period>"), base: url)
        let twos = Self.sidx(version: 0, references: Array(repeating: (1000, 2000), count: 6))
        let threes = Self.sidx(version: 0, references: Array(repeating: (1000, 3000), count: 4))
        try m.resolveIndexes { $0.url.hasSuffix("mid.mp4") ? threes : twos }
        let p = try DASHPlaylists.make(m, url: url, preference: .auto, range: .auto, audioLanguages: [])
        let anchorURI = try #require(p.variants[0].uri)
        let anchor = try #require(p.mediaPlaylists[anchorURI])
        #expect(anchor.isSwitchable && anchor.segments.count == 6)
        let s = AdaptiveSwitcher(variants: p.variants, ladder: [0, 1, 2], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(), clock: .monotonic) {
            p.documents[$0]
        }
        s.setBufferLevel { 30 }
        s.arm()
        // A link that carries the middle rate but not the top one: the middle is wanted, does not
        // line up at 2 s, and is left out; the lowest stays.
        let first = try #require(s.plan(for: anchor.segments[0].uri))
        s.downloaded(first, bytes: 600_000, seconds: 2)  // 2.4 Mb/s
        let second = try #require(s.plan(for: anchor.segments[1].uri))
        #expect(second.rung == 0 && second.url == anchor.segments[1].uri, "\(second)")
        // A fast link: the top one, whose fragments line up.
        for k in 2..<5 {
            let plan = try #require(s.plan(for: anchor.segments[k].uri))
            s.downloaded(plan, bytes: 2_000_000, seconds: 0.5)
        }
        let last = try #require(s.plan(for: anchor.segments[5].uri))
        #expect(last.rung == 2 && last.url.hasPrefix("http://media.example/dash/hi.mp4#aether-range="), "\(last) \(s.status)")
    }

    /// What MPEG-TS cannot carry is served as Matroska: the playlist names our header of each
    /// init section as its EXT-X-MAP, and stays switchable (the header stands for every
    /// representation of the codec).
    @Test func webMAndVP9OrAV1AreServedAsMatroska() throws {
        func rep(_ attributes: String) throws -> DASHManifest.Representation {
            let m = try DASHManifest.parse(Self.mpd("""
                <Period duration="PT4S"><AdaptationSet contentType="video">
                  <SegmentTemplate timescale="1" duration="2" initialization="i-$RepresentationID$.seg" media="$RepresentationID$-$Number$.seg"/>
                  <Representation id="v" bandwidth="1000" \(attributes)/>
                </AdaptationSet></Period>
                """), base: Self.host + "m.mpd")
            return try #require(m.tracks.first?.representations.first)
        }
        #expect(DASHPlaylists.Carrier.of(try rep(#"mimeType="video/webm" codecs="vp9""#)) == .webm)
        #expect(DASHPlaylists.Carrier.of(try rep(#"mimeType="video/mp4" codecs="vp09.00.10.08""#)) == .matroska)
        #expect(DASHPlaylists.Carrier.of(try rep(#"mimeType="video/mp4" codecs="av01.0.04M.08""#)) == .matroska)
        #expect(DASHPlaylists.Carrier.of(try rep(#"mimeType="video/mp4" codecs="avc1.64001f""#)) == .mpegts)
        #expect(DASHPlaylists.Carrier.of(try rep(#"mimeType="video/mp4" codecs="hvc1.1.6.L93.B0""#)) == .mpegts)
        #expect(DASHPlaylists.Carrier.of(try rep(#"mimeType="video/mp4""#)) == .mpegts)
        let vp9 = try rep(#"mimeType="video/mp4" codecs="vp09.00.10.08""#)
        let text = DASHPlaylists.mediaPlaylist(vp9, dynamic: false)
        let header = Self.host + "i-v.seg#aether-header"
        #expect(text.components(separatedBy: "#EXT-X-MAP:URI=\"\(header)\"\n#EXTINF").count == 2, "\(text)")
        let m = try DASHManifest.parse(Self.mpd("""
            <Period duration="PT4S"><AdaptationSet contentType="video" mimeType="video/mp4" codecs="vp09.00.10.08">
              <SegmentTemplate timescale="1" duration="2" initialization="i-$RepresentationID$.seg" media="$RepresentationID$-$Number$.seg"/>
              <Representation id="lo" bandwidth="1000"/><Representation id="hi" bandwidth="4000"/>
            </AdaptationSet></Period>
            """), base: Self.host + "m.mpd")
        let p = try DASHPlaylists.make(m, url: Self.host + "m.mpd", preference: .max, range: .auto, audioLanguages: [])
        #expect(p.fetches[header.replacingOccurrences(of: "i-v", with: "i-hi")]?.isHeader == true)
        #expect(p.fetches[Self.host + "hi-1.seg"]?.carrier == .matroska)
        #expect(p.mediaPlaylists.values.allSatisfy { $0.isSwitchable })
    }
}

/// A remote manifest's translation (``DASHSource/remote``: playback's and the previews' one
/// way in) refuses what playback's open refuses, before any segment or index is fetched.
@Suite struct DASHRemoteRefusalTests {
    @Test func aDoctypeOrEntityIsRefusedByTheOneWayIn() {
        let manifests = [
            #"<?xml version="1.0"?><!DOCTYPE MPD [<!ENTITY x "y">]><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"/>"#,
            #"<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period>"#,
        ]
        for text in manifests {
            do {
                _ = try DASHSource.remote(url: "http://media.example/a.mpd", bytes: Array(text.utf8),
                                          choice: DASHSource.Choice(preference: .max, range: .auto, audioLanguages: []),
                                          openOptions: [:], settings: NetworkSettings(), timeout: 1, cookies: nil, clock: .monotonic)
                Issue.record("\(text.prefix(40)) was not refused")
            } catch {
                #expect(error.message == ManifestXML.refusal(Array(text.utf8)), "\(error.message)")
            }
        }
    }
}
