@testable import AetherDownload
@testable import AetherStreaming
import Testing

/// An HLS playlist spliced with discontinuities, without a network (unit tier): which segments
/// are moved, by how much, across live reloads, and what is counted as crossed.
@Suite struct HLSSpliceTests {
    static let base = "http://h/live/index.m3u8"

    static func playlist(sequence: Int = 0, discontinuitySequence: Int? = nil, ended: Bool = true, _ lines: [String]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
        if let d = discontinuitySequence { text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(d)\n" }
        for line in lines { text += line.hasSuffix(".ts") ? line + "\n" : line == "D" ? "#EXT-X-DISCONTINUITY\n" : "#EXTINF:\(line),\n" }
        return text + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    static let vod = playlist(["2.0", "p0.ts", "2.0", "p1.ts", "D", "2.0", "a0.ts", "1.0", "a1.ts", "D", "2.0", "p2.ts", "1.0", "p3.ts"])

    @Test func theParserNumbersTheDiscontinuities() throws {
        let p = try HLSMediaPlaylist.parse(Self.vod, base: Self.base)
        #expect(p.segments.map(\.discontinuity) == [0, 0, 1, 1, 2, 2])
        #expect(p.segments.map(\.start) == [0, 2, 4, 6, 7, 9])
        #expect(p.hasDiscontinuities)
        let live = try HLSMediaPlaylist.parse(Self.playlist(sequence: 7, discontinuitySequence: 3, ["2.0", "x.ts", "D", "2.0", "y.ts"]), base: Self.base)
        #expect(live.segments.map(\.discontinuity) == [3, 4])
        #expect(try !HLSMediaPlaylist.parse(Self.playlist(discontinuitySequence: 5, ["2.0", "x.ts"]), base: Self.base).hasDiscontinuities)
    }

    @Test func aPlaylistWithoutDiscontinuitiesIsLeftAlone() {
        let splice = HLSSplice()
        splice.playlistSeen(Self.base, text: Self.playlist(["2.0", "p0.ts", "2.0", "p1.ts"]))
        #expect(splice.watches(Self.base), "its reloads are still watched: a break may come later")
        #expect(splice.place(of: "http://h/live/p0.ts") == nil)
    }

    @Test func eachDiscontinuityIsMovedOntoThePlaylistsTimeline() throws {
        let splice = HLSSplice()
        splice.playlistSeen(Self.base, text: Self.vod)
        func shift(_ name: String, first: Double) throws -> Double {
            let place = try #require(splice.place(of: "http://h/live/\(name)"), "\(name) has no place")
            return splice.shift(for: place, first: first)
        }
        // The programme keeps its own timestamps (from 1.4 s): the timeline is the first segment's.
        #expect(try shift("p0.ts", first: 1.4) == 0)
        #expect(try shift("p1.ts", first: 3.4) == 0)
        // The ad starts again at 1.4 s: moved to 1.4 + 4.
        #expect(abs(try shift("a0.ts", first: 1.4) - 4) < 1e-9)
        // Its next segment moves by the same amount, whatever its own first time says.
        #expect(abs(try shift("a1.ts", first: 3.45) - 4) < 1e-9)
        // The programme again, its timestamps going on from 5.4 s: to 1.4 + 7.
        #expect(abs(try shift("p2.ts", first: 5.4) - 3) < 1e-9)
        #expect(splice.crossings == 2)
        // A seek back into the ad: the same shift, no crossing counted.
        #expect(abs(try shift("a0.ts", first: 1.4) - 4) < 1e-9)
        #expect(splice.crossings == 2)
    }

    @Test func aSeekIntoTheAdFirstFixesTheTimelineThere() throws {
        let splice = HLSSplice()
        splice.playlistSeen(Self.base, text: Self.vod)
        let a1 = try #require(splice.place(of: "http://h/live/a1.ts"))
        // The first segment fetched is the ad's second (start 6 s, its own time 3.4 s).
        #expect(splice.shift(for: a1, first: 3.4) == 0)
        let p0 = try #require(splice.place(of: "http://h/live/p0.ts"))
        #expect(abs(splice.shift(for: p0, first: 1.4) - (3.4 - 6 + 0 - 1.4)) < 1e-9, "p0 lands at 6 s before a1's timestamps")
        #expect(splice.crossings == 0)
    }

    @Test func liveReloadsKeepEverySegmentsStart() throws {
        let splice = HLSSplice()
        splice.playlistSeen(Self.base, text: Self.playlist(sequence: 10, ended: false, ["2.0", "s10.ts", "2.0", "s11.ts", "2.0", "s12.ts"]))
        #expect(splice.place(of: "http://h/live/s11.ts") == nil, "no discontinuity yet")
        // The window slides; an ad break comes in.
        splice.playlistSeen(Self.base, text: Self.playlist(sequence: 12, ended: false, ["2.0", "s12.ts", "D", "2.0", "ad0.ts", "2.0", "ad1.ts"]))
        let s12 = try #require(splice.place(of: "http://h/live/s12.ts"))
        let ad0 = try #require(splice.place(of: "http://h/live/ad0.ts"))
        let ad1 = try #require(splice.place(of: "http://h/live/ad1.ts"))
        #expect(s12.start == 4 && ad0.start == 6 && ad1.start == 8)
        #expect(s12.discontinuity == 0 && ad0.discontinuity == 1 && ad1.sequence == 14)
        #expect(splice.shift(for: s12, first: 100.0) == 0)
        #expect(abs(splice.shift(for: ad0, first: 0.5) - (96 + 6 - 0.5)) < 1e-9)
        #expect(splice.crossings == 1)
        // A later reload that left the break: the programme after it on the same timeline.
        splice.playlistSeen(Self.base, text: Self.playlist(sequence: 14, discontinuitySequence: 1, ended: false, ["2.0", "ad1.ts", "D", "2.0", "s15.ts"]))
        let s15 = try #require(splice.place(of: "http://h/live/s15.ts"))
        #expect(s15.start == 10 && s15.discontinuity == 2)
    }

    @Test func theSameAdInTwoBreaksIsTakenInOrder() throws {
        let splice = HLSSplice()
        splice.playlistSeen(Self.base, text: Self.playlist(["2.0", "p0.ts", "D", "2.0", "ad.ts", "D", "2.0", "p1.ts", "D", "2.0", "ad.ts", "D", "2.0", "p2.ts"]))
        let first = try #require(splice.place(of: "http://h/live/ad.ts"))
        #expect(first.sequence == 1)
        _ = splice.shift(for: first, first: 1.4)
        let p1 = try #require(splice.place(of: "http://h/live/p1.ts"))
        _ = splice.shift(for: p1, first: 5.4)
        let second = try #require(splice.place(of: "http://h/live/ad.ts"))
        #expect(second.sequence == 3 && second.start == 6 && second.discontinuity == 3)
    }

    /// A download of a spliced playlist: a track a part, the later ones going on in the first's
    /// stream, each placed on the playlist's timeline at the remux.
    @Test func aDownloadPlansAPartForEachDiscontinuity() throws {
        let plan = try HLSDownloadPlanner.plan(url: Self.base, text: Self.vod, request: DownloadRequest()) { (_: String) throws(DownloadError) -> String in
            throw DownloadError("no other playlist")
        }
        #expect(plan.tracks.map(\.segments.count) == [2, 2, 2])
        #expect(plan.tracks.map(\.continues) == [false, true, true])
        #expect(plan.tracks.map(\.timelineStart) == [0, 4, 7])
        #expect(plan.streams.count == 1)
        let plain = try HLSDownloadPlanner.plan(url: Self.base, text: Self.playlist(["2.0", "p0.ts", "2.0", "p1.ts"]), request: DownloadRequest()) {
            (_: String) throws(DownloadError) -> String in throw DownloadError("no other playlist")
        }
        #expect(plain.tracks.count == 1 && plain.tracks[0].timelineStart == nil)
    }

    /// DASH: each later period first served right after the latest one counts once, whichever
    /// track (video, then audio) crosses; a seek back and forth counts nothing more, nor does a
    /// period reached by a seek back. (The splice does not know the manifest's periods: a seek
    /// forward over one counts the period it lands in.)
    @Test func aDASHPeriodCrossedCountsOnce() {
        let splice = HLSSplice()
        for offset in [0.0, 0, 4, 0, 4, 4, 7, 7, 0, 4, 7] { splice.served(period: offset) }
        #expect(splice.crossings == 2)
        let seeked = HLSSplice()
        for offset in [0.0, 7, 4, 7] { seeked.served(period: offset) }
        #expect(seeked.crossings == 1, "the period a seek went back to is not crossed")
    }

    @Test func hostilePlaylistsAreIgnored() {
        let splice = HLSSplice()
        for text in ["", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", "#EXTM3U\n#EXTINF:-1,\nx.ts\nD\n", "garbage #EXTINF"] {
            splice.playlistSeen(Self.base, text: text)
        }
        #expect(!splice.watches(Self.base))
    }
}
