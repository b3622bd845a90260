import AetherBase
import CFFmpeg

/// The audio filters a decoded frame goes through before the resampler: the equalizer
/// (`--equalizer`, its safe preamp and the filters the stream's rate can run), `--af`'s
/// libavfilter filters, then an `atempo` chain when the speed is not 1 (pitch kept). One graph
/// for all, built for the first frame after a change of speed or a seek; none when nothing
/// applies. Used by the audio thread only, through its ``AudioDecoder``.
final class AudioFilterChain {
    /// `--af`: libavfilter audio filters applied after the equalizer, before the speed's atempo
    /// and the resampler (empty: none). Checked before playing (``FilterGraph/checkAudio(_:)``).
    let filters: String
    /// `--equalizer`'s curve (flat: none); ``setEqualizer(_:)`` changes it while playing.
    private(set) var equalizer: EqualizerCurve
    /// The equalizer as the graph runs it (at its input's rate: its filters below Nyquist, its
    /// safe preamp); flat before the first frame. What the stats say.
    private(set) var runningEqualizer = EqualizerCurve.flat
    /// Speed from the next frame on (0.25–4).
    private(set) var rate = 1.0
    /// The graph of `filters` and the atempo chain for `graphRate`.
    private var graph: FilterGraph?
    private var graphRate = 1.0
    /// What the graph was built for: a frame of another rate, sample format or layout (an
    /// inserted ad's mono after stereo) gets a graph of its own.
    private struct Input: Equatable {
        var rate: Int32, format: Int32, channels: Int32, mask: UInt64
    }
    private var graphInput: Input?
    /// The graph's output, handed to the caller and unreferenced after it.
    private let output: Frame

    init(filters: String, equalizer: EqualizerCurve = .flat) throws(FFmpegError) {
        self.filters = filters
        self.equalizer = equalizer
        output = try Frame()
    }

    /// Whether frames go through a graph at all.
    var applies: Bool { rate != 1 || !filters.isEmpty || !equalizer.isFlat }

    /// The filters last said to be left out (a graph is built again at every seek: said once).
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

    /// Another equalizer from the next frame on. A curve of the same shape (a band moved, a
    /// preset of the ten bands for another) reaches the running filters as commands: they keep
    /// their state, so the sound has no gap and no step but the filters' own response. Another
    /// shape takes a new graph (built for the next frame).
    func setEqualizer(_ curve: EqualizerCurve) {
        guard curve != equalizer else { return }
        equalizer = curve
        guard let graph, let input = graphInput else { return }
        let next = running(curve, sampleRate: Double(input.rate))
        guard let commands = runningEqualizer.commands(toBecome: next) else {
            self.graph = nil
            return
        }
        do {
            for c in commands { try graph.send(c.command, c.argument, to: c.target) }
            runningEqualizer = next
        } catch {
            AppLog.write("audio", "equalizer: \(error.message); the graph is built again")
            self.graph = nil
        }
    }

    /// Drops the graph (after a seek; it is rebuilt for the next frame).
    func reset() { graph = nil }

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

    /// Pushes `decoded` into the graph (built for it if there is none for the current speed) and
    /// calls `body` with each frame that comes out.
    func run(_ decoded: Frame, _ body: (Frame) throws -> Void) throws {
        let f = decoded.pointer.pointee
        let input = Input(rate: f.sample_rate, format: f.format, channels: f.ch_layout.nb_channels, mask: f.ch_layout.u.mask)
        if graph == nil || graphRate != rate || graphInput != input {
            runningEqualizer = running(equalizer, sampleRate: Double(f.sample_rate))
            let chain = [runningEqualizer.filterChain, filters, rate == 1 ? "" : AudioFilterChain.atempoChain(rate)].filter { !$0.isEmpty }
            graph = try FilterGraph(audio: chain.joined(separator: ","), like: decoded)
            graphRate = rate
            graphInput = input
        }
        guard let graph else { return }
        try graph.push(decoded)
        while try graph.pull(into: output) {
            defer { output.unref() }
            try body(output)
        }
    }
}
