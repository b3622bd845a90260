import AetherBase
import Testing
@testable import TerminalGraphics

/// DA1 round trips (``AttributesRoundTrip``) against a terminal whose reads are scripted, on a
/// clock that each read moves on by the time it waited. Tier: unit.
@Suite struct AttributesRoundTripTests {
    /// Each read returns the next scripted chunk after `step` ms, or nothing after its whole timeout.
    struct Reads: ProbeTransport {
        var chunks: [[UInt8]]
        var step = 10.0
        final class Clock { var ms = 0.0 }
        let clock = Clock()
        var sent: [UInt8] = []
        mutating func send(_ bytes: [UInt8]) throws(SystemCallError) { sent += bytes }
        mutating func receive(timeout: Duration) throws(SystemCallError) -> [UInt8] {
            let ms = Double(timeout.components.seconds) * 1000 + Double(timeout.components.attoseconds) / 1e15
            guard !chunks.isEmpty else { clock.ms += ms; return [] }
            clock.ms += min(step, ms)
            return chunks.removeFirst()
        }
    }

    static let answer = Array("\u{1B}[?63;1;2;4c".utf8)

    @Test func everyQueryIsWaitedForAndKeysInBetweenAreKept() throws {
        var reads = Reads(chunks: [Self.answer, Array("q".utf8), Array("\u{1B}[?63;".utf8), Array("1c".utf8)])
        var trip = AttributesRoundTrip()
        try trip.send(&reads)
        try trip.send(&reads)
        #expect(reads.sent == Array("\u{1B}[c\u{1B}[c".utf8))
        let clock = reads.clock
        let answered = try trip.await(&reads, until: 1000, now: { clock.ms })
        #expect(answered && trip.outstanding == 0, "the second answer came split across two reads")
        #expect(trip.stray == Array("q".utf8))
    }

    @Test func anyAnswerEndsTheWaitWhenAskedForOne() throws {
        var reads = Reads(chunks: [Self.answer])
        var trip = AttributesRoundTrip()
        trip.sent()   // a query tmux dropped: never answered
        try trip.send(&reads, throughTmux: true)
        #expect(reads.sent == Array("\u{1B}Ptmux;\u{1B}\u{1B}[c\u{1B}\\".utf8))
        let clock = reads.clock
        #expect(try trip.await(&reads, until: 1000, any: true, now: { clock.ms }))
        #expect(clock.ms == 10 && trip.outstanding == 1)
        // Waiting for all of them runs to the deadline.
        #expect(try !trip.await(&reads, until: 500, now: { clock.ms }))
        #expect(clock.ms >= 500)
    }

    @Test func strayKeysAreBounded() throws {
        var reads = Reads(chunks: [Array(repeating: UInt8(ascii: "x"), count: 300), Self.answer])
        var trip = AttributesRoundTrip()
        trip.sent()
        let clock = reads.clock
        #expect(try trip.await(&reads, until: 1000, now: { clock.ms }))
        #expect(trip.stray.count == AttributesRoundTrip.strayLimit)
    }
}
