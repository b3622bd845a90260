import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// The equalizer across a gapless joint (#63): `eq-chord-a.flac` and `eq-chord-b.flac` are one
/// steady chord cut at a sample (make-fixtures.sh), played gapless with `--equalizer=bass` into a
/// null sink of their own and recorded from its monitor. The item before hands its running
/// filters to the next with the device, so the joint is no step above the music's own (filters
/// started afresh there jump: bass's low bands hold the most). Tier: realtime.
extension GaplessPlaybackTests {
    @Test func theEqualizersFiltersCarryOnAcrossAGaplessJoint() throws {
        let recorder = try SinkRecorder(.own)
        #expect(recorder.waitFor(samples: 4800))
        let log = NSTemporaryDirectory() + "aether-eq-joint-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let run = Process.run([TestEnvironment.binary, TestEnvironment.fixture("eq-chord-a.flac"), TestEnvironment.fixture("eq-chord-b.flac"),
                               "--vo=null", "--no-config", "--equalizer=bass", "--log-file=\(log)"],
                              environment: recorder.environment, timeout: 30)
        recorder.waitFor(samples: recorder.samplesRecorded + 4800)
        let x = recorder.stop().left
        #expect(run.status == 0, "\(run.stderr)")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("the next item continues the device"), "played gapless:\n\(text.suffix(2000))")
        let onset = try #require(x.firstIndex { abs($0) > 0.02 }), end = try #require(x.lastIndex { abs($0) > 0.02 })
        // The chord rises past 0.02 within its first samples: the joint is 1.5 s after it.
        let joint = onset + 72_000
        try #require(end > joint + 24_000, "recorded \(end - onset) samples of sound")
        func largestStep(_ range: Range<Int>) -> Double { Signal.largestStep(x, range) }
        let atJoint = largestStep((joint - 960)..<(joint + 960))
        let music = max(largestStep((onset + 24_000)..<(onset + 48_000)), largestStep((joint + 24_000)..<min(end, joint + 48_000)))
        let longest = Signal.longestQuietRun(x, (onset + 4800)..<(end - 4800), below: 1e-4)
        print(String(format: "equalizer across a gapless joint: largest step %.4f within 20 ms of it, the music's own %.4f; longest quiet run %d samples",
                     atJoint, music, longest))
        #expect(atJoint <= music + 2.0 / 32768, "a step of \(atJoint) at the joint where the music's largest is \(music)")
        #expect(longest < 96, "\(longest) samples of silence")
    }
}
