import AetherTransport
import AetherMedia
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP(S) resource read through our own exchange (``HTTPConnection`` over the session's
/// libcurl transport: the answer's header within its budgets, redirects, the body's coding), behind an AVIOContext of its own that
/// survives the network: a read that fails with a transient error (connection reset,
/// read deadline passed, 5xx, a body cut short of its length) closes the connection and opens a
/// new one at the byte where it stopped, after an exponential backoff with jitter, up to
/// ``NetworkSettings/retries`` times in a row. Permanent errors (4xx) and interrupts end the read
/// at once. Owns the connection and the AVIOContext the demuxer reads, and frees each exactly once.
///
/// Used from one thread at a time (the demuxer that reads it).
package final class ResilientInput {
    let url: String
    /// The AVIOContext handed to the demuxer.
    package let context: UnsafeMutablePointer<AVIOContext>
    private let session: NetworkSession
    private let options: [String: String]
    private var inner: HTTPConnection?
    /// Our words for the last exchange that failed (an exact HTTP status, a budget, a redirect
    /// refused), for the next attempt's line. (The cookies the answers set are the session's
    /// transport's: ``CookieStore``.)
    private var failed: NetworkFailure?
    /// The byte offset the caller asked for (`offset` option: HLS byte ranges).
    private let base: Int64
    /// Bytes delivered to the demuxer so far, which is the outer context's position.
    private var position: Int64 = 0
    /// The resource's length from `base` (-1 while unknown, e.g. chunked or live).
    private var size: Int64 = -1
    private var seekable = false
    /// Whether it is a playlist or manifest, and so bounded, and whether it went past that.
    private var budget = DocumentBudget()
    /// The last read that timed out (`stalled: no data for 10 s`) until bytes flow again.
    private var stalled: String?
    /// The server serves no ranges (it answered a range request with the whole resource, 200):
    /// the resource is asked for from its start, without `Range`, and the bytes before the
    /// offset are dropped here.
    private var fromStart = false
    /// A resumed request the server answered 416: the resource ends where the read stopped.
    private var ended = false
    /// The main input is an internet radio station (its answer had `icy-*` headers): the title
    /// blocks the connection strips from the body are read after each read (``StationMetadata``),
    /// and the body has no end: a close is a drop, reconnected from the station's live point
    /// until ``NetworkSettings/readTimeout`` passes without a byte. Nil: not a station.
    private var station: StationConnection?

    /// Connects (retrying transient failures) and builds the outer context.
    package init(url: String, options: [String: String], session: NetworkSession) throws(FFmpegError) {
        self.url = url
        self.session = session
        var options = options
        base = options.removeValue(forKey: "offset").flatMap { Int64($0) } ?? 0
        // A byte range's end (HLS `EXT-X-BYTERANGE`, DASH ranges): the resource ends there.
        if let end = options["end_offset"].flatMap({ Int64($0) }), end > base { size = end - base }
        self.options = options
        // The outer context first (its reader is this object, told below): from here on the
        // object is whole, and deinit frees it on every way out.
        let bufferSize: Int32 = 64 << 10
        guard let buffer = av_malloc(Int(bufferSize)) else { throw .outOfMemory("av_malloc") }
        guard let made = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 0, nil,
            { opaque, out, wanted in
                Unmanaged<ResilientInput>.fromOpaque(opaque!).takeUnretainedValue().read(into: out, wanted: wanted)
            }, nil,
            { opaque, offset, whence in
                Unmanaged<ResilientInput>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence)
            })
        else {
            av_free(buffer)
            throw .outOfMemory("avio_alloc_context")
        }
        context = made
        made.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        let opened = connect(retrying: true)
        guard opened >= 0 else { throw FFmpegError(code: opened, function: "avio_open2") }
        // A resource of known length is seekable even from a server that serves no ranges: a
        // position is then reached by reading forward (``NetworkSettings/forwardReadLimit``).
        seekable = station == nil && (inner?.range.servesRanges == true || size > 0)
        budget.classify(extension: StreamVariants.pathExtension(url), mime: inner?.contentType ?? "")
        made.pointee.seekable = seekable ? AVIO_SEEKABLE_NORMAL : 0
    }

    /// What the answer asks of the demuxer's open (``LiveAudioProbe``: live sound is probed from
    /// a little of it).
    package var demuxerOptions: [String: String] {
        LiveAudioProbe.options(contentType: inner?.contentType ?? "", station: station != nil, length: size > 0 ? size : nil)
    }

    deinit {
        close()
        var outer: UnsafeMutablePointer<AVIOContext>? = context
        av_freep(&context.pointee.buffer)
        avio_context_free(&outer)
    }

    private func close() { inner = nil }

    // MARK: connecting

    /// Opens the connection at the current position; with `retrying`, transient failures are
    /// retried as a read's are. Returns 0 or the last error.
    private func connect(retrying: Bool) -> Int32 {
        var attempt = 0
        while true {
            let result = openOnce()
            if result >= 0 {
                if attempt > 0 { session.monitor.recovered() }
                return result
            }
            guard retrying, let delay = retryDelay(after: result, attempt: &attempt, what: "open") else { return result }
            guard session.backOff(seconds: delay) else { return aether_AVERROR_EXIT() }
        }
    }

    private func openOnce() -> Int32 {
        let offset = station != nil ? 0 : base + position
        if fromStart, offset > session.settings.forwardReadLimit { return NetworkFault.pastForwardRead }
        let ranged = station == nil && !fromStart
        let main = url == session.mainURL
        // A station's title blocks are asked for on the requests that start the main input's
        // stream (the first, a station's reconnects), not on a file's range requests (a seek, a
        // resume at the byte).
        let icy = main && (station != nil || offset == 0)
        session.monitor.requested()
        let connection: HTTPConnection
        do throws(HTTPConnection.Failure) {
            connection = try HTTPConnection.open(.init(url: url, options: options, range: ranged ? offset : nil, icy: icy),
                                                 transport: session.transport, interrupt: session.interrupt, clock: session.clock,
                                                 timeout: session.settings.readTimeout)
        } catch {
            if error.status == 416, position > 0 {
                // A resume past the resource's last byte: the body that ended was all of it.
                AppLog.write("net", "\(TextSanitizer.clean(url)): the server has no byte \(offset) (its resource ends there)")
                ended = true
                return 0
            }
            failed = error.failure
            return error.code
        }
        inner = connection
        let headers = main ? connection.stationHeaders(limit: StationMetadata.maxHeaderBytes) : []
        if !headers.isEmpty {
            station = (station ?? StationConnection()).connected(resuming: position > 0)
            session.monitor.station { $0.take(headers: headers); return false }
            if position > 0 { return 0 }   // a station resumes at its live point, not at a byte
        }
        switch connection.range.start {
        case .asked: break
        case .resourceStart:
            AppLog.write("net", "\(TextSanitizer.clean(url)): the server answered a range request with the whole resource: read from its start")
            fromStart = true
            if offset > session.settings.forwardReadLimit {
                close()
                return NetworkFault.pastForwardRead
            }
        case .otherByte(let start):
            close()
            failed = NetworkFailure(.other, url: url, line: "the server answered byte \(start) for byte \(offset)")
            return aether_AVERROR(EIO)
        }
        if let total = connection.range.total, total > base { size = size < 0 ? total - base : min(size, total - base) }
        return fromStart ? drop(offset, from: connection) : 0
    }

    /// Reads and drops the first `count` bytes of a resource asked for from its start
    /// (``fromStart``). 0, or the read's error (the connection is then closed).
    private func drop(_ count: Int64, from connection: HTTPConnection) -> Int32 {
        var left = count
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        while left > 0 {
            let n = scratch.withUnsafeMutableBufferPointer { connection.read(into: $0.baseAddress!, wanted: Int32(min(Int64($0.count), left))) }
            guard n > 0 else {
                close()
                // (A body cut short is our code already: NetworkFault.truncated is HTTPConnection.cutShort.)
                return n == 0 || n == aether_AVERROR_EOF() ? NetworkFault.truncated : n
            }
            session.received(Int(n))
            left -= Int64(n)
        }
        return 0
    }

    /// The backoff before the next attempt, or nil when `error` must not be retried (permanent,
    /// interrupted, out of this transfer's attempts, or the source's budget spent: no byte for
    /// ``NetworkSettings/readTimeout``, over every transfer). Counts the attempt and reports it.
    private func retryDelay(after error: Int32, attempt: inout Int, what: String) -> Double? {
        guard error != aether_AVERROR_EXIT(), !session.interrupt.isCancelled else { return nil }
        let timeout = session.settings.readTimeout
        // The exchange's own words (an exact HTTP status, a budget, a redirect refused).
        let ours = failed
        failed = nil
        var message = error == NetworkFault.truncated ? "the server closed the connection at byte \(base + position)\(size > 0 ? " of \(base + size)" : " (the body's framing was cut)")"
            : error == NetworkFault.dropped ? "the station closed the connection"
            : error == NetworkFault.pastForwardRead ? pastForwardRead(base + position)
            : ours?.line ?? FFmpegError(code: error, function: what).message
        if error == aether_AVERROR(ETIMEDOUT), ours == nil {
            message = "stalled: no data for \(String(cFormat: "%g", timeout)) s"
            stalled = message
        }
        let which = named
        let cause = ours?.cause ?? NetworkFault.cause(of: error, flowing: session.hasFlowed)
        // A station that drops is reconnected while it answers anything (a source restarting
        // leaves its mount missing for a moment), for as long as no byte came for the read deadline.
        let stationRetry = station != nil && position > 0
        guard stationRetry || NetworkFault.isTransient(error, flowing: session.hasFlowed) else {
            // A redirect refused, a header past its budget: refused, not failed.
            if let ours, !ours.cause.isTransport, ours.cause != .other {
                session.refuse(NetworkFailure(ours.cause, url: url, line: which + ours.line), code: error)
                return nil
            }
            // A stall, then a server that cannot resume: the stall is the cause.
            if let stalled {
                session.monitor.failed(NetworkFailure(.timedOut, url: url, line: which + "\(stalled) (resuming at byte \(base + position) failed: \(message))"))
                return nil
            }
            session.monitor.failed(NetworkFailure(cause, url: url, line: which + message))
            return nil
        }
        attempt += 1
        let outage = session.failedOnce(NetworkFailure(cause, url: url, line: which + message),
                                        waited: error == aether_AVERROR(ETIMEDOUT) ? timeout : 0)
        let silent = session.clock.seconds - outage.since
        // The source's budget: no byte for the read deadline, every transfer's reconnects
        // together; a stalled read (which spent it waiting) is reconnected once.
        guard silent < timeout || outage.attempts <= 1 else {
            let last = outage.first.line == which + message ? "" : "; the last attempt: \(message)"
            session.refuse(NetworkFailure(outage.first.cause, url: outage.first.url,
                                          line: outage.first.line + ", and no byte came back for \(String(cFormat: "%.1f", silent)) s (--network-timeout, \(outage.attempts - 1) reconnect\(outage.attempts == 2 ? "" : "s"))\(last)"),
                           code: error)
            return nil
        }
        guard stationRetry || attempt <= session.settings.retries else {
            session.monitor.failed(NetworkFailure(cause, url: url, line: which + "\(message) (gave up after \(attempt - 1) retr\(attempt == 2 ? "y" : "ies"))"))
            return nil
        }
        session.monitor.reconnecting(attempt: outage.attempts, after: message, givesUpAt: outage.since + timeout)
        AppLog.write("net", "\(TextSanitizer.clean(url)): \(message) at byte \(base + position); reconnect \(outage.attempts), \(String(cFormat: "%.1f", max(0, timeout - silent))) s left")
        return min(session.retryDelay(attempt: attempt), max(0.05, timeout - silent))
    }

    // MARK: AVIOContext callbacks

    private func read(into out: UnsafeMutablePointer<UInt8>?, wanted: Int32) -> Int32 {
        guard let out, wanted > 0 else { return 0 }
        if budget.refused { return aether_AVERROR_EXIT() }
        // A byte range's end is kept here too (a server that ignores ranges, or a resource read
        // from its start, sends more); only for a range or such a read: elsewhere `size` may be
        // a compressed body's, shorter than what it inflates to.
        let bounded = fromStart || options["end_offset"] != nil
        if ended || (bounded && size > 0 && position >= size) { return aether_AVERROR_EOF() }
        let wanted = bounded && size > 0 ? Int32(min(Int64(wanted), size - position)) : wanted
        var attempt = 0
        while true {
            if session.interrupt.shouldInterrupt { return aether_AVERROR_EXIT() }
            var result: Int32
            if inner == nil {
                result = openOnce()
                if ended { return aether_AVERROR_EOF() }
            } else {
                result = 0
            }
            if result >= 0, let inner {
                result = inner.read(into: out, wanted: wanted)
                if result > 0 {
                    if !budget.classified { budget.classify(UnsafeBufferPointer(start: out, count: Int(result)), atStart: base + position == 0) }
                    if let limit = budget.limit, position + Int64(result) > limit {
                        budget.refused = true
                        close()
                        session.refuse(NetworkFailure(.budget("the \(budget.kind) budget"), url: url,
                                                      line: named + "\(budget.kind) larger than \(limit >> 20) MiB refused"),
                                       code: aether_AVERROR(EFBIG))
                        return aether_AVERROR_EXIT()
                    }
                    position += Int64(result)
                    stalled = nil
                    if station != nil, let block = inner.takeStationBlock(), let reconnected = station?.newBlock(block) {
                        session.monitor.station { $0.take(packet: block, reconnected: reconnected) }
                    }
                    session.received(Int(result))
                    if attempt > 0 { session.monitor.recovered() }
                    return result
                }
                if result == 0 || result == aether_AVERROR_EOF() || result == HTTPConnection.cutShort {
                    // A station's stream has no end: it dropped.
                    if station != nil {
                        result = NetworkFault.dropped
                    } else if result == HTTPConnection.cutShort || (size > 0 && position < size) {
                        // The server ended the body short of its framing or length: the connection broke.
                        result = NetworkFault.truncated
                    } else {
                        return aether_AVERROR_EOF()
                    }
                }
            }
            close()
            guard let delay = retryDelay(after: result, attempt: &attempt, what: "read") else {
                return result == NetworkFault.truncated || result == NetworkFault.dropped ? aether_AVERROR(EIO)
                    : result == NetworkFault.pastForwardRead ? aether_AVERROR(EFBIG) : result
            }
            guard session.backOff(seconds: delay) else { return aether_AVERROR_EXIT() }
        }
    }

    /// What a line about this resource starts with: nothing for the source's own URL (the
    /// player's error line names it already), a segment's URL otherwise.
    private var named: String { url == session.mainURL ? "" : "\(TextSanitizer.clean(url)): " }

    /// The line of a position out of reach of reading forward.
    private func pastForwardRead(_ byte: Int64) -> String {
        "the server does not serve byte ranges, and byte \(byte) is past --demuxer-max-bytes (\(ByteSize.describe(session.settings.forwardReadLimit)) read from its start)"
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return size >= 0 ? size : Int64(aether_AVERROR(ENOSYS)) }
        let target: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position + offset
        case SEEK_END:
            guard size >= 0 else { return Int64(aether_AVERROR(ENOSYS)) }
            target = size + offset
        default: return Int64(aether_AVERROR(EINVAL))
        }
        guard target >= 0 else { return Int64(aether_AVERROR(EINVAL)) }
        if target == position { return target }
        guard seekable else { return Int64(aether_AVERROR(ESPIPE)) }
        // (What is read from the start is `base + target` bytes, as the reopen counts it.)
        if fromStart, base + target > session.settings.forwardReadLimit,
           target < position || inner == nil || target - position > session.settings.forwardReadLimit {
            // Out of reach of reading forward: the seek fails, playback goes on where it is.
            AppLog.write("net", "\(TextSanitizer.clean(url)): \(pastForwardRead(base + target))")
            return Int64(aether_AVERROR(EFBIG))
        }
        if fromStart, target > position, let inner {
            // Forward on the open connection (the server would send the resource from its start).
            guard drop(target - position, from: inner) >= 0 else { return Int64(aether_AVERROR(EIO)) }
            position = target
            return target
        }
        // A new request at the target on the next read (a connection cannot jump).
        close()
        position = target
        return target
    }
}

