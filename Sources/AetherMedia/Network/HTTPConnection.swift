import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 exchange of ours, over libavformat's `tcp` or `tls` protocol: the request
/// written, the response's head read within ``HTTPResponseHead``'s budgets and within the read
/// deadline as a whole (a server that drips its header is bounded too), redirects followed
/// within ``maxHops`` (http and https only), and the body handed out as its payload
/// (``HTTPBody``). libavformat's `http` protocol keeps every header line a server sends before
/// anyone sees one; this reads none past the budget. Owns its AVIOContext and closes it once.
///
/// Used from one thread at a time (the reader that opened it).
package final class HTTPConnection {
    /// Redirects followed, at most.
    package static let maxHops = 10
    /// Our code for a body cut short of its framing (its length, its last chunk).
    package static let cutShort: Int32 = -0x5452_4E43

    /// What to ask for.
    package struct Request {
        package var url: String
        /// `user_agent`, `referer` and `headers` (CRLF-ended lines, validated by
        /// ``SourceOptions``), as libavformat's http protocol takes them.
        package var options: [String: String]
        /// `Range: bytes=N-` (nil: no `Range` at all: the whole resource, from its start).
        package var range: Int64?
        /// `Icy-MetaData: 1`: a radio station may send its title blocks in band.
        package var icy = false

        package init(url: String, options: [String: String], range: Int64? = 0, icy: Bool = false) {
            self.url = url
            self.options = options
            self.range = range
            self.icy = icy
        }
    }

    /// A failed exchange: libavformat's code for it (an HTTP status as `AVERROR_HTTP_*`) and,
    /// where ours are more exact, the words and cause (an exact status, a budget, a redirect).
    package struct Failure: Error {
        package let code: Int32
        package let failure: NetworkFailure?
        /// The HTTP status, when the server answered with an error.
        package var status: Int? { if case .http(let s)? = failure?.cause { return s } else { return nil } }
    }

    /// The URL that answered (after redirects).
    package let url: String
    package let head: HTTPResponseHead
    private var pb: UnsafeMutablePointer<AVIOContext>?
    private var body: HTTPBody
    private var payload: [UInt8] = []
    /// What one read off the connection lands in (allocated at the first, kept: a read is a
    /// demuxer's buffer refill, the hot path).
    private lazy var raw = [UInt8](repeating: 0, count: 64 << 10)
    private var taken = 0
    private var atEnd = false

    private init(url: String, head: HTTPResponseHead, pb: UnsafeMutablePointer<AVIOContext>, body: HTTPBody, initial: [UInt8]) {
        self.url = url
        self.head = head
        self.pb = pb
        self.body = body
        if !initial.isEmpty {
            _ = initial.withUnsafeBytes { self.body.feed($0, into: &payload) }
        }
    }

    deinit { if pb != nil { avio_closep(&pb) } }

    // MARK: the answer

    /// The payload's length when the answer says it (`Content-Length`, no transfer or content
    /// coding); nil otherwise.
    package var length: Int64? {
        guard head.value("transfer-encoding") == nil, coding.isEmpty || coding == "identity",
              let text = head.value("content-length"), let n = Int64(text), n >= 0 else { return nil }
        return n
    }

    /// `Content-Range: bytes S-E/T` of a 206: its first byte and the resource's length (nil: `*`).
    package var contentRange: (start: Int64, total: Int64?)? {
        guard head.status == 206, let text = head.value("content-range")?.lowercased(), text.hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"),
              let start = Int64(spec[..<dash].trimmingWhitespace()) else { return nil }
        return (start, Int64(spec[spec.index(after: slash)...].trimmingWhitespace()))
    }

    /// Whether the server serves byte ranges (a 206, or `Accept-Ranges: bytes`).
    package var servesRanges: Bool { head.status == 206 || head.value("accept-ranges")?.lowercased() == "bytes" }

    /// The content type, lower case ("" when not said).
    package var contentType: String { head.value("content-type")?.lowercased() ?? "" }

    /// The station's `icy-*` header lines (`Name: value\n` each, as libavformat exports them as
    /// `icy_metadata_headers`), at most `limit` bytes; empty when it sent none.
    package func stationHeaders(limit: Int) -> [UInt8] {
        var out: [UInt8] = []
        for (name, value) in head.fields where name.hasPrefix("icy-") {
            let line = Array("\(name): \(value)\n".utf8)
            guard out.count + line.count <= limit else { break }
            out += line
        }
        return out
    }

    private var coding: String { head.value("content-encoding")?.lowercased() ?? "" }

    /// The latest in-band title block of a station (``HTTPBody/takeStationBlock()``).
    package func takeStationBlock() -> [UInt8]? { body.takeStationBlock() }

    // MARK: reading the body

    /// Reads at most `wanted` payload bytes: their count, `AVERROR_EOF` at the body's end,
    /// ``cutShort`` when the connection ended before it, or the connection's error.
    package func read(into out: UnsafeMutablePointer<UInt8>, wanted: Int32) -> Int32 {
        while taken == payload.count {
            payload.removeAll(keepingCapacity: true)
            taken = 0
            if body.hasPending {
                if case .malformed = [UInt8]().withUnsafeBytes({ body.feed($0, into: &payload) }) {
                    return aether_AVERROR_INVALIDDATA()
                }
                continue
            }
            // The body's end: whole, or cut short of its framing or its compressed stream.
            if body.isComplete || atEnd || pb == nil { return body.ended() == nil ? aether_AVERROR_EOF() : Self.cutShort }
            guard let pb else { continue }
            let n = avio_read_partial(pb, &raw, Int32(raw.count))
            if n == 0 || n == aether_AVERROR_EOF() {
                atEnd = true
                continue
            }
            guard n > 0 else { return n }
            if case .malformed = raw.withUnsafeBytes({ body.feed(UnsafeRawBufferPointer(rebasing: $0[..<Int(n)]), into: &payload) }) {
                return aether_AVERROR_INVALIDDATA()
            }
        }
        let n = min(Int(wanted), payload.count - taken)
        payload.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + taken, count: n) }
        taken += n
        return Int32(n)
    }

    // MARK: opening

    /// Makes the exchange, following redirects; `jar` keeps the cookies the answers set. Each
    /// read waits at most `timeout` seconds, and each head must be whole within it (by `clock`).
    package static func open(_ request: Request, jar: inout HTTPCookieJar, interrupt: InterruptToken, clock: TimeSource,
                             timeout: Double) throws(Failure) -> HTTPConnection {
        var current = request.url
        var seen: Set<String> = [current]
        var looped = false
        for hop in 0...maxHops {
            let (head, pb, rest) = try exchange(current, request, jar: &jar, interrupt: interrupt, clock: clock, timeout: timeout)
            if [301, 302, 303, 307, 308].contains(head.status), let location = head.value("location") {
                var doomed: UnsafeMutablePointer<AVIOContext>? = pb
                avio_closep(&doomed)
                let next = URLReference.resolve(location, against: current)
                switch NetworkSettings.scheme(of: next) ?? "file" {
                case "http", "https": break
                case "file": throw refusal(request.url, "redirect to a local file refused")
                case let other: throw refusal(request.url, "redirect to '\(TextSanitizer.clean(other)):' refused (only http and https)")
                }
                if !seen.insert(next).inserted { looped = true }
                current = next
                if hop == maxHops { break }
                continue
            }
            guard (200...299).contains(head.status) else {
                var doomed: UnsafeMutablePointer<AVIOContext>? = pb
                avio_closep(&doomed)
                let line = "HTTP \(head.status)\(head.reason.isEmpty ? "" : " " + head.reason)"
                throw Failure(code: aether_http_error(Int32(head.status)), failure: NetworkFailure(.http(status: head.status), url: current, line: line))
            }
            return HTTPConnection(url: current, head: head, pb: pb, body: HTTPBody(of: head, icy: request.icy), initial: rest)
        }
        throw refusal(request.url, looped ? "redirect loop after \(maxHops) hops" : "more than \(maxHops) redirects")
    }

    private static func refusal(_ url: String, _ line: String) -> Failure {
        Failure(code: aether_AVERROR(EINVAL), failure: NetworkFailure(.policy, url: url, line: line))
    }

    /// One request to `url` and the head of its answer: the head, the open connection and the
    /// bytes read past the head (the body's first).
    private static func exchange(_ url: String, _ request: Request, jar: inout HTTPCookieJar, interrupt: InterruptToken,
                                 clock: TimeSource, timeout: Double) throws(Failure) -> (HTTPResponseHead, UnsafeMutablePointer<AVIOContext>, [UInt8]) {
        guard let target = HTTPTarget(url), let text = target.request(request, cookies: jar.header(for: target.host)) else {
            throw Failure(code: aether_AVERROR(EINVAL), failure: NetworkFailure(.policy, url: url, line: "not an http or https URL"))
        }
        let pb = try connect(target.connection, interrupt: interrupt, timeout: timeout, proxy: target.tlsProxy)
        var owned: UnsafeMutablePointer<AVIOContext>? = pb
        var handedOver = false
        defer { if !handedOver { avio_closep(&owned) } }
        let bytes = Array(text.utf8)
        avio_write(pb, bytes, Int32(bytes.count))
        avio_flush(pb)
        if pb.pointee.error < 0 { throw Failure(code: pb.pointee.error, failure: nil) }
        let started = clock.seconds
        var head = HTTPResponseHead()
        var fed = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = avio_read_partial(pb, &chunk, Int32(chunk.count))
            if n == 0 || n == aether_AVERROR_EOF() {
                throw Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.closed, url: url, line: "the server closed the connection before its answer's header ended"))
            }
            guard n > 0 else { throw Failure(code: n, failure: nil) }
            let outcome = chunk.withUnsafeBytes { head.feed(UnsafeRawBufferPointer(rebasing: $0[..<Int(n)])) }
            switch outcome {
            case .incomplete:
                fed += Int(n)
                if clock.seconds - started > timeout {
                    throw Failure(code: aether_AVERROR(ETIMEDOUT),
                                  failure: NetworkFailure(.timedOut, url: url, line: "the answer's header did not end within \(String(cFormat: "%g", timeout)) s"))
                }
            case .refused(let why):
                throw Failure(code: aether_AVERROR(EFBIG), failure: NetworkFailure(.budget("the header budget"), url: url, line: why))
            case .complete(let bodyOffset):
                jar.take(head, host: target.host)
                let rest = Array(chunk[(bodyOffset - fed)..<Int(n)])
                // An interim answer (100 Continue): the real one follows.
                if (100...199).contains(head.status) {
                    throw Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.other, url: url, line: "an interim answer (\(head.status)) to a GET"))
                }
                handedOver = true
                return (head, pb, rest)
            }
        }
    }

    /// A connection over libavformat's `tcp` or `tls` protocol to `target`
    /// (`tcp://host:port`), each read and the connect within `timeout` (at most a day); `proxy`:
    /// a TLS connection's `CONNECT` proxy. The caller closes it.
    package static func connect(_ target: String, interrupt: InterruptToken, timeout: Double,
                                proxy: String? = nil) throws(Failure) -> UnsafeMutablePointer<AVIOContext> {
        var dict: OpaquePointer? = nil
        let micros = String(Int64(saturating: max(0.1, min(timeout.isNaN ? 10 : timeout, 86_400)) * 1e6))
        av_dict_set(&dict, "rw_timeout", micros, 0)
        av_dict_set(&dict, "timeout", micros, 0)
        if let proxy { av_dict_set(&dict, "http_proxy", proxy, 0) }
        defer { av_dict_free(&dict) }
        var callback = interrupt.callback
        var pb: UnsafeMutablePointer<AVIOContext>?
        let result = avio_open2(&pb, target, AVIO_FLAG_READ_WRITE, &callback, &dict)
        guard result >= 0, let pb else {
            if pb != nil { avio_closep(&pb) }
            throw Failure(code: result < 0 ? result : aether_AVERROR(EIO), failure: nil)
        }
        return pb
    }
}
