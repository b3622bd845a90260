import CFFmpeg
import Foundation
import Synchronization

/// Cancel flag and read deadline polled by libavformat's interrupt callback, so that a stalled
/// network read or a cancelled open never hangs the caller.
public final class InterruptToken: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Monotonic nanoseconds after which blocking I/O gives up; 0 = no deadline.
    private let deadline = Atomic<UInt64>(0)

    public init() {}

    public func cancel() { cancelled.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Arms a deadline `seconds` from now (nil disarms it).
    public func arm(seconds: Double?) {
        guard let seconds else { deadline.store(0, ordering: .relaxed); return }
        deadline.store(MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9), ordering: .relaxed)
    }

    var shouldInterrupt: Bool {
        if isCancelled { return true }
        let d = deadline.load(ordering: .relaxed)
        return d != 0 && MonotonicClock.nanoseconds() > d
    }
}

private let interruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque else { return 0 }
    return Unmanaged<InterruptToken>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
}

/// Owns an input `AVFormatContext` (demuxer); closes it exactly once.
public final class FormatContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    public let url: String
    public let interrupt: InterruptToken
    /// Where media time 0 is (the source's `start_time`).
    public let timeline: Timeline

    /// Opens `url` and reads stream information.
    /// The corresponding C functions are `avformat_open_input` and `avformat_find_stream_info`.
    /// - Parameters:
    ///   - options: demuxer/protocol options (e.g. `headers`, `user_agent`).
    ///   - timeout: seconds that opening and probing may block before giving up.
    public init(url: String, options: [String: String] = [:], timeout: Double = 15,
                interrupt: InterruptToken = InterruptToken()) throws(FFmpegError) {
        self.url = url
        self.interrupt = interrupt
        guard var ctx = avformat_alloc_context() else { throw .outOfMemory("avformat_alloc_context") }
        ctx.pointee.interrupt_callback = AVIOInterruptCB(
            callback: interruptCallback, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        var dict: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        defer { av_dict_free(&dict) }
        interrupt.arm(seconds: timeout)
        var maybe: UnsafeMutablePointer<AVFormatContext>? = ctx
        // On failure avformat_open_input frees the context and sets it to NULL.
        let opened = avformat_open_input(&maybe, url, nil, &dict)
        guard opened >= 0, let ok = maybe else {
            interrupt.arm(seconds: nil)
            throw FFmpegError(code: opened, function: "avformat_open_input")
        }
        ctx = ok
        let info = avformat_find_stream_info(ctx, nil)
        interrupt.arm(seconds: nil)
        if info < 0 {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&doomed)
            throw FFmpegError(code: info, function: "avformat_find_stream_info")
        }
        pointer = ctx
        timeline = Timeline(ctx)
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&doomed)
    }

    /// True when the byte stream has reached its end (`avio_feof`).
    public var atEndOfInput: Bool {
        guard let pb = pointer.pointee.pb else { return false }
        return avio_feof(pb) != 0
    }

    /// True when the byte stream reported an I/O error (not merely damaged data).
    public var ioFailed: Bool {
        guard let pb = pointer.pointee.pb else { return false }
        return pb.pointee.error < 0 && pb.pointee.error != aether_AVERROR_EOF()
    }

    public var streamCount: Int { Int(pointer.pointee.nb_streams) }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
        guard index >= 0, index < streamCount else { return nil }
        return pointer.pointee.streams[index]
    }

    /// Reads the next packet into `packet`. Returns false at end of file.
    /// The corresponding C function is `av_read_frame`.
    public func read(into packet: Packet) throws(FFmpegError) -> Bool {
        let result = av_read_frame(pointer, packet.pointer)
        if result == aether_AVERROR_EOF() { return false }
        try check(result, "av_read_frame")
        return true
    }

    /// Seeks so that the next packets start at a keyframe at or before media time `seconds`
    /// (any stream). The corresponding C function is `avformat_seek_file`.
    public func seek(toSeconds seconds: Double, timeout: Double = 8) throws(FFmpegError) {
        let ts = timeline.sourceTimestamp(seconds.isFinite ? max(0, seconds) : 0)
        interrupt.arm(seconds: timeout)
        defer { interrupt.arm(seconds: nil) }
        try check(avformat_seek_file(pointer, -1, Int64.min, ts, ts, 0), "avformat_seek_file")
    }
}
