import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// The equalizer changed while the null sink plays (#63): `eq-chord.flac` (a steady chord, see
/// make-fixtures.sh) plays with ten bands, the 250 Hz band moves 6 dB up and then down mid-play
/// (``Player/setEqualizer(_:)``, what the panel and the property call), and the recording from
/// the sink's monitor has no silence over 2 ms and, in the second after the change, no step
/// between samples above the music's own largest step (through the old curve before the change,
/// through the new one after it). In ``PlaybackTests`` (serialized): they record the sink.
/// Tier: realtime.
extension PlaybackTests {
    /// One playback: the band goes up 6 dB past 2 s and back down 6 dB past 3.5 s.
    @Test func aBandMovedWhilePlayingIsHeardWithoutAGapOrAStep() throws {
        let flat = [1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        var raised = flat
        raised[3] = 6
        let player = Player()
        try player.load(url: TestEnvironment.fixture("eq-chord.flac"), options: options {
            $0.playing.equalizer = EqualizerSetting(choice: .bands(flat), curve: GraphicBands.curve(flat))
        })
        defer { player.stop() }
        let recorder = try SinkRecorder()
        try #require(recorder.waitFor(samples: 2400), "parec recorded nothing")
        player.play()
        var changes: [(at: Int, by: Double)] = []
        for (time, gains, by) in [(2.0, raised, 6.0), (3.5, flat, -6.0)] {
            #expect(waitUntil(10) { player.currentTime > time })
            changes.append((recorder.samplesRecorded, by))
            player.setEqualizer(EqualizerSetting(choice: .bands(gains), curve: GraphicBands.curve(gains)))
        }
        #expect(waitUntil(10) { player.currentTime > 5.2 })
        let left = recorder.stop().left
        let second = 48_000
        try #require(left.count > changes[1].at + second, "recorded \(left.count) samples")
        // The sound: from its first sample to its last, less a tenth of a second at each end.
        let onset = try #require(left.firstIndex { abs($0) > 0.02 }), end = try #require(left.lastIndex { abs($0) > 0.02 })
        let longest = Signal.longestQuietRun(left, (onset + 4800)..<(end - 4800), below: 1e-4)
        #expect(longest < 96, "\(longest) samples of silence")
        func largestStep(_ range: Range<Int>) -> Double { Signal.largestStep(left, range) }
        for (at, by) in changes {
            // The change is heard within the second after it was made (the device's buffer and
            // the sink's latency): its window. The music's own steps: the half second before it
            // was made (the old curve) and the half second from 1 s after it (the new one).
            let music = max(largestStep((at - second / 2)..<at), largestStep((at + second)..<(at + 3 * second / 2)))
            let changed = largestStep(at..<(at + second))
            print(String(format: "equalizer change heard (%+.0f dB at 250 Hz): largest step %.4f in the second after it, the music's own %.4f; longest quiet run %d samples",
                         by, changed, music, longest))
            // One step of the recording's s16 in hand.
            #expect(changed <= music + 2.0 / 32768, "\(by) dB: a step of \(changed) where the music's largest is \(music)")
        }
    }
}
