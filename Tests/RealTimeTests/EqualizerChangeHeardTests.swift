import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// The equalizer changed while the null sink plays (#63): `eq-chord.flac` (a steady chord, see
/// make-fixtures.sh) plays with ten bands, the 250 Hz band moves 6 dB up or down mid-play
/// (``Player/setEqualizer(_:)``, what the panel and the property call), and the recording from
/// the sink's monitor has no silence over 2 ms and, in the second after the change, no step
/// between samples above the music's own largest step (through the old curve before the change,
/// through the new one after it). In ``PlaybackTests`` (serialized): they record the sink.
/// Tier: realtime.
extension PlaybackTests {
    @Test(arguments: [6.0, -6.0])
    func aBandMovedWhilePlayingIsHeardWithoutAGapOrAStep(by change: Double) throws {
        var before = [1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0], after = before
        before[3] = 0
        after[3] = change
        let player = Player()
        try player.load(url: TestEnvironment.fixture("eq-chord.flac"), options: options {
            $0.playing.equalizer = EqualizerSetting(choice: .bands(before), curve: GraphicBands.curve(before))
        })
        defer { player.stop() }
        let recorder = try SinkRecorder()
        try #require(recorder.waitFor(samples: 2400), "parec recorded nothing")
        player.play()
        #expect(waitUntil(10) { player.currentTime > 2 })
        let changedAt = recorder.samplesRecorded
        player.setEqualizer(EqualizerSetting(choice: .bands(after), curve: GraphicBands.curve(after)))
        #expect(waitUntil(10) { player.currentTime > 4.5 })
        let left = recorder.stop().left
        let second = 48_000
        try #require(left.count > changedAt + 2 * second, "recorded \(left.count) samples")
        // The sound: from its first sample to its last, less a tenth of a second at each end.
        let onset = try #require(left.firstIndex { abs($0) > 0.02 }), end = try #require(left.lastIndex { abs($0) > 0.02 })
        let sounding = (onset + 4800)..<(end - 4800)
        var quiet = 0, longest = 0
        for n in sounding {
            quiet = abs(left[n]) < 1e-4 ? quiet + 1 : 0
            longest = max(longest, quiet)
        }
        #expect(longest < 96, "\(change) dB: \(longest) samples of silence")
        func largestStep(_ range: Range<Int>) -> Double { range.dropFirst().map { abs(left[$0] - left[$0 - 1]) }.max() ?? 0 }
        // The change is heard within the second after it was made (the device's buffer and the
        // sink's latency): its window. The music's own steps: the half second before it was made
        // (the old curve) and a half second well after it (the new one).
        let window = changedAt..<(changedAt + second)
        let music = max(largestStep((changedAt - second / 2)..<changedAt), largestStep((changedAt + 3 * second / 2)..<(changedAt + 2 * second)))
        let changed = largestStep(window)
        print(String(format: "equalizer change heard (%+.0f dB at 250 Hz): largest step %.4f in the second after it, the music's own %.4f; longest quiet run %d samples",
                     change, changed, music, longest))
        // One step of the recording's s16 in hand.
        #expect(changed <= music + 2.0 / 32768, "\(change) dB: a step of \(changed) where the music's largest is \(music)")
    }
}
