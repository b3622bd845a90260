import AetherBase
import AetherTestSupport
@testable import AetherMedia
import CFFmpeg
import Foundation
import Testing

/// The equalizer's curves, presets, choice and profile reader (#63), on values; and the curve's
/// analytic response against what libavfilter's filters do to a tone (unit tier: a second of
/// samples through a real filter graph, no device).
struct EqualizerTests {
    // MARK: the cookbook's sections

    @Test func eachSectionHasItsGainWhereItShould() {
        let fs = 48_000.0
        let peak = EqualizerFilter(.peak, frequency: 1000, gain: 6, q: 1)
        #expect(abs(peak.response(at: 1000, sampleRate: fs) - 6) < 1e-9, "a peak's gain at its centre")
        #expect(abs(peak.response(at: 20, sampleRate: fs)) < 0.05 && abs(peak.response(at: 20_000, sampleRate: fs)) < 0.05)
        let shelf = EqualizerFilter(.lowShelf, frequency: 200, gain: 6, q: EqualizerFilter.butterworthQ)
        #expect(abs(shelf.response(at: 20, sampleRate: fs) - 6) < 0.1 && abs(shelf.response(at: 20_000, sampleRate: fs)) < 0.05)
        #expect(abs(shelf.response(at: 200, sampleRate: fs) - 3) < 1e-6, "a shelf's midpoint has half its gain")
        let high = EqualizerFilter(.highShelf, frequency: 5000, gain: -4, q: 0.7)
        #expect(abs(high.response(at: 20_000, sampleRate: fs) + 4) < 0.3 && abs(high.response(at: 100, sampleRate: fs)) < 0.05)
        for kind in [EqualizerFilter.Kind.lowPass, .highPass] {
            let pass = EqualizerFilter(kind, frequency: 1000, gain: 9)
            #expect(pass.gain == 0, "a pass has no gain")
            #expect(abs(pass.response(at: 1000, sampleRate: fs) + 3.0103) < 0.001, "\(kind): -3 dB at Fc with Q 0.707")
        }
        #expect(EqualizerFilter(.lowPass, frequency: 1000).response(at: 10_000, sampleRate: fs) < -35)
        #expect(EqualizerFilter(.highPass, frequency: 1000).response(at: 100, sampleRate: fs) < -35)
    }

    @Test func aCurveAddsItsPartsAndItsSafePreampKeepsThePeakAtZero() {
        let curve = EqualizerPreset.bass.curve
        let fs = 48_000.0
        let sum = curve.filters.reduce(0) { $0 + $1.response(at: 40, sampleRate: fs) }
        #expect(abs(curve.response(at: 40, sampleRate: fs) - sum) < 1e-9)
        #expect(curve.peakGain(sampleRate: fs) > 6, "the bands overlap: more than one band's gain")
        let safe = curve.safe(sampleRate: fs)
        #expect(abs(safe.peakGain(sampleRate: fs)) < 1e-9 && safe.preamp < 0)
        #expect(EqualizerPreset.speech.curve.safe(sampleRate: fs).preamp < 0)
        let cut = EqualizerCurve(filters: [EqualizerFilter(.peak, frequency: 1000, gain: -6, q: 1)])
        #expect(cut.safe(sampleRate: fs) == cut, "a curve that only cuts needs no preamp")
    }

    @Test func theChainNamesEachFilter() {
        let curve = EqualizerCurve(preamp: -6.2, filters: [
            EqualizerFilter(.peak, frequency: 105, gain: -3.2, q: 0.7),
            EqualizerFilter(.lowShelf, frequency: 105, gain: 6, q: 0.7),
            EqualizerFilter(.highPass, frequency: 20, q: 0.5),
        ])
        #expect(curve.filterChain == "volume@eqpre=volume=-6.2dB,equalizer@eq0=f=105:t=q:w=0.7:g=-3.2,lowshelf@eq1=f=105:t=q:w=0.7:g=6,highpass@eq2=f=20:t=q:w=0.5")
        #expect(EqualizerCurve.flat.filterChain == "volume@eqpre=volume=0dB", "a flat curve's chain changes nothing")
        #expect(GraphicBands.curve(Array(repeating: 0, count: 10)).isFlat, "ten bands at 0 dB are flat (and run nothing)")
        #expect(EqualizerCurve(filters: [EqualizerFilter(.lowPass, frequency: 8000)]).isFlat == false, "a pass changes the sound")
        #expect(FilterGraph.checkAudio(curve.filterChain) == nil, "libavfilter builds it")
        for preset in EqualizerPreset.allCases {
            #expect(FilterGraph.checkAudio(preset.curve.filterChain) == nil, "\(preset)")
        }
        let high = EqualizerCurve(filters: [EqualizerFilter(.peak, frequency: 23_000, gain: 3, q: 1), EqualizerFilter(.peak, frequency: 100, gain: 3, q: 1)])
        let (runnable, leftOut) = high.runnable(sampleRate: 44_100)
        #expect(runnable.filters.map(\.frequency) == [100] && leftOut.map(\.frequency) == [23_000], "past 0.49 of 44.1 kHz")
    }

