import AetherBase
@testable import AetherMedia
@testable import AetherStreaming
import Foundation
import Testing

/// The timeshift window's eviction against a ``ManualTimeSource``: by media time, and by
/// arrival time past twice the window (a stream whose timestamps restart never ages by media).
@Suite struct TimeshiftClockTests {
    /// A buffer of `window` seconds in which every keyframe starts a chunk.
    static func buffer(window: Double, clock: ManualTimeSource) -> TimeshiftBuffer {
        let dir = NSTemporaryDirectory() + "aether-timeshift-clock-\(getpid())-\(UUID().uuidString)"
        return TimeshiftBuffer(settings: .init(window: window, memoryLimit: 64 << 20, directory: dir, chunkBytes: 1), clock: clock.source)
    }

    static func keyframe(_ buffer: TimeshiftBuffer, at time: Double) throws {
        buffer.append(try Packet(bytes: [UInt8](repeating: 7, count: 100)), time: time, videoKeyframe: true, hasVideo: true)
    }

    @Test func chunksAgeByArrivalPastTwiceTheWindow() throws {
        let clock = ManualTimeSource()
        let b = Self.buffer(window: 5, clock: clock)
        defer { b.close() }
        // Timestamps that go back (a restarting encoder): media time never evicts.
        for (ms, time) in [(0, 100.0), (1000, 50), (2000, 20)] {
            clock.advance(milliseconds: Int64(ms) - clock.milliseconds)
            try Self.keyframe(b, at: time)
        }
        #expect(b.window?.lowerBound == 100)
        // The second chunk arrived at 1000 ms: the first goes when that one is over 10 s old.
        clock.advance(milliseconds: 11_000 - clock.milliseconds)
        try Self.keyframe(b, at: 10)
        #expect(b.window?.lowerBound == 100, "exactly twice the window: kept")
        clock.advance(milliseconds: 1)
        try Self.keyframe(b, at: 5)
        #expect(b.window?.lowerBound == 50, "a millisecond past: the oldest chunk is dropped")
        // A minute later every chunk is past it but the last one before the newest (a chunk
        // goes when the one after it is past the window; the newest has just arrived).
        clock.advance(milliseconds: 60_000)
        try Self.keyframe(b, at: 1)
        #expect(b.window?.lowerBound == 5 && b.bytes.memory == 2 * (100 + 44))
    }

    /// The window keeps its length in played seconds whatever the timestamps do (issue 33,
    /// item 8: a live MPEG-TS whose timestamps restarted filled a 10 s window's spill to
    /// 195 MB): restarts every 2 s, a wrap at 2^33 ticks, a jump an hour ahead; with the clock
    /// standing still (a source read faster than real time), so arrival time evicts nothing.
    @Test func playedTimeEvictsWhateverTheTimestampsDo() throws {
        let clock = ManualTimeSource()
        let b = Self.buffer(window: 10, clock: clock)
        defer { b.close() }
        // 120 s of 25 fps video whose timestamps start again at 0 every 2 s.
        for frame in 0..<3000 { try Self.keyframe(b, at: Double(frame % 50) / 25) }
        let perFrame = 100 + 44
        // 10 s of frames kept (250), plus the chunk the window's edge falls in and one frame a
        // restart (its step back counts nothing): about 256, not the 3,000 appended.
        #expect(b.bytes.memory <= 260 * perFrame, "\(b.bytes.memory / perFrame) frames kept for a 10 s window")
        #expect(b.bytes.memory >= 250 * perFrame)
        // A wrap of the 33-bit clock (95,443.7 s to 0) and a jump an hour ahead: the window
        // goes on ageing by the frames in between, and keeps them all until then.
        let wrap = Double(1 << 33) / 90_000
        let b2 = Self.buffer(window: 10, clock: clock)
        defer { b2.close() }
        for frame in 0..<500 { try Self.keyframe(b2, at: (wrap - 10 + Double(frame) / 25).truncatingRemainder(dividingBy: wrap)) }
        #expect(b2.bytes.memory / perFrame <= 252 && b2.bytes.memory / perFrame >= 250)
        for frame in 0..<100 { try Self.keyframe(b2, at: 3600 + Double(frame) / 25) }
        #expect(b2.bytes.memory / perFrame <= 252 && b2.bytes.memory / perFrame >= 250, "\(b2.bytes.memory / perFrame)")
    }

    @Test func mediaTimeEvictsWithTheClockStandingStill() throws {
        let clock = ManualTimeSource()
        let b = Self.buffer(window: 5, clock: clock)
        defer { b.close() }
        for t in stride(from: 0.0, through: 8, by: 2) { try Self.keyframe(b, at: t) }
        // Newest 8: the chunk from 0 goes once the next one (2) is over 5 s behind.
        #expect(b.window == 2...8)
        #expect(clock.milliseconds == 0)
    }
}
