import AetherBase
@testable import AetherStreaming
import Foundation
import Testing

/// The throttled bit-rate switching runs of `AdaptiveBitrateEndToEndTests` as trace replays
/// (``ABRReplay``): the fixture ladders as the player opens them, the link schedule
/// (6 Mb/s, 1 Mb/s from 20 s, 6 Mb/s from 50 s, 90 s; the shorter ladders 12/28/46 s as their
/// e2e runs had it), and the same checks on what the switcher did. The real throttled run stays
/// once per protocol (HLS, DASH) for what only the binary shows: sound, decoding, the proxy.
@Suite struct ABRReplayTests {
    /// What every throttled run must show (the e2e tests' checks): no rebuffer; `switches`
    /// switches, at most two changes of direction; down to the lowest rung, a lowest-rung
    /// segment fetched while the link was slow; the top rung fetched again within 15 s of the
    /// recovery and playing at the end with an estimate above its rate; every place on the
    /// timeline planned, one segment each (an abandoned one fetched again lower).
    static func expectRidesTheThrottle(_ r: ABRReplay, _ ladder: ReplayLadder, slow: Double, fast: Double,
                                       switches: ClosedRange<Int> = 2...4, sourceLocation: SourceLocation = #_sourceLocation) {
        let status = r.switcher.status
        let lowest = ladder.ladder[0], top = ladder.ladder.count - 1
        #expect(r.rebuffers == 0, "stalled at \(r.stalls); switches \(r.moves)", sourceLocation: sourceLocation)
        #expect(switches.contains(status.switchCount) && r.turns <= 2, "\(status.switchCount) switches: \(r.moves); \(r.trace)", sourceLocation: sourceLocation)
        #expect(status.switches.contains { $0.toVariant == lowest + 1 }, "never went down: \(r.moves)", sourceLocation: sourceLocation)
        #expect(r.planned.contains { $0.rung == 0 && $0.start > slow && $0.start < fast }, "no lowest-rung segment while slow: \(r.moves)",
                sourceLocation: sourceLocation)
        let after = r.first(top, after: fast) ?? .infinity
        #expect(after <= 15, "back on the top rung \(after) s after the recovery; switches \(r.moves)", sourceLocation: sourceLocation)
        #expect(status.variantIndex == ladder.ladder[top] && (status.estimate ?? 0) > Double(status.variant.bandwidth),
                "playing \(status.variant.bandwidth) b/s at the end, estimate \(String(describing: status.estimate))", sourceLocation: sourceLocation)
        let kept = r.planned.filter { !$0.abandoned }.count
        #expect(r.unplanned.isEmpty && kept == r.demuxed && kept >= 10, "\(r.unplanned); \(kept) segments for \(r.demuxed) places",
                sourceLocation: sourceLocation)
    }

    @Test func anHLSLadderSwitchesDownWithoutRebufferingAndBackUpAfterwards() throws {
        let ladder = try ReplayLadder.hls("hls-abr")
        let r = ladder.replay(.throttled(slow: 20, fast: 50))
        r.play(ladder.places, until: 90)
        Self.expectRidesTheThrottle(r, ladder, slow: 20, fast: 50)
        // The schedule played out on the clock, not on the wall: 90 s of media time passed.
        #expect(r.clock.milliseconds == 90_000 && r.playhead > 85, "\(r.clock.milliseconds) ms, playhead \(r.playhead)")
    }

    @Test func aDASHLadderSwitchesDownWithoutRebufferingAndBackUpAfterwards() throws {
        let ladder = try ReplayLadder.dash("dash-abr/manifest.mpd")
        #expect(ladder.ladder.count == 3 && ladder.places.allSatisfy { !$0.beside.isEmpty }, "\(ladder.ladder)")
        let r = ladder.replay(.throttled(slow: 20, fast: 50))
        r.play(ladder.places, until: 90)
        Self.expectRidesTheThrottle(r, ladder, slow: 20, fast: 50)
        // The audio set plays on: its fragments are never the switcher's.
        #expect(r.plannedBeside.isEmpty, "\(r.plannedBeside.prefix(3))")
    }

    /// `hls-renditions-abr` with the French rendition (`--alang=fra`): the video variants switch
    /// down and back up while the rendition plays on. The switcher never plans a rendition
    /// segment (each French one fetched once, in order, as the demuxer names it; no English one).
    @Test func aMasterWithSeparateAudioRenditionsSwitchesVideoWhileTheChosenRenditionPlaysOn() throws {
        let ladder = try ReplayLadder.hls("hls-renditions-abr", language: "fra")
        let r = ladder.replay(.throttled(slow: 12, fast: 28))
        r.play(ladder.places, until: 46)
        Self.expectRidesTheThrottle(r, ladder, slow: 12, fast: 28)
        let audio = r.fetches.filter { $0.rung == nil }.map(\.url)
        let french = audio.filter { $0.contains("/Francais/seg") }
        #expect(r.plannedBeside.isEmpty && !french.isEmpty && french == audio, "\(audio.prefix(4)); planned \(r.plannedBeside.prefix(3))")
        #expect(french == (0..<french.count).map { ReplayLadder.base + String(format: "hls-renditions-abr/Francais/seg%03d.ts", $0) })
    }

    /// `hls-ranges-abr`: one MPEG-TS file per variant, each segment an `EXT-X-BYTERANGE` of it,
    /// lengths differing across variants. Every range fetched is exactly one segment of its own
    /// variant's playlist (never cut at the playing one's length), all three variants are
    /// fetched, one segment per place on the timeline (an abandoned one fetched again lower).
    @Test func anHLSByteRangeLadderSwitchesWholeRanges() throws {
        let ladder = try ReplayLadder.hls("hls-ranges-abr")
        let r = ladder.replay(.throttled(slow: 12, fast: 28))
        r.play(ladder.places, until: 46)
        Self.expectRidesTheThrottle(r, ladder, slow: 12, fast: 28)
        var places: [Int] = []
        for f in r.planned {
            let own = ladder.playlists[f.rung ?? 0]
            let k = own.segments.firstIndex { $0.uri == f.url && $0.byteRange == f.range && f.range != nil }
            #expect(k != nil, "\(f.url) \(String(describing: f.range)) is not a segment of rung \(String(describing: f.rung))")
            if let k, !f.abandoned { places.append(k) }
        }
        #expect(Set(r.planned.compactMap(\.rung)) == [0, 1, 2] && places == Array(0..<places.count), "\(places)")
        // The lengths differ across variants: a range cut at the anchor's length would show.
        #expect(Set(ladder.playlists.map { $0.segments[3].byteRange?.length }).count == 3)
    }

    /// `dash-ranges-abr/sb.mpd`: `SegmentBase` representations (one fragmented MP4 each, a sidx)
    /// and the French audio set. Each fragment fetched is one listed by its own representation's
    /// playlist (the file's range); the audio set's ranges are never the switcher's.
    @Test func aDASHSegmentBaseLadderSwitchesByteRanges() throws {
        let ladder = try ReplayLadder.dash("dash-ranges-abr/sb.mpd")
        let r = ladder.replay(.throttled(slow: 12, fast: 28))
        r.play(ladder.places, until: 46)
        Self.expectRidesTheThrottle(r, ladder, slow: 12, fast: 28)
        for f in r.planned {
            let own = ladder.playlists[f.rung ?? 0]
            let file = ladder.dash?.fetches[f.url]?.segment
            #expect(own.segments.contains { $0.uri == f.url } && file?.range != nil
                    && file?.url.hasSuffix("/v\(f.rung ?? -1).mp4") == true, "\(f.url) is not a fragment of rung \(String(describing: f.rung))")
        }
        let audio = r.fetches.filter { $0.rung == nil }
        #expect(r.plannedBeside.isEmpty && audio.count >= 10
                && audio.allSatisfy { ladder.dash?.fetches[$0.url]?.segment.url.hasSuffix("/Francais.mp4") == true }, "\(audio.count) audio fragments")
    }

    /// The replay fails when the rule does: a link that never comes back stays low, so the
    /// recovery check cannot pass by itself; and one that never falls never goes down.
    @Test func theReplayFailsWhenTheRunDoesNot() throws {
        let ladder = try ReplayLadder.hls("hls-abr")
        let stuck = ladder.replay(ABRReplay.Link(steps: [(0, 6_000_000), (20, 1_000_000)]))
        stuck.play(ladder.places, until: 90)
        #expect(stuck.first(2, after: 50) == nil && stuck.switcher.status.variantIndex == ladder.ladder[0], "\(stuck.moves)")
        let steady = ladder.replay(ABRReplay.Link(steps: [(0, 6_000_000)]))
        steady.play(ladder.places, until: 90)
        #expect(steady.switcher.status.switchCount == 1 && steady.rebuffers == 0, "\(steady.moves)")
        // Too slow for even the lowest rung: the buffer runs dry and the stall is counted.
        let starved = ladder.replay(ABRReplay.Link(steps: [(0, 6_000_000), (20, 300_000)]))
        starved.play(ladder.places, until: 90)
        #expect(starved.rebuffers >= 1, "\(starved.moves)")
    }
}
