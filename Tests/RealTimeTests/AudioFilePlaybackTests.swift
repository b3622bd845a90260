import AetherEngine
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// `--audio-file`: an external file's sound with the source's picture, through the null sink.
/// In ``PlaybackTests`` (serialized): they record the sink and must not overlap.
extension PlaybackTests {
    /// The tone heard over 0.5 s, 0.1 s after recording starts.
    private func heard() throws -> Double {
        let rec = try SinkRecorder().stop(after: 4800 + 24000 + 2400)
        try #require(rec.left.count >= 4800 + 24000, "recorded \(rec.left.count) samples, expected 0.6 s")
        return Signal.dominantFrequency(rec.left[4800...].prefix(24000))
    }

    @Test func audioFilePlaysWithAVideoOnlyFile() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("video-only.mkv"),
                        options: options { $0.audio.files = [TestEnvironment.fixture("tones-stepped.mka")] })
        defer { player.stop() }
        let info = try #require(player.mediaInfo)
        #expect(info.audio.count == 1)
        #expect(info.audio.first?.externalFile != nil)
        #expect(info.audio.first?.tags.title == "external: tones-stepped.mka")
        #expect(player.activeAudioTrack == 0, "the audio file's track is chosen by default")
        player.play()
        #expect(waitUntil(5) { player.currentTime > 0.1 })
        let f = try heard()
        #expect(abs(f - 300) <= 10, "the sink played \(f) Hz, the file's first second is 300 Hz")
        let t = player.telemetry()
        #expect(t.sync.clockSource == "audio")
        #expect(t.frames.presented > 5)
    }

    /// After a seek to 5 s the sink plays the audio file at 5 s (600 Hz from 5 to 7 s; 500 Hz
    /// before it), and the picture keeps to it.
    @Test func audioFileFollowsASeek() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("video-only.mkv"),
                        options: options { $0.audio.files = [TestEnvironment.fixture("tones-stepped.mka")] })
        defer { player.stop() }
        player.play()
        #expect(waitUntil(5) { player.currentTime > 0.5 })
        player.seek(to: 5, mode: .exact)
        #expect(waitUntil(5) { player.state == .playing && player.currentTime >= 5.15 && player.currentTime < 6 })
        let f = try heard()
        #expect(abs(f - 600) <= 10, "after the seek to 5 s the sink played \(f) Hz (600 Hz expected)")
        Thread.sleep(forTimeInterval: 0.5)   // measurement window: more playing for the A/V telemetry
        let t = player.telemetry()
        #expect(t.sync.clockSource == "audio")
        #expect(t.frames.presented > 20)
        #expect(abs(t.sync.gapMeanMs) < 60, "A/V gap mean \(t.sync.gapMeanMs) ms")
        #expect(abs(t.sync.gapP95Ms) < 100, "A/V gap p95 \(t.sync.gapP95Ms) ms")
    }

    /// A file with its own audio: the audio file still comes first (as in mpv), and switching
    /// between the two works both ways.
    @Test func audioFileAndTheSourcesOwnTrackSwitch() throws {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("sine-1k.mkv"),
                        options: options { $0.audio.files = [TestEnvironment.fixture("tones-stepped.mka")] })
        defer { player.stop() }
        #expect(player.mediaInfo?.audio.count == 2)
        #expect(player.activeAudioTrack == 1)
        player.play()
        #expect(waitUntil(5) { player.currentTime > 0.1 })
        let external = try heard()
        #expect(abs(external - 300) <= 10, "the audio file: \(external) Hz")
        player.selectAudioTrack(0)
        #expect(waitUntil(3) { player.state == .playing && player.activeAudioTrack == 0 })
        Thread.sleep(forTimeInterval: 0.3)   // measurement window: the old track's sound already in the sink plays out
        let own = try heard()
        #expect(abs(own - 1000) <= 10, "the file's own track: \(own) Hz")
        // Back near the start first: the file is 5 s long, and on a loaded machine the listens
        // above once took so long that the last one fell past its end (50 Hz: silence).
        player.seek(to: 1, mode: .exact)
        #expect(waitUntil(5) { player.state == .playing && player.currentTime >= 1 && player.currentTime < 2.5 })
        player.selectAudioTrack(1)
        #expect(waitUntil(3) { player.state == .playing && player.activeAudioTrack == 1 })
        let at = player.currentTime
        Thread.sleep(forTimeInterval: 0.3)   // measurement window: 0.3 s on (in `expected` below)
        let back = try heard()
        let expected = 300 + 100 * ((at + 0.3 + 1) / 2).rounded(.down)
        #expect(abs(back - expected) <= 110, "back on the audio file at \(at) s: \(back) Hz")
    }

    /// A missing audio file or one with no sound: a one-line warning, and the picture plays on.
    @Test func badAudioFilesWarnAndPlayOn() throws {
        for (file, says) in [("/nonexistent/none.mka", "cannot open audio file '/nonexistent/none.mka'"),
                             (TestEnvironment.fixture("video-only.mkv"), "has no audio stream")] {
            let player = Player()
            let start = MonotonicTime.now()
            try player.load(url: TestEnvironment.fixture("video-only.mkv"), options: options { $0.audio.files = [file] })
            #expect(MonotonicTime.now() - start < 5)
            #expect(player.mediaInfo?.audio.isEmpty == true)
            let warning = player.warnings.first { $0.contains(says) }
            #expect(warning != nil, "warnings: \(player.warnings)")
            #expect(warning?.contains("\n") == false)
            player.play()
            #expect(waitUntil(5) { player.currentTime > 0.5 })
            #expect(player.telemetry().frames.presented > 3)
            player.stop()
        }
    }
}
