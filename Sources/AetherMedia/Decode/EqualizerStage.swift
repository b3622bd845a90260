import AetherBase
import CFFmpeg

/// The equalizer's own filter graph, for frames of one shape (rate, sample format, layout): the
/// curve's chain, then float planar out, one frame out for each frame in.
///
/// A change keeps the sound whole. A curve of the same shape and preamp (a band moved that does
/// not move the safe preamp) reaches the running filters as commands: they keep their state.
/// Another shape (flat to a preset, a preset to a profile) or another preamp takes a second graph, first fed the last
/// ``primingSeconds`` of what came in (``FrameHistory``: its filters stand where they would had
/// it run all along), then faded in over ``fadeSeconds`` while the first fades out. A stage made
/// while the sound plays fades in so from a flat graph. A change that comes during a fade waits
/// for its end. Used by one thread at a time (the audio thread; a gapless successor's, once
/// handed over).
package final class EqualizerStage: @unchecked Sendable {  // one thread at a time, handed over whole
    /// What a graph was built for: a frame of another shape needs another stage.
    struct Shape: Equatable {
        var rate: Int32, format: Int32, channels: Int32, mask: UInt64

        init(_ frame: Frame) {
            let f = frame.pointer.pointee
            (rate, format, channels, mask) = (f.sample_rate, f.format, f.ch_layout.nb_channels, f.ch_layout.u.mask)
        }
    }

    /// How long a new graph takes to fade in (the old one out), raised-cosine.
    static let fadeSeconds = 0.01

    let shape: Shape
    /// The curve the stage plays (the one it is fading to, during a fade).
    private(set) var running: EqualizerCurve
    /// A change that came during a fade, made at its end.
    private var pending: EqualizerCurve?
    private var graph: FilterGraph
    /// The graph is of another curve than `running` (changed before any frame ran).
    private var stale = false
    /// The graph fading out, and how many samples of its fade have been played.
    private var fading: (graph: FilterGraph, position: Int)?
    private let fadeLength: Int
    private let output: Frame, faded: Frame

    /// A stage for frames like `frame`, playing `curve`. With a `history` (the sound played
    /// before, of this shape), its graph is primed with it and fades in from a flat one.
    init(running curve: EqualizerCurve, like frame: Frame, history: [Frame] = []) throws(FFmpegError) {
        shape = Shape(frame)
        fadeLength = max(1, Int(Double(shape.rate) * Self.fadeSeconds))
        output = try Frame()
        faded = try Frame()
        // With no sound before it, the curve's graph at once; else a flat one it fades from.
        running = history.isEmpty ? curve : .flat
        graph = try FilterGraph(audio: Self.chain(running), like: frame)
        if !history.isEmpty { try change(to: curve, history: history) }
    }

    /// The graph's description: the curve's chain, then float planar (the fade mixes in it; the
    /// resampler takes any format).
    static func chain(_ curve: EqualizerCurve) -> String { curve.filterChain + ",aformat=sample_fmts=fltp" }

    /// Whether it is fading from one graph to another.
    var isFading: Bool { fading != nil }

    /// Plays `next` from the next frame on (see the type's summary); `history` is the sound
    /// played before (``FrameHistory``), which a new graph is primed with.
    func change(to next: EqualizerCurve, history: [Frame]) throws(FFmpegError) {
        guard next != running || pending != nil else { return }
        if fading != nil {
            pending = next
            return
        }
        // A filter takes its new parameters as a command and keeps its state; the preamp would
        // jump from one sample to the next (libavfilter's volume does not ramp): a change of the
        // preamp fades as another shape does.
        if let commands = running.commands(toBecome: next), !commands.contains(where: { $0.target == EqualizerCurve.preampTarget }) {
            do {
                for c in commands { try graph.send(c.command, c.argument, to: c.target) }
                running = next
                return
            } catch {
                AppLog.write("audio", "equalizer: \(error.message); faded to a new graph instead")
            }
        }
        guard let like = history.last, Shape(like) == shape else {
            // Nothing has run yet: the first frame builds the graph.
            running = next
            stale = true
            return
        }
        let fresh = try FilterGraph(audio: Self.chain(next), like: like)
        for frame in history {
            try fresh.push(frame)
            while try fresh.pull(into: faded) { faded.unref() }
        }
        fading = (graph, 0)
        graph = fresh
        running = next
    }

    /// Filters `frame` (of this stage's shape) and calls `body` with what comes out.
    func run(_ frame: Frame, history: [Frame], _ body: (Frame) throws -> Void) throws {
        if stale {
            graph = try FilterGraph(audio: Self.chain(running), like: frame)
            stale = false
        }
        try graph.push(frame)
        try fading?.graph.push(frame)
        while try graph.pull(into: output) {
            defer { output.unref() }
            try fade(into: output, history: history)
            try body(output)
        }
    }

    /// Mixes the fading graph's output for the same input into `frame` (raised-cosine, the new
    /// graph rising); ends the fade at its length, and makes a change that waited.
    private func fade(into frame: Frame, history: [Frame]) throws {
        guard let (old, position) = fading else { return }
        guard try old.pull(into: faded) else {
            AppLog.write("audio", "equalizer: the fading graph gave nothing; the new one plays")
            return try endFade(history: history)
        }
        defer { faded.unref() }
        let count = frame.sampleCount, channels = Int(frame.pointer.pointee.ch_layout.nb_channels)
        guard faded.sampleCount == count, av_frame_make_writable(frame.pointer) >= 0 else {
            AppLog.write("audio", "equalizer: the fading graph's frame is of another length; the new one plays")
            return try endFade(history: history)
        }
        for channel in 0..<channels {
            guard let new = frame.pointer.pointee.extended_data[channel], let old = faded.pointer.pointee.extended_data[channel] else { continue }
            let mixed = UnsafeMutableRawPointer(new).assumingMemoryBound(to: Float.self)
            let away = UnsafeRawPointer(old).assumingMemoryBound(to: Float.self)
            for n in 0..<count {
                let t = min(1, Double(position + n) / Double(fadeLength))
                let rise = Float(0.5 - 0.5 * cos(Double.pi * t))
                mixed[n] = away[n] + (mixed[n] - away[n]) * rise
            }
        }
        fading?.position = position + count
        if position + count >= fadeLength { try endFade(history: history) }
    }

    private func endFade(history: [Frame]) throws(FFmpegError) {
        fading = nil
        if let next = pending {
            pending = nil
            try change(to: next, history: history)
        }
    }
}

/// The last ``seconds`` of sound a decoder gave, by reference (the buffers are shared and
/// counted, not copied): what an equalizer's new graph is primed with (``EqualizerStage``).
/// Emptied at a seek, and by a frame of another shape.
struct FrameHistory {
    /// Enough for the filters to settle: the slowest, a 31.5 Hz band of Q √2, decays to a
    /// thousandth in about 100 ms.
    static let seconds = 0.15

    private(set) var frames: [Frame] = []

    mutating func remember(_ frame: Frame) throws(FFmpegError) {
        if let last = frames.last, EqualizerStage.Shape(last) != EqualizerStage.Shape(frame) { frames.removeAll() }
        frames.append(try frame.reference())
        let needed = Int(Double(frame.pointer.pointee.sample_rate) * Self.seconds)
        var held = frames.reduce(0) { $0 + $1.sampleCount }
        while let first = frames.first, held - first.sampleCount >= needed {
            held -= first.sampleCount
            frames.removeFirst()
        }
    }

    mutating func clear() { frames.removeAll() }
}