/// How a failed network operation is treated.
enum NetworkFault {
    /// Our code for a body that ended before its Content-Length or last chunk.
    static let truncated = HTTPConnection.cutShort
    /// Our code for a radio station's stream that ended (it has no end: it dropped).
    static let dropped: Int32 = -0x4452_4F50
    /// Our code for a position a server that serves no ranges puts past ``NetworkSettings/forwardReadLimit``.
    static let pastForwardRead: Int32 = -0x4657_5244

    /// The cause of `code` (``NetworkFailure/Cause/of(_:flowing:)``), with our own codes: a body
    /// cut short, a station that dropped, a position past the forward read.
    static func cause(of code: Int32, flowing: Bool) -> NetworkFailure.Cause {
        code == pastForwardRead ? .budget("--demuxer-max-bytes")
            : code == truncated || code == dropped ? .closed : .of(code, flowing: flowing)
    }

    /// Transient failures are retried: timeouts, resets, refused or broken connections, 5xx, a
    /// truncated body, and (once the source has delivered bytes) generic I/O errors and garbled
    /// responses. 4xx and everything else are permanent. Before the first byte, an I/O error is
    /// most often a name that does not resolve: permanent.
    static func isTransient(_ code: Int32, flowing: Bool) -> Bool {
        if code == truncated || code == dropped { return true }
        switch aether_http_status_of(code) {
        case 500: return true
        case 0: break
        default: return false
        }
        var transient: [Int32] = [ETIMEDOUT, ECONNRESET, ECONNABORTED, EPIPE, EAGAIN, ENETDOWN, ENETRESET, ENETUNREACH, EHOSTUNREACH]
        if flowing { transient += [EIO, ECONNREFUSED] }
        if transient.map({ aether_AVERROR($0) }).contains(code) { return true }
        return flowing && code == aether_AVERROR_INVALIDDATA()
    }

}
