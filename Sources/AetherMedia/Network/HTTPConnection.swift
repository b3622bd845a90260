import AetherTransport
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP(S) exchange of the player's, through libcurl (``HTTPTransfer``, on the source's
/// ``TransportSession``: certificates checked, connections reused): the answer's head within
/// ``HTTPResponseHead``'s budgets and within the read deadline as a whole (a server that drips
/// its header is bounded too), redirects followed here within ``maxHops`` (http and https only,
/// never to a file), a content coding inflated and a station's title blocks taken out
/// (``HTTPBody``; a body with neither is read straight into the caller's buffer), and every
/// failure given as libavformat's code with our words.
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

        /// The transfer's request to `url`; nil when an option holds a byte no header may (a
        /// line break).
        package func transfer(to url: String) -> HTTPTransfer.Request? {
            var fields = ["Accept: */*"]
            if icy { fields.append("Icy-MetaData: 1") }
            if let lines = options["headers"], !lines.isEmpty {
                // Whole lines (validated by SourceOptions), each ended by CRLF.
                let bytes = Array(lines.utf8)
                guard bytes.count >= 2, bytes.suffix(2) == [0x0D, 0x0A], bytes.indices.allSatisfy({ i in
                    bytes[i] == 0x0D ? i + 1 < bytes.count && bytes[i + 1] == 0x0A : bytes[i] != 0x0A || (i > 0 && bytes[i - 1] == 0x0D)
                }) else { return nil }
                fields += lines.split(separator: "\r\n").map(String.init)
            }
            let agent = options["user_agent"] ?? HTTPConnection.defaultAgent
            let values = [agent, options["referer"] ?? ""]
            guard !values.contains(where: { $0.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }) else { return nil }
            return HTTPTransfer.Request(url: url, fields: fields, userAgent: agent, referrer: options["referer"], range: range)
        }
    }

    /// libavformat's own `User-Agent` (`Lavf/59.27.100`, http.c's default), sent when the user set none.
    static let defaultAgent: String = {
        let v = avformat_version()
        return "Lavf/\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }()

    /// A failed exchange: libavformat's code for it (an HTTP status as `AVERROR_HTTP_*`) and,
    /// where ours are more exact, the words and cause (an exact status, a budget, a redirect,
    /// a certificate).
    package struct Failure: Error {
        package let code: Int32
        package let failure: NetworkFailure?
        /// The HTTP status, when the server answered with an error.
        package var status: Int? { if case .http(let s)? = failure?.cause { return s } else { return nil } }
    }

    /// The URL that answered (after redirects).
    package let url: String
    package let head: HTTPResponseHead
    private let transfer: HTTPTransfer
    private var body: HTTPBody
    private var payload: [UInt8] = []
    /// What one read off the transfer lands in (a read is a demuxer's buffer refill, the hot path).
    private let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    private var taken = 0
    private var atEnd = false
    /// Each read waits at most this long for a byte (by ``clock``); ``interrupt`` stops it.
    private let timeout: Double
    private let clock: TimeSource
    private let interrupt: InterruptToken

    private init(url: String, head: HTTPResponseHead, range: RangeAnswer, transfer: HTTPTransfer, body: HTTPBody, timeout: Double,
                 clock: TimeSource, interrupt: InterruptToken) {
        self.url = url
        self.head = head
        self.range = range
        self.transfer = transfer
        self.body = body
        self.timeout = timeout
        self.clock = clock
        self.interrupt = interrupt
    }

    deinit { raw.deallocate() }

    // MARK: the answer

    /// What the answer says of the byte asked for and of the resource's length.
    package let range: RangeAnswer

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
        // The body is the payload (the hot path: a film, a segment): straight into the reader's buffer.
        if body.passesThrough {
            if atEnd { return aether_AVERROR_EOF() }
            do throws(HTTPTransfer.Failure) {
                let n = try transfer.read(into: UnsafeMutableRawBufferPointer(start: out, count: Int(wanted)), timeout: timeout,
                                          clock: clock) { interrupt.shouldInterrupt }
                atEnd = n == 0
                return n == 0 ? aether_AVERROR_EOF() : Int32(n)
            } catch {
                return Self.failure(error, url: url).code
            }
        }
        while taken == payload.count {
            payload.removeAll(keepingCapacity: true)
            taken = 0
            if body.hasPending {
                if case .malformed = [UInt8]().withUnsafeBytes({ body.feed($0, into: &payload) }) {
                    return aether_AVERROR_INVALIDDATA()
                }
                continue
            }
            // The body's end: whole, or cut short of its compressed stream.
            if atEnd { return body.ended() == nil ? aether_AVERROR_EOF() : Self.cutShort }
            let n: Int
            do throws(HTTPTransfer.Failure) {
                n = try transfer.read(into: raw, timeout: timeout, clock: clock) { interrupt.shouldInterrupt }
            } catch {
                return Self.failure(error, url: url).code
            }
            if n == 0 {
                atEnd = true
                continue
            }
            if case .malformed = body.feed(UnsafeRawBufferPointer(rebasing: raw[..<n]), into: &payload) {
                return aether_AVERROR_INVALIDDATA()
            }
        }
        let n = min(Int(wanted), payload.count - taken)
        payload.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + taken, count: n) }
        taken += n
        return Int32(n)
    }

    // MARK: opening

    /// Makes the exchange on `transport`, following redirects (the answers' cookies kept by the
    /// transport's store and sent on). Each read waits at most `timeout` seconds, and each head must be whole
    /// within it (by `clock`).
    package static func open(_ request: Request, transport: TransportSession, interrupt: InterruptToken,
                             clock: TimeSource, timeout: Double) throws(Failure) -> HTTPConnection {
        var current = request.url
        var seen: Set<String> = [current]
        var looped = false
        for hop in 0...maxHops {
            let (head, transfer) = try exchange(current, request, transport: transport, interrupt: interrupt, clock: clock,
                                                timeout: timeout)
            if [301, 302, 303, 307, 308].contains(head.status), let location = head.value("location") {
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
                let line = "HTTP \(head.status)\(head.reason.isEmpty ? "" : " " + head.reason)"
                throw Failure(code: aether_http_error(Int32(head.status)), failure: NetworkFailure(.http(status: head.status), url: current, line: line))
            }
            return HTTPConnection(url: current, head: head, range: RangeAnswer(head, asked: request.range), transfer: transfer,
                                  body: HTTPBody(answer: head, icy: request.icy), timeout: timeout, clock: clock, interrupt: interrupt)
        }
        throw refusal(request.url, looped ? "redirect loop after \(maxHops) hops" : "more than \(maxHops) redirects")
    }

    private static func refusal(_ url: String, _ line: String) -> Failure {
        Failure(code: aether_AVERROR(EINVAL), failure: NetworkFailure(.policy, url: url, line: line))
    }

    /// One request to `url` and the head of its answer, with the transfer it goes on in.
    private static func exchange(_ url: String, _ request: Request, transport: TransportSession,
                                 interrupt: InterruptToken, clock: TimeSource, timeout: Double) throws(Failure) -> (HTTPResponseHead, HTTPTransfer) {
        guard ["http", "https"].contains(NetworkSettings.scheme(of: url) ?? ""), let host = URLComponents(string: url)?.host, !host.isEmpty,
              let asked = request.transfer(to: url) else {
            throw Failure(code: aether_AVERROR(EINVAL), failure: NetworkFailure(.policy, url: url, line: "not an http or https URL"))
        }
        let transfer = HTTPTransfer(asked, session: transport, connectTimeout: timeout)
        do throws(HTTPTransfer.Failure) {
            return (try transfer.head(timeout: timeout, clock: clock) { interrupt.shouldInterrupt }, transfer)
        } catch .timedOut {
            throw Failure(code: aether_AVERROR(ETIMEDOUT),
                          failure: NetworkFailure(.timedOut, url: url, line: "the answer's header did not end within \(String(cFormat: "%g", timeout)) s"))
        } catch {
            throw failure(error, url: url)
        }
    }

    /// The address libcurl's words for a failed connect name (`Failed to connect to H port P`,
    /// libcurl 7.x and 8.x alike), when it is not `url`'s: the proxy the environment chose for
    /// it. Nil when it is the URL's own, or the words are not of that form.
    static func proxyTried(_ words: String, url: String) -> String? {
        let prefix = "Failed to connect to "
        guard let start = words.firstRange(of: prefix)?.upperBound, let portWord = words[start...].firstRange(of: " port ") else { return nil }
        let host = words[start..<portWord.lowerBound]
        let port = words[portWord.upperBound...].prefix { $0.isNumber }
        guard !host.isEmpty, !host.contains(" "), let number = Int(port), let parts = URLComponents(string: url), let urlHost = parts.host else { return nil }
        let urlPort = parts.port ?? (parts.scheme?.lowercased() == "https" ? 443 : 80)
        let bare = urlHost.hasPrefix("[") ? String(urlHost.dropFirst().dropLast()) : urlHost
        guard host.lowercased() != bare.lowercased() || number != urlPort else { return nil }
        return "\(TextSanitizer.clean(String(host))) port \(number)"
    }

    /// A transfer's failure as libavformat's code and, where it says more, our words.
    static func failure(_ error: HTTPTransfer.Failure, url: String) -> Failure {
        let host = TextSanitizer.clean(URLComponents(string: url)?.host ?? "")
        switch error {
        case .interrupted: return Failure(code: aether_AVERROR_EXIT(), failure: nil)
        case .timedOut: return Failure(code: aether_AVERROR(ETIMEDOUT), failure: nil)
        case .refused(let why):
            return Failure(code: aether_AVERROR(EFBIG), failure: NetworkFailure(.budget("the header budget"), url: url, line: why))
        case .transport(let code, let system, let words):
            typealias F = HTTPTransfer.Failure
            switch code {
            case F.couldNotResolve:
                return Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.dns(host: host), url: url, line: "cannot resolve host '\(host)'"))
            case F.couldNotResolveProxy:
                return Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.dns(host: host), url: url, line: "cannot resolve the proxy's host (\(words))"))
            case F.couldNotConnect:
                let code = aether_AVERROR(system != 0 ? system : ECONNREFUSED)
                // A proxy's address (libcurl's words name the one it tried) is said as the proxy's.
                guard let proxy = proxyTried(words, url: url) else { return Failure(code: code, failure: nil) }
                return Failure(code: code, failure: NetworkFailure(.refused, url: url,
                                                                   line: "cannot connect to the proxy at \(proxy): \(FFmpegError.string(for: code))"))
            case F.timedOutCode: return Failure(code: aether_AVERROR(ETIMEDOUT), failure: nil)
            case F.partialBody: return Failure(code: cutShort, failure: nil)
            case F.gotNothing:
                return Failure(code: aether_AVERROR(EIO),
                               failure: NetworkFailure(.closed, url: url, line: "the server closed the connection before its answer's header ended"))
            case F.receiveError, F.sendError, F.http2, F.http2Stream:
                return Failure(code: aether_AVERROR(system != 0 ? system : ECONNRESET), failure: nil)
            case F.peerVerification, F.caCertificate:
                return Failure(code: aether_AVERROR(EPERM),
                               failure: NetworkFailure(.certificate, url: url, line: "the certificate of '\(host)' is not trusted (\(words)); --tls-verify=no would play it anyway"))
            case F.tlsConnect:
                return Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.tls, url: url, line: "TLS handshake with '\(host)' failed"))
            case F.weirdReply, F.unsupportedProtocol:
                return Failure(code: aether_AVERROR_INVALIDDATA(), failure: NetworkFailure(.other, url: url, line: "the server's answer is not HTTP (\(words))"))
            case F.proxy:
                return Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.refused, url: url, line: "the proxy refused the connection (\(words))"))
            default:
                return Failure(code: aether_AVERROR(EIO), failure: NetworkFailure(.other, url: url, line: words))
            }
        }
    }
}
