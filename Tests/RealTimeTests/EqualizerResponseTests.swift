import AetherEngine
@testable import AetherMedia
@testable import AetherPlayback
import AetherTestSupport
import Foundation
import Testing

/// `--equalizer` as the null sink plays it (issue #63): the stepped sweep `eq-sweep.flac`
/// (make-fixtures.sh: 31 steady third-octave tones from 20 Hz to 20 kHz between two 1 kHz
/// markers) played flat, with each preset, with two profiles in AutoEq's form and flat again,
/// each recorded from the sink's monitor. A tone's level with a curve, less its level played
/// flat in the same run, is the curve's response at the tone's frequency; it must be the
/// analytic response of the curve the chain runs (its filters below Nyquist, its safe preamp)
/// within 0.5 dB at every tone. Prints the measured responses and their differences from the
/// analytic ones as tables. In ``PlaybackTests`` (serialized): they record the sink.
/// Tier: realtime.
extension PlaybackTests {
    /// The sweep's layout, as make-fixtures.sh's `gen_eq_sweep` writes it, in samples from the
    /// first marker's onset, and where each tone is read.
    enum EqualizerSweep {
        static let rate = 48000.0
        /// Every tone's and marker's peak (−12 dBFS).
        static let amplitude = 0.25
        /// A sample above this (−34 dBFS) is sound: a marker's start. Each curve passes 1 kHz
        /// within −8 dB, so a marker's peak is at least 0.1.
        static let markerThreshold = 0.02
        /// The first marker (50 ms) and the silence after it (0.1 s).
        static let firstTone = 2400 + 4800

        /// One tone: its frequency, its first sample and its length.
        struct Tone {
            let frequency: Double
            let start: Int
            let length: Int

            /// The samples read, from the tone's start: whole cycles after the filters have
            /// settled, ending 5 ms before the tone does. The slowest filter of these curves, a
            /// 6 dB boost at 31.5 Hz, decays with a time constant of about 20 ms: 100 ms (5 of
            /// them) is skipped in the long low tones, 40 ms in the others, whose filters are
            /// faster.
            var window: Range<Int> {
                let settle = length >= 10560 ? 4800 : 1920
                let period = EqualizerSweep.rate / frequency
                let cycles = max(1, Int(Double(length - settle - 240) / period))
                return settle..<(settle + Int((Double(cycles) * period).rounded()))
            }
        }

        /// 1000 × 2^(k/3) for k = −17 … 13, back to back: 220 ms below 100 Hz (a low tone
        /// settles slower and has fewer cycles), 120 ms below 1 kHz, 80 ms from there on.
        static let tones: [Tone] = {
            var start = firstTone
            return (-17...13).map { k in
                let frequency = 1000 * pow(2, Double(k) / 3)
                let length = frequency < 100 ? 10560 : frequency < 1000 ? 5760 : 3840
                defer { start += length }
                return Tone(frequency: frequency, start: start, length: length)
            }
        }()

        /// The second marker: after the last tone and 0.15 s of silence.
        static let secondMarker = tones.last.map { $0.start + $0.length + 7200 } ?? 0
    }

    /// One tone as recorded: its RMS level (dBFS), and how much of it is at the tone's own
    /// frequency (dB, 0 when the window holds that sine and nothing else).
    struct ToneReading {
        let level: Double
        let purity: Double
    }

