import AetherEngine
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// The visualisation tap: which samples it hands out for a media time, and that during real
/// playback they are the ones playing.
@Suite struct AudioTapTests {
    /// `frames` stereo frames whose both channels hold `first`, `first + 1` …
    func ramp(from first: Int, frames: Int) -> [Int16] {
        (0..<frames).flatMap { [Int16(first + $0), Int16(first + $0)] }
    }

    func append(_ tap: AudioTap, _ samples: [Int16], pts: Double, duration: Double) {
        samples.withUnsafeBufferPointer { tap.append($0, channels: 2, pts: pts, mediaDuration: duration) }
    }

    /// The value the tap stores for a ramp sample `n` (the mono mix of two equal channels).
    func mono(_ n: Int) -> Float { Float(2 * n) / (2 * 32768) }

    @Test func theWindowEndsWithTheSamplePlayingAtTheTime() {
        let tap = AudioTap(sampleRate: 1000, capacity: 1024)
        // Two chunks of 100 frames, 1 ms each: frame n plays at n ms.
        append(tap, ramp(from: 0, frames: 100), pts: 0, duration: 0.1)
        append(tap, ramp(from: 100, frames: 100), pts: 0.1, duration: 0.1)
        var out = [Float](repeating: -1, count: 10)
        #expect(tap.window(endingAt: 0.0505, into: &out))
        #expect(out == (41...50).map(mono))
        // Across the chunk boundary.
        #expect(tap.window(endingAt: 0.1049, into: &out))
        #expect(out == (95...104).map(mono))
        // Past what was written: the newest samples.
        #expect(tap.window(endingAt: 5, into: &out))
        #expect(out == (190...199).map(mono))
    }

    @Test func missingHistoryIsSilence() {
        let tap = AudioTap(sampleRate: 1000, capacity: 1024)
        var out = [Float](repeating: -1, count: 5)
        #expect(!tap.window(endingAt: 1, into: &out), "nothing appended yet")
        #expect(out == [0, 0, 0, 0, 0])
        append(tap, ramp(from: 1, frames: 100), pts: 2, duration: 0.1)
        #expect(!tap.window(endingAt: 1.5, into: &out), "before the first chunk")
        #expect(tap.window(endingAt: 2.0025, into: &out))
        #expect(out == [0, 0, mono(1), mono(2), mono(3)])
        tap.reset()
        #expect(!tap.window(endingAt: 2.05, into: &out), "after a reset")
        #expect(out.allSatisfy { $0 == 0 })
    }

    /// At a speed ≠ 1 a chunk covers more (or less) media time than its length.
    @Test func mediaTimeFollowsTheChunksDuration() {
        let tap = AudioTap(sampleRate: 1000, capacity: 1024)
        append(tap, ramp(from: 0, frames: 100), pts: 10, duration: 0.2)   // 2 ms of media per frame
        var out = [Float](repeating: 0, count: 3)
        #expect(tap.window(endingAt: 10.1001, into: &out))
        #expect(out == [mono(48), mono(49), mono(50)])
    }

    /// The ring keeps the newest `capacity` frames; older ones are gone (zeros), and a time whose
    /// chunk was overwritten has nothing.
    @Test func theRingWrapsAround() {
        let tap = AudioTap(sampleRate: 1000, capacity: 1024)
        for chunk in 0..<30 {
            append(tap, ramp(from: chunk * 100, frames: 100), pts: Double(chunk) * 0.1, duration: 0.1)
        }
        var out = [Float](repeating: 0, count: 2048)
        #expect(tap.window(endingAt: 2.9995, into: &out))
        #expect(Array(out.suffix(1024)) == (1976...2999).map(mono))
        #expect(out.prefix(1024).allSatisfy { $0 == 0 }, "older than the ring: silence")
        #expect(!tap.window(endingAt: 0.05, into: &out), "that chunk was overwritten")
        // One chunk larger than the ring keeps its newest frames.
        append(tap, ramp(from: 0, frames: 3000), pts: 100, duration: 3)
        var last = [Float](repeating: 0, count: 4)
        #expect(tap.window(endingAt: 103, into: &last))
        #expect(last == (2996...2999).map(mono))
    }

