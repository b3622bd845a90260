import AetherEngine
@testable import AetherMedia
@testable import AetherStreaming
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// Bit-rate switching without a network: the throughput estimator, the switching rule, the
/// ladder, the media playlist parser and the switcher's segment plans, with hostile playlists
/// (absurd BANDWIDTH, zero/negative/NaN durations, thousands of variants).
@Suite struct AdaptiveBitrateTests {
    static let host = "http://media.example/abr/"

    // MARK: estimator

    @Test func theEstimateIsTheLowerOfTheFastAndSlowAverages() {
        var e = ThroughputEstimator()
        #expect(e.estimate == nil)
        // 6 Mb/s for a while (750 kB segments of 2 s in 1 s each).
        for _ in 0..<10 { e.sample(bytes: 750_000, seconds: 1, mediaSeconds: 2) }
        let steady = e.estimate ?? 0
        #expect(abs(steady - 6e6) < 1e3, "steady estimate \(steady)")
        // One slow download (1 Mb/s, 6 s): the fast average falls at once, and the estimate with it.
        e.sample(bytes: 750_000, seconds: 6, mediaSeconds: 2)
        let after = e.estimate ?? 0
        #expect(after < 3.5e6, "after a 1 Mb/s download the estimate is \(after)")
        #expect(e.lastRate == 1e6)
        // Back to 6 Mb/s: the slow average holds the estimate back for a few segments.
        e.sample(bytes: 750_000, seconds: 1, mediaSeconds: 2)
        let oneBack = e.estimate ?? 0
        #expect(oneBack < 5e6 && oneBack > after, "one fast download later: \(oneBack)")
        for _ in 0..<8 { e.sample(bytes: 750_000, seconds: 1, mediaSeconds: 2) }
        #expect((e.estimate ?? 0) > 5e6, "eight segments later: \(e.estimate ?? 0)")
    }

    @Test func tinyAndUnusableSamplesAreLeftOutAndInstantOnesCapped() {
        var e = ThroughputEstimator()
        let taken1 = e.sample(bytes: 4000, seconds: 0.001, mediaSeconds: 2)
        #expect(!taken1)
        let taken2 = e.sample(bytes: 1 << 20, seconds: .nan, mediaSeconds: 2)
        #expect(!taken2)
        let taken3 = e.sample(bytes: 1 << 20, seconds: -1, mediaSeconds: 2)
        #expect(!taken3)
        let taken4 = e.sample(bytes: Int.min, seconds: 1, mediaSeconds: 2)
        #expect(!taken4)
        #expect(e.estimate == nil && e.ignored == 4)
        // A cached answer in no time counts as taking hls.js's 50 ms, not as infinitely fast.
        let taken5 = e.sample(bytes: 1 << 20, seconds: 0, mediaSeconds: .infinity)
        #expect(taken5)
        #expect(abs((e.estimate ?? 0) - Double(1 << 20) * 8 / 0.05) < 1, "\(e.estimate ?? 0)")
        // A huge transfer is capped at 10 Gb/s, and the estimate stays finite.
        e.sample(bytes: Int.max, seconds: 0.05, mediaSeconds: 1e300)
        let capped = e.estimate ?? .nan
        #expect(capped.isFinite && capped <= 10e9, "\(capped)")
    }

    // MARK: rule

    static let rates = [600_000.0, 1_500_000, 3_600_000]

    @Test func aSteadyLinkKeepsItsVariant() {
        let p = AdaptivePolicy()
        // 6 Mb/s and a deep buffer: the top stays; so does the bottom on 1 Mb/s.
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 6e6, buffer: 20, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        #expect(AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 1e6, buffer: 20, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        // Just under the keep margin of the top's rate: no switch either way (hysteresis band).
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 3.8e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 3.8e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
    }

