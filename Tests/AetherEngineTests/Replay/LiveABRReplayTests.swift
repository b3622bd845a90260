import AetherBase
@testable import AetherStreaming
import Foundation
import Testing

/// The throttled live runs of `LiveAdaptiveBitrateTests` as trace replays: `hls-abr` played out
/// live (``ReplayLiveStream``, as `live_ladder.py` does) at 6 Mb/s, 1 Mb/s from 10 s, 6 Mb/s
/// from 22 s, 40 s, the demuxer reloading the anchor's playlist as libavformat does.
@Suite struct LiveABRReplayTests {
    /// Seconds since the last publication when the player opens (the replays hold for any).
    static let phase = 1.5
    /// Seconds the playhead runs before the first segment after the probe is asked for: CI's
    /// live run logged 1.1 s buffered at that first decision (the probe's 2 s segment, 0.9 s played).
    static let startLag = 0.9

    static func run(_ link: ABRReplay.Link, _ dir: String = "hls-abr", language: String? = nil, policy: AdaptivePolicy = AdaptivePolicy(),
                    offsets: [Int] = [], until: Double = 40) throws -> (ABRReplay, ReplayLadder, ReplayLiveStream) {
        let stream = try ReplayLiveStream(dir, phase: phase, offsets: offsets, language: language)
        let ladder = try stream.ladder(policy: policy)
        let r = ladder.replay(link)
        let url = stream.playlistURL(ladder.anchor)
        try r.playLive(anchor: url, first: ladder.anchorPlaylist, reload: { stream.text(ladder.anchor, at: $0) }, beside: stream.beside,
                        startLag: startLag, until: until)
        return (r, ladder, stream)
    }

    /// Down while throttled and back to the top within 15 s, no rebuffer, at most 5 switches and
    /// two changes of direction; segments matched by media sequence number, one per number (an
    /// abandoned one fetched again lower); the other variants' playlists read no sooner than
    /// their target duration apart; the start goes up in two steps (the live step-up rule: the
    /// top segment would outlast the little buffered at the join).
    @Test func aLiveLadderSwitchesDownAndBackUpByMediaSequenceNumber() throws {
        let (r, ladder, stream) = try Self.run(.throttled(slow: 10, fast: 22))
        ABRReplayTests.expectRidesTheThrottle(r, ladder, slow: 10, fast: 22, switches: 2...5)
        let numbers = r.planned.filter { !$0.abandoned }.compactMap { Int($0.url.suffix(6).prefix(3)) }
        #expect(numbers.count >= 12 && numbers == Array((numbers.first ?? 0)..<((numbers.first ?? 0) + numbers.count)), "\(numbers)")
        #expect(r.switcher.state.withLock { s in s.rungs.allSatisfy { !$0.byDate } })
        for v in 1..<3 {
            let times = stream.reads.filter { $0.url == stream.playlistURL(v) }.map(\.at)
            let closest = zip(times.dropFirst(), times).map { $0 - $1 }.min() ?? .infinity
            #expect(!times.isEmpty && closest >= 1.9, "v\(v) read at \(times)")
        }
        let ups = r.switcher.status.switches.prefix { $0.toBandwidth > $0.fromBandwidth }.map(\.toVariant)
        #expect(ups == [2, 3], "the start: \(r.moves); \(r.trace)")
    }