    /// The dominant frequency of `samples` at `rate`, from its zero crossings.
    static func frequency(_ samples: [Float], rate: Int) -> Double {
        var crossings = 0
        for i in 1..<samples.count where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(samples.count) / Double(rate))
    }

    /// In real playback the window holds the tone playing at the clock's time: the MP3 switches
    /// from 1 kHz to 4 kHz at 3 s, and the window follows within its own length.
    @Test func duringPlaybackTheWindowIsWhatPlaysNow() throws {
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.start = 2.4
        let player = Player()
        try player.load(url: TestEnvironment.fixture("music-tagged.mp3"), options: o)
        defer { player.stop() }
        player.play()
        var window = [Float](repeating: 0, count: 2048)
        var before: [Double] = [], after: [Double] = []
        // A look every 20 ms for up to 4 s, until the end.
        _ = waitUntil(4, interval: 0.02) {
            guard player.state != .ended else { return true }
            let now = player.currentTime
            guard let rate = player.audioWindow(into: &window) else { return false }
            #expect(rate == 44100)
            // 2048 samples are 46 ms: whole windows before 3 s, and after it.
            if (2.6...2.9).contains(now) { before.append(Self.frequency(window, rate: rate)) }
            if (3.1...3.5).contains(now) { after.append(Self.frequency(window, rate: rate)) }
            return false
        }
        #expect(before.count >= 5 && after.count >= 5, "too few looks: \(before.count) before, \(after.count) after")
        #expect(before.allSatisfy { abs($0 - 1000) < 50 }, "before 3 s: \(before)")
        #expect(after.allSatisfy { abs($0 - 4000) < 100 }, "after 3 s: \(after)")
        let peak = window.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.05, "the tone's peak is 0.5 (both channels), not \(peak)")
    }

    @Test func noAudioNoWindow() throws {
        var o = PlayerOptions(time: .monotonic)
        o.audio.output = .null
        o.audio.enabled = false
        let player = Player()
        try player.load(url: TestEnvironment.fixture("sine-1k.mkv"), options: o)
        defer { player.stop() }
        var window = [Float](repeating: 7, count: 16)
        #expect(player.audioWindow(into: &window) == nil)
        #expect(window.allSatisfy { $0 == 7 })
    }
}

