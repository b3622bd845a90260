import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Synchronization
import Testing

/// Forward seeks (issue 48, 6), in PlaybackTests' suite: its options and clip conventions.
extension PlaybackTests {
    /// A keyframe seek forward never lands behind the position it left (issue 48, 6): on x264's
    /// default GOP (keyframes at 0, 10 and 20 s) it goes to the next keyframe, as mpv does; where
    /// no keyframe follows, exactly to the target; backward, to the keyframe before. Playing, the
    /// position never runs backwards across such a seek.
    @Test func aForwardKeyframeSeekLandsOnTheNextKeyframeNeverBehind() throws {
        let (player, shown) = try recordingPlayer("h264-longgop.mp4") { $0.start = 2 }
        #expect(waitUntil(5) { player.state == .paused && abs(player.currentTime - 2) < 0.05 })
        func seek(by seconds: Double) -> Double {
            shown.withLock { $0.removeAll() }
            player.seek(by: seconds)
            #expect(waitUntil(5) { player.state == .paused && !shown.withLock { $0.isEmpty } })
            return shown.withLock { $0.first } ?? -1
        }
        var first = seek(by: 5)    // 2 → 7: the next keyframe is at 10
        #expect(abs(first - 10) < 0.001 && abs(player.currentTime - 10) < 0.001, "landed at \(first), position \(player.currentTime)")
        first = seek(by: 5)        // 10 → 15: at 20
        #expect(abs(first - 20) < 0.001, "landed at \(first)")
        first = seek(by: -3)       // 20 → 17: back to the keyframe before, 10
        #expect(abs(first - 10) < 0.001, "landed at \(first)")
        first = seek(by: 15)       // 10 → 25: no keyframe follows, so exactly there
        #expect(abs(first - 25) < 0.041 && player.currentTime >= 24.95, "landed at \(first), position \(player.currentTime)")

        // Playing: the position read at every frame shown never steps back, across a forward seek.
        _ = seek(by: -20)          // 25 → 5: keyframe 0
        player.play()
        #expect(waitUntil(5) { player.currentTime > 1 })
        let sampled = Guarded<[Double]>([])
        let seekAt = player.currentTime
        player.seek(by: 3)
        player.setFrameHandler { [player] _ in sampled.withLock { $0.append(player.currentTime) } }
        #expect(waitUntil(5) { sampled.withLock { $0.count } >= 40 }, "fewer than 40 frames in 5 s")
        player.stop()
        let positions = sampled.withLock { $0 }
        let backwards = zip(positions, positions.dropFirst()).filter { $1 < $0 - 0.001 }
        #expect(backwards.isEmpty, "the position ran backwards: \(backwards.prefix(5))")
        #expect(positions.allSatisfy { $0 >= seekAt + 3 - 0.001 }, "a position behind the target: \(positions.min() ?? -1)")
        #expect((positions.last ?? 0) > 10, "it played on from the keyframe at 10 s: \(positions.last ?? -1)")
    }

    /// A clip with one keyframe: a forward seek cannot reach a keyframe after its target, so it
    /// is exact there (it went back to the start before).
    @Test func aForwardSeekWithNoKeyframeAfterItIsExact() throws {
        let (player, shown) = try recordingPlayer("h264-onekey.mkv")
        #expect(waitUntil(5) { player.state == .paused })
        shown.withLock { $0.removeAll() }
        player.seek(by: 2.42)
        #expect(waitUntil(5) { player.state == .paused && !shown.withLock { $0.isEmpty } })
        let first = shown.withLock { $0.first } ?? -1
        #expect(abs(first - 2.40) < 0.001, "the frame showing 2.42 s is the one at 2.40: \(first)")
        #expect(abs(player.currentTime - 2.42) < 0.05, "position \(player.currentTime)")
        player.stop()
    }
}
