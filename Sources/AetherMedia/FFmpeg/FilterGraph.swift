import AetherBase
import CFFmpeg

/// Owns an `AVFilterGraph` with one buffer source and one buffer sink (`filter` in between);
/// freed exactly once. Used for deinterlacing (bwdif/yadif), HDR→SDR tone-mapping, atempo and
/// the user's audio filters (`--af`).
/// libavfilter is loaded by the first graph (CFFmpeg's `aether_avfilter_*`, not linked).
public final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    public let description: String

    /// A video graph fed frames shaped like `frame`.
    /// The corresponding C function is `avfilter_graph_parse_ptr`.
    public convenience init(video filter: String, like frame: Frame, timeBase: AVRational) throws(FFmpegError) {
        let f = frame.pointer.pointee
        let sar = f.sample_aspect_ratio.num > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        var args = "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=\(timeBase.num)/\(max(1, timeBase.den)):pixel_aspect=\(sar.num)/\(sar.den)"
        if aether_buffersrc_takes_colour() != 0 { args += ":colorspace=\(f.colorspace.rawValue):range=\(f.color_range.rawValue)" }
        try self.init(sourceFilter: "buffer", sinkFilter: "buffersink", sourceArgs: args, filter: filter)
    }

    /// An audio graph fed frames shaped like `frame`.
    public convenience init(audio filter: String, like frame: Frame) throws(FFmpegError) {
        var layout = frame.pointer.pointee.ch_layout
        if layout.nb_channels == 0 { av_channel_layout_default(&layout, 2) }
        var layoutName = ChannelLayoutName.describe(&layout)
        if layout.order == AV_CHANNEL_ORDER_UNSPEC || layoutName.isEmpty { layoutName = "\(layout.nb_channels)c" }
        let f = frame.pointer.pointee
        let format = String(cString: av_get_sample_fmt_name(AVSampleFormat(f.format)))
        let args = "time_base=1/\(f.sample_rate):sample_rate=\(f.sample_rate):sample_fmt=\(format):channel_layout=\(layoutName)"
        try self.init(sourceFilter: "abuffer", sinkFilter: "abuffersink", sourceArgs: args, filter: filter)
    }

    /// Whether `filter` builds as an audio graph (fed 48 kHz stereo float, as a decoder's frames
    /// are); nil when it does, else libavfilter's reason. For `--af`, checked before playing.
    public static func checkAudio(_ filter: String) -> String? {
        if aether_avfilter_load() == nil {
            // Each filter's name (a chain's, or a graph's with `;` and `[labels]`): named first.
            for part in filter.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                var text = part.drop { $0 == " " }
                while text.first == "[" { text = text.drop { $0 != "]" }.dropFirst().drop { $0 == " " } }
                let name = String(text.prefix { $0 != "=" && $0 != "@" && $0 != "[" && $0 != " " })
                if !name.isEmpty, aether_avfilter_exists(name) == 0 {
                    return "no filter named '\(TextSanitizer.clean(name))' in libavfilter"
                }
            }
        }
        do {
            let frame = try Frame()
            frame.pointer.pointee.sample_rate = 48000
            frame.pointer.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            av_channel_layout_default(&frame.pointer.pointee.ch_layout, 2)
            _ = try FilterGraph(audio: filter, like: frame)
            return nil
        } catch {
            return error.message
        }
    }

    private init(sourceFilter: String, sinkFilter: String, sourceArgs: String, filter: String) throws(FFmpegError) {
        description = filter
        let firstGraph = !Self.loaded.withLock { was in defer { was = true }; return was }
        if let why = aether_avfilter_load() {
            throw FFmpegError(function: "avfilter_graph_alloc", message: String(cString: why), code: aether_AVERROR(ENOSYS))
        }
        guard let g = aether_avfilter_graph_alloc() else { throw .outOfMemory("avfilter_graph_alloc") }
        var src: UnsafeMutablePointer<AVFilterContext>? = nil
        var snk: UnsafeMutablePointer<AVFilterContext>? = nil
        var graphPtr: UnsafeMutablePointer<AVFilterGraph>? = g
        func fail(_ code: Int32, _ function: String) -> FFmpegError {
            aether_avfilter_graph_free(&graphPtr)
            return FFmpegError(code: code, function: function)
        }
        var r = aether_avfilter_graph_create_filter(&src, sourceFilter, "in", sourceArgs, g)
        if r < 0 { throw fail(r, "avfilter_graph_create_filter(\(sourceFilter))") }
        r = aether_avfilter_graph_create_filter(&snk, sinkFilter, "out", nil, g)
        if r < 0 { throw fail(r, "avfilter_graph_create_filter(\(sinkFilter))") }
        guard let src, let snk else { throw fail(aether_AVERROR(ENOMEM), "avfilter_graph_create_filter") }
        // `o` feeds the graph's input label "in" from the source; `i` takes its "out" into the sink.
        var o = aether_avfilter_inout_alloc()
        var i = aether_avfilter_inout_alloc()
        guard let oo = o, let ii = i else {
            aether_avfilter_inout_free(&o)
            aether_avfilter_inout_free(&i)
            throw fail(aether_AVERROR(ENOMEM), "avfilter_inout_alloc")
        }
        oo.pointee.name = av_strdup("in")
        oo.pointee.filter_ctx = src
        oo.pointee.pad_idx = 0
        ii.pointee.name = av_strdup("out")
        ii.pointee.filter_ctx = snk
        ii.pointee.pad_idx = 0
        r = aether_avfilter_graph_parse_ptr(g, filter, &i, &o)
        // parse_ptr consumes what it links and hands back the leftovers in i/o.
        aether_avfilter_inout_free(&i)
        aether_avfilter_inout_free(&o)
        if r < 0 { throw fail(r, "avfilter_graph_parse_ptr(\(filter))") }
        r = aether_avfilter_graph_config(g)
        if r < 0 { throw fail(r, "avfilter_graph_config(\(filter))") }
        graph = g
        source = src
        sink = snk
        if firstGraph { AppLog.write("filter", "libavfilter loaded for \(filter)") }
    }

    /// Whether a graph was ever asked for (libavfilter is then loaded, or cannot be).
    private static let loaded = Guarded(false)

    deinit { aether_avfilter_graph_free(&graph) }

    /// Pushes a frame (nil = end of stream). The corresponding C function is `av_buffersrc_add_frame_flags`.
    public func push(_ frame: Frame?) throws(FFmpegError) {
        try check(aether_av_buffersrc_add_frame_flags(source, frame?.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
                  "av_buffersrc_add_frame_flags")
    }

    /// Pulls the next filtered frame; false when the graph needs more input.
    /// The corresponding C function is `av_buffersink_get_frame`.
    public func pull(into frame: Frame) throws(FFmpegError) -> Bool {
        let r = aether_av_buffersink_get_frame(sink, frame.pointer)
        if r == aether_AVERROR_EAGAIN() || r == aether_AVERROR_EOF() { return false }
        try check(r, "av_buffersink_get_frame")
        return true
    }

    /// Sends `command` with `argument` to the filter named `target` (its `@name`), which takes
    /// the new parameter keeping its state. The corresponding C function is
    /// `avfilter_graph_send_command`.
    public func send(_ command: String, _ argument: String, to target: String) throws(FFmpegError) {
        try check(aether_avfilter_graph_send_command(graph, target, command, argument), "avfilter_graph_send_command")
    }

    /// The sink's time base (filters like atempo and bwdif change it).
    public var outputTimeBase: AVRational { aether_av_buffersink_get_time_base(sink) }
}

extension FilterGraph {
    /// What a filter graph's buffer source is configured for: a frame that differs (a broadcast
    /// switching 720×576i to 176×144, 4:2:0 to 4:2:2, or its field order) needs a new graph.
    struct FrameShape: Equatable {
        var width: Int32, height: Int32, format: Int32, topFieldFirst: Bool
        init(_ f: Frame) {
            let p = f.pointer.pointee
            width = p.width
            height = p.height
            format = p.format
            topFieldFirst = aether_frame_top_field_first(f.pointer) != 0
        }
    }
}
