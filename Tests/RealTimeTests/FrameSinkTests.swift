import AetherEngine
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// A ``FrameSink`` for tests: runs `body` on the present thread for every frame handed over.
final class TestSink: FrameSink, @unchecked Sendable {  // immutable after init
    let reportsDisplay: Bool
    let body: @Sendable (PresentedFrame) -> Void
    init(reportsDisplay: Bool, _ body: @escaping @Sendable (PresentedFrame) -> Void) {
        self.reportsDisplay = reportsDisplay
        self.body = body
    }
    func present(_ frame: PresentedFrame) { body(frame) }
}

/// The frame path in one direction: the presenter hands frames with their cues to the sink,
/// the host answers with reports, and the engine derives the lead from them.
@Suite(.serialized) struct FrameSinkTests {
    func nullAudio(_ configure: (inout PlayerOptions) -> Void = { _ in }) -> PlayerOptions {
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        configure(&o)
        return o
    }

    /// Each frame comes with the cues showing at its pts, the subtitle delay applied.
    @Test(arguments: [0.0, 1.0])
    func framesCarryTheCuesShowingAtTheirTime(delay: Double) throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: nullAudio {
            $0.subtitles.files = [TestEnvironment.fixture("h264-aac-2audio-srt-ass.srt")]
            $0.length = 3.2
        })
        defer { player.stop() }
        let sidecar = try #require(player.subtitleTracks.last)
        player.selectSubtitleTrack(sidecar.id)
        player.setSubtitleDelay(delay)
        let seen = Guarded<[(pts: Double, texts: [String])]>([])
        player.setFrameSink(TestSink(reportsDisplay: false) { f in
            seen.withLock { $0.append((f.frame.pts, f.cues.compactMap(\.text))) }
        })
        player.seek(to: 0, mode: .exact)
        player.play()
        #expect(waitUntil(10) { player.state == .ended })
        let frames = seen.withLock { $0 }
        #expect(frames.count > 60)
        // The sidecar: "Sidecar one" 0.5–1.5 s, "Sidecar two" 2.0–3.0 s.
        for f in frames {
            let t = f.pts - delay
            let expected = t >= 0.5 && t < 1.5 ? ["Sidecar one"] : t >= 2.0 && t < 3.0 ? ["Sidecar two"] : []
            if abs(t - 0.5) < 0.05 || abs(t - 1.5) < 0.05 || abs(t - 2.0) < 0.05 || abs(t - 3.0) < 0.05 { continue }
            #expect(f.texts == expected, "frame at \(f.pts) s carried \(f.texts)")
        }
        #expect(frames.contains { $0.texts == ["Sidecar one"] })
    }

    /// Paused, a subtitle track chosen: the frame on screen is handed over again with its cue.
    @Test func aTrackChosenWhilePausedComesWithTheFrameOnScreen() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), options: nullAudio {
            $0.start = 0.8
            $0.subtitles.enabled = false
        })
        defer { player.stop() }
        let seen = Guarded<[PresentedFrame]>([])
        player.setFrameSink(TestSink(reportsDisplay: false) { f in seen.withLock { $0.append(f) } })
        player.redisplay()
        #expect(waitUntil(5) { player.state == .paused && !seen.withLock { $0.isEmpty } })
        let before = try #require(seen.withLock { $0.last })
        #expect(before.cues.isEmpty)
        let id = try #require(player.addSubtitleFile(TestEnvironment.fixture("h264-aac-2audio-srt-ass.srt")))
        player.selectSubtitleTrack(id)
        #expect(waitUntil(2) { seen.withLock { $0.last?.cues.compactMap(\.text) } == ["Sidecar one"] })
        let after = try #require(seen.withLock { $0.last })
        #expect(after.frame.pts == before.frame.pts, "the same picture")
        #expect(after.id.sequence > before.id.sequence)
        #expect(after.dueAt == nil, "not paced")
    }

    /// A sink that reports its paint latency gets paced frames that much early: the engine
    /// keeps the median of the reported latencies and hands frames over by it. Each frame says
    /// the rate it was handed over at.
    @Test func reportedLatencyMakesTheEngineHandFramesOverEarly() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("h264-720p.mkv"), options: nullAudio { $0.length = 4 })
        defer { player.stop() }
        let early = Guarded<[Double]>([])
        let rates = Guarded<Set<Double>>([])
        player.setRate(1.5)
        player.setFrameSink(TestSink(reportsDisplay: true) { [player] f in
            rates.withLock { _ = $0.insert(f.rate) }
            if let due = f.dueAt { early.withLock { $0.append(due - f.handedAt) } }
            player.report(FrameReport(frame: f.id, outcome: .displayed(latency: f.dueAt == nil ? nil : 0.025)))
        })
        player.play()
        #expect(waitUntil(5) { early.withLock { $0.count } >= 40 })
        #expect(abs(player.presentationLead - 0.025) < 1e-9)
        let sorted = early.withLock { $0 }.dropFirst(10).sorted()
        let median = sorted[sorted.count / 2]
        #expect(median > 0.015 && median < 0.030, "handed over \(median * 1000) ms before due")
        #expect(player.telemetry(advance: false).frames.presented >= 40)
        #expect(rates.withLock { $0 } == [1.5])
        #expect(player.gapStatistics.count >= 30, "reported frames give their A/V gap")
    }
}
