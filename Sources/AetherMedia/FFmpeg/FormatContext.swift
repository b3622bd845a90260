import AetherBase
import AetherDisc
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Owns an input `AVFormatContext` (demuxer); closes it exactly once.
public final class FormatContext {
    package let pointer: UnsafeMutablePointer<AVFormatContext>
    public let url: String
    public let interrupt: InterruptToken
    /// Where media time 0 is (the source's `start_time`).
    public let timeline: Timeline

    /// Opens `url` and reads stream information, through libavformat's plain protocols
    /// (AetherStreaming's `init(url:options:timeout:interrupt:network:)` reads a network URL
    /// through the resilient reader).
    /// The corresponding C functions are `avformat_open_input` and `avformat_find_stream_info`.
    /// - Parameters:
    ///   - options: demuxer/protocol options (e.g. `headers`, `user_agent`).
    ///   - timeout: seconds that opening and probing may block before giving up.
    ///   - interrupt: cancels the open and the reads, and carries the clock `timeout` is counted on.
    public convenience init(url: String, options: [String: String] = [:], timeout: Double = 15,
                            interrupt: InterruptToken) throws(FFmpegError) {
        try self.init(url: url, options: options, timeout: timeout, interrupt: interrupt, memory: nil, network: nil,
                      transport: nil)
    }

    /// Demuxes `bytes` from memory through a custom AVIOContext (fuzzing, tests): no file, no
    /// protocol is ever opened. `timeout` (on `clock`) bounds the probe of hostile bytes.
    public convenience init(bytes: [UInt8], timeout: Double = 5, clock: TimeSource) throws(FFmpegError) {
        let memory = try MemoryInput(bytes)
        try self.init(url: "memory:", options: ["protocol_whitelist": "none"], timeout: timeout,
                      interrupt: InterruptToken(clock: clock), memory: memory, network: nil, transport: nil)
    }

    /// The in-memory byte source, kept alive (and freed) after the demuxer that reads it.
    private let memory: MemoryInput?
    /// The network layer of an HTTP(S) source: kept alive (and freed) after the demuxer.
    package let network: (any NetworkTransport)?
    /// The main input of an HTTP(S) source (a ``ResilientInput``, or the ``MemoryInput`` of a
    /// served playlist); freed after the demuxer (custom I/O).
    private let mainInput: AnyObject?

    /// The DVD title read (nil: not a disc), freed after the demuxer.
    public let disc: DiscInput?
    /// The option that picks a disc's title (1-based; `--edition`).
    public static let discTitleOption = "disc_title"

    /// What the network is doing (nil for a local source).
    public var networkStatus: NetworkStatus? { network?.status }