    /// Two profiles written as AutoEq writes them (`ParametricEQ.txt`): a headphone correction
    /// (a bass shelf, peaks both ways, a treble shelf) and ten filters with narrow peaks.
    static let equalizerProfiles: [(name: String, text: String)] = [
        ("headphone.txt", """
        Preamp: -6.4 dB
        Filter 1: ON LSC Fc 105 Hz Gain 5.5 dB Q 0.70
        Filter 2: ON PK Fc 180 Hz Gain -3.1 dB Q 0.90
        Filter 3: ON PK Fc 1400 Hz Gain 2.4 dB Q 1.60
        Filter 4: ON PK Fc 3100 Hz Gain -4.2 dB Q 2.50
        Filter 5: ON PK Fc 6200 Hz Gain 3.8 dB Q 3.00
        Filter 6: ON HSC Fc 10000 Hz Gain -2.5 dB Q 0.70
        """),
        ("narrow.txt", """
        Preamp: -3.0 dB
        Filter 1: ON PK Fc 24 Hz Gain 4.0 dB Q 0.80
        Filter 2: ON PK Fc 60 Hz Gain -2.5 dB Q 3.00
        Filter 3: ON PK Fc 240 Hz Gain 2.0 dB Q 1.20
        Filter 4: ON PK Fc 520 Hz Gain -3.5 dB Q 4.00
        Filter 5: ON PK Fc 1100 Hz Gain 1.5 dB Q 0.60
        Filter 6: ON PK Fc 2500 Hz Gain -6.0 dB Q 6.00
        Filter 7: ON PK Fc 4000 Hz Gain 4.5 dB Q 5.00
        Filter 8: ON PK Fc 7800 Hz Gain -5.0 dB Q 8.00
        Filter 9: ON PK Fc 12500 Hz Gain 3.0 dB Q 2.00
        Filter 10: ON HSC Fc 15000 Hz Gain -4.0 dB Q 0.70
        """),
    ]

    /// Plays the sweep with `curve` into the sink and returns the left channel as recorded,
    /// from parec's start (before `play()`) to a little after the end.
    private func recordSweep(_ curve: EqualizerCurve, name: String) throws -> [Double] {
        let player = Player()
        try player.load(url: TestEnvironment.fixture("eq-sweep.flac"), options: options {
            $0.playing.equalizer = EqualizerSetting(choice: .profile(path: name), curve: curve)
        })
        defer { player.stop() }
        let recorder = try SinkRecorder()
        try #require(recorder.waitFor(samples: 2400), "parec recorded nothing")
        player.play()
        #expect(waitUntil(15) { player.state == .ended }, "\(name): \(player.state) at \(player.currentTime) s")
        // The end is after the device drained; the sink's monitor delivers what it played a
        // little later (the sweep's last 0.25 s are the second marker and silence).
        recorder.waitFor(samples: recorder.samplesRecorded + 14400)
        return recorder.stop().left
    }