    // MARK: what libavfilter does to a tone

    /// The gain in dB that `chain` gives a tone at `frequency` (48 kHz, mono float): a second of
    /// it through a real filter graph, the amplitude read over whole cycles after the first
    /// 0.3 s (the filters settled) by correlation with the tone.
    static func measuredGain(_ chain: String, at frequency: Double, sampleRate: Int = 48_000) throws -> Double {
        let frame = try Frame()
        let count = sampleRate
        frame.pointer.pointee.sample_rate = Int32(sampleRate)
        frame.pointer.pointee.format = AV_SAMPLE_FMT_FLT.rawValue
        frame.pointer.pointee.nb_samples = Int32(count)
        av_channel_layout_default(&frame.pointer.pointee.ch_layout, 1)
        #expect(av_frame_get_buffer(frame.pointer, 0) == 0)
        let amplitude = 0.25
        let input = frame.pointer.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: count) { $0 }
        for n in 0..<count { input[n] = Float(amplitude * sin(2 * Double.pi * frequency * Double(n) / Double(sampleRate))) }
        let graph = try FilterGraph(audio: chain, like: frame)
        try graph.push(frame)
        try graph.push(nil)
        var output: [Float] = []
        let out = try Frame()
        while try graph.pull(into: out) {
            let samples = Int(out.pointer.pointee.nb_samples)
            let data = out.pointer.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: samples) { $0 }
            output += UnsafeBufferPointer(start: data, count: samples)
            out.unref()
        }
        let start = Int(0.3 * Double(sampleRate))
        let cycles = ((Double(output.count - start) * frequency / Double(sampleRate))).rounded(.down)
        let length = Int((cycles * Double(sampleRate) / frequency).rounded())
        var (re, im) = (0.0, 0.0)
        for n in start..<(start + length) {
            let phase = 2 * Double.pi * frequency * Double(n) / Double(sampleRate)
            re += Double(output[n]) * cos(phase)
            im += Double(output[n]) * sin(phase)
        }
        let measured = 2 * (re * re + im * im).squareRoot() / Double(length)
        return 20 * log10(measured / amplitude)
    }

    /// AutoEq's kind of profile (written here in its form): the analytic curve and what
    /// libavfilter does agree within 0.1 dB at third-octave points from 20 Hz to 20 kHz.
    @Test(arguments: [EqualizerPreset.loudness.curve,
                      EqualizerProfile.parse(Array("""
                      Preamp: -6.4 dB
                      Filter 1: ON LSC Fc 105 Hz Gain 6.2 dB Q 0.70
                      Filter 2: ON PK Fc 180 Hz Gain -3.5 dB Q 0.45
                      Filter 3: ON PK Fc 2900 Hz Gain 4.1 dB Q 1.80
                      Filter 4: ON PK Fc 6100 Hz Gain -5.0 dB Q 3.20
                      Filter 5: ON HSC Fc 10000 Hz Gain 2.0 dB Q 0.70
                      Filter 6: ON HPQ Fc 18 Hz Q 0.60
                      """.utf8), name: "headphones.txt").curve])
    func theCurveIsWhatLibavfilterPlays(curve: EqualizerCurve) throws {
        var worst = 0.0
        for band in 0...30 {
            let frequency = 20 * pow(2, Double(band) / 3)
            let measured = try Self.measuredGain(curve.filterChain, at: frequency)
            let expected = curve.response(at: frequency, sampleRate: 48_000)
            worst = max(worst, abs(measured - expected))
            #expect(abs(measured - expected) < 0.1, "\(Int(frequency)) Hz: measured \(measured) dB, the curve says \(expected) dB")
        }
        print("equalizer: analytic against libavfilter, worst \(String(format: "%.4f", worst)) dB over 31 third-octave points")
    }

    // MARK: --equalizer

    @Test func theChoiceReadsNamesBandsAndPaths() throws {
        #expect(try EqualizerChoice(parsing: "flat") == .flat)
        #expect(try EqualizerChoice(parsing: "vocal") == .preset(.vocal))
        #expect(try EqualizerChoice(parsing: "bands:0,2,3,0,0,0,-1.5,0,0,12") == .bands([0, 2, 3, 0, 0, 0, -1.5, 0, 0, 12]))
        #expect(try EqualizerChoice(parsing: "~/eq/hd600.txt") == .profile(path: "~/eq/hd600.txt"))
        #expect(try EqualizerChoice(parsing: "bands:0,2,3,0,0,0,-1.5,0,0,12").text == "bands:0,2,3,0,0,0,-1.5,0,0,12")
        for bad in ["bands:1,2,3", "bands:0,0,0,0,0,0,0,0,0,13", "bands:0,0,0,0,0,0,0,0,0,nan", "loud", "bands:0,0,0,0,0,0,0,0,0,1e400"] {
            #expect(throws: OutsideValue.Refusal.self, "\(bad)") { try EqualizerChoice(parsing: bad) }
        }
        do { _ = try EqualizerChoice(parsing: "loud") } catch { #expect(error.message.contains("bass, treble, vocal, loudness")) }
    }

    // MARK: profiles from outside

    @Test func anAutoEqProfileIsReadWholeWithCRLFAndUTF16() {
        let text = "Preamp: -6.2 dB\r\nFilter 1: ON PK Fc 105 Hz Gain -3.2 dB Q 0.70\r\nFilter 2: ON LSC Fc 105 Hz Gain 6.0 dB Q 0.70\r\n"
            + "# a comment\r\n\r\nFilter 3: OFF PK Fc 1000 Hz Gain 3 dB Q 1\r\nFilter 4: ON HP Fc 20 Hz\r\nFilter: ON PK Fc 3000 Hz Gain 2 dB BW Oct 1\r\n"
        let utf8 = EqualizerProfile.parse(Array(text.utf8), name: "a.txt")
        #expect(utf8.refused.isEmpty, "\(utf8.refused)")
        #expect(utf8.curve.preamp == -6.2)
        #expect(utf8.curve.filters == [EqualizerFilter(.peak, frequency: 105, gain: -3.2, q: 0.7),
                                       EqualizerFilter(.lowShelf, frequency: 105, gain: 6, q: 0.7),
                                       EqualizerFilter(.highPass, frequency: 20),
                                       EqualizerFilter(.peak, frequency: 3000, gain: 2, q: 2.0.squareRoot())])
        var little: [UInt8] = [0xFF, 0xFE], big: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 {
            little += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            big += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        #expect(EqualizerProfile.parse(little, name: "a.txt") == utf8, "UTF-16 little endian with its mark")
        #expect(EqualizerProfile.parse(big, name: "a.txt") == utf8, "UTF-16 big endian with its mark")
        #expect(EqualizerProfile.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8), name: "a.txt") == utf8, "UTF-8 with its mark")
    }

    @Test func badLinesAreRefusedOneByOneAndTheGoodKept() {
        let text = """
        Preamp: -3 dB
        Filter 1: ON PK Fc nan Hz Gain 1 dB Q 1
        Filter 2: ON PK Fc 100 Hz Gain inf dB Q 1
        Filter 3: ON PK Fc 100 Hz Gain 1 dB Q 0
        Filter 4: ON PK Fc 30000 Hz Gain 1 dB Q 1
        Filter 5: ON XX Fc 100 Hz Gain 1 dB Q 1
        Filter 6: ON PK Fc 100 Hz Q 1
        Filter 7: ON PK Fc 1000 Hz Gain 2 dB Q 1.4
        Device: Speakers
        Preamp: -1e308 dB
        """
        let profile = EqualizerProfile.parse(Array(text.utf8), name: "b\u{1B}[2J.txt")
        #expect(profile.curve == EqualizerCurve(preamp: -3, filters: [EqualizerFilter(.peak, frequency: 1000, gain: 2, q: 1.4)]))
        #expect(profile.refused.count == 8, "\(profile.refused)")
        #expect(profile.refused.map { $0.split(separator: ":")[1] } == ["2", "3", "4", "5", "6", "7", "9", "10"])
        #expect(profile.refused.allSatisfy { !$0.contains("\u{1B}") }, "the file's name is sanitised")
        #expect(profile.refused[2].contains("Q 0 is not in"), "\(profile.refused[2])")
        #expect(profile.refused[3].contains("Nyquist"), "\(profile.refused[3])")
    }

    @Test func budgetsHoldOnAHugeFile() throws {
        // 100 000 filters: the first 64 kept, the rest counted in one line.
        let many = (1...100_000).map { "Filter \($0): ON PK Fc \(20 + $0 % 19_000) Hz Gain 1 dB Q 1" }.joined(separator: "\n")
        let profile = EqualizerProfile.parse(Array(many.utf8), name: "many.txt")
        #expect(profile.curve.filters.count == EqualizerProfile.maxFilters)
        #expect(profile.refused == ["many.txt: 99936 filters after the first 64 left out"])
        // 100 000 bad lines: the first 20 named, the rest counted.
        let junk = EqualizerProfile.parse(Array(String(repeating: "GraphicEQ: 20 0\n", count: 100_000).utf8), name: "j.txt")
        #expect(junk.refused.count == EqualizerProfile.namedRefusals + 1 && junk.refused.last == "j.txt: 99980 more lines refused")
        // A file of 1 GiB (sparse): its first MiB is read, and that is said.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aether-eq-\(UUID().uuidString).txt").path
        FileManager.default.createFile(atPath: path, contents: Data("Filter 1: ON PK Fc 100 Hz Gain 1 dB Q 1\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(truncate(path, 1 << 30) == 0)
        let huge = try EqualizerProfile.read(path: path).get()
        #expect(huge.curve.filters.count == 1)
        #expect(huge.refused.last?.hasSuffix("read the first 1 MiB only; the rest left out") == true, "\(huge.refused)")
        #expect(huge.refused.contains { $0.contains("longer than 4096 bytes") }, "the NULs after the first line are one long line")
    }
}

/// A change of the equalizer while it plays (#63): the running filters take the new curve as
/// commands and keep their state. On real libavfilter, a chord in 1024-sample frames through the
/// audio filter chain, the 250 Hz band moved 6 dB between two frames: no silence, and no step
/// between samples above what the music itself has there (the larger of its largest steps
/// through the old curve and through the new, from the start). Unit tier.
struct EqualizerChangeTests {
    static let rate = 48_000
    static func chord(_ n: Int) -> Float {
        let t = Double(n) / Double(rate)
        return Float([110.0, 247, 440, 1250, 3100].reduce(0) { $0 + 0.15 * sin(2 * Double.pi * $1 * t) })
    }

    /// The chain's output for two seconds of the chord, in frames of 1024; `change` is called
    /// before the frame that starts at sample `at`.
    static func play(_ curve: EqualizerCurve, change: (at: Int, (AudioFilterChain) -> Void)? = nil) throws -> [Float] {
        let chain = try AudioFilterChain(filters: "", equalizer: curve)
        var output: [Float] = []
        let at = change?.at ?? 2 * rate
        try feed(chain, 0..<at) { output += $0 }
        if let change {
            change.1(chain)
            try feed(chain, at..<(2 * rate)) { output += $0 }
        }
        return output
    }

    /// Feeds the chord's samples `range` (in frames of 1024 from its start) through `chain`.
    static func feed(_ chain: AudioFilterChain, _ range: Range<Int>, _ body: ([Float]) -> Void) throws {
        let frame = try Frame()
        for start in stride(from: range.lowerBound, to: range.upperBound, by: 1024) {
            frame.unref()
            frame.pointer.pointee.sample_rate = Int32(rate)
            frame.pointer.pointee.format = AV_SAMPLE_FMT_FLT.rawValue
            frame.pointer.pointee.nb_samples = 1024
            frame.pointer.pointee.pts = Int64(start)
            av_channel_layout_default(&frame.pointer.pointee.ch_layout, 1)
            #expect(av_frame_get_buffer(frame.pointer, 0) == 0)
            let samples = frame.pointer.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: 1024) { $0 }
            for i in 0..<1024 { samples[i] = chord(start + i) }
            try chain.run(frame) { out in
                let count = Int(out.pointer.pointee.nb_samples)
                let data = out.pointer.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: count) { $0 }
                body(Array(UnsafeBufferPointer(start: data, count: count)))
            }
        }
    }


    @Test(arguments: [6.0, -6.0])
    func aBandMovedWhilePlayingHasNoGapAndNoStep(by change: Double) throws {
        var before = Array(repeating: 0.0, count: 10), after = before
        before[3] = 0
        after[3] = change   // 250 Hz
        let at = 24 * 1024
        let old = GraphicBands.curve(before.map { $0 + 0 }).withBand(0, 1)   // a curve of the ten bands, not flat
        let new = GraphicBands.curve(after).withBand(0, 1)
        let live = try Self.play(old, change: (at, { $0.setEqualizer(new) }))
        let throughOld = try Self.play(old), throughNew = try Self.play(new)
        let window = at..<(at + Self.rate / 50)   // 20 ms after the change
        let music = max(Signal.largestStep(throughOld, window), Signal.largestStep(throughNew, window))
        let changed = Signal.largestStep(live, window)
        #expect(changed <= music * 1.02, "\(change) dB: a step of \(changed) where the music's largest is \(music)")
        // No silence: no run of 2 ms (96 samples) below -80 dBFS anywhere around the change.
        let longest = Signal.longestQuietRun(live, (at - 4800)..<(at + 4800), below: 1e-4)
        #expect(longest < 96, "\(change) dB: \(longest) samples of silence")
        // The filters kept their state (a cut: commands to the running filters) or a graph
        // primed with what played took over (a boost moves the safe preamp: a fade of 10 ms):
        // 10–20 ms after the change the sound is nearer the new curve's own than a graph built
        // again at the change (its filters starting from silence) gets.
        let rebuilt = try Self.play(old, change: (at, { chain in
            chain.reset()
            chain.setEqualizer(new)
        }))
        let settled = (at + Self.rate / 100)..<(at + Self.rate / 50)
        func deviation(_ x: [Float]) -> Double {
            let error = settled.map { Double(x[$0] - throughNew[$0]) }.map { $0 * $0 }.reduce(0, +)
            let level = settled.map { Double(throughNew[$0] * throughNew[$0]) }.reduce(0, +)
            return 10 * log10(max(error, 1e-30) / level)
        }
        #expect(deviation(live) < deviation(rebuilt) - 3, "\(change) dB: kept state \(deviation(live)) dB from the new curve's sound, rebuilt \(deviation(rebuilt)) dB")
        print("equalizer change \(Int(change)) dB: 10–20 ms after it \(String(format: "%.1f", deviation(live))) dB from the new curve's own sound (a graph built again: \(String(format: "%.1f", deviation(rebuilt))) dB)")
        // And the new curve is what plays after it: within 0.1 dB of the fresh graph's level a second on.
        let late = (at + Self.rate / 2)..<(at + Self.rate / 2 + 4800)
        func rms(_ x: [Float]) -> Double { (late.map { Double(x[$0] * x[$0]) }.reduce(0, +) / Double(late.count)).squareRoot() }
        #expect(abs(20 * log10(rms(live) / rms(throughNew))) < 0.1)
        print("equalizer change \(change > 0 ? "+" : "")\(Int(change)) dB at 250 Hz: largest step \(changed) against the music's \(music), longest quiet run \(longest) samples")
    }

    @Test func anotherShapeBuildsAGraphAgainAndTheSameShapeSendsCommands() {
        let bands = GraphicBands.curve([1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(bands.commands(toBecome: GraphicBands.curve([1, 0, 0, 6, 0, 0, 0, 0, 0, 0]))
                == [EqualizerCurve.Command(target: "eq3", command: "g", argument: "6")])
        #expect(bands.commands(toBecome: EqualizerPreset.vocal.curve)?.count == 8, "the eight bands whose gains differ move")
        #expect(bands.commands(toBecome: EqualizerCurve(filters: [EqualizerFilter(.lowPass, frequency: 8000)])) == nil)
        #expect(bands.commands(toBecome: .flat) == nil, "flat has no filters")
        #expect(GraphicBands.curve(Array(repeating: 0, count: 10)).commands(toBecome: bands)?.count == 1,
                "ten bands at 0 dB, running, take a band's move as a command")
    }

    /// Another shape while playing (flat to a preset, a preset to a profile, back to flat): a
    /// second graph, fed the last 150 ms first, fades in over 10 ms. No step above the music's,
    /// no silence, and the new curve's own sound after the fade.
    @Test(arguments: [(EqualizerCurve.flat, EqualizerPreset.bass.curve),
                      (EqualizerPreset.loudness.curve, EqualizerCurve(preamp: -4, filters: [
                          EqualizerFilter(.lowShelf, frequency: 105, gain: 6, q: 0.7), EqualizerFilter(.peak, frequency: 3000, gain: -4, q: 2)])),
                      (EqualizerPreset.bass.curve, EqualizerCurve.flat)])
    func anotherShapeFadesInWithoutAStep(from old: EqualizerCurve, to new: EqualizerCurve) throws {
        let at = 24 * 1024
        let live = try Self.play(old, change: (at, { $0.setEqualizer(new) }))
        let throughOld = try Self.play(old), throughNew = try Self.play(new)
        let window = at..<(at + Self.rate / 50)
        let music = max(Signal.largestStep(throughOld, window), Signal.largestStep(throughNew, window))
        let changed = Signal.largestStep(live, window)
        #expect(changed <= music * 1.02, "a step of \(changed) where the music's largest is \(music)")
        let longest = Signal.longestQuietRun(live, (at - 4800)..<(at + 4800), below: 1e-4)
        #expect(longest < 96, "\(longest) samples of silence")
        // After the fade (10 ms), what plays is the new curve's own sound, sample for sample.
        let after = (at + Self.rate / 50)..<(at + Self.rate / 5)
        let worst = after.map { abs(live[$0] - throughNew[$0]) }.max() ?? 0
        #expect(worst < 1e-3, "after the fade: \(worst) from the new curve's sound")
        print("equalizer shape change: largest step \(changed) against the music's \(music); after the fade within \(worst) of the new curve's sound")
    }

    /// Gapless: the next item's chain takes over the running stage, so its first samples go
    /// through filters that carry on from the item before's last: the joined output is the one
    /// chain's output, sample for sample (a chain starting afresh differs at the joint).
    @Test func theNextItemCarriesTheFiltersOn() throws {
        let curve = EqualizerPreset.bass.curve
        let whole = try Self.play(curve)
        let at = 24 * 1024
        let first = try AudioFilterChain(filters: "", equalizer: curve), second = try AudioFilterChain(filters: "", equalizer: curve)
        var joined: [Float] = []
        try Self.feed(first, 0..<at) { joined += $0 }
        if let stage = first.releaseStage() { second.inherit(stage) }
        try Self.feed(second, at..<(2 * Self.rate)) { joined += $0 }
        #expect(joined.count == whole.count)
        #expect(zip(joined, whole).allSatisfy { abs($0 - $1) < 1e-6 }, "the joint is heard as if one item played")
        let afresh = try AudioFilterChain(filters: "", equalizer: curve)
        var fresh: [Float] = Array(whole[..<at])
        try Self.feed(afresh, at..<(2 * Self.rate)) { fresh += $0 }
        let missed = (at..<(at + 480)).map { abs(fresh[$0] - whole[$0]) }.max() ?? 0
        #expect(missed > 1e-3, "a chain starting afresh differs at the joint (\(missed)): the test can tell")
        print("equalizer gapless: carried on exactly; starting afresh would differ by \(missed) at the joint")
    }

    /// Flat again: once its fade is over, nothing runs (no cost).
    @Test func flatAgainRunsNothing() throws {
        let chain = try AudioFilterChain(filters: "", equalizer: EqualizerPreset.vocal.curve)
        try Self.feed(chain, 0..<4096) { _ in }
        #expect(chain.applies && !chain.runningEqualizer.isFlat)
        chain.setEqualizer(.flat)
        try Self.feed(chain, 4096..<(4096 * 3)) { _ in }
        #expect(!chain.applies, "the stage is gone after its fade")
    }
}

extension EqualizerCurve {
    /// This curve with band `index` at `gain` dB.
    func withBand(_ index: Int, _ gain: Double) -> EqualizerCurve {
        var curve = self
        curve.filters[index].gain = gain
        return curve
    }
}
