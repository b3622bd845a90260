import AetherBase
import CCurl

/// One HTTP(S) GET through libcurl, read as the caller pulls: the answer's head through the
/// header callback (``HTTPResponseHead``'s budgets, counted before anything is kept), then the
/// body as it arrives, at most ``bufferLimit`` bytes held ahead of the reader (past that the
/// transfer pauses until the reader catches up). libcurl frames the body (length, chunks, the
/// connection's close); a content coding and a station's title blocks are the caller's. No
/// redirect is followed here: a 3xx is an answer like any other (the caller's policy decides).
///
/// Read from one thread at a time; closed once, by deinit (its connection goes back to the
/// session's cache when the body was read to its end, and is closed otherwise).
package final class HTTPTransfer {
    /// What to ask for.
    package struct Request: Sendable {
        package var url: String
        /// Header lines (`Name: value`, no line break: the caller checks them).
        package var fields: [String]
        package var userAgent: String?
        package var referrer: String?
        /// `Range: bytes=N-` (nil: the whole resource).
        package var range: Int64?
        package init(url: String, fields: [String] = [], userAgent: String? = nil, referrer: String? = nil,
                    range: Int64? = nil) {
            self.url = url
            self.fields = fields
            self.userAgent = userAgent
            self.referrer = referrer
            self.range = range
        }
    }

    /// Why a transfer stopped.
    package enum Failure: Error, Equatable, Sendable {
        /// A budget of ours (one line naming it).
        case refused(String)
        /// Nothing came for the caller's timeout (the head, or the next byte).
        case timedOut
        /// The caller stopped it (a quit, a seek, an item change).
        case interrupted
        /// libcurl's result: its code, the system's error behind it (0: none) and its words.
        case transport(code: Int32, systemError: Int32, words: String)

        /// libcurl's codes this layer names.
        package static let couldNotResolve = Int32(CURLE_COULDNT_RESOLVE_HOST.rawValue)
        package static let couldNotResolveProxy = Int32(CURLE_COULDNT_RESOLVE_PROXY.rawValue)
        package static let couldNotConnect = Int32(CURLE_COULDNT_CONNECT.rawValue)
        package static let partialBody = Int32(CURLE_PARTIAL_FILE.rawValue)
        package static let timedOutCode = Int32(CURLE_OPERATION_TIMEDOUT.rawValue)
        package static let gotNothing = Int32(CURLE_GOT_NOTHING.rawValue)
        package static let receiveError = Int32(CURLE_RECV_ERROR.rawValue)
        package static let sendError = Int32(CURLE_SEND_ERROR.rawValue)
        package static let peerVerification = Int32(CURLE_PEER_FAILED_VERIFICATION.rawValue)
        package static let caCertificate = Int32(CURLE_SSL_CACERT_BADFILE.rawValue)
        package static let tlsConnect = Int32(CURLE_SSL_CONNECT_ERROR.rawValue)
        package static let weirdReply = Int32(CURLE_WEIRD_SERVER_REPLY.rawValue)
        package static let unsupportedProtocol = Int32(CURLE_UNSUPPORTED_PROTOCOL.rawValue)
        package static let http2 = Int32(CURLE_HTTP2.rawValue)
        package static let http2Stream = Int32(CURLE_HTTP2_STREAM.rawValue)
        package static let proxy = Int32(CURLE_PROXY.rawValue)
    }

    /// Body bytes held ahead of the reader, at most (past it, the transfer pauses).
    package static let bufferLimit = 256 << 10
    /// What libcurl reads off the connection at once, at most (its receive buffer, each transfer's).
    static let receiveSize = 256 << 10
    /// A chunked body's trailer, at most this many bytes.
    package static let maxTrailer = 16 << 10

    /// What the callbacks have seen; touched only with the session's lock held.
    final class Progress {
        var head = HTTPResponseHead()
        var headDone = false
        var refusal: String?
        var trailer = 0
        var body: [UInt8] = []
        var taken = 0
        var paused = false
        /// The reader's buffer while it moves the transfer on itself with nothing held: body
        /// bytes land there first (one copy less), what does not fit in ``body``.
        var direct: UnsafeMutableRawBufferPointer?
        var directFilled = 0
        var result: CURLcode?
        let words = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

        init() { words.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1) }
        deinit { words.deallocate() }

        func finished(_ code: CURLcode) { result = code }

        /// A header line (libcurl hands them whole): false stops the transfer.
        func header(_ line: UnsafeRawBufferPointer) -> Bool {
            if headDone {
                trailer += line.count
                guard trailer <= HTTPTransfer.maxTrailer else {
                    refusal = "the body's trailer is longer than \(HTTPTransfer.maxTrailer >> 10) KiB (the header budget)"
                    return false
                }
                return true
            }
            switch head.feed(line) {
            case .incomplete: return true
            case .refused(let why):
                refusal = why
                return false
            case .complete:
                // An interim answer (100 Continue, 103 Early Hints): the real one follows.
                if (100...199).contains(head.status) { head = HTTPResponseHead() } else { headDone = true }
                return true
            }
        }

        /// Body bytes: kept, or the transfer pauses while ``bufferLimit`` are waiting.
        func body(_ bytes: UnsafeRawBufferPointer) -> Int {
            var rest = bytes
            if let direct, directFilled < direct.count {
                let n = min(rest.count, direct.count - directFilled)
                (direct.baseAddress! + directFilled).copyMemory(from: rest.baseAddress!, byteCount: n)
                directFilled += n
                rest = UnsafeRawBufferPointer(rebasing: rest[n...])
                if rest.isEmpty { return bytes.count }
            } else {
                // (A pause hands the whole piece back: only when none of it was taken.)
                guard body.count - taken < HTTPTransfer.bufferLimit else {
                    paused = true
                    return aether_curl_write_pause()
                }
            }
            body.append(contentsOf: rest)
            return bytes.count
        }
    }

    package let session: TransportSession
    private let easy: UnsafeMutableRawPointer
    private let progress = Progress()
    private var fields: UnsafeMutablePointer<curl_slist>?
    /// The URL asked for.
    package let url: String

    /// Starts the request (nothing is waited for: ``head(timeout:clock:stop:)`` does);
    /// `connectTimeout`: seconds a connection may take to open (TCP, TLS, a proxy's).
    package init(_ request: Request, session: TransportSession, connectTimeout: Double) {
        self.session = session
        url = request.url
        easy = curl_easy_init()!
        let me = Unmanaged.passUnretained(progress).toOpaque()
        set(CURLOPT_URL, request.url)
        _ = aether_curl_set_pointer(easy, CURLOPT_PRIVATE, me)
        _ = aether_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, progress.words)
        _ = aether_curl_set_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let p = Unmanaged<Progress>.fromOpaque(user!).takeUnretainedValue()
            return p.header(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        _ = aether_curl_set_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = aether_curl_set_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            Unmanaged<Progress>.fromOpaque(user!).takeUnretainedValue().body(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        _ = aether_curl_set_pointer(easy, CURLOPT_WRITEDATA, me)
        // Threads: no signals; http and https only; redirects are the caller's.
        _ = aether_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = aether_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        // A proxy's CONNECT answer is not the server's head.
        _ = aether_curl_set_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        _ = aether_curl_set_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Over TLS a new transfer waits for a connection being opened to the same host rather
        // than opening another (HTTP/2, which ALPN may offer, multiplexes on it); plain http is
        // HTTP/1.1, where waiting would only hold the transfer back.
        if request.url.lowercased().hasPrefix("https:") { _ = aether_curl_set_long(easy, CURLOPT_PIPEWAIT, 1) }
        _ = aether_curl_set_long(easy, CURLOPT_BUFFERSIZE, Self.receiveSize)
        _ = aether_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(max(100, min(connectTimeout.isFinite ? connectTimeout : 86_400, 86_400)) * 1000))
        _ = aether_curl_set_long(easy, CURLOPT_SSL_VERIFYPEER, session.policy.verifyPeer ? 1 : 0)
        _ = aether_curl_set_long(easy, CURLOPT_SSL_VERIFYHOST, session.policy.verifyPeer ? 2 : 0)
        if let ca = session.policy.caFile { set(CURLOPT_CAINFO, ca) }
        if let agent = request.userAgent { set(CURLOPT_USERAGENT, agent) }
        if let referrer = request.referrer { set(CURLOPT_REFERER, referrer) }
        session.cookies.attach(easy)
        if let range = request.range { set(CURLOPT_RANGE, "\(max(0, range))-") }
        for line in request.fields { fields = curl_slist_append(fields, line) }
        if let fields { _ = aether_curl_set_pointer(easy, CURLOPT_HTTPHEADER, fields) }
        session.state.withLock { _ = curl_multi_add_handle($0.multi, easy) }
    }

    deinit {
        session.state.withLock { s in
            _ = curl_multi_remove_handle(s.multi, easy)
            curl_easy_cleanup(easy)
        }
        curl_slist_free_all(fields)
    }

    private func set(_ option: CURLoption, _ text: String) { _ = aether_curl_set_string(easy, option, text) }

    /// Waits for the answer's head: whole within `timeout` seconds of `clock` (a server that
    /// drips its header is bounded too), `stop` asked about every few milliseconds.
    package func head(timeout: Double, clock: TimeSource, stop: () -> Bool) throws(Failure) -> HTTPResponseHead {
        try drive(timeout: timeout, clock: clock, stop: stop) { s -> Void? in
            session.perform(&s)
            let p = progress
            return p.headDone || p.result != nil || p.refusal != nil ? () : nil
        }
        let (head, failure, cookiesLeftOut) = session.state.withLock { _ in
            let head = progress.head
            guard progress.headDone else { return (head, stopped(), 0) }
            return (head, nil, head.value("set-cookie") == nil ? 0 : session.cookies.trim(through: easy))
        }
        if let failure { throw failure }
        if cookiesLeftOut > 0 {
            AppLog.write("net", "\(TextSanitizer.clean(url)): \(cookiesLeftOut) cookie\(cookiesLeftOut == 1 ? "" : "s") left out (at most \(CookieStore.maxCookies) are kept)")
        }
        return head
    }

    /// Reads at most `out.count` body bytes: their count, 0 at the body's end; waits at most
    /// `timeout` seconds for the next byte. Bytes held come first; with none held, what the
    /// connection brings lands in `out` as libcurl hands it over.
    package func read(into out: UnsafeMutableRawBufferPointer, timeout: Double, clock: TimeSource, stop: () -> Bool) throws(Failure) -> Int {
        guard !out.isEmpty else { return 0 }
        let outcome = try drive(timeout: timeout, clock: clock, stop: stop) { s -> Result<Int, Failure>? in
            let p = progress
            if p.taken == p.body.count, p.result == nil, p.refusal == nil {
                p.direct = out
                p.directFilled = 0
                session.perform(&s)
                p.direct = nil
                if p.directFilled > 0 { return .success(p.directFilled) }
            }
            guard p.taken < p.body.count else {
                if p.result != nil || p.refusal != nil { return stopped().map { .failure($0) } ?? .success(0) }
                return nil
            }
            let n = min(out.count, p.body.count - p.taken)
            p.body.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress! + p.taken, byteCount: n) }
            p.taken += n
            if p.taken == p.body.count {
                p.body.removeAll(keepingCapacity: true)
                p.taken = 0
                if p.paused {
                    p.paused = false
                    _ = curl_easy_pause(easy, aether_curl_pause_continue())
                }
            }
            return .success(n)
        }
        return try outcome.get()
    }

    /// Why the transfer ended (lock held): nil when it ended whole.
    private func stopped() -> Failure? {
        if let refusal = progress.refusal { return .refused(refusal) }
        guard let result = progress.result, result != CURLE_OK else { return nil }
        var system = 0
        _ = aether_curl_info_long(easy, CURLINFO_OS_ERRNO, &system)
        let words = String(cString: progress.words)
        return .transport(code: Int32(result.rawValue), systemError: Int32(system),
                          words: TextSanitizer.clean(words.isEmpty ? String(cString: curl_easy_strerror(result)) : words))
    }

    /// Runs `step` with the session's lock held (it moves the transfers on) until it gives a
    /// value, `stop` says so (asked between steps, every ``TransportSession/pollMilliseconds``
    /// at most), or `timeout` seconds pass; between steps it waits for the connections.
    private func drive<Value>(timeout: Double, clock: TimeSource, stop: () -> Bool,
                              _ step: (inout TransportSession.State) -> Value?) throws(Failure) -> Value {
        let started = clock.seconds
        while true {
            if let value = session.state.withLock({ step(&$0) }) { return value }
            if stop() { throw .interrupted }
            if clock.seconds - started >= timeout { throw .timedOut }
            session.state.withLock { session.poll(&$0) }
        }
    }
}