    /// The sweep played with `curve`, read tone by tone. The tones are found from the first
    /// marker's onset; the second marker must then be where the layout puts it, else samples
    /// were lost or added between them (the machine starved the player or the sound server)
    /// and the sweep is played again, twice at most.
    private func sweepReadings(_ curve: EqualizerCurve, name: String) throws -> [ToneReading] {
        typealias Sweep = EqualizerSweep
        var slips: [Int] = []
        while slips.count < 3 {
            let left = try recordSweep(curve, name: name)
            let onset = try #require(left.firstIndex { abs($0) > Sweep.markerThreshold },
                                     "\(name): no marker in \(left.count) samples")
            let expected = onset + Sweep.secondMarker
            try #require(left.count >= expected + 2400, "\(name): recorded \(left.count - onset) samples from the marker, the sweep has \(Sweep.secondMarker + 2400)")
            // Searched from 50 ms before it, in the silence after the last tone.
            let second = try #require(left[(expected - 2400)...].firstIndex { abs($0) > Sweep.markerThreshold },
                                      "\(name): no second marker")
            guard abs(second - expected) <= 2 else {
                slips.append(second - expected)
                print("equalizer response \(name): the second marker came \(second - expected) samples off the layout; played again")
                continue
            }
            return Sweep.tones.map { tone in
                let window = tone.window
                let samples = left[(onset + tone.start + window.lowerBound)..<(onset + tone.start + window.upperBound)]
                let level = Signal.rmsDBFS(samples)
                let sine = Signal.amplitude(samples, frequency: tone.frequency) / 2.0.squareRoot()
                return ToneReading(level: level, purity: 20 * log10(max(sine, 1e-9)) - level)
            }
        }
        Issue.record("\(name): every recording slipped between the markers (\(slips) samples)")
        throw SlippedRecording()
    }

    /// Three recordings of one curve slipped.
    struct SlippedRecording: Error {}

    /// Each tone's level with each curve less its level flat, against the curve's analytic
    /// response as the chain runs it at 48 kHz, within 0.5 dB.
    ///
    /// In the tier: the two profiles (about 15 s of sweeps; the presets are ten peaks each, the
    /// kind of filter the profiles have, and the unit tier holds them to libavfilter's output);
    /// with `AETHER_EQ_EVERY_PRESET=1` (soak.sh) every preset too and flat again, the closing
    /// note's table.
    @Test func theEqualizerPlaysItsAnalyticCurve() throws {
        let rate = EqualizerSweep.rate
        let every = ProcessInfo.processInfo.environment["AETHER_EQ_EVERY_PRESET"] == "1"
        var curves = EqualizerPreset.allCases.filter { _ in every }.map { (name: $0.rawValue, curve: $0.curve) }
        for (name, text) in Self.equalizerProfiles {
            let profile = EqualizerProfile.parse(Array(text.utf8), name: name)
            #expect(profile.refused.isEmpty, "\(profile.refused)")
            curves.append((name, profile.curve))
        }
        if every { curves.append(("flat again", .flat)) }

        let flat = try sweepReadings(.flat, name: "flat")
        let toneLevel = 20 * log10(EqualizerSweep.amplitude / 2.0.squareRoot())
        for (tone, reading) in zip(EqualizerSweep.tones, flat) {
            // Flat, the sink plays the file as it is: the level the fixture was written at.
            #expect(abs(reading.level - toneLevel) < 0.5, "flat: \(tone.frequency) Hz at \(reading.level) dBFS, written at \(toneLevel)")
        }

        var measured: [[Double]] = [], analytic: [[Double]] = []
        for (name, curve) in curves {
            let running = curve.runnable(sampleRate: rate).curve.safe(sampleRate: rate)
            let readings = try sweepReadings(curve, name: name)
            var columnMeasured: [Double] = [], columnAnalytic: [Double] = []
            for (index, tone) in EqualizerSweep.tones.enumerated() {
                let response = readings[index].level - flat[index].level
                let expected = running.response(at: tone.frequency, sampleRate: rate)
                #expect(abs(response - expected) <= 0.5,
                        "\(name) at \(String(format: "%.1f", tone.frequency)) Hz: measured \(String(format: "%+.2f", response)) dB, the curve says \(String(format: "%+.2f", expected))")
                // The window held the tone and nothing else (no other tone, no distortion).
                #expect(readings[index].purity > -0.1 && flat[index].purity > -0.1,
                        "\(name) at \(tone.frequency) Hz: \(readings[index].purity) dB of the level at the tone's frequency, flat \(flat[index].purity)")
                columnMeasured.append(response)
                columnAnalytic.append(expected)
            }
            measured.append(columnMeasured)
            analytic.append(columnAnalytic)
        }

        let names = curves.map(\.name)
        func table(_ title: String, _ columns: [[Double]], digits: Int = 2, first: (String, [Double])? = nil) -> String {
            let heads = ["Hz"] + (first.map { [$0.0] } ?? []) + names
            var lines = ["\(title)", "| " + heads.joined(separator: " | ") + " |",
                         "|" + heads.map { _ in "---:" }.joined(separator: "|") + "|"]
            for (index, tone) in EqualizerSweep.tones.enumerated() {
                var cells = [tone.frequency < 100 ? String(format: "%.1f", tone.frequency) : String(format: "%.0f", tone.frequency)]
                if let first { cells.append(String(format: "%.2f", first.1[index])) }
                cells += columns.map { String(format: "%+.\(digits)f", $0[index]) }
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        }
        let differences = zip(measured, analytic).map { zip($0, $1).map { $0 - $1 } }
        let worst = differences.map { $0.map(abs).max() ?? 0 }
        print(table("equalizer response: measured dB (each tone with the curve less flat; flat in dBFS RMS)", measured,
                    first: ("flat dBFS", flat.map(\.level))))
        print(table("equalizer response: analytic dB (the running curve: filters below Nyquist, safe preamp)", analytic))
        print(table("equalizer response: measured − analytic dB", differences, digits: 3))
        print("equalizer response: largest |measured − analytic| per curve: "
              + zip(names, worst).map { "\($0) \(String(format: "%.3f", $1))" }.joined(separator: ", "))
    }
}