    /// Opens `url` (or `memory`) and reads stream information.
    /// - Parameters:
    ///   - network: the network settings of a network URL (nil: libavformat's plain protocols).
    ///   - transport: with settings, makes the source's network layer (a network URL, or a
    ///     local playlist whose segments may be remote), adding the demuxer options that layer
    ///     needs; nil from it (or no `transport`) reads through libavformat's own protocols
    ///     (a network URL with the settings' read deadline).
    package init(url: String, options: [String: String], timeout: Double,
                 interrupt: InterruptToken, memory: MemoryInput?, network settings: NetworkSettings?,
                 transport: ((inout [String: String]) -> (any NetworkTransport)?)?) throws(FFmpegError) {
        self.url = url
        self.interrupt = interrupt
        self.memory = memory
        var options = options
        // Every open has a whitelist, the sources' own unless the caller narrowed it: libavformat's
        // default would let it open anything, its http included.
        if options["protocol_whitelist"] == nil { options["protocol_whitelist"] = SourceOptions.protocolWhitelist }
        var session: (any NetworkTransport)? = nil
        if let settings {
            if let made = transport?(&options) {
                session = made
            } else if NetworkSettings.isNetwork(url) {
                options["rw_timeout"] = settings.readTimeoutOption
            }
        }
        network = session
        guard var ctx = avformat_alloc_context() else { throw .outOfMemory("avformat_alloc_context") }
        if let memory {
            ctx.pointee.pb = memory.context
            ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        ctx.pointee.interrupt_callback = interrupt.callback
        interrupt.arm(seconds: timeout)
        if let session {
            session.install(on: ctx)
            do {
                let main = try session.openMain(url: url)
                options.merge(main.demuxerOptions) { caller, _ in caller }
                mainInput = main.owner
                ctx.pointee.pb = main.context
                ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            } catch {
                interrupt.arm(seconds: nil)
                avformat_free_context(ctx)
                throw session.networkFailure.map { FFmpegError(network: $0, code: error.code) } ?? error
            }
        } else {
            mainInput = nil
        }
        // A DVD (an image or a folder): its title as one stream (``DiscInput``); `disc_title`
        // picks one (the main title without it).
        let title = options.removeValue(forKey: Self.discTitleOption).flatMap { Int($0) }
        var disc: DiscInput?
        if memory == nil, session == nil, let path = NetworkSettings.localPath(url) {
            do throws(DiscError) {
                disc = try DiscInput.open(SourceOptions.resolve(path), title: title)
                if let disc {
                    ctx.pointee.pb = disc.context
                    ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                }
            } catch {
                interrupt.arm(seconds: nil)
                avformat_free_context(ctx)
                throw FFmpegError(function: "disc", message: error.message, code: aether_AVERROR(EINVAL))
            }
        }
        var dict: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        defer { av_dict_free(&dict) }
        var maybe: UnsafeMutablePointer<AVFormatContext>? = ctx
        // On failure avformat_open_input frees the context and sets it to NULL.
        let forced = memory == nil && session == nil ? Self.stillImageDemuxer(url) : nil
        let opened = avformat_open_input(&maybe, memory == nil && disc == nil ? SourceOptions.resolve(url) : nil, forced, &dict)
        guard opened >= 0, let ok = maybe else {
            interrupt.arm(seconds: nil)
            // A reader's refusal (a playlist over its budget), a transfer that gave up or a disc
            // whose title's bytes are not all there is the cause, not the interrupt or the vaguer
            // error it left behind.
            if let why = session?.networkFailure { throw FFmpegError(network: why, code: opened) }
            if let why = disc?.failure { throw FFmpegError(function: "disc", message: why, code: opened) }
            throw FFmpegError(code: opened, function: "avformat_open_input")
        }
        ctx = ok
        let info = avformat_find_stream_info(ctx, nil)
        interrupt.arm(seconds: nil)
        if info < 0 {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&doomed)
            if let why = session?.networkFailure { throw FFmpegError(network: why, code: info) }
            if let why = disc?.failure { throw FFmpegError(function: "disc", message: why, code: info) }
            throw FFmpegError(code: info, function: "avformat_find_stream_info")
        }
        disc?.apply(to: ctx)
        self.disc = disc
        pointer = ctx
        timeline = Timeline(ctx)
        applyEXIFOrientation(url: url)
    }

    /// A local JPEG, BMP, TIFF or WebP file opens with its `*_pipe` demuxer (chosen by the file's
    /// first bytes), as PNG files already do: libavformat's extension rule would give it to the
    /// `image2` file-sequence demuxer, which never reads its one picture again after a seek (the
    /// player asks for the first frame again once its screen is up). nil: libavformat chooses.
    static func stillImageDemuxer(_ url: String) -> UnsafePointer<AVInputFormat>? {
        guard let path = NetworkSettings.localPath(url), !path.contains("%"),
              let head = FileBytes.prefix(path: path, limit: 16), head.count >= 12 else { return nil }
        let name: String
        if head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { name = "jpeg_pipe" }
        else if head[0] == 0x42, head[1] == 0x4D { name = "bmp_pipe" }
        else if Array(head[0..<4]) == [0x49, 0x49, 0x2A, 0] || Array(head[0..<4]) == [0x4D, 0x4D, 0, 0x2A] { name = "tiff_pipe" }
        else if Array(head[0..<4]) == Array("RIFF".utf8), Array(head[8..<12]) == Array("WEBP".utf8) { name = "webp_pipe" }
        else { return nil }
        return av_find_input_format(name)
    }

