import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Synchronization
import Testing

/// The reopen in real playback: a one-thread decoder told to upgrade at once (a busy share of
/// zero) reopens at the next keyframe and the pictures go on without a gap or a repeat: the
/// frames the old decoder still held (B-frames wait for their references) come out first.
@Suite(.serialized) struct DecoderThreadsPlaybackTests {
    @Test func aDecoderReopenedWithMoreThreadsKeepsEveryFrame() throws {
        #expect(TestEnvironment.requirePulse(), "PulseAudio null sink did not start")
        let player = Player()
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .alsa(device: "pulse")
        o.length = 6
        o.policy.oneThreadBusyShare = 0
        let shown = Mutex<[Double]>([])
        try player.load(url: TestEnvironment.fixture("h264-bframes.mkv"), options: o)
        player.setFrameSink(TestSink(reportsDisplay: false) { f in shown.withLock { $0.append(f.frame.pts) } })
        player.play()
        var early = ""
        _ = waitUntil(3, interval: 0.01) {
            if player.telemetry().frames.decoded > 0 { early = player.telemetry().video.decoder }
            return !early.isEmpty
        }
        _ = waitUntil(20, interval: 0.05) { player.state == .ended }
        let t = player.telemetry()
        player.stop()
        #expect(early == "h264, 1 thread", "at the start: \(early)")
        #expect(t.video.decoder == "h264", "after the first 48 frames' keyframe: \(t.video.decoder)")
        #expect(t.decodeErrors == 0)
        let pts = shown.withLock { $0 }
        // 6 s at 24 fps (the first frame may come at the start grace); steps of one frame only.
        #expect(pts.count >= 140, "\(pts.count) frames shown")
        let steps = zip(pts, pts.dropFirst()).map { $1 - $0 }
        let bad = steps.enumerated().filter { abs($0.element - 1.0 / 24) > 0.004 }
        #expect(bad.isEmpty, "frames out of step at \(bad.prefix(5).map { String(format: "#%d %+.3f s", $0.offset, $0.element) })")
    }
}
