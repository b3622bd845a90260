import AetherMedia
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// The stage-by-stage inspection tools (`probe --packets`, `probe --frames`): the value types they
// share. The inspectors read files that may be damaged or hostile, so every number copied out of
// FFmpeg is checked here before it becomes a Swift integer or a time: AV_NOPTS_VALUE becomes nil,
// a time base with a zero or negative term converts nothing, timestamps near Int64's limits are
// only ever converted to Double (never added or subtracted as integers), and a Double only becomes
// an integer through `InspectionMath.int64`, which clamps.

/// A stream's time base (`AVStream.time_base`): one tick is `num/den` seconds.
public struct StreamTimeBase: Codable, Sendable, Equatable, CustomStringConvertible {
    public let num: Int32
    public let den: Int32

    public init(num: Int32, den: Int32) {
        self.num = num
        self.den = den
    }

    init(_ rational: AVRational) { self.init(num: rational.num, den: rational.den) }

    /// Both terms positive: anything else (0/0 from a damaged header) converts no timestamp.
    public var isUsable: Bool { num > 0 && den > 0 }

    /// Seconds of `ticks`; nil for no timestamp or an unusable time base. Never traps: Int64 and
    /// Int32 values give a finite Double whatever they are.
    public func seconds(_ ticks: Int64?) -> Double? {
        guard let ticks, isUsable else { return nil }
        let s = Double(ticks) * Double(num) / Double(den)
        return s.isFinite ? s : nil
    }

    public var description: String { "\(num)/\(den)" }
}

/// A stream as the inspectors describe it once, at the start of their output.
public struct InspectedStream: Codable, Sendable, Equatable {
    /// The stream index (`AVStream.index`), as `--streams` counts.
    public let index: Int
    public let kind: StreamKind
    /// libavcodec's codec name (`h264`, `aac`), sanitised.
    public let codec: String
    public let timeBase: StreamTimeBase

    init(_ stream: UnsafeMutablePointer<AVStream>, index: Int) {
        self.index = index
        if let par = stream.pointee.codecpar {
            kind = StreamKind(par.pointee.codec_type)
            codec = MediaProbe.codecName(par)
        } else {
            kind = .unknown
            codec = "unknown"
        }
        timeBase = StreamTimeBase(stream.pointee.time_base)
    }
}

/// A position given to an inspection: seconds, or a percentage of the container's duration.
public enum InspectionTime: Sendable, Equatable {
    case seconds(Double)
    case percent(Double)
}

/// What bounds an inspection, so that a film does not print forever.
public struct InspectionLimits: Sendable, Equatable {
    /// The default `count`.
    public static let defaultCount = 1000

    public var streams: StreamSelection = .all
    /// Where reading starts, measured from the container's start time (`start_time`), so `0` is
    /// the first packet of the file even when its timestamps start hours in. Reading starts at the
    /// keyframe at or before this position (`avformat_seek_file`).
    public var start: InspectionTime? = nil
    /// Reading stops at the first selected packet whose decoding time (dts, else pts) is at or past
    /// `start + length`.
    public var length: InspectionTime? = nil
    /// Most rows (packets; frames and decode errors) to return; nil = no limit.
    public var count: Int? = InspectionLimits.defaultCount
    /// Seconds that opening, seeking, or any one read may block before it gives up (the
    /// libavformat interrupt callback).
    public var readTimeout: Double = 15

    public init(streams: StreamSelection = .all, start: InspectionTime? = nil, length: InspectionTime? = nil,
                count: Int? = InspectionLimits.defaultCount, readTimeout: Double = 15) {
        self.streams = streams
        self.start = start
        self.length = length
        self.count = count
        self.readTimeout = readTimeout
    }
}

/// Why an inspection could not start or go on: the one error of the inspection area (packet and
/// frame inspectors, the frame stepper, the structure document and its node paths).
public enum InspectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `avformat_open_input` / `avformat_find_stream_info` failed (unreadable, not media, timed out).
    case cannotOpen(FFmpegError)
    /// `--streams` named a stream the file does not have.
    case noSuchStream(String)
    /// A percentage position was given but the container's duration is unknown.
    case unknownDuration
    /// `avformat_seek_file` to the start position failed.
    case cannotSeek(seconds: Double, FFmpegError)
    /// Any other FFmpeg failure (allocation).
    case ffmpeg(FFmpegError)
    /// Anything else, in one line (a file that cannot be opened for its structure, a node path
    /// that names nothing, a step past the stream's end); made by ``init(_:)``, which cleans it.
    case failed(String)

    /// A failure in words, cleaned for a terminal.
    public init(_ message: String) { self = .failed(TextSanitizer.clean(message)) }

    /// The words to show (``description``).
    public var message: String { description }

    public var description: String {
        switch self {
        case .cannotOpen(let e): return e.message
        case .noSuchStream(let message): return message
        case .unknownDuration: return "a position in % needs the duration, which the file does not give"
        case .cannotSeek(let s, let e): return "cannot seek to \(InspectionMath.secondsText(s)) s: \(e.message)"
        case .ffmpeg(let e): return e.description
        case .failed(let message): return message
        }
    }
}

/// How and where an inspection ended, with its totals.
public struct InspectionEnd: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable {
        /// The source ended.
        case endOfFile = "end-of-file"
        /// `count` rows were returned and there was more.
        case countLimit = "count-limit"
        /// A packet at or past `start + length` was reached.
        case lengthLimit = "length-limit"
        /// `av_read_frame` failed before the end (damaged container, I/O error).
        case readError = "read-error"
        /// A read blocked longer than `readTimeout`.
        case timedOut = "timed-out"
    }

    public var reason: Reason
    /// FFmpeg's words for a read error or time-out.
    public var error: String?
    /// Selected packets read.
    public var packets: Int
    /// Frames decoded (`--frames` only).
    public var frames: Int
    /// Frames the decoder flagged as damaged (`decode_error_flags` or `AV_FRAME_FLAG_CORRUPT`).
    public var damagedFrames: Int
    /// `avcodec_send_packet` / `avcodec_receive_frame` failures.
    public var decodeErrors: Int

    /// True when reading stopped before the end of the data for a reason other than a limit.
    public var isFailure: Bool { reason == .readError || reason == .timedOut }
}

/// Checked conversions for values that came from a file.
enum InspectionMath {
    /// `value` clamped into Int64's range (NaN → 0): the only way a media Double becomes an integer here.
    static func int64(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }

    /// A timestamp field: nil for AV_NOPTS_VALUE.
    static func timestamp(_ raw: Int64) -> Int64? { raw == aether_AV_NOPTS_VALUE() ? nil : raw }

    /// Seconds of the container's `start_time` (0 when unknown).
    static func origin(_ ctx: UnsafePointer<AVFormatContext>) -> Double {
        guard let start = timestamp(ctx.pointee.start_time) else { return 0 }
        return Double(start) / Double(AV_TIME_BASE)
    }

    /// The container's duration in seconds, nil when unknown or not positive.
    static func duration(_ ctx: UnsafePointer<AVFormatContext>) -> Double? {
        guard let d = timestamp(ctx.pointee.duration), d > 0 else { return nil }
        return Double(d) / Double(AV_TIME_BASE)
    }

    /// Seconds as text without an integer conversion (`%g`-like, up to millisecond precision).
    static func secondsText(_ s: Double) -> String {
        guard s.isFinite else { return String(s) }
        var text = String(cFormat: "%.3f", s)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