    @Test func aDeepBufferTrustsALinkThatCameBack() throws {
        let p = AdaptivePolicy()
        // After a slow spell the slow average still says 2.4 Mb/s; the last segments ran at 5.5–5.8.
        // With 20 s buffered the fast average decides: the top.
        let d = try #require(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 2.4e6, recent: 5.8e6, fast: 5.5e6,
                                                 buffer: 20, segmentSeconds: 2, sinceSwitch: 100, policy: p))
        #expect(d.rung == 2 && d.reason.contains("5.50 Mb/s"), "\(d)")
        // With little buffered the slow average still rules: stay.
        #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 2.4e6, recent: 5.8e6, fast: 5.5e6,
                                    buffer: 8, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        // A fast average whose last download was slow again is not trusted.
        #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 2.4e6, recent: 2.0e6, fast: 5.5e6,
                                    buffer: 20, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        // Nor is a fast average while the hold after a switch runs: a second on the wall clock
        // and one segment measured.
        #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 2.4e6, recent: 5.8e6, fast: 5.5e6,
                                    buffer: 20, segmentSeconds: 2, sinceSwitch: 1, segmentsSinceSwitch: 1, policy: p) == nil)
        // A deep buffer filling fast ends the hold after three segments measured, not four seconds.
        #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 2.4e6, recent: 5.8e6, fast: 5.5e6,
                                    buffer: 20, segmentSeconds: 2, sinceSwitch: 1, segmentsSinceSwitch: 3, policy: p)?.rung == 2)
        // What went up on the fast average stays while the fast average carries it, though the
        // slow one is still under the rate (no step back down at the next segment).
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 3.7e6, recent: 5.9e6, fast: 5.2e6,
                                    buffer: 30, segmentSeconds: 2, sinceSwitch: 1, segmentsSinceSwitch: 1, policy: p) == nil)
        // ... and goes down at once when a download is slow again.
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 3.7e6, recent: 1.2e6, fast: 5.2e6,
                                    buffer: 30, segmentSeconds: 2, sinceSwitch: 1, segmentsSinceSwitch: 1, policy: p)?.rung == 0)
        // A shallow one does not.
        #expect(AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 6e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 1,
                                    segmentsSinceSwitch: 3, policy: p) == nil)
    }

    @Test func aFallingLinkGoesStraightToWhatItCarries() throws {
        let p = AdaptivePolicy()
        // The average still says 2.2 Mb/s but the last download ran at 1 Mb/s: straight to the bottom.
        let d = try #require(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 2.2e6, recent: 1e6, buffer: 8,
                                                 segmentSeconds: 2, sinceSwitch: 100, policy: p))
        #expect(d.rung == 0, "\(d)")
        #expect(d.reason.contains("1.00 Mb/s under 3.60 Mb/s"), "\(d.reason)")
        // Down is never held.
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 2e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 0, policy: p)?.rung == 1)
    }

    @Test func aLowBufferDropsToWhatLoadsInHalfOfIt() throws {
        let p = AdaptivePolicy()
        // 3 s buffered at 4 Mb/s: the top's segment takes 1.8 s (> 1.5 s), the middle's 0.75 s.
        let d = try #require(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 4e6, buffer: 3, segmentSeconds: 2, sinceSwitch: 100, policy: p))
        #expect(d.rung == 1 && d.reason.hasPrefix("buffer 3.0 s"), "\(d)")
        // Nothing buffered (a seek): what loads in 3/4 of a segment's time stays or is chosen.
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 4e6, buffer: 0, segmentSeconds: 2, sinceSwitch: 100, policy: p)?.rung == 1)
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 6e6, buffer: 0, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 1.2e6, buffer: 0, segmentSeconds: 2, sinceSwitch: 100, policy: p)?.rung == 0)
    }

    @Test func upIsHeldAfterASwitchAndNeedsMoreMarginWithLessBuffer() throws {
        let p = AdaptivePolicy()
        #expect(AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 6e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 1, policy: p) == nil)
        #expect(AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 6e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 5, policy: p)?.rung == 2)
        // 4.3 Mb/s: 3.6 Mb/s is 84 % of it: not with 8 s buffered (70 %), yes with 20 s (90 %).
        #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 4.3e6, buffer: 8, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        let deep = try #require(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: 4.3e6, buffer: 20, segmentSeconds: 2, sinceSwitch: 100, policy: p))
        #expect(deep.rung == 2 && deep.reason == "throughput 4.30 Mb/s, buffer 20.0 s", "\(deep)")
    }

    @Test func unusableNumbersNeverSwitch() {
        let p = AdaptivePolicy()
        for estimate in [Double.nan, .infinity, 0, -5] {
            #expect(AdaptiveRule.decide(current: 1, rates: Self.rates, estimate: estimate, buffer: 10, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        }
        #expect(AdaptiveRule.decide(current: 7, rates: Self.rates, estimate: 1e6, buffer: 10, segmentSeconds: 2, sinceSwitch: 100, policy: p) == nil)
        // NaN buffer and segment length are read as empty and 2 s: a drop, not a trap.
        #expect(AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 4e6, buffer: .nan, segmentSeconds: .nan, sinceSwitch: .nan, policy: p)?.rung == 1)
    }

    // MARK: ladder and hostile masters

    @Test func hostileBandwidthsAreRefusedAndThousandsOfVariantsThinned() throws {
        var text = "#EXTM3U\n"
        for bad in ["99999999999999999999", "1e30", "-5", "0", "nan", "9223372036854775807", "1000000000001", String(repeating: "9", count: 5000)] {
            text += "#EXT-X-STREAM-INF:BANDWIDTH=\(bad),RESOLUTION=99999999999x-3,FRAME-RATE=nan\nbad.m3u8\n"
        }
        for k in 0..<5000 { text += "#EXT-X-STREAM-INF:BANDWIDTH=\(100_000 + k * 1000),AVERAGE-BANDWIDTH=1e400\nv\(k).m3u8\n" }
        let master = try #require(HLSMasterPlaylist.parse(text, base: Self.host + "master.m3u8"))
        #expect(master.variants.count == HLSMasterPlaylist.maxVariants, "\(master.variants.count)")
        #expect(master.variants.allSatisfy { $0.uri?.hasSuffix("bad.m3u8") == false })
        #expect(master.variants.allSatisfy { $0.averageBandwidth == nil && $0.width == nil })
        #expect(master.variants.first?.summary == "100 kb/s  SDR")
        let start = try #require(VariantChooser.choose(master.variants, preference: .auto, range: .auto))
        #expect(master.variants[start].bandwidth == 700_000, "auto starts at \(master.variants[start].bandwidth)")
        let ladder = VariantChooser.ladder(master.variants, anchor: start, limit: AdaptivePolicy().maxRungs)
        #expect(ladder.count <= AdaptivePolicy().maxRungs + 1 && ladder.contains(start), "\(ladder.count) rungs")
        let rates = ladder.map { master.variants[$0].bandwidth }
        #expect(rates == rates.sorted() && rates.first == 100_000 && rates.last == 100_000 + 4095 * 1000, "\(rates.first ?? 0)…\(rates.last ?? 0)")
    }

    @Test func theLadderKeepsTheRangeAudioGroupAndCodecChosen() {
        func v(_ rate: Int, _ range: String, _ group: String) -> StreamVariant {
            var s = StreamVariant(uri: Self.host + "\(rate)\(range)\(group).m3u8", bandwidth: rate)
            s.videoRange = range
            s.audioGroup = group
            return s
        }
        let variants = [v(500_000, "SDR", "a"), v(900_000, "PQ", "a"), v(1_000_000, "SDR", "b"), v(2_000_000, "SDR", "a"), v(2_000_000, "SDR", "a")]
        #expect(VariantChooser.ladder(variants, anchor: 0, limit: 32) == [0, 3])
        #expect(VariantChooser.ladder(variants, anchor: 1, limit: 32) == [1])
        // And the video codec: a DASH manifest may offer VP9 beside H.264.
        func c(_ rate: Int, _ codecs: String?) -> StreamVariant {
            var s = StreamVariant(uri: Self.host + "\(rate).m3u8", bandwidth: rate)
            s.codecs = codecs
            return s
        }
        let mixed = [c(300_000, "vp09.00.10.08"), c(400_000, "avc1.4d401e,mp4a.40.2"), c(800_000, "avc3.64001f"),
                     c(900_000, "vp09.00.31.08,opus"), c(1_000_000, "av01.0.04M.08"), c(1_200_000, nil)]
        #expect(VariantChooser.ladder(mixed, anchor: 1, limit: 32) == [1, 2])
        #expect(VariantChooser.ladder(mixed, anchor: 0, limit: 32) == [0, 3])
        #expect(VariantChooser.ladder(mixed, anchor: 4, limit: 32) == [4])
        #expect(VariantChooser.ladder(mixed, anchor: 5, limit: 32) == [5])
        #expect(VariantPreference(option: "auto") == .auto && VariantPreference(option: "") == .auto)
        #expect(VariantPreference(option: "1.5M") == .atMost(1_500_000))
    }

    // MARK: media playlists

    static func mediaPlaylist(_ durations: [String], prefix: String = "seg", extra: String = "", ended: Bool = true) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n\(extra)"
        for (k, d) in durations.enumerated() { text += "#EXTINF:\(d),\n\(prefix)\(k).ts\n" }
        return text + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    @Test func aMediaPlaylistGivesEachSegmentItsPlaceOnTheTimeline() throws {
        let p = try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2.000000", "2.0", "1.5"]), base: Self.host + "v0/index.m3u8")
        #expect(p.segments.map(\.uri) == ["seg0", "seg1", "seg2"].map { Self.host + "v0/\($0).ts" })
        #expect(p.segments.map(\.start) == [0, 2, 4])
        #expect(p.isSwitchable && p.targetDuration == 2)
        #expect(p.index(startingAt: 4.1, tolerance: 0.25) == 2 && p.index(startingAt: 3, tolerance: 0.25) == nil)
        #expect(p.index(of: Self.host + "v0/seg1.ts") == 1)
        for (extra, ended) in [("#EXT-X-BYTERANGE:1000@0\n", true), ("#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n", true),
                               ("#EXT-X-MAP:URI=\"init.mp4\"\n", true)] {
            let q = try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2"], extra: extra, ended: ended), base: Self.host)
            #expect(!q.isSwitchable, "\(extra) ended \(ended)")
        }
        // Live is switchable (by media sequence number).
        #expect(try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2"], ended: false), base: Self.host).isSwitchable)
        #expect(try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2"], extra: "#EXT-X-KEY:METHOD=NONE\n"), base: Self.host).isSwitchable)
    }

    @Test func aPlaylistThatCannotBeSwitchedSaysWhy() throws {
        let cases = [("#EXT-X-BYTERANGE:1000@0\n", true, "uses byte ranges (EXT-X-BYTERANGE)"),
                     ("#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n", true, "is encrypted (EXT-X-KEY)"),
                     ("#EXT-X-MAP:URI=\"init.mp4\"\n", true, "needs an init section (EXT-X-MAP)")]
        for (extra, ended, says) in cases {
            let p = try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2"], extra: extra, ended: ended), base: Self.host)
            #expect(p.switchRefusal == says && !p.isSwitchable, "\(extra): \(String(describing: p.switchRefusal))")
        }
        #expect(try HLSMediaPlaylist.parse(Self.mediaPlaylist([]), base: Self.host).switchRefusal == "lists no segments")
        #expect(try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2"]), base: Self.host).switchRefusal == nil)
    }

    /// A byte-range variant (`-hls_flags single_file`: one file, each segment a range of it) as
    /// served to the demuxer: every range named in its segment's URL, no `EXT-X-BYTERANGE` left,
    /// so another variant's range is read to its end; the switcher plans the other variant's own
    /// range at the same time (the anchor's from the fragment), and falls back to the anchor's.
    @Test func byteRangeVariantsAreServedWithTheirRangesInTheURLsAndSwitch() throws {
        func ranged(_ lengths: [Int]) -> String {
            var text = "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            var offset = 0
            for (k, n) in lengths.enumerated() {
                // The first with its offset, the rest following on (no @offset).
                text += "#EXTINF:2.000000,\n#EXT-X-BYTERANGE:\(n)\(k == 0 ? "@0" : "")\nindex.ts\n"
                offset += n
            }
            return text + "#EXT-X-ENDLIST\n"
        }
        let lo = Self.host + "v0/index.m3u8", hi = Self.host + "v2/index.m3u8"
        let loText = ranged([1000, 1200, 900]), hiText = ranged([5000, 6100, 4800])
        let rewritten = try #require(HLSMediaPlaylist.rangesAsURLs(loText, base: lo))
        #expect(!rewritten.contains("BYTERANGE") && rewritten.contains("#EXT-X-ENDLIST") && rewritten.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
        let anchor = try HLSMediaPlaylist.parse(rewritten, base: lo)
        #expect(anchor.segments.map(\.uri) == ["0-1000", "1000-1200", "2200-900"].map { Self.host + "v0/index.ts#aether-range=\($0)" })
        #expect(anchor.segments.map(\.start) == [0, 2, 4] && anchor.rangedSwitchRefusal == nil && !anchor.usesByteRanges)
        #expect(HLSMediaPlaylist.rangedURL(anchor.segments[2].uri)! == (Self.host + "v0/index.ts", .init(offset: 2200, length: 900)))
        // Nothing to rewrite, or not to be rewritten: no ranges, a key, an init section, a bad range.
        #expect(HLSMediaPlaylist.rangesAsURLs(Self.mediaPlaylist(["2"]), base: lo) == nil)
        #expect(HLSMediaPlaylist.rangesAsURLs(loText.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n"), base: lo) == nil)
        #expect(HLSMediaPlaylist.rangesAsURLs(loText.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "#EXT-X-MAP:URI=\"i.mp4\"\n"), base: lo) == nil)
        #expect(HLSMediaPlaylist.rangesAsURLs(loText.replacingOccurrences(of: "1000@0", with: "x@0"), base: lo) == nil)
        // A range in a URL that is not one: refused.
        for bad in ["a#aether-range=1", "a#aether-range=-1-5", "a#aether-range=0-0", "a#aether-range=1-99999999999999999999", "a#aether-range=x-1", "a"] {
            #expect(HLSMediaPlaylist.rangedURL(bad) == nil, "\(bad)")
        }

        let variants = [StreamVariant(uri: lo, bandwidth: 600_000), StreamVariant(uri: hi, bandwidth: 3_600_000)]
        let s = AdaptiveSwitcher(variants: variants, ladder: [0, 1], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(),
                                 servesRanges: true, clock: .monotonic) { $0 == hi ? hiText : nil }
        // The demuxer's read of the anchor's playlist is served rewritten.
        #expect(s.playlistFetched(lo, text: loText) == rewritten)
        let first = try #require(s.plan(for: anchor.segments[0].uri))
        #expect(first.url == Self.host + "v0/index.ts" && first.range == .init(offset: 0, length: 1000) && first.rung == 0)
        s.setBufferLevel { 30 }
        s.arm()
        for k in 0..<3 {
            let plan = try #require(s.plan(for: anchor.segments[k % 2].uri))
            s.downloaded(plan, bytes: 2_000_000, seconds: 0.5)
        }
        let plan = try #require(s.plan(for: anchor.segments[2].uri))
        #expect(plan.url == Self.host + "v2/index.ts" && plan.range == .init(offset: 11_100, length: 4800) && plan.rung == 1, "\(plan)")
        #expect(s.own(anchor.segments[2].uri, mediaSeconds: 2).range == .init(offset: 2200, length: 900))
        // Without servesRanges (a DASH translation) the other variant's ranges are refused.
        let t = AdaptiveSwitcher(variants: variants, ladder: [0, 1], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(), clock: .monotonic) { $0 == hi ? hiText : nil }
        t.setBufferLevel { 30 }
        t.arm()
        for k in 0..<4 {
            let plan = try #require(t.plan(for: anchor.segments[k % 3].uri))
            #expect(plan.rung == 0)
            t.downloaded(plan, bytes: 2_000_000, seconds: 0.5)
        }
    }

    @Test func hostileSegmentDurationsRefuseThePlaylist() {
        for bad in ["0", "-2", "nan", "inf", "", String(repeating: "1", count: 100)] {
            #expect(throws: OutsideValue.Refusal.self, "EXTINF:\(bad)") {
                try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2", bad]), base: Self.host)
            }
        }
        #expect(throws: OutsideValue.Refusal.self) {
            try HLSMediaPlaylist.parse(Self.mediaPlaylist(Array(repeating: "1", count: HLSMediaPlaylist.maxSegments + 1)), base: Self.host)
        }
        #expect(throws: OutsideValue.Refusal.self) { try HLSMediaPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", base: Self.host) }
        #expect(throws: OutsideValue.Refusal.self) { try HLSMediaPlaylist.parse("<html>", base: Self.host) }
    }

    /// A segment far past an hour (issue 49: `#EXTINF:1000000,`, which other players keep) keeps
    /// the playlist: the number is kept for the timeline (up to OutsideValue.maxSeconds), and
    /// what works by durations bounds them itself (the live policy's buffer depths).
    @Test func segmentsPastAnHourKeepThePlaylist() throws {
        let playlist = try HLSMediaPlaylist.parse(Self.mediaPlaylist(["2", "1000000", "3601", "1e300", "2"]), base: Self.host)
        #expect(playlist.segments.map(\.duration) == [2, 1_000_000, 3601, OutsideValue.maxSeconds, 2])
        #expect(playlist.segments.map(\.start) == [0, 2, 1_000_002, 1_003_603, 1_003_603 + OutsideValue.maxSeconds])
        let live = AdaptivePolicy().live(segment: 1_000_000)
        #expect(live.lowBuffer <= HLSMediaPlaylist.maxSegmentSeconds && live.highBuffer <= 2 * HLSMediaPlaylist.maxSegmentSeconds)
    }

    // MARK: switcher

    /// A ladder of three 10-segment variants v0, v1, v2 (600k, 1.5M, 3.6M), v0 playing.
    static func switcher(playlists: [String: String]) throws -> AdaptiveSwitcher {
        let variants = (0..<3).map { StreamVariant(uri: Self.host + "v\($0)/index.m3u8", bandwidth: Int(rates[$0])) }
        let anchor = try HLSMediaPlaylist.parse(mediaPlaylist(Array(repeating: "2", count: 10)), base: variants[0].uri ?? "")
        let s = AdaptiveSwitcher(variants: variants, ladder: [0, 1, 2], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(), clock: .monotonic) { url in
            return playlists[url]
        }
        return s
    }

    @Test func segmentsComeFromTheChosenVariantOnceArmed() throws {
        let ten = Self.mediaPlaylist(Array(repeating: "2", count: 10))
        let s = try Self.switcher(playlists: [Self.host + "v1/index.m3u8": ten, Self.host + "v2/index.m3u8": ten])
        s.setBufferLevel { 10 }
        // Not armed (opening, probing): the anchor's own segment, and no switch.
        let first = try #require(s.plan(for: Self.host + "v0/seg0.ts"))
        #expect(first.url == Self.host + "v0/seg0.ts" && first.rung == 0)
        s.downloaded(first, bytes: 750_000, seconds: 1)  // 6 Mb/s
        s.arm()
        let second = try #require(s.plan(for: Self.host + "v0/seg1.ts"))
        #expect(second.url == Self.host + "v2/seg1.ts", "\(second)")
        #expect(s.status.variant.bandwidth == 3_600_000 && s.status.switchCount == 1)
        #expect(s.status.switches.first.map { $0.fromVariant == 1 && $0.toVariant == 3 && $0.position == 2 } == true, "\(s.status.switches)")
        // Not a segment of the playing playlist: opened as it is.
        #expect(s.plan(for: Self.host + "v0/index.m3u8") == nil)
        // The link falls to 1 Mb/s: the next segment is the lowest variant's.
        s.downloaded(second, bytes: 900_000, seconds: 7.2)
        let third = try #require(s.plan(for: Self.host + "v0/seg2.ts"))
        #expect(third.url == Self.host + "v0/seg2.ts" && s.status.switchCount == 2, "\(third) \(s.status.switches)")
    }

    @Test func aVariantWithAHostileOrMisalignedPlaylistIsLeftOut() throws {
        // v2's segments are 3 s long (they do not line up); v1's durations are hostile.
        let s = try Self.switcher(playlists: [
            Self.host + "v1/index.m3u8": Self.mediaPlaylist(["2", "0", "-1"]),
            Self.host + "v2/index.m3u8": Self.mediaPlaylist(Array(repeating: "3", count: 7)),
        ])
        s.setBufferLevel { 30 }
        s.arm()
        let first = try #require(s.plan(for: Self.host + "v0/seg0.ts"))
        s.downloaded(first, bytes: 2_000_000, seconds: 0.1)
        for k in 1..<10 {
            let plan = try #require(s.plan(for: Self.host + "v0/seg\(k).ts"))
            #expect(plan.url == Self.host + "v0/seg\(k).ts", "segment \(k): \(plan)")
            s.downloaded(plan, bytes: 2_000_000, seconds: 0.1)
        }
        #expect(s.status.variant.bandwidth == 600_000 && s.status.switchCount == 0, "\(s.status)")
    }

    // MARK: separate audio renditions

    /// A master of two video-only variants playing with audio group "aud" (English and French),
    /// and a variant of another group, "other", whose rendition is live.
    static let renditionMaster = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="eng",DEFAULT=YES,URI="a/eng.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="\u{1B}]0;owned\u{07}Fran\u{202E}ais",LANGUAGE="fra",URI="a/fra.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="other",NAME="Live",URI="a/live.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=600000,AUDIO="aud"
        v0/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3600000,AUDIO="aud"
        v2/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1500000,AUDIO="other"
        v1/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,AUDIO="missing"
        v3/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,AUDIO="missing"
        v4/index.m3u8

        """

    @Test func aGroupOfVODRenditionsAllowsSwitchingItsVariants() throws {
        let master = try #require(HLSMasterPlaylist.parse(Self.renditionMaster, base: Self.host + "master.m3u8"))
        let vod = Self.mediaPlaylist(Array(repeating: "2", count: 5))
        let docs = [Self.host + "a/eng.m3u8": vod, Self.host + "a/fra.m3u8": vod, Self.host + "a/live.m3u8": Self.mediaPlaylist(["2"], ended: false)]
        #expect(master.needsRenditions(master.variants[0]))
        // The ladder is the group's variants only; the live rendition of "other" does not matter.
        #expect(VariantChooser.ladder(master.variants, anchor: 0, limit: 32) == [0, 1])
        #expect(HLSMasterKind.renditionRefusal(master, group: "aud") { docs[$0] } == nil)
        // The other group's rendition is live while its variant is VOD: no switching.
        let live = try #require(HLSMasterKind.renditionRefusal(master, group: "other") { docs[$0] })
        #expect(live == "the audio rendition 'Live' is live while the variants are VOD", "\(live)")
    }

    @Test func anUnreadableOrHostileRenditionRefusesSwitchingInOneCleanLine() throws {
        let master = try #require(HLSMasterPlaylist.parse(Self.renditionMaster, base: Self.host + "master.m3u8"))
        let vod = Self.mediaPlaylist(Array(repeating: "2", count: 5))
        // French cannot be read; then it has a hostile duration; then it is a master, not a media playlist.
        for (french, says) in [(nil, "cannot be read"), (Self.mediaPlaylist(["2", "nan"]), "is refused"),
                               ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", "is refused")] {
            let docs = [Self.host + "a/eng.m3u8": vod, Self.host + "a/fra.m3u8": french]
            let why = try #require(HLSMasterKind.renditionRefusal(master, group: "aud") { docs[$0] ?? nil })
            #expect(why.contains(says), "\(why)")
            // The manifest's name reaches the log sanitised: no escape, BEL or bidi override.
            #expect(!why.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(why.debugDescription)")
        }
        // More renditions in a group than are checked: refused without reading any.
        var many = "#EXTM3U\n"
        for k in 0...HLSMasterKind.maxCheckedRenditions { many += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"g\",NAME=\"r\(k)\",URI=\"a\(k).m3u8\"\n" }
        many += "#EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO=\"g\"\nv.m3u8\n"
        let big = try #require(HLSMasterPlaylist.parse(many, base: Self.host + "m.m3u8"))
        var reads = 0
        let why = HLSMasterKind.renditionRefusal(big, group: "g") { _ in reads += 1; return vod }
        #expect(why?.contains("more than \(HLSMasterKind.maxCheckedRenditions)") == true && reads == 0, "\(String(describing: why))")
    }

    @Test func aVariantNamingAMissingGroupPlaysAloneAndSwitchesWithItsOwnGroup() throws {
        let master = try #require(HLSMasterPlaylist.parse(Self.renditionMaster, base: Self.host + "master.m3u8"))
        // AUDIO="missing" names no EXT-X-MEDIA: its sound must be muxed in; its own playlist plays.
        #expect(!master.needsRenditions(master.variants[3]))
        #expect(HLSMasterKind.renditionRefusal(master, group: "missing") { _ in nil } == nil)
        #expect(VariantChooser.ladder(master.variants, anchor: 3, limit: 32) == [3, 4])
    }

    // MARK: live

    /// A live playlist of `count` 2 s segments from `sequence` on, each with a program
    /// date-time (`dates`: 2 s apart from `origin`), segment names carrying the variant and number.
    static func livePlaylist(_ variant: Int, sequence: Int, count: Int, origin: Double? = 1_700_000_000, numberShift: Int = 0,
                             ended: Bool = false) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(sequence + numberShift)\n"
        for k in sequence..<(sequence + count) {
            if let origin {
                let date = Date(timeIntervalSince1970: origin + Double(k) * 2)
                let f = ISO8601DateFormatter()
                f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                text += "#EXT-X-PROGRAM-DATE-TIME:\(f.string(from: date))\n"
            }
            text += "#EXTINF:2.0,\nv\(variant)-\(k).ts\n"
        }
        return text + (ended ? "#EXT-X-ENDLIST\n" : "")
    }

    /// Variants' live playlists as a server would hand them out, changeable between reads, and
    /// the reads counted per URL.
    final class LiveServer: @unchecked Sendable {
        private let lock = NSLock()
        private var docs: [String: String] = [:]
        private var reads: [String: Int] = [:]
        func set(_ url: String, _ text: String?) { lock.withLock { docs[url] = text } }
        func read(_ url: String) -> String? { lock.withLock { reads[url, default: 0] += 1; return docs[url] } }
        func count(_ url: String) -> Int { lock.withLock { reads[url, default: 0] } }
    }

    /// A live ladder v0 (anchor, 600k), v1, v2; the server's v1/v2 documents from `server`.
    static func liveSwitcher(anchorText: String, server: LiveServer, clock: TimeSource = .monotonic) throws -> AdaptiveSwitcher {
        let variants = (0..<3).map { StreamVariant(uri: Self.host + "v\($0)/index.m3u8", bandwidth: Int(rates[$0])) }
        let anchor = try HLSMediaPlaylist.parse(anchorText, base: variants[0].uri ?? "")
        return AdaptiveSwitcher(variants: variants, ladder: [0, 1, 2], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(), clock: clock) {
            server.read($0)
        }
    }

    @Test func theDatesOfAPlaylistAreReadAndCarriedForward() throws {
        let p = try HLSMediaPlaylist.parse(Self.livePlaylist(0, sequence: 5, count: 3), base: Self.host + "v0/index.m3u8")
        #expect(p.segments.map(\.sequence) == [5, 6, 7] && !p.isEnded && p.isSwitchable)
        #expect(p.segments.map(\.programDateTime) == [1_700_000_010, 1_700_000_012, 1_700_000_014])
        #expect(p.index(sequence: 6) == 1 && p.index(sequence: 8) == nil && p.index(sequence: 4) == nil)
        #expect(p.index(date: 1_700_000_012.3, tolerance: 0.5) == 1 && p.index(date: 1_700_000_013, tolerance: 0.5) == nil)
        // A date only on the first segment: the others follow by their durations.
        let one = try HLSMediaPlaylist.parse("#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:2026-11-24T16:00:00+01:00\n#EXTINF:2,\na.ts\n#EXTINF:1.5,\nb.ts\n#EXTINF:2,\nc.ts\n",
                                             base: Self.host)
        #expect(one.segments.map(\.programDateTime) == [1_795_532_400, 1_795_532_402, 1_795_532_403.5])
        // Hostile dates are left out one by one; the playlist still plays.
        for bad in ["", "yesterday", "2026-13-01T00:00:00Z", "2026-11-24T25:00:00Z", "1969-12-31T23:59:59Z", "2026-11-24T16:00:00Zjunk",
                    "2026-11-24T16:00:00.Z", "2026-11-24T16:00:00+99:00", String(repeating: "2", count: 100_000), "２０２６-11-24T16:00:00Z"] {
            let q = try HLSMediaPlaylist.parse("#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:\(bad)\n#EXTINF:2,\na.ts\n", base: Self.host)
            #expect(q.segments.count == 1 && q.segments[0].programDateTime == nil, "\(bad.prefix(40))")
        }
        #expect(throws: OutsideValue.Refusal.self) { try OutsideValue.dateTime("2026-02-30T00:00:00\u{1B}[2J", name: "d") }
        #expect(try OutsideValue.dateTime("2026-11-24t16:00:00.5z", name: "d") == 1_795_536_000.5)
    }

    @Test func liveSegmentsAreMatchedBySequenceNumberAndOtherVariantsReadAtTheirTargetDuration() throws {
        let server = LiveServer()
        let time = ManualTimeSource()
        let s = try Self.liveSwitcher(anchorText: Self.livePlaylist(0, sequence: 10, count: 4), server: server, clock: time.source)
        #expect(s.isLive)
        // v2's window lags the anchor's by one segment and has a different origin for its
        // starts: matched by number, not by time from its first segment.
        server.set(Self.host + "v2/index.m3u8", Self.livePlaylist(2, sequence: 8, count: 5))
        server.set(Self.host + "v1/index.m3u8", Self.livePlaylist(1, sequence: 10, count: 4))
        s.setBufferLevel { 10 }
        s.arm()
        let first = try #require(s.plan(for: Self.host + "v0/v0-10.ts"))
        s.downloaded(first, bytes: 750_000, seconds: 0.5)  // 12 Mb/s
        let second = try #require(s.plan(for: Self.host + "v0/v0-11.ts"))
        #expect(second.url == Self.host + "v2/v2-11.ts", "\(second)")
        #expect(server.count(Self.host + "v2/index.m3u8") == 1)
        // The anchor's reload (the demuxer's) lists #14; v2's copy does not, and was read just
        // now: the variant playing waits until its target duration has passed, then reads again.
        s.playlistFetched(Self.host + "v0/index.m3u8", text: Self.livePlaylist(0, sequence: 11, count: 4))
        server.set(Self.host + "v2/index.m3u8", Self.livePlaylist(2, sequence: 9, count: 6))
        var waited: [Double] = []
        s.downloaded(second, bytes: 750_000, seconds: 0.5)
        time.advance(milliseconds: 300)
        let third = try #require(s.plan(for: Self.host + "v0/v0-14.ts", wait: { waited.append($0); return time.wait(seconds: $0) }))
        #expect(third.url == Self.host + "v2/v2-14.ts", "\(third)")
        // Read at 0 s, asked at 0.3 s: the rest of its 2 s target duration, on the manual clock.
        #expect(waited.count == 1 && abs(waited[0] - 1.7) < 1e-9 && time.milliseconds == 2_000, "\(waited)")
        #expect(server.count(Self.host + "v2/index.m3u8") == 2)
        // The switch's position is on the first copy's timeline: #11 starts 2 s after #10.
        #expect(s.status.switches.map(\.position) == [2], "\(s.status.switches)")
        // No switch needed v1: it was never read.
        #expect(server.count(Self.host + "v1/index.m3u8") == 0)
    }

    @Test func aLiveVariantThatStopsUpdatingOrGoesBackIsLeftOut() throws {
        for hostile in ["stalled", "rewound", "ended", "vanished"] {
            let server = LiveServer()
            let s = try Self.liveSwitcher(anchorText: Self.livePlaylist(0, sequence: 10, count: 4), server: server)
            let v2 = Self.host + "v2/index.m3u8"
            server.set(v2, Self.livePlaylist(2, sequence: 10, count: 4))
            s.setBufferLevel { 10 }
            s.arm()
            let first = try #require(s.plan(for: Self.host + "v0/v0-10.ts"))
            s.downloaded(first, bytes: 750_000, seconds: 0.5)
            #expect(try #require(s.plan(for: Self.host + "v0/v0-11.ts")).url == Self.host + "v2/v2-11.ts")
            s.playlistFetched(Self.host + "v0/index.m3u8", text: Self.livePlaylist(0, sequence: 12, count: 4))
            switch hostile {
            case "stalled": break  // v2 stays as it was
            case "rewound": server.set(v2, Self.livePlaylist(2, sequence: 1, count: 4))
            case "ended": server.set(v2, Self.livePlaylist(2, sequence: 10, count: 4, ended: true))
            default: server.set(v2, nil)
            }
            var waits = 0
            let plan = try #require(s.plan(for: Self.host + "v0/v0-15.ts", wait: { _ in waits += 1; return true }))
            // Left out: the segment comes from a variant that lists it (v1 was never read and has
            // no document either, so the anchor's own), never from v2.
            #expect(plan.url == Self.host + "v0/v0-15.ts", "\(hostile): \(plan)")
            #expect(s.status.variant.bandwidth == 600_000, "\(hostile)")
            let reads = server.count(v2)
            #expect(hostile == "stalled" ? reads == 1 + AdaptiveSwitcher.liveReadsForCurrent : reads == 2, "\(hostile): \(reads) reads")
            // Never asked for again.
            _ = s.plan(for: Self.host + "v0/v0-14.ts", wait: { _ in true })
            #expect(server.count(v2) == reads, "\(hostile)")
        }
    }

    @Test func liveVariantsWhoseNumbersDoNotLineUpAreMatchedByDate() throws {
        let server = LiveServer()
        let s = try Self.liveSwitcher(anchorText: Self.livePlaylist(0, sequence: 10, count: 4), server: server)
        // v2 numbers its segments 1000 higher; the dates agree.
        server.set(Self.host + "v2/index.m3u8", Self.livePlaylist(2, sequence: 10, count: 4, numberShift: 1000))
        s.setBufferLevel { 10 }
        s.arm()
        let first = try #require(s.plan(for: Self.host + "v0/v0-10.ts"))
        s.downloaded(first, bytes: 750_000, seconds: 0.5)
        // The first read of v2 finds no common number but overlapping dates: the date rule.
        let second = try #require(s.plan(for: Self.host + "v0/v0-11.ts"))
        #expect(second.url == Self.host + "v2/v2-11.ts", "\(second)")
        // Without dates the numbers are trusted: a shifted variant without dates never matches.
        let plain = LiveServer()
        let t = try Self.liveSwitcher(anchorText: Self.livePlaylist(0, sequence: 10, count: 4, origin: nil), server: plain)
        plain.set(Self.host + "v2/index.m3u8", Self.livePlaylist(2, sequence: 10, count: 4, origin: nil, numberShift: 1000))
        t.setBufferLevel { 10 }
        t.arm()
        let a = try #require(t.plan(for: Self.host + "v0/v0-10.ts"))
        t.downloaded(a, bytes: 750_000, seconds: 0.5)
        let b = try #require(t.plan(for: Self.host + "v0/v0-11.ts"))
        #expect(!b.url.contains("v2/"), "\(b)")
        #expect(AdaptiveSwitcher.needsDates(try HLSMediaPlaylist.parse(Self.livePlaylist(2, sequence: 10, count: 4, numberShift: 3), base: Self.host),
                                            anchor: try HLSMediaPlaylist.parse(Self.livePlaylist(0, sequence: 10, count: 4), base: Self.host)))
    }

    @Test func noStepUpPastWhatTheLastDownloadCarriedAndLiveTrustsTwoSegmentsAhead() throws {
        // The averages still say 2.25 Mb/s after the link fell to 1: the last download (1.04)
        // keeps the lowest rung.
        let held = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 2.25e6, recent: 1.04e6, fast: 2.25e6,
                                       buffer: 3, segmentSeconds: 2, sinceSwitch: 10, policy: AdaptivePolicy())
        #expect(held == nil, "\(String(describing: held))")
        // The same averages with a fast last download: up.
        let up = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 2.25e6, recent: 5.9e6, fast: 2.25e6,
                                     buffer: 3, segmentSeconds: 2, sinceSwitch: 10, policy: AdaptivePolicy())
        #expect(up?.rung == 1, "\(String(describing: up))")
        // Live: full trust of the fast average at two segments ahead, none at one.
        let live = AdaptivePolicy().live(segment: 2)
        #expect(live.lowBuffer == 2 && live.highBuffer == 4)
        #expect(AdaptivePolicy().live(segment: .nan).highBuffer == 4 && AdaptivePolicy().live(segment: 1e9).highBuffer == 20)
        let climb = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 2.4e6, recent: 5.9e6, fast: 5.6e6,
                                        buffer: 4, segmentSeconds: 2, sinceSwitch: 10, policy: live)
        #expect(climb?.rung == 2, "\(String(describing: climb))")
        let vod = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 2.4e6, recent: 5.9e6, fast: 5.6e6,
                                      buffer: 4, segmentSeconds: 2, sinceSwitch: 10, policy: AdaptivePolicy())
        #expect(vod?.rung == 1, "\(String(describing: vod))")
        // The live run's flap (CI): top rung 3.6 Mb/s, a 4.66 Mb/s link, 1.7 s buffered. The
        // segment loads in 1.55 s of its 2: live keeps pace and stays; VOD with 1.7 s buffered
        // refills too slowly for its 3/4 rule and steps down.
        let pace = AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 4.66e6, recent: 4.66e6, fast: 4.66e6,
                                       buffer: 1.7, segmentSeconds: 2, sinceSwitch: 2, policy: live)
        #expect(pace == nil, "\(String(describing: pace))")
        let refill = AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 4.66e6, recent: 4.66e6, fast: 4.66e6,
                                         buffer: 1.7, segmentSeconds: 2, sinceSwitch: 2, policy: AdaptivePolicy())
        #expect(refill?.rung == 1, "\(String(describing: refill))")
        // A live link that no longer keeps pace still drops at once.
        let behind = AdaptiveRule.decide(current: 2, rates: Self.rates, estimate: 3.5e6, recent: 3.5e6, fast: 3.5e6,
                                         buffer: 1.7, segmentSeconds: 2, sinceSwitch: 2, policy: live)
        #expect(behind.map { $0.rung < 2 } == true, "\(String(describing: behind))")
        // Live at the start (1.1 s buffered, 5.9 Mb/s): the top segment (1.2 s to load) would
        // outlast the buffer, the middle one (0.5 s) does not; VOD allows a segment's time.
        #expect(live.up.withinBuffer == 0.8 && AdaptivePolicy().up.withinBuffer == nil)
        let start = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 5.9e6, recent: 5.9e6, fast: 5.9e6,
                                        buffer: 1.1, segmentSeconds: 2, sinceSwitch: 10, policy: live)
        #expect(start?.rung == 1, "\(String(describing: start))")
        let vodStart = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 5.9e6, recent: 5.9e6, fast: 5.9e6,
                                           buffer: 1.1, segmentSeconds: 2, sinceSwitch: 10, policy: AdaptivePolicy())
        #expect(vodStart?.rung == 2, "\(String(describing: vodStart))")
        let deeper = AdaptiveRule.decide(current: 0, rates: Self.rates, estimate: 5.9e6, recent: 5.9e6, fast: 5.9e6,
                                         buffer: 1.9, segmentSeconds: 2, sinceSwitch: 10, policy: live)
        #expect(deeper?.rung == 2, "\(String(describing: deeper))")
    }

    @Test func aSegmentLoadingTooSlowlyForTheBufferIsAbandonedForALowerVariant() throws {
        let ten = Self.mediaPlaylist(Array(repeating: "2", count: 10))
        let s = try Self.switcher(playlists: [Self.host + "v1/index.m3u8": ten, Self.host + "v2/index.m3u8": ten])
        nonisolated(unsafe) var buffer = 2.5
        s.setBufferLevel { buffer }
        s.arm()
        let first = try #require(s.plan(for: Self.host + "v0/seg0.ts"))
        s.downloaded(first, bytes: 1_500_000, seconds: 2)  // 6 Mb/s
        let top = try #require(s.plan(for: Self.host + "v0/seg1.ts"))
        #expect(top.rung == 2 && top.anchorURL == Self.host + "v0/seg1.ts")
        // Before half the segment's duration: carry on whatever the rate.
        #expect(s.abandon(top, loaded: 10_000, elapsed: 0.9) == nil)
        // 1 Mb/s after 1.1 s: 6.1 s left of 900 kB with 2.5 s buffered; v0's segment (150 kB) loads
        // in 1.5 s at 80 % of that rate, v1's would not: v0.
        let low = try #require(s.abandon(top, loaded: 137_500, elapsed: 1.1))
        #expect(low.url == Self.host + "v0/seg1.ts" && low.rung == 0, "\(low)")
        #expect(s.status.switchCount == 2 && s.status.switches.last?.reason.hasPrefix("abandoned a segment") == true, "\(s.status.switches)")
        // Nothing lower than the lowest; a rest that loads within the buffer is finished.
        #expect(s.abandon(low, loaded: 20_000, elapsed: 1.5) == nil)
        buffer = 10
        let again = try #require(s.plan(for: Self.host + "v0/seg2.ts"))
        #expect(s.abandon(AdaptiveSwitcher.Plan(url: again.url, rung: 2, mediaSeconds: 2, anchorURL: Self.host + "v0/seg2.ts"), loaded: 137_500, elapsed: 1.1) == nil)
    }
}
