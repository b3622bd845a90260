import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--gapless-audio`: one continuous sweep cut at exact samples into four tracks in MP3 (LAME),
/// AAC (MP4), Opus and FLAC (`make-fixtures.sh`, `gapless-*`), played by the binary as a
/// playlist into a null sink of its own and recorded from its monitor. The recording is held
/// against the sweep itself (computed here): where each 20 ms window of the sweep sits in the
/// recording (its lag) before and after every joint. A gap or an overlap at a joint moves the
/// lag by its length; a wrong trim of a codec's delay or padding does too. Tier: realtime (each
/// run plays in real time; the recording is the only way to hear the joints).
@Suite(.serialized) struct GaplessPlaybackTests {
    static let rate = 48000
    static let trackSamples = 240_000

    /// The sweep of the fixtures at sample `n`: 0.5 sin(2π(100 t + 97.5 t²)).
    static func sweep(_ n: Int) -> Double {
        let t = Double(n) / Double(rate)
        return 0.5 * sin(2 * Double.pi * (100 * t + 97.5 * t * t))
    }

    /// Where the 20 ms of the sweep from sample `at` are in `recording` (recording index −
    /// sweep index), searched within `range` samples of `around`, with the normalised
    /// correlation there (1: the same waveform).
    static func lag(_ recording: [Double], at: Int, around: Int, range: Int) -> (lag: Int, correlation: Double) {
        let window = (0..<960).map { sweep(at + $0) }
        let windowNorm = sqrt(window.reduce(0) { $0 + $1 * $1 })
        var best = (lag: around, correlation: -1.0)
        for l in (around - range)...(around + range) {
            let start = at + l
            guard start >= 0, start + window.count <= recording.count else { continue }
            var dot = 0.0, norm = 0.0
            for i in 0..<window.count {
                let r = recording[start + i]
                dot += r * window[i]
                norm += r * r
            }
            let c = dot / max(1e-12, windowNorm * sqrt(norm))
            if c > best.correlation { best = (l, c) }
        }
        return best
    }

    struct Joints {
        /// Per joint: the lag's step across it (samples; + a gap, − an overlap) and the lower
        /// of the two windows' correlations.
        var steps: [(step: Int, correlation: Double)]
        /// The longest run of samples under −40 dBFS between the first and the last sound (ms).
        var longestSilence: Double
        var log: String
        /// The player's exit status and error output; whether anything was heard.
        var status: Int32 = 0
        var stderr = ""
        var heard = true

        /// The run ended well and something was heard (checked on the test's own thread).
        func expectPlayed(_ label: String) {
            #expect(status == 0, "\(label): \(stderr)")
            #expect(heard, "\(label): nothing was heard")
        }

        /// Per hand-over: seconds from the boundary being heard (the log's hand-over time plus
        /// the device's delay then) to the host leaving the item (the session before stopped).
        var switchLate: [Double] {
            let lines = log.split(separator: "\n")
            func time(_ line: Substring) -> Double? {
                line.split(separator: "]").first?.split(separator: " ").last.flatMap { Double($0) }
            }
            return lines.indices.compactMap { i -> Double? in
                guard lines[i].hasPrefix("[gapless "), let at = time(lines[i]),
                      let heard = lines[i].components(separatedBy: "heard in ").last?.split(separator: " ").first.flatMap({ Double($0) }),
                      let stopped = lines[(i + 1)...].first(where: { $0.hasPrefix("[player ") && $0.contains("stopped") }).flatMap(time)
                else { return nil }
                return stopped - (at + heard)
            }
        }
    }

    /// Plays `files` (each `trackSamples` of the sweep, the first from sweep sample `first`)
    /// with `--gapless-audio=mode` and measures the joints.
    static func play(_ files: [String], mode: String, first: Int = 0) throws -> Joints {
        let recorder = try SinkRecorder(.own)
        let log = NSTemporaryDirectory() + "aether-gapless-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let run = Process.run([TestEnvironment.binary] + files.map(TestEnvironment.fixture)
                              + ["--vo=null", "--gapless-audio=\(mode)", "--log-file=\(log)"],
                              environment: recorder.environment, timeout: 20 + 10 * Double(files.count))
        let x = recorder.stop().left
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard let firstSound = x.firstIndex(where: { abs($0) > 0.05 }), let lastSound = x.lastIndex(where: { abs($0) > 0.05 }) else {
            return Joints(steps: [], longestSilence: .infinity, log: text, status: run.status, stderr: run.stderr, heard: false)
        }
        // The sweep passes 0.05 within its first 8 samples: a coarse lag, refined half a second in.
        var lag = lag(x, at: first + rate / 2, around: firstSound - first, range: 2400).lag
        var steps: [(Int, Double)] = []
        for k in 1..<files.count {
            let joint = first + k * trackSamples
            let before = Self.lag(x, at: joint - 4800, around: lag, range: 480)
            let after = Self.lag(x, at: joint + 960, around: before.lag, range: 2880)
            steps.append((after.lag - before.lag, min(before.correlation, after.correlation)))
            lag = after.lag
        }
        let longest = Signal.longestQuietRun(x, firstSound..<(lastSound + 1), below: 0.01)
        return Joints(steps: steps, longestSilence: Double(longest) * 1000 / Double(rate), log: text, status: run.status, stderr: run.stderr)
    }

    /// `play(files, mode:)` for each mode at once, each into a null sink of its own (they wait
    /// on the sound server's clock, not on the cores: the two runs take the time of one).
    static func play(_ files: [String], modes: [String]) throws -> [Joints] {
        final class Results: @unchecked Sendable {  // each slot written once, under the lock
            let lock = NSLock()
            var slots: [Result<Joints, any Error>?]
            init(_ count: Int) { slots = Array(repeating: nil, count: count) }
        }
        let results = Results(modes.count)
        DispatchQueue.concurrentPerform(iterations: modes.count) { k in
            let result = Result { try play(files, mode: modes[k]) }
            results.lock.withLock { results.slots[k] = result }
        }
        return try results.slots.enumerated().map { k, slot in
            let joints = try slot!.get()
            joints.expectPlayed("--gapless-audio=\(modes[k])")
            return joints
        }
    }

    static let tracks = ["gapless-1.mp3", "gapless-2.m4a", "gapless-3.opus", "gapless-4.flac"]

    /// `weak` (the default): at each joint (MP3 → AAC → Opus → FLAC) the lag holds within 1 ms
    /// and no silence over 1 ms is heard, each window matching the sweep (correlation ≥ 0.95:
    /// the codec's own error); the device went on at every joint (logged). `no` in the same
    /// test: every joint drains the device and opens it again, and the gap is heard.
    @Test func aSweepCutIntoFourCodecsPlaysContinuous() throws {
        #expect(TestEnvironment.requirePulse(), "no PulseAudio null sink")
        let runs = try Self.play(Self.tracks, modes: ["weak", "no"])
        let (gapless, plain) = (runs[0], runs[1])
        #expect(gapless.steps.count == 3 && gapless.steps.allSatisfy { abs($0.step) <= 48 && $0.correlation >= 0.95 },
                "joints (step in samples, correlation): \(gapless.steps)")
        #expect(gapless.longestSilence <= 1, "a silence of \(gapless.longestSilence) ms")
        #expect(gapless.log.components(separatedBy: "the next item continues the device").count - 1 == 3, "\(gapless.log)")
        // The host moves on (title, playlist-pos, MPRIS) when the boundary is heard, not a tick later.
        #expect(gapless.switchLate.count == 3 && gapless.switchLate.allSatisfy { abs($0) <= 0.05 }, "\(gapless.switchLate)")
        #expect(plain.steps.count == 3 && plain.steps.contains { $0.step >= 240 }, "no gap without gapless: \(plain.steps)")
        #expect(!plain.log.contains("continues the device"))
        func figures(_ j: Joints) -> String {
            j.steps.map { String(format: "%+.2f ms (r %.3f)", Double($0.step) * 1000 / Double(Self.rate), $0.correlation) }.joined(separator: ", ")
        }
        print("gapless weak: joints mp3→aac, aac→opus, opus→flac \(figures(gapless)); longest silence \(String(format: "%.2f", gapless.longestSilence)) ms; the item changed \(gapless.switchLate.map { String(format: "%.1f", $0 * 1000) }) ms after the boundary. no: \(figures(plain)); longest silence \(String(format: "%.2f", plain.longestSilence)) ms")
    }

    /// `--start` applies to every item, the one prepared for gapless playback too (it was opened
    /// from 0): the first track from its 3 s (the sweep's 3 s), the second (the sweep's 15–20 s)
    /// from its 3 s, so 4 s are heard, the sweep's 18.5 s sits 2.5 s after the first sound, and
    /// each item's summary says it started at 3 and played 2 s.
    @Test func startAppliesToThePreparedItemToo() throws {
        #expect(TestEnvironment.requirePulse(), "no PulseAudio null sink")
        let recorder = try SinkRecorder(.own)
        let stats = PlayerRuns.temp("stats.jsonl")
        let run = Process.run([TestEnvironment.binary, TestEnvironment.fixture("gapless-1.mp3"), TestEnvironment.fixture("gapless-4.flac"),
                               "--vo=null", "--start=3", "--stats-file", stats],
                              environment: recorder.environment, timeout: 30)
        let x = recorder.stop().left
        #expect(run.status == 0, "\(run.stderr)")
        let first = try #require(x.firstIndex { abs($0) > 0.05 }, "nothing was heard")
        let last = try #require(x.lastIndex { abs($0) > 0.05 })
        let heard = Double(last - first) / Double(Self.rate)
        #expect(abs(heard - 4) < 0.1, "\(heard) s heard (the second item whole: 7 s)")
        let at = Int(18.5 * Double(Self.rate))
        let found = Self.lag(x, at: at, around: first + 5 * Self.rate / 2 - at, range: 2400)
        #expect(found.correlation >= 0.9, "the sweep's 18.5 s is not 2.5 s in: \(found)")
        let summaries = try PlayerRuns.summaries(stats)
        #expect(summaries.count == 2 && summaries.allSatisfy { $0.item.startPosition == 3 && abs($0.mediaSeconds - 2) < 0.15 },
                "\(summaries.map { ($0.item.startPosition ?? -1, $0.mediaSeconds) })")
    }

    /// Another rate (44.1 kHz after 48 kHz): `weak` leaves it to the ordinary switch (logged,
    /// and heard as a gap); `yes` converts it to the device's rate and the sweep goes on. The
    /// first track is an MP3 whose delay and padding are only in its `iTunSMPB` tag (no LAME
    /// header): the joint holds only if both are trimmed.
    @Test func anotherRateIsConvertedOnlyWithYes() throws {
        #expect(TestEnvironment.requirePulse(), "no PulseAudio null sink")
        let files = ["gapless-itunes.mp3", "gapless-44k.flac"]
        let runs = try Self.play(files, modes: ["weak", "yes"])
        let (weak, yes) = (runs[0], runs[1])
        #expect(weak.log.contains("differs from the playing item's (48000 Hz, 2 ch)"), "\(weak.log)")
        #expect(weak.steps.first.map { $0.step >= 240 } == true, "\(weak.steps)")
        #expect(yes.steps.first.map { abs($0.step) <= 48 && $0.correlation >= 0.95 } == true, "\(yes.steps)")
        #expect(yes.longestSilence <= 1, "a silence of \(yes.longestSilence) ms")
        print("gapless 48 → 44.1 kHz: weak \(weak.steps), yes \(yes.steps) (samples, correlation)")
    }
}
