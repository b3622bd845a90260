import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The app's log (`--log-file`): every layer's own lines (``write(_:_:)``) and libav*'s
/// diagnostics, routed here by CFFmpeg's callback (AetherMedia's `AppLog.configure`). Never the terminal (it belongs to the picture);
/// a log file when one is given, each line prefixed with its component (`[tui …]`, `[matroska]`,
/// `[h264]`) like mpv's `[ao/alsa]`.
public enum AppLog {
    /// The log file's `FILE*`, only touched under `sink`'s lock.
    private struct LogFile { let handle: UnsafeMutablePointer<FILE> }
    private static let sink = Guarded<LogFile?>(nil)

    /// Opens `path` (appending) as the log; nil closes it and drops every line. AetherMedia's
    /// `configure(path:level:)` does this and routes FFmpeg's lines here.
    public static func open(path: String?) throws(POSIXError) {
        var file: LogFile? = nil
        if let path {
            guard let f = fopen(path, "a") else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            setvbuf(f, nil, _IOLBF, 0)
            file = LogFile(handle: f)
        }
        let previous = sink.withLock { old -> LogFile? in
            let was = old
            old = file
            return was
        }
        if let previous { fclose(previous.handle) }
    }

    /// Whether a log file is open.
    public static var isOpen: Bool { sink.withLock { $0 != nil } }

    /// Writes one line of our own to the log file, if there is one, with the seconds since
    /// the process started (`[present 0.212] first frame …`): start-up and seek timelines read
    /// straight off the log.
    public static func write(_ component: String, _ message: String) {
        sink.withLock { file in
            guard let file else { return }
            let t = String(cFormat: "%.3f", MonotonicClock.seconds() - processStart)
            fputs("[\(component) \(t)] \(message)\n", file.handle)
        }
    }

    /// When the process started, on ``MonotonicClock`` (from /proc/self/stat; else now).
    static let processStart: Double = {
        let now = MonotonicClock.seconds()
        guard let bytes = FileBytes.prefix(path: "/proc/self/stat", limit: 4096),
              case let stat = String(decoding: bytes, as: UTF8.self), let close = stat.lastIndex(of: ")") else { return now }
        // Field 22 (starttime, clock ticks since boot); fields after the command start at 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return now }
        var uptime = timespec()
        clock_gettime(CLOCK_BOOTTIME, &uptime)
        let boot = Double(uptime.tv_sec) + Double(uptime.tv_nsec) / 1e9
        let age = boot - ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
        return now - max(0, age)
    }()

    /// A line as it comes (libav*'s, its component and newline in it already).
    package static func emit(_ line: UnsafePointer<CChar>) {
        sink.withLock { file in
            guard let file else { return }
            fputs(line, file.handle)
        }
    }
}

