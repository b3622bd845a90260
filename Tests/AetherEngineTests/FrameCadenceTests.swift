import AetherEngine
@testable import AetherMedia
import AetherTestSupport
import Testing

/// Tier unit: which frames a host painting every n-th frame gets, and which the decoder may
/// leave out (``FrameCadence``), on made-up times and on a fixture's real B-frames.
@Suite struct FrameCadenceTests {
    @Test func theFirstFrameAnchorsTheGridAndEveryNthIsShown() {
        var cadence = FrameCadence(interval: 0.1)
        cadence.divisor = 3
        let shown = (0..<10).map { cadence.admits(frameAt: 5 + Double($0) * 0.1).shown }
        #expect(shown == [true, false, false, true, false, false, true, false, false, true])
    }

    @Test func untilAFrameIsGivenNothingIsDiscardedAndASeekStartsAgain() {
        var cadence = FrameCadence(interval: 0.04)
        cadence.divisor = 2
        #expect(cadence.admits(packetAt: 1.04).discard == false, "no grid before the first frame")
        _ = cadence.admits(frameAt: 1.0)
        #expect(cadence.admits(packetAt: 1.04).discard)
        #expect(cadence.admits(packetAt: 1.08).discard == false)
        #expect(cadence.admits(packetAt: 0.96).discard, "a packet before the anchor (open GOP) is placed too")
        #expect(cadence.admits(packetAt: nil).discard == false, "a packet with no time is decoded")
        cadence.reset()
        #expect(cadence.admits(packetAt: 1.04).discard == false)
        _ = cadence.admits(frameAt: 1.04)
        #expect(cadence.admits(packetAt: 1.08).discard)
    }

    /// Each frame off the grid is counted once: at its packet, or when it comes out of a
    /// packet that had no time; a divisor of 1 shows and counts nothing.
    @Test func offGridFramesAreCountedOnce() {
        var cadence = FrameCadence(interval: 1)
        cadence.divisor = 2
        _ = cadence.admits(frameAt: 0)
        #expect(cadence.admits(packetAt: 1) == (true, true))
        #expect(cadence.admits(packetAt: 1) == (true, false), "the same place again")
        var frame = cadence.admits(frameAt: 1)
        #expect(!frame.shown && !frame.countNow, "its packet was counted")
        frame = cadence.admits(frameAt: 3)
        #expect(!frame.shown && frame.countNow, "its packet had no time")
        cadence.divisor = 1
        #expect(cadence.admits(packetAt: 5) == (false, false))
        frame = cadence.admits(frameAt: 5)
        #expect(frame.shown && !frame.countNow && frame.droppedBehind == 0)
    }

    /// Behind the clock every packet may be left out if unreferenced; those that never come out
    /// are counted dropped once a later frame has (frames come out in display order), those that
    /// do come out are not.
    @Test func framesLeftOutWhileBehindAreCountedDroppedWhenALaterOneComes() {
        var cadence = FrameCadence(interval: 1)
        _ = cadence.admits(frameAt: 0)
        for pts in 1...4 { #expect(cadence.admits(packetAt: Double(pts), behind: true) == (true, false)) }
        #expect(cadence.admits(packetAt: 5) == (false, false), "caught up: decoded in full")
        #expect(cadence.admits(frameAt: 2).droppedBehind == 1, "1 never came")
        #expect(cadence.admits(frameAt: 4).droppedBehind == 1, "3 never came; 4 did")
        #expect(cadence.admits(frameAt: 5).droppedBehind == 0)
        _ = cadence.admits(packetAt: 6, behind: true)
        cadence.reset()
        _ = cadence.admits(frameAt: 10)
        #expect(cadence.admits(frameAt: 11).droppedBehind == 0, "a seek forgets what was in flight")
    }

    @Test func hostileTimesAreDecodedAndShown() {
        var cadence = FrameCadence(interval: 0.04)
        cadence.divisor = 2
        _ = cadence.admits(frameAt: 0)
        for pts in [Double.nan, .infinity, -.infinity, 1e308, -1e308] {
            #expect(cadence.admits(packetAt: pts).discard == false)
            #expect(cadence.admits(frameAt: pts).shown)
        }
        var zero = FrameCadence(interval: 0)
        zero.divisor = 2
        _ = zero.admits(frameAt: 0)
        #expect(zero.admits(frameAt: 1).shown, "no interval: no grid")
    }

    /// The fixture's B-frames (x264, adaptive placement): at every 2nd frame the decoder leaves
    /// some unreferenced frames out, and the host is given exactly the frames on the grid of a
    /// full decode, none lost.
    @Test func aFixturesUnreferencedFramesOffTheGridAreNotDecoded() throws {
        let file = TestEnvironment.fixture("h264-bframes.mkv")
        let full = try DecodePass.run(url: file, threads: 1, clock: .monotonic)
        let halved = try DecodePass.run(url: file, threads: 1, divisor: 2, clock: .monotonic)
        let grid = full.shown.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(halved.shown == grid, "shown \(halved.shown.count) of the grid's \(grid.count)")
        #expect(halved.frames < full.frames, "nothing left out: \(halved.frames) of \(full.frames)")
        #expect(halved.frames > grid.count, "reference frames off the grid are decoded too")
        print("h264-bframes.mkv at every 2nd frame: \(halved.frames) of \(full.frames) frames decoded, \(halved.shown.count) shown")
    }
}