@Suite struct SpectrumTests {
    static func sine(_ frequency: Double, rate: Int = 48000, count: Int = 2048, amplitude: Double = 0.5) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    @Test(arguments: [16, 24, 32, 48, 64])
    func aSineLightsTheBandThatHoldsItsFrequency(bands: Int) throws {
        let analyzer = try SpectrumAnalyzer(size: 2048)
        for frequency in [100.0, 1000, 5000] {
            let levels = analyzer.levels(of: Self.sine(frequency), sampleRate: 48000, bands: bands)
            #expect(levels.count == bands)
            let loudest = try #require(levels.indices.max { levels[$0] < levels[$1] })
            let range = SpectrumAnalyzer.bandRange(loudest, of: bands, sampleRate: 48000)
            if frequency == 1000 {
                #expect(range.contains(frequency), "\(frequency) Hz: loudest band \(loudest) is \(range) (\(bands) bands)")
            } else {
                // Where bands are narrower than the transform's bins (23.4 Hz), within one bin.
                let bin = 48000.0 / 2048
                #expect((range.lowerBound - bin)...(range.upperBound + bin) ~= frequency,
                        "\(frequency) Hz: loudest band \(loudest) is \(range) (\(bands) bands)")
            }
            // Far from the tone the bars are low (the Hann window's leakage is < −60 dB there).
            let far = levels.indices.filter { !SpectrumAnalyzer.bandRange($0, of: bands, sampleRate: 48000).overlaps((frequency / 4)...(frequency * 4)) }
            #expect(far.allSatisfy { levels[$0] < 0.2 }, "\(frequency) Hz: bands far from it: \(far.map { levels[$0] })")
        }
    }

    @Test func silenceGivesZeroBars() throws {
        let analyzer = try SpectrumAnalyzer()
        let levels = analyzer.levels(of: [Float](repeating: 0, count: 2048), sampleRate: 44100, bands: 40)
        #expect(levels == [Float](repeating: 0, count: 40))
        #expect(analyzer.levels(of: [], sampleRate: 44100, bands: 8) == [Float](repeating: 0, count: 8))
    }

    /// Levels are dB between −70 (0) and a full-scale sine (1): a −6 dB sine is about 0.9, and a
    /// sine 40 dB quieter is 40/70 lower.
    @Test func levelsFollowTheDecibels() throws {
        let analyzer = try SpectrumAnalyzer()
        let loud = analyzer.levels(of: Self.sine(1000, amplitude: 0.5), sampleRate: 48000, bands: 32).max() ?? 0
        let quiet = analyzer.levels(of: Self.sine(1000, amplitude: 0.005), sampleRate: 48000, bands: 32).max() ?? 0
        #expect(loud > 0.85 && loud <= 1, "−6 dBFS: \(loud)")
        #expect(abs((loud - quiet) - 40.0 / 70) < 0.02, "40 dB apart: \(loud) and \(quiet)")
    }

    @Test func shortWindowsArePaddedAndTheSizeIsAPowerOfTwo() throws {
        let analyzer = try SpectrumAnalyzer(size: 1000)
        #expect(analyzer.size == 1024)
        let levels = analyzer.levels(of: Self.sine(2000, count: 300), sampleRate: 48000, bands: 20)
        let loudest = try #require(levels.indices.max { levels[$0] < levels[$1] })
        #expect(SpectrumAnalyzer.bandRange(loudest, of: 20, sampleRate: 48000).contains(2000))
    }

    @Test func barsRiseAtOnceFallSlowlyAndPeaksHold() {
        var s = SpectrumSmoother()
        s.update([1, 0.5], elapsed: 0)
        #expect(s.levels == [1, 0.5] && s.peaks == [1, 0.5])
        s.update([0, 0.8], elapsed: 0.1)   // falls 0.15 per 0.1 s; rises at once
        #expect(abs(s.levels[0] - 0.85) < 1e-6 && s.levels[1] == 0.8)
        #expect(s.peaks == [1, 0.8], "peaks hold")
        s.update([0, 0], elapsed: 0.4)
        #expect(abs(s.levels[0] - 0.25) < 1e-6 && s.peaks[0] == 1, "still held at 0.5 s")
        s.update([0, 0], elapsed: 0.2)     // 0.7 s: past the hold, the peak falls
        #expect(s.levels[0] == 0 && s.peaks[0] < 1 && s.peaks[0] > 0.8)
        s.update([0.3, 0.3, 0.3], elapsed: 0.1)
        #expect(s.levels == [0.3, 0.3, 0.3], "a new band count starts over")
    }

    @Test func levelMeterReadsRMSAndPeak() {
        let tone = SpectrumTests.sine(1000, count: 4800, amplitude: 0.5)
        let (rms, peak) = tone.withUnsafeBufferPointer { LevelMeter.measure($0) }
        #expect(abs(peak - -6.02) < 0.05)
        #expect(abs(rms - -9.03) < 0.05)
        let silence = [Float](repeating: 0, count: 100).withUnsafeBufferPointer { LevelMeter.measure($0) }
        #expect(silence.rms == -.infinity && LevelMeter.fraction(silence.peak) == 0)
        #expect(LevelMeter.fraction(0) == 1 && abs(LevelMeter.fraction(-35) - 0.5) < 1e-6)
    }
}