    /// A JPEG photo's EXIF orientation becomes its stream's display matrix, where the stream has
    /// none, so everything that turns a picture upright (``StillGeometry``: playback, the probe,
    /// stills) turns it too, whatever libavcodec's version does with EXIF. Mirrored orientations
    /// are left as they are, with one log line. Local image files only.
    private func applyEXIFOrientation(url: String) {
        let name = pointer.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        guard name == "image2" || name.hasSuffix("_pipe"), pointer.pointee.nb_streams == 1,
              let stream = pointer.pointee.streams[0], StillGeometry.rotation(of: stream) == 0,
              let path = NetworkSettings.localPath(url), let orientation = EXIFOrientation.read(path: path), orientation != 1
        else { return }
        guard let degrees = EXIFOrientation.rotation(orientation) else {
            AppLog.write("probe", "EXIF orientation \(orientation) mirrors the picture: shown as stored")
            return
        }
        if aether_stream_set_rotation(stream, degrees) != 0 { AppLog.write("probe", "EXIF orientation \(orientation) not applied") }
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&doomed)
    }

    /// False when the bytes arrive once only (a pipe, a live stream): repositioning the demuxer
    /// would read ahead and throw away what it passes.
    public var isByteSeekable: Bool {
        guard let pb = pointer.pointee.pb else { return true }  // demuxers that open their own input
        return pb.pointee.seekable != 0
    }

    /// True when the byte stream has reached its end (`avio_feof`).
    public var atEndOfInput: Bool {
        guard let pb = pointer.pointee.pb else { return false }
        return avio_feof(pb) != 0
    }

    /// Why a failed read failed: the network's own reason when a transfer gave up (retries
    /// used up, a 4xx), the disc's when its title's bytes ended early (``DiscInput/failure``),
    /// else FFmpeg's words for `error`.
    package func readFailure(_ error: FFmpegError) -> String {
        if let why = network?.refusal { return why }
        if case .failed(let why) = networkStatus?.phase { return why.line }
        return disc?.failure ?? error.message
    }

    /// True when the byte stream reported an I/O error (not merely damaged data).
    public var ioFailed: Bool {
        guard let pb = pointer.pointee.pb else { return false }
        return pb.pointee.error < 0 && pb.pointee.error != aether_AVERROR_EOF()
    }

    public var streamCount: Int { Int(pointer.pointee.nb_streams) }

    package func stream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
        guard index >= 0, index < streamCount else { return nil }
        return pointer.pointee.streams[index]
    }

    /// Reads the next packet into `packet`. Returns false at end of file.
    /// The corresponding C function is `av_read_frame`.
    public func read(into packet: Packet) throws(FFmpegError) -> Bool {
        let result = av_read_frame(pointer, packet.pointer)
        if result == aether_AVERROR_EOF() { return false }
        try check(result, "av_read_frame")
        if firstRead == nil, let dts = packet.dts, let stream = stream(packet.streamIndex) {
            firstRead = av_rescale_q(dts, stream.pointee.time_base, AVRational(num: 1, den: AV_TIME_BASE))
        }
        return true
    }

    /// The first packet's decoding time (`AV_TIME_BASE`), as HLS's demuxer keeps it: it refuses
    /// any seek before it (``seek(toSeconds:timeout:stream:direction:)`` then seeks to it).
    private var firstRead: Int64?

    /// The latest `start_time` of the streams, in AV_TIME_BASE units (nil: none known).
    private var latestStreamStart: Int64? {
        (0..<streamCount).compactMap { i -> Int64? in
            guard let s = stream(i), s.pointee.start_time != aether_AV_NOPTS_VALUE() else { return nil }
            return av_rescale_q(s.pointee.start_time, s.pointee.time_base, AVRational(num: 1, den: AV_TIME_BASE))
        }.max()
    }

    /// Where a seek may land relative to its target.
    public enum SeekDirection: Sendable {
        /// On the keyframe at or before the target (the next packets cover it).
        case atOrBefore
        /// On the first keyframe at or after the target; an error where there is none.
        case atOrAfter
    }

    /// Seeks so that the next packets start at a keyframe at or before media time `seconds`
    /// (any stream), or with `.atOrAfter` at or after it. The corresponding C function is
    /// `avformat_seek_file`. `stream`: the stream whose time the seek is in (nil: libavformat's
    /// default, the video).
    public func seek(toSeconds seconds: Double, timeout: Double = 8, stream: Int? = nil,
                     direction: SeekDirection = .atOrBefore) throws(FFmpegError) {
        let ts = timeline.sourceTimestamp(seconds.isFinite ? max(0, seconds) : 0)
        interrupt.arm(seconds: timeout)
        defer { interrupt.arm(seconds: nil) }
        // The start of an MPEG-TS/PS: the first video keyframe usually comes after `start_time`
        // (the audio's), and a timestamp search then finds none at or before it and lands a
        // GOP later. Back to the first byte instead; these demuxers resync on their own.
        if seconds <= 0.0005, direction == .atOrBefore, let name = pointer.pointee.iformat?.pointee.name,
           ["mpegts", "mpeg"].contains(String(cString: name)),
           av_seek_frame(pointer, -1, 0, AVSEEK_FLAG_BYTE) >= 0 {
            return
        }
        // The keyframe may be anywhere before the target, or anywhere after it.
        func seekFile(_ index: Int32, _ t: Int64) -> Int32 {
            direction == .atOrBefore ? avformat_seek_file(pointer, index, Int64.min, t, t, 0)
                                     : avformat_seek_file(pointer, index, t, t, Int64.max, 0)
        }
        func seek(_ t: Int64) -> Int32 {
            guard let stream, let s = self.stream(stream) else { return seekFile(-1, t) }
            return seekFile(Int32(stream), av_rescale_q(t, AVRational(num: 1, den: AV_TIME_BASE), s.pointee.time_base))
        }
        var result = seek(ts)
        // HLS refuses a time before the first packet it returned (its `first_timestamp`), which
        // may be the video's, after the audio's `start_time`: a seek back to the start of an HLS
        // stream failed with "Operation not permitted". The start is its first packet.
        if result < 0, direction == .atOrBefore, let first = firstRead, first > ts { result = seek(first) }
        // Nothing read through here yet (a reader of its own, the previews, seeking after the
        // probe read the first packets): the first packet is not known, but it is at or before
        // the latest start of a stream.
        if result < 0, direction == .atOrBefore, firstRead == nil, let latest = latestStreamStart, latest > ts { result = seek(latest) }
        try check(result, "avformat_seek_file")
    }
}

