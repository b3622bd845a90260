@testable import AetherPlayback
import Testing

/// How far a local file is read ahead of the clock (unit tier: a pure rule).
@Suite struct ReadAheadTests {
    let rule = ReadAhead(policy: .standard)

    @Test func aSecondAheadWithQueuesStockedWaits() {
        #expect(rule.seconds == 1 && rule.minimumPackets == 8)
        #expect(rule.isFull(lead: 1.0, rate: 1, videoPackets: 24, audioPackets: 47))
        #expect(rule.isFull(lead: 3.2, rate: 1, videoPackets: 80, audioPackets: 150))
        #expect(!rule.isFull(lead: 0.99, rate: 1, videoPackets: 24, audioPackets: 47))
        // A seek just carried out: the clock stands at its target, nothing read past it yet.
        #expect(!rule.isFull(lead: 0, rate: 1, videoPackets: 0, audioPackets: 0))
    }

    @Test func aQueueRunningLowIsFedWhateverTheLead() {
        // The sound interleaved seconds ahead of the picture: the lead is the sound's.
        #expect(!rule.isFull(lead: 4, rate: 1, videoPackets: 7, audioPackets: 190))
        #expect(!rule.isFull(lead: 4, rate: 1, videoPackets: 60, audioPackets: 3))
        // A stream not played (or ended) does not count.
        #expect(rule.isFull(lead: 4, rate: 1, videoPackets: nil, audioPackets: 190))
        #expect(rule.isFull(lead: 4, rate: 1, videoPackets: 60, audioPackets: nil))
        #expect(rule.isFull(lead: 4, rate: 1, videoPackets: nil, audioPackets: nil))
    }

    @Test func fasterPlaybackReadsFurther() {
        #expect(!rule.isFull(lead: 1.5, rate: 2, videoPackets: 40, audioPackets: 90))
        #expect(rule.isFull(lead: 2.0, rate: 2, videoPackets: 40, audioPackets: 90))
        // Slower playback keeps the second.
        #expect(rule.isFull(lead: 1.0, rate: 0.5, videoPackets: 40, audioPackets: 90))
    }

    @Test func leadsFromHostileTimesReadOn() {
        // A lead that is not a number (timestamps from a damaged file) never stops the reading.
        #expect(!rule.isFull(lead: .nan, rate: 1, videoPackets: 40, audioPackets: 90))
        #expect(!rule.isFull(lead: -.infinity, rate: 1, videoPackets: 40, audioPackets: 90))
        #expect(!rule.isFull(lead: .infinity, rate: 1, videoPackets: 40, audioPackets: 90))
        #expect(rule.isFull(lead: 2, rate: .nan, videoPackets: 40, audioPackets: 90))
    }
}
