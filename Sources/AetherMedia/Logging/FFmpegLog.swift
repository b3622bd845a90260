import AetherBase
import CFFmpeg
import FoundationEssentials

extension AppLog {
    /// Sends our lines and FFmpeg's at `level` (an `AV_LOG_*` value) or more severe to `path`;
    /// with no path, FFmpeg is silenced. Call once at start-up. Before this is called (and in
    /// any program that never calls it) every line is dropped: CFFmpeg installs its callback
    /// when the program loads, so FFmpeg's own stderr logger never runs.
    public static func configure(path: String?, level: Int32 = AV_LOG_INFO) throws(POSIXError) {
        try open(path: path)
        av_log_set_level(path == nil ? AV_LOG_QUIET : level)
        aether_set_log_sink(path == nil ? nil : ffmpegLogSink)
    }
}

private let ffmpegLogSink: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { _, line in
    if let line { AppLog.emit(line) }
}