/// Owns an AVIOContext reading from a byte array (and the buffer FFmpeg reads through); freed
/// exactly once, after the demuxer that uses it.
package final class MemoryInput {
    package let context: UnsafeMutablePointer<AVIOContext>
    private let data: UnsafeMutableRawBufferPointer
    private var position = 0

    package init(_ bytes: [UInt8]) throws(FFmpegError) {
        data = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        data.copyBytes(from: bytes)
        let size = 4096
        guard let buffer = av_malloc(size) else {
            data.deallocate()
            throw .outOfMemory("av_malloc")
        }
        var made: UnsafeMutablePointer<AVIOContext>?
        let count = bytes.count
        made = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, nil,
            { opaque, out, wanted in
                let me = Unmanaged<MemoryInput>.fromOpaque(opaque!).takeUnretainedValue()
                return me.read(into: out, wanted: Int(wanted))
            }, nil,
            { opaque, offset, whence in
                let me = Unmanaged<MemoryInput>.fromOpaque(opaque!).takeUnretainedValue()
                return me.seek(offset, whence)
            })
        guard let made else {
            av_free(buffer)
            data.deallocate()
            throw .outOfMemory("avio_alloc_context")
        }
        context = made
        self.count = count
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    private let count: Int

    deinit {
        var ctx: UnsafeMutablePointer<AVIOContext>? = context
        av_freep(&ctx!.pointee.buffer)
        avio_context_free(&ctx)
        data.deallocate()
    }

    private func read(into out: UnsafeMutablePointer<UInt8>?, wanted: Int) -> Int32 {
        guard let out, wanted > 0 else { return 0 }
        let n = min(wanted, count - position)
        guard n > 0 else { return aether_AVERROR_EOF() }
        out.update(from: data.baseAddress!.advanced(by: position).assumingMemoryBound(to: UInt8.self), count: n)
        position += n
        return Int32(n)
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return Int64(count) }
        let base: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = Int64(position)
        case SEEK_END: base = Int64(count)
        default: return -1
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0, target <= Int64(count) else { return -1 }
        position = Int(target)
        return target
    }
}
