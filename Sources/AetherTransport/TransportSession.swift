import AetherBase
import CCurl

/// The transport under everything the player fetches: libcurl, one multi handle a session (a
/// playback source, the previews, a download), whose connection cache keeps the connections of
/// its transfers alive between them (a playlist, its segments and its key from one host share
/// one or a few; HTTP/2 where the server offers it by ALPN). Certificates are checked against
/// the system's authorities (or ``Policy/caFile``) unless ``Policy/verifyPeer`` is off. The
/// answers' cookies are kept and sent back by libcurl's engine (``cookies``).
///
/// Each ``HTTPTransfer`` is driven by the thread that reads it; the multi handle and every
/// transfer's state are touched only with the session's lock held, so transfers of one session
/// may be read from several threads (one at a time moves the multi handle, at most
/// ``pollMilliseconds`` each).
public final class TransportSession: Sendable {
    /// How the session's TLS connections are checked (mpv's `--tls-verify`, `--tls-ca-file`).
    public struct Policy: Sendable, Equatable {
        /// Check the server's certificate chain and its name (`--tls-verify`, on by default).
        public var verifyPeer: Bool
        /// The authorities to trust instead of the system's (PEM; nil: the system store).
        public var caFile: String?
        public init(verifyPeer: Bool = true, caFile: String? = nil) {
            self.verifyPeer = verifyPeer
            self.caFile = caFile
        }
    }

    public let policy: Policy
    /// The cookies its transfers' answers set and its requests send back.
    public let cookies: CookieStore
    /// The longest one wait for the network holds the session's lock (and so the longest a
    /// cancel waits to be seen).
    static let pollMilliseconds: Int32 = 20

    struct State: @unchecked Sendable {  // the multi handle is only touched with the lock held
        let multi: UnsafeMutableRawPointer
    }
    let state: Guarded<State>

    /// libcurl's global set-up, once, before the first handle (OpenSSL's without its clean-up
    /// at exit: ``aether_curl_global_init``).
    static let ready: Bool = aether_curl_global_init() == CURLE_OK

    /// `cookies`: a store to share with other sessions (a source's); nil: one of its own.
    public init(policy: Policy = Policy(), cookies: CookieStore? = nil) {
        _ = Self.ready
        self.policy = policy
        self.cookies = cookies ?? CookieStore()
        let multi = curl_multi_init()!
        // At most this many idle connections are kept for reuse.
        _ = aether_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, 8)
        state = Guarded(State(multi: multi))
    }

    deinit {
        state.withLock { _ = curl_multi_cleanup($0.multi) }
    }

    /// Moves every transfer of the session on with the lock held: what arrived lands in the
    /// transfers' states, and those that ended are marked so.
    func perform(_ s: inout State) {
        var running: Int32 = 0
        _ = curl_multi_perform(s.multi, &running)
        var left: Int32 = 0
        while let message = curl_multi_info_read(s.multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var pointer: UnsafeMutableRawPointer?
            _ = aether_curl_info_pointer(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            Unmanaged<HTTPTransfer.Progress>.fromOpaque(pointer).takeUnretainedValue().finished(message.pointee.data.result)
        }
    }

    /// Waits (lock held) at most ``pollMilliseconds`` for any of the session's connections to
    /// have something.
    func poll(_ s: inout State) {
        var ready: Int32 = 0
        _ = curl_multi_poll(s.multi, nil, 0, Self.pollMilliseconds, &ready)
    }
}
