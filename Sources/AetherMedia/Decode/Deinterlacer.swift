import AetherBase
import CFFmpeg

/// A video stream's deinterlacing filter graph: bwdif (yadif as fallback), built from the first
/// interlaced frame and rebuilt when a frame's shape changes (size, pixel format, field order).
/// Not built again once both filters failed, until ``reset()``. Used by the video thread only,
/// through its ``VideoDecoder``.
final class Deinterlacer {
    private let timeBase: AVRational
    private let timeline: Timeline
    private var graph: FilterGraph?
    /// The input shape the graph was built for; a frame of another shape rebuilds it.
    private var input: FilterGraph.FrameShape?
    private var failed = false
    /// A graph was built for this stream (it stays true after a seek drops the graph).
    private(set) var isDeinterlacing = false
    /// The graph's output, handed to `emit` and unreferenced after it.
    private let filtered: Frame
    /// What ``seconds`` is measured on.
    private let time: TimeSource
    /// Seconds spent pushing frames into the graph and pulling fields out since the caller last
    /// took them.
    var seconds = 0.0

    init(timeBase: AVRational, timeline: Timeline, time: TimeSource) throws(FFmpegError) {
        self.timeBase = timeBase
        self.timeline = timeline
        self.time = time
        filtered = try Frame()
    }

    /// A graph is running: every frame must be decoded (none skipped as unreferenced).
    var isRunning: Bool { graph != nil }

    /// Drops the graph, rebuilt for the next interlaced frame (after a seek); a graph that
    /// failed is tried again.
    func reset() {
        dropGraph()
        failed = false
    }

    /// Drops the graph (the decoder moves to another stream); a failed one stays failed.
    func dropGraph() {
        graph = nil
        input = nil
    }

    /// Passes `decoded` through the graph, calling `emit` with each field that comes out and its
    /// time in seconds (untimestamped output fields are dropped). False when there is no graph
    /// for it (a progressive stream, or both filters failed): the frame is the caller's to show.
    func deliver(_ decoded: Frame, emit: (Frame, Double) throws -> Void) throws -> Bool {
        let shape = FilterGraph.FrameShape(decoded)
        if let current = input, current != shape {
            // The stream changed shape: drain what the old graph holds, then build anew.
            if let old = graph {
                try? old.push(nil)
                while (try? old.pull(into: filtered)) == true {
                    defer { filtered.unref() }
                    if let pts = timeline.seconds(filtered.filterPTS, old.outputTimeBase) { try emit(filtered, pts) }
                }
            }
            AppLog.write("vd", "frame shape changed to \(shape.width)x\(shape.height) format \(shape.format); rebuilding the deinterlacer")
            reset()
        }
        if decoded.isInterlaced, graph == nil, !failed {
            graph = (try? FilterGraph(video: "bwdif=mode=send_frame:parity=auto:deint=interlaced", like: decoded, timeBase: timeBase))
                ?? (try? FilterGraph(video: "yadif=mode=send_frame:parity=auto:deint=interlaced", like: decoded, timeBase: timeBase))
            failed = graph == nil
            input = graph == nil ? nil : shape
            isDeinterlacing = graph != nil
            if let graph { AppLog.write("vd", "deinterlacing with \(graph.description)") }
        }
        guard let graph else { return false }
        let start = time.seconds
        try graph.push(decoded)
        seconds += time.seconds - start
        while try timed({ try graph.pull(into: filtered) }) {
            defer { filtered.unref() }
            if let pts = timeline.seconds(filtered.filterPTS, graph.outputTimeBase) { try emit(filtered, pts) }
        }
        return true
    }

    /// Hands the fields the graph still holds to `emit` (the end of the stream).
    func drain(emit: (Frame, Double) throws -> Void) throws {
        guard let graph else { return }
        try? graph.push(nil)
        while try graph.pull(into: filtered) {
            defer { filtered.unref() }
            if let pts = timeline.seconds(filtered.filterPTS, graph.outputTimeBase) { try emit(filtered, pts) }
        }
    }

    private func timed(_ body: () throws -> Bool) throws -> Bool {
        let start = time.seconds
        defer { seconds += time.seconds - start }
        return try body()
    }
}
