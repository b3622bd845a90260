import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// `--replaygain`: the level the null sink plays, recorded from its monitor, against the same
/// file with `--replaygain=no` in the same run (the fixtures: a 440 Hz sine of peak 0.5 with
/// loudness tags, `make-fixtures.sh`). In ``PlaybackTests`` (serialized): they record the sink.
/// Tier: realtime.
extension PlaybackTests {
    /// Plays `file` with `settings` and returns the recording's RMS (dBFS) and its peak over
    /// 0.5 s, from 0.1 s after recording starts.
    private func level(_ file: String, _ settings: ReplayGainSettings) throws -> (rms: Double, peak: Double, shown: String?) {
        let player = Player()
        try player.load(url: TestEnvironment.fixture(file), options: options { $0.audio.replayGain = settings })
        defer { player.stop() }
        player.play()
        #expect(waitUntil(5) { player.currentTime > 0.2 })
        let rec = try SinkRecorder().stop(after: 4800 + 24000 + 2400)
        try #require(rec.left.count >= 4800 + 24000, "recorded \(rec.left.count) samples")
        let window = rec.left[4800...].prefix(24000)
        // What the stats overlay shows (telemetry), and the player's figure IPC reads.
        let shown = player.telemetry().audio.replayGain
        #expect(shown == player.replayGain.map { String(format: "%@ %+.2f dB", $0.source, $0.db) })
        return (Signal.rmsDBFS(window), window.map(abs).max() ?? 0, shown)
    }

    /// Track and album gains from Vorbis comments and ID3 `TXXX`, Opus's R128 gain (+5 dB to the
    /// ReplayGain reference): each 0.2 dB of what the tag says, against the file played without.
    @Test func theTaggedGainIsWhatTheSinkPlays() throws {
        for (file, mode, expected) in [("replaygain.flac", ReplayGainMode.track, -6.0), ("replaygain.flac", .album, -3.0),
                                       ("replaygain.mp3", .track, -6.0), ("replaygain.opus", .track, -5.0)] {
            let plain = try level(file, ReplayGainSettings())
            let gained = try level(file, ReplayGainSettings(mode: mode))
            #expect(plain.shown == nil && gained.shown == String(format: "%@ %+.2f dB", mode == .album ? "album" : "track", expected))
            #expect(abs(gained.rms - plain.rms - expected) <= 0.2,
                    "\(file) \(mode): \(String(format: "%.2f", gained.rms - plain.rms)) dB, the tag says \(expected)")
            print("replaygain \(file) \(mode): \(String(format: "%+.2f", gained.rms - plain.rms)) dB (tag \(expected)); plain \(String(format: "%.2f", plain.rms)) dBFS")
        }
    }

    /// A +10 dB gain on a sine of peak 0.5 whose peak tag says 0.6: held at 1/0.6 (the sine's
    /// peak 0.83, no sample at full scale) unless `--replaygain-clip=yes` (then clipped: many
    /// samples at full scale).
    @Test func thePeakTagHoldsTheGainBelowClippingUnlessClipIsYes() throws {
        let held = try level("replaygain-loud.flac", ReplayGainSettings(mode: .track))
        #expect(abs(held.peak - 0.5 / 0.6) < 0.04, "peak \(held.peak)")
        let clipped = try level("replaygain-loud.flac", ReplayGainSettings(mode: .track, clip: true))
        #expect(clipped.peak > 0.99, "peak \(clipped.peak)")
        print("replaygain clip: held peak \(String(format: "%.3f", held.peak)), clipped peak \(String(format: "%.3f", clipped.peak))")
    }
}
