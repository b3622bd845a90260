import AetherBase
@testable import AetherMedia
@testable import AetherStreaming
import Foundation
import Testing

/// The network layer's decisions by time, against a ``ManualTimeSource`` (milliseconds, no
/// sleeping): the source's one throughput estimate (``NetworkMonitor``) fed by arrivals and by
/// segments, the reconnect backoff and the token's deadline.
@Suite struct NetworkClockTests {
    /// A token on `clock` (its waits let the time pass: the source's `pass`).
    static func token(_ clock: ManualTimeSource) -> InterruptToken { InterruptToken(clock: clock.source) }

    @Test func arrivalsCloseOneSecondWindowsIntoTheEstimate() {
        let clock = ManualTimeSource()
        let monitor = NetworkMonitor(clock: clock.source)
        #expect(monitor.status.throughput == 0 && monitor.throughput.estimate == nil)
        // 100 kB every 100 ms: the window closes at the first byte at or after 1 s.
        for _ in 0..<10 {
            monitor.received(100_000)
            clock.advance(milliseconds: 100)
        }
        #expect(monitor.throughput.samples == 0, "the window is open until a byte arrives at 1 s")
        monitor.received(100_000)
        #expect(monitor.throughput.samples == 1)
        // 1.1 MB in 1 s (the bytes at 1 s close the window): 8.8 Mb/s, 1.1 MB/s shown.
        #expect(abs((monitor.throughput.estimate ?? 0) - 8_800_000) < 1)
        #expect(abs(monitor.status.throughput - 1_100_000) < 1 && monitor.status.bytes == 1_100_000)
        // 999 ms later with no byte: the window stays open; at 2 s it closes when read, and the
        // estimate falls (a stall, or nothing more to read).
        clock.advance(milliseconds: 1999)
        #expect(abs(monitor.status.throughput - 1_100_000) < 1 && monitor.throughput.samples == 1)
        clock.advance(milliseconds: 1)
        let fallen = monitor.status.throughput
        #expect(monitor.throughput.samples == 2 && fallen < 1_000_000 && fallen > 0, "\(fallen)")
        // The idle source keeps falling as it is read.
        clock.advance(milliseconds: 10_000)
        #expect(monitor.status.throughput < fallen)
    }

    @Test func segmentsFeedTheEstimateAndArrivalsOnlyCount() {
        let clock = ManualTimeSource()
        let monitor = NetworkMonitor(feed: .segments, policy: ThroughputEstimator.Policy(), clock: clock.source)
        for _ in 0..<30 {
            monitor.received(50_000)
            clock.advance(milliseconds: 100)
        }
        #expect(monitor.throughput.samples == 0 && monitor.status.throughput == 0 && monitor.status.bytes == 1_500_000)
        // A 2 s segment of 500 kB in 0.5 s: 8 Mb/s.
        #expect(monitor.measured(bytes: 500_000, seconds: 0.5, mediaSeconds: 2))
        #expect(abs((monitor.throughput.estimate ?? 0) - 8_000_000) < 1 && abs(monitor.status.throughput - 1_000_000) < 1)
        // Too small to say anything of the link: left out.
        #expect(!monitor.measured(bytes: 1000, seconds: 0.001, mediaSeconds: 2))
        // Idle for a minute: a segmented source's estimate stays what the segments said.
        clock.advance(milliseconds: 60_000)
        #expect(abs(monitor.status.throughput - 1_000_000) < 1)
    }

    /// The switcher has no estimator of its own: it feeds and reads the monitor the session
    /// counts bytes in, so the stats, telemetry and IPC show the figure it decides by.
    @Test func theSwitcherAndTheSessionShareOneEstimate() throws {
        let clock = ManualTimeSource()
        let host = "http://h.invalid/"
        let variants = [StreamVariant(uri: host + "lo.m3u8", bandwidth: 1_000_000), StreamVariant(uri: host + "hi.m3u8", bandwidth: 4_000_000)]
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + (0..<5).map { "#EXTINF:2,\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        let anchor = try HLSMediaPlaylist.parse(text, base: host + "lo.m3u8")
        let switcher = AdaptiveSwitcher(variants: variants, ladder: [0, 1], anchor: 0, anchorPlaylist: anchor, policy: AdaptivePolicy(),
                                        clock: clock.source) { _ in nil }
        let session = NetworkSession(settings: NetworkSettings(), interrupt: Self.token(clock), options: [:], adaptive: switcher)
        #expect(session.monitor === switcher.monitor && switcher.monitor.feed == .segments)
        let plan = try #require(switcher.plan(for: host + "s0.ts"))
        switcher.downloaded(plan, bytes: 1_000_000, seconds: 1)
        #expect(abs((switcher.status.estimate ?? 0) - 8_000_000) < 1)
        #expect(session.monitor.status.throughput * 8 == switcher.status.estimate)
        // A session without switching has a monitor of its own, fed by arrivals.
        let plain = NetworkSession(settings: NetworkSettings(), interrupt: Self.token(clock), options: [:])
        #expect(plain.monitor !== switcher.monitor && plain.monitor.feed == .arrivals)
    }

    @Test func backoffFollowsThePolicyAndTheDeadlineEndsItOnTime() {
        let clock = ManualTimeSource()
        var settings = NetworkSettings()
        settings.initialBackoff = 0.25
        settings.maxBackoff = 2
        // No jitter (the middle of ±25 %): 250, 500, 1000, 2000, 2000 ms.
        let session = NetworkSession(settings: settings, interrupt: Self.token(clock), options: [:], jitter: { 0.5 })
        #expect((1...5).map { session.retryDelay(attempt: $0) } == [0.25, 0.5, 1, 2, 2])
        // Jitter at its ends: 75 % and 125 % of the delay.
        let low = NetworkSession(settings: settings, interrupt: Self.token(clock), options: [:], jitter: { 0 })
        let high = NetworkSession(settings: settings, interrupt: Self.token(clock), options: [:], jitter: { 1 })
        #expect(low.retryDelay(attempt: 3) == 0.75 && high.retryDelay(attempt: 3) == 1.25)
        // Each wait lets its time pass on the session's clock.
        var ends: [Int64] = []
        for attempt in 1...3 {
            #expect(session.backOff(seconds: session.retryDelay(attempt: attempt)))
            ends.append(clock.milliseconds)
        }
        #expect(ends == [250, 750, 1750])
        // An open deadline 3 s from now: the waits go on until one crosses it, which ends at the
        // deadline's millisecond and says it was interrupted.
        session.interrupt.arm(seconds: 3)
        #expect(session.backOff(seconds: 2) && clock.milliseconds == 3750)
        #expect(!session.backOff(seconds: 2) && clock.milliseconds == 4750)
        #expect(session.interrupt.shouldInterrupt && !session.backOff(seconds: 1) && clock.milliseconds == 4750)
        // Disarmed: waiting works again; a cancel ends any wait at once.
        session.interrupt.arm(seconds: nil)
        #expect(session.backOff(seconds: 0.5) && clock.milliseconds == 5250)
        session.interrupt.cancel()
        #expect(!session.backOff(seconds: 0.5) && clock.milliseconds == 5250)
    }

    @Test func theDeadlineIsExactToTheMillisecond() {
        let clock = ManualTimeSource(milliseconds: 10_000)
        let token = Self.token(clock)
        token.arm(seconds: 1.5)
        clock.advance(milliseconds: 1499)
        #expect(!token.shouldInterrupt)
        clock.advance(milliseconds: 1)
        #expect(token.shouldInterrupt)
    }
}