    /// Live HLS with separate audio renditions (`hls-renditions-abr`, `--alang=fra`, 10/22/36 s as
    /// its e2e run had it): the demuxer fetches the French segment in series with the video's; the
    /// video switches down and back up as above, the start still in two steps, and the switcher
    /// never plans a rendition segment (each French one once, in order).
    @Test func aLiveMasterWithRenditionsSwitchesVideoWhileTheRenditionPlaysOn() throws {
        let (r, ladder, _) = try Self.run(.throttled(slow: 10, fast: 22), "hls-renditions-abr", language: "fra", until: 36)
        ABRReplayTests.expectRidesTheThrottle(r, ladder, slow: 10, fast: 22, switches: 2...5)
        let audio = r.fetches.filter { $0.rung == nil }.map(\.url)
        let numbers = audio.compactMap { $0.contains("/Francais/seg") ? Int($0.suffix(6).prefix(3)) : nil }
        #expect(r.plannedBeside.isEmpty && numbers.count == audio.count && numbers.count >= 12
                && numbers == Array((numbers.first ?? 0)..<((numbers.first ?? 0) + numbers.count)), "\(audio)")
        let ups = r.switcher.status.switches.prefix { $0.toBandwidth > $0.fromBandwidth }.map(\.toVariant)
        #expect(ups == [2, 3], "the start: \(r.moves); \(r.trace)")
    }

    /// A variant whose media sequence numbers run 7 ahead (dates agree) is matched by program
    /// date-time: the segment fetched for the anchor's number k is its k + 7, one per place.
    @Test func aLiveVariantWhoseNumbersDoNotLineUpIsMatchedByDate() throws {
        let (r, _, _) = try Self.run(ABRReplay.Link(steps: [(0, 6_000_000)]), offsets: [0, 0, 7], until: 20)
        #expect(r.switcher.state.withLock { s in s.rungs[2].byDate && !s.rungs[1].byDate && !s.rungs[2].unusable })
        let top = r.planned.filter { $0.rung == 2 }
        #expect(top.count >= 3 && r.rebuffers == 0, "\(r.moves); \(r.trace)")
        // The URLs are the fixture's own (segment k of every variant is the same place); the
        // number in the playlist is k + 7, the file segKKK.ts is k: consecutive places.
        let places = r.planned.filter { !$0.abandoned }.compactMap { Int($0.url.suffix(6).prefix(3)) }
        #expect(places == Array((places.first ?? 0)..<((places.first ?? 0) + places.count)), "\(places)")
    }

    /// CI's flap, replayed on the switcher: the top rung (3.6 Mb/s) playing live on a link that
    /// carries 4.66 Mb/s, 1.7 s buffered (a live buffer stays at its distance to the edge), one
    /// segment published and fetched every 2 s (the first three measured before switching is
    /// armed, so the estimate knows the link). Live keeps pace (each segment loads within its
    /// own length) and stays on the top; with the VOD refill share (3/4 of a segment, what
    /// `live(segment:)` used to keep) the same trace steps down for the buffer, so the replay
    /// catches that bug coming back.
    @Test func aLiveLinkThatKeepsPaceStaysOnTheTopAndTheOldEmergencyRuleStepsDown() throws {
        func replay(_ policy: AdaptivePolicy) throws -> AdaptiveSwitcher {
            let stream = try ReplayLiveStream("hls-abr", phase: Self.phase)
            let ladder = try stream.ladder(policy: policy, preference: .max)
            let clock = ManualTimeSource()
            let s = ladder.switcher(clock.source)
            s.setBufferLevel { 1.7 }
            // Three segments measured on the top before switching is armed: the link's history.
            for k in 0..<10 {
                if k == 3 { s.arm() }
                let copy = try HLSMediaPlaylist.parse(stream.text(ladder.anchor, at: clock.seconds), base: stream.playlistURL(ladder.anchor))
                s.playlistFetched(stream.playlistURL(ladder.anchor), text: stream.text(ladder.anchor, at: clock.seconds))
                guard let segment = copy.segments.last, let plan = s.plan(for: segment.uri, wait: clock.wait) else { continue }
                let bytes = ladder.size(plan.url, plan.range)
                s.downloaded(plan, bytes: bytes, seconds: Double(bytes) * 8 / 4_660_000)
                clock.advance(seconds: 2)
            }
            return s
        }
        let kept = try replay(AdaptivePolicy())
        #expect(kept.status.switchCount == 0 && kept.status.variant.bandwidth == 3_600_000, "\(kept.status.switches)")
        var old = AdaptivePolicy()
        old.emergency.liveLoadShare = old.emergency.loadShare
        let flap = try replay(old).status.switches
        #expect(flap.first.map { $0.toBandwidth < $0.fromBandwidth && $0.reason.hasPrefix("buffer 1.7 s") } == true, "\(flap)")
    }
}
