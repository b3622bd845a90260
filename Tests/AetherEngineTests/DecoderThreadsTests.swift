import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Synchronization
import Testing

/// The video decoder's thread count: one thread where it keeps up, more at the next keyframe
/// where it does not, and exactly what was asked for otherwise.
struct DecoderThreadsTests {
    @Test func automaticStartsOnOneThreadUpTo1080p30() {
        #expect(DecoderThreads(asked: 0, width: 1920, height: 1080, frameInterval: 1.0 / 24).current == 1)
        #expect(DecoderThreads(asked: 0, width: 1920, height: 1088, frameInterval: 1.0 / 30).current == 1)
        #expect(DecoderThreads(asked: 0, width: 1280, height: 720, frameInterval: 1.0 / 60).current == 1)
        // 1080p60 and 4K: libavcodec's choice from the start, and no adapting.
        let fast = DecoderThreads(asked: 0, width: 1920, height: 1080, frameInterval: 1.0 / 60)
        #expect(fast.current == 0 && !fast.adaptive)
        #expect(DecoderThreads(asked: 0, width: 3840, height: 2160, frameInterval: 1.0 / 24).current == 0)
        // Nonsense sizes (0, negative) are not "small": libavcodec decides.
        #expect(DecoderThreads(asked: 0, width: 0, height: 0, frameInterval: 1.0 / 24).current == 0)
        #expect(DecoderThreads(asked: 0, width: -5, height: 1080, frameInterval: 1.0 / 24).current == 0)
    }

    @Test func askedCountsAndFixedNeverChange() {
        var asked = DecoderThreads(asked: 3, width: 640, height: 360, frameInterval: 1.0 / 24)
        #expect(asked.current == 3 && !asked.adaptive)
        asked.observe(frames: 100, busy: 100, frameInterval: 1.0 / 24, rate: 1)
        #expect(!asked.upgradeWanted && asked.current == 3)
        var fixed = DecoderThreads.fixed(0)
        fixed.observe(frames: 100, busy: 100, frameInterval: 1.0 / 24, rate: 1)
        #expect(fixed.current == 0 && !fixed.upgradeWanted)
        #expect(DecoderThreads.fixed(1).current == 1 && !DecoderThreads.fixed(1).adaptive)
    }

    /// Judged over 48 frames: 40 % of the interval per frame keeps one thread, 60 % asks for
    /// more, and at double speed the same work is twice the share.
    @Test func aSlowWindowAsksForMoreThreadsOnce() {
        let interval = 1.0 / 24
        var t = DecoderThreads(asked: 0, width: 1920, height: 1080, frameInterval: interval)
        for _ in 0..<47 { t.observe(frames: 1, busy: 0.9 * interval, frameInterval: interval, rate: 1) }
        #expect(!t.upgradeWanted, "47 frames are not a window yet")
        t.observe(frames: 1, busy: 0.9 * interval, frameInterval: interval, rate: 1)
        #expect(t.upgradeWanted)
        t.upgraded()
        #expect(t.current == 0 && !t.adaptive && !t.upgradeWanted)

        var steady = DecoderThreads(asked: 0, width: 1920, height: 1080, frameInterval: interval)
        for _ in 0..<480 { steady.observe(frames: 1, busy: 0.4 * interval, frameInterval: interval, rate: 1) }
        #expect(!steady.upgradeWanted && steady.current == 1)
        for _ in 0..<48 { steady.observe(frames: 1, busy: 0.4 * interval, frameInterval: interval, rate: 2) }
        #expect(steady.upgradeWanted, "0.4 of the interval is 0.8 of it at 2x")
    }

    @Test func hostileFiguresNeverTrapOrUpgrade() {
        var t = DecoderThreads(asked: 0, width: 1280, height: 720, frameInterval: 1.0 / 24)
        t.observe(frames: 0, busy: .infinity, frameInterval: 1.0 / 24, rate: 1)
        t.observe(frames: 48, busy: -.infinity, frameInterval: 1.0 / 24, rate: 0)
        t.observe(frames: 48, busy: .nan, frameInterval: 1.0 / 24, rate: .nan)
        #expect(t.current == 1)
        #expect(DecoderThreads(asked: 0, width: .max, height: .max, frameInterval: 1.0 / 24).current == 0)
        #expect(DecoderThreads(asked: 0, width: 1280, height: 720, frameInterval: .nan).current == 0)
    }
}

/// The automatic `--vd-lavc-skiploopfilter` level by how much smaller the picture is than the source.
struct LoopFilterSkipTests {
    static let hd = PixelSize(width: 1920, height: 1080)

    @Test func theFilterGoesOnlyWhereThePictureCannotShowIt() {
        // Half blocks at 160×48 (160×96 pixels: 135 source pixels each): all of it.
        #expect(LoopFilterSkip.automatic(source: Self.hd, picture: PixelSize(width: 160, height: 96)) == .all)
        // Octants at 160×48 (320×192: 34 each): B-frames only, nothing drifts.
        #expect(LoopFilterSkip.automatic(source: Self.hd, picture: PixelSize(width: 320, height: 192)) == .bidir)
        // Sixel at 1280×768 (2 each): the whole filter.
        #expect(LoopFilterSkip.automatic(source: Self.hd, picture: PixelSize(width: 1280, height: 720)) == .default)
        // The edges: exactly 64 and exactly 4 source pixels a pixel shown.
        #expect(LoopFilterSkip.automatic(source: PixelSize(width: 640, height: 480), picture: PixelSize(width: 80, height: 60)) == .all)
        #expect(LoopFilterSkip.automatic(source: PixelSize(width: 640, height: 480), picture: PixelSize(width: 81, height: 60)) == .bidir)
        #expect(LoopFilterSkip.automatic(source: PixelSize(width: 640, height: 480), picture: PixelSize(width: 320, height: 240)) == .bidir)
        #expect(LoopFilterSkip.automatic(source: PixelSize(width: 640, height: 480), picture: PixelSize(width: 321, height: 240)) == .default)
        #expect(LoopFilterSkip.automatic(source: Self.hd, picture: PixelSize(width: 0, height: 0)) == .default)
    }
}
