import AetherBase
import CFFmpeg

/// The audio filters a decoded frame goes through before the resampler: the equalizer
/// (`--equalizer`, its safe preamp and the filters the stream's rate can run: an
/// ``EqualizerStage``), then `--af`'s libavfilter filters and an `atempo` chain when the speed is
/// not 1 (pitch kept), in a graph of their own, built for the first frame after a change of speed
/// or a seek. Nothing runs when nothing applies. Used by the audio thread only, through its
/// ``AudioDecoder``.
final class AudioFilterChain {
    /// `--af`: libavfilter audio filters applied after the equalizer, before the speed's atempo
    /// and the resampler (empty: none). Checked before playing (``FilterGraph/checkAudio(_:)``).
    let filters: String
    /// `--equalizer`'s curve (flat: none); ``setEqualizer(_:)`` changes it while playing.
    private(set) var equalizer: EqualizerCurve
    /// The equalizer as the stage runs it (at its input's rate: its filters below Nyquist, its
    /// safe preamp); flat when none runs. What the stats say.
    var runningEqualizer: EqualizerCurve { stage?.running ?? .flat }
    /// Speed from the next frame on (0.25–4).
    private(set) var rate = 1.0
    /// The equalizer's graph; kept while playing once built (a change fades or sends commands),
    /// dropped at a seek and, once flat again, when nothing after it runs.
    private var stage: EqualizerStage?
    /// The graph of `filters` and the atempo chain for `graphRate`.
    private var graph: FilterGraph?
    private var graphRate = 1.0
    /// What the graph was built for: a frame of another rate, sample format or layout (an
    /// inserted ad's mono after stereo; the equalizer's float planar) gets a graph of its own.
    private var graphInput: EqualizerStage.Shape?
    /// The graph's output, handed to the caller and unreferenced after it.
    private let output: Frame
    /// The sound decoded before this frame (a new equalizer graph is primed with it).
    private var history = FrameHistory()

    init(filters: String, equalizer: EqualizerCurve = .flat) throws(FFmpegError) {
        self.filters = filters
        self.equalizer = equalizer
        output = try Frame()
    }

    /// Whether frames go through a filter at all (else ``run(_:_:)`` hands them on as they are).
    var applies: Bool { rate != 1 || !filters.isEmpty || !equalizer.isFlat || stage != nil }

    /// The filters last said to be left out (a stage is built again at every seek: said once).
    private var leftOutSaid: [EqualizerFilter] = []

    /// The equalizer as it runs at `sampleRate`: the filters below Nyquist, the preamp lowered
    /// so that no frequency gains (a full-scale sound stays below full scale).
    private func running(_ curve: EqualizerCurve, sampleRate: Double) -> EqualizerCurve {
        let (runnable, leftOut) = curve.runnable(sampleRate: sampleRate)
        if !leftOut.isEmpty, leftOut != leftOutSaid {
            AppLog.write("audio", "equalizer: \(leftOut.count) filter(s) at or past Nyquist of \(Int(sampleRate)) Hz left out")
        }
        leftOutSaid = leftOut
        return runnable.safe(sampleRate: sampleRate)
    }

    /// Another equalizer from the next frame on, with no gap and no step but the filters' own
    /// response (``EqualizerStage/change(to:)``).
    func setEqualizer(_ curve: EqualizerCurve) {
        guard curve != equalizer else { return }
        equalizer = curve
        guard let stage else { return }   // built for the next frame, if it is not flat
        do {
            try stage.change(to: running(curve, sampleRate: Double(stage.shape.rate)), history: history.frames)
        } catch {
            AppLog.write("audio", "equalizer: \(error.message); built again for the next frame")
            self.stage = nil
        }
    }

    /// The equalizer's stage, for the item that continues this one's device (gapless): its
    /// filters carry on from this item's last samples. This chain runs none after.
    func releaseStage() -> EqualizerStage? {
        defer { stage = nil }
        return stage
    }

    /// Takes over the stage of the item before (``releaseStage()``), for this item's first frame
    /// on: used if that frame is of its shape, and turned to this chain's curve if it was another.
    func inherit(_ stage: EqualizerStage) {
        self.stage = stage
        inherited = true
    }
    /// The stage is the item before's, not yet checked against this item's first frame.
    private var inherited = false

    /// Drops the graphs (after a seek; they are rebuilt for the next frame).
    func reset() {
        graph = nil
        stage = nil
        history.clear()
    }

    /// Sets the speed; false when it is the one already set.
    func setRate(_ rate: Double) -> Bool {
        guard rate != self.rate else { return false }
        self.rate = rate
        graph = nil
        return true
    }

    /// `atempo` accepts 0.5–2 per instance in older FFmpeg: chain instances for the rest.
    static func atempoChain(_ rate: Double) -> String {
        var remaining = rate
        var parts: [String] = []
        while remaining > 2.0 { parts.append("atempo=2.0"); remaining /= 2 }
        while remaining < 0.5 { parts.append("atempo=0.5"); remaining /= 0.5 }
        parts.append("atempo=\(remaining)")
        return parts.joined(separator: ",")
    }

    /// Runs `decoded` through the equalizer's stage (built for it when the equalizer is not
    /// flat and none is there) and the graph after it, and calls `body` with each frame that
    /// comes out.
    func run(_ decoded: Frame, _ body: (Frame) throws -> Void) throws {
        let shape = EqualizerStage.Shape(decoded)
        if let current = stage, current.shape != shape {
            if inherited { AppLog.write("audio", "equalizer: this item's sound is of another shape; its filters start afresh") }
            stage = nil
        }
        if let current = stage, inherited {
            // Carried over from the item before, whose curve may have been another's.
            try current.change(to: running(equalizer, sampleRate: Double(shape.rate)), history: history.frames)
        }
        inherited = false
        if stage == nil, !equalizer.isFlat {
            // Made while the sound plays (it was flat): primed and faded in.
            stage = try EqualizerStage(running: running(equalizer, sampleRate: Double(shape.rate)), like: decoded,
                                       history: history.frames)
        }
        // Flat again and nothing after it: the stage goes (no cost), once its fade is over.
        if let current = stage, equalizer.isFlat, filters.isEmpty, rate == 1, !current.isFading, current.running.isFlat {
            stage = nil
        }
        if let stage {
            try stage.run(decoded, history: history.frames) { try filter($0, body) }
        } else {
            try filter(decoded, body)
        }
        try history.remember(decoded)
    }

    /// `--af` and the speed's atempo on `frame`.
    private func filter(_ frame: Frame, _ body: (Frame) throws -> Void) throws {
        guard !filters.isEmpty || rate != 1 else { return try body(frame) }
        let input = EqualizerStage.Shape(frame)
        if graph == nil || graphRate != rate || graphInput != input {
            let chain = [filters, rate == 1 ? "" : AudioFilterChain.atempoChain(rate)].filter { !$0.isEmpty }
            graph = try FilterGraph(audio: chain.joined(separator: ","), like: frame)
            graphRate = rate
            graphInput = input
        }
        guard let graph else { return }
        try graph.push(frame)
        while try graph.pull(into: output) {
            defer { output.unref() }
            try body(output)
        }
    }
}
