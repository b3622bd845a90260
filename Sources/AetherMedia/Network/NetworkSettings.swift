import AetherTransport
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How network sources are fetched: what every request carries, how long a read may wait, and
/// how hard a broken transfer is retried.
public struct NetworkSettings: Sendable, Equatable {
    /// Extra request headers, sent with every request (the source, HLS/DASH playlists, segments
    /// and keys, sidecar subtitles, the frame extractor's own connection).
    public var headers: [String: String] = [:]
    /// `User-Agent` (libavformat's default when nil).
    public var userAgent: String?
    /// `Referer`.
    public var referrer: String?
    /// Seconds one read (or connect) may wait for a byte before it counts as a failure, and
    /// the one budget of every reconnect: a source that got no byte it asked for this long
    /// (over all its transfers) gives up (``NetworkFailure``). A stalled read is reconnected
    /// once however long it waited.
    public var readTimeout: Double = 10
    /// Transient failures (connection reset, timeout, 5xx, a body cut short) one transfer
    /// retries in a row before it gives up (the source's budget is ``readTimeout``).
    public var retries = 6
    /// Bytes read and dropped, at most, to reach a position of a resource whose server does
    /// not serve byte ranges (it answers a range with the whole resource): an MP4 whose index is
    /// at its end, a seek (`--demuxer-max-bytes`, mpv's default 150 MiB).
    public var forwardReadLimit: Int64 = 150 << 20
    /// First retry delay in seconds; doubled on each further attempt, with ±25 % jitter, and
    /// capped at ``maxBackoff``.
    public var initialBackoff = 0.25
    public var maxBackoff = 4.0
    /// How TLS connections are checked (`--tls-verify`, `--tls-ca-file`): every certificate
    /// against the system's authorities, unless told otherwise.
    public var tls = TransportSession.Policy()

    public init() {}

    /// ``readTimeout`` as libavformat's `rw_timeout` option (microseconds, at least 0.1 s).
    package var readTimeoutOption: String { String(Int64(saturating: min(86_400, max(0.1, readTimeout.isNaN ? 10 : readTimeout)) * 1_000_000)) }

    /// The delay before retry `attempt` (1-based), jitter drawn from `unit` (0...1).
    public func backoff(attempt: Int, unit: Double) -> Double {
        let base = min(maxBackoff, initialBackoff * pow(2, Double(max(0, attempt - 1))))
        return base * (0.75 + 0.5 * min(1, max(0, unit)))
    }

    /// True for URLs whose bytes come over the network (the resilient reader and the demuxer
    /// cache apply to them; `file:`, `pipe:` and plain paths are local).
    public static func isNetwork(_ url: String) -> Bool {
        guard let scheme = scheme(of: url) else { return false }
        return !["file", "pipe", "fd", "data", "memory"].contains(scheme)
    }

    /// FFmpeg's words for a failed open, made specific where they are vague (``diagnose(_:url:options:timeout:openDeadline:)``).
    public static func explain(_ error: FFmpegError, url: String, options: [String: String] = [:], timeout: Double = 10,
                               openDeadline: Double? = nil, clock: TimeSource) -> String {
        diagnose(error, url: url, options: options, timeout: timeout, openDeadline: openDeadline, clock: clock).line
    }

    /// A failed open of `url`, its cause named: an I/O error on a host name that does not
    /// resolve says so; on an https URL whose port answers TCP but not TLS, that the handshake
    /// failed; a redirect loop or a redirect to a local file (``RedirectProbe``, with the
    /// source's `options`) says so. With `openDeadline` (the open's deadline, when it was not
    /// the user who interrupted it), an interrupted open says it ran out of time rather than
    /// "Immediate exit requested". The cause is ``NetworkFailure/Cause/other`` for a local source.
    /// The probes (the handshake, the redirects) are timed by `clock`.
    public static func diagnose(_ error: FFmpegError, url: String, options: [String: String] = [:], timeout: Double = 10,
                                openDeadline: Double? = nil, clock: TimeSource) -> NetworkFailure {
        guard isNetwork(url) else { return NetworkFailure(.other, url: url, line: error.message) }
        let host = URLComponents(string: url)?.host ?? ""
        if error.code == aether_AVERROR(EIO), !host.isEmpty, !resolves(host) {
            return NetworkFailure(.dns(host: host), url: url, line: "cannot resolve host '\(TextSanitizer.clean(host))'")
        }
        if error.code == aether_AVERROR(EIO), error.network.map({ $0.cause == .other }) ?? true,
           RedirectProbe.handshakeFails(url: url, interrupt: InterruptToken(clock: clock), timeout: timeout) {
            return NetworkFailure(.tls, url: url, line: "TLS handshake with '\(TextSanitizer.clean(host))' failed")
        }
        // The network layer's own reason (a refusal, a transfer that gave up) is specific already.
        if let failure = error.network { return failure }
        let cause = NetworkFailure.Cause.of(error.code, flowing: false)
        if error.code == aether_AVERROR_EXIT(), let openDeadline {
            return NetworkFailure(.timedOut, url: url, line: "no complete answer within \(String(cFormat: "%g", openDeadline)) s")
        }
        if let why = RedirectProbe.explain(error: error.code, url: url, options: options, interrupt: InterruptToken(clock: clock), timeout: timeout) {
            return NetworkFailure(.policy, url: url, line: why)
        }
        return NetworkFailure(cause, url: url, line: error.message)
    }

    private static func resolves(_ host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        if let result { freeaddrinfo(result) }
        return status == 0
    }

    /// The URL's scheme, lower-cased (`crypto+http://` gives `crypto+http`); nil for a path.
    public static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        guard scheme.count >= 2, let first = scheme.unicodeScalars.first, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// The file a local source names: a path, or a `file:` URL's path; nil for stdin (`-`) and
    /// any other scheme.
    public static func localPath(_ url: String) -> String? {
        if url.hasPrefix("file:") { return String(url.dropFirst(5)) }
        return url == "-" || scheme(of: url) != nil ? nil : url
    }
}

/// What the network is doing for the current source.
public struct NetworkStatus: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Bytes arrive (or nothing is being fetched).
        case flowing
        /// A transfer broke and is being retried: the reconnect's number (1-based, counted over
        /// every transfer since the source's last byte) and the seconds left before the source
        /// gives up (`--network-timeout` without a byte; nil when not known).
        case reconnecting(attempt: Int, secondsLeft: Double?)
        /// A transfer gave up: why.
        case failed(NetworkFailure)
    }
    public var phase: Phase = .flowing
    /// Body bytes received over every connection of the source.
    public var bytes: Int64 = 0
    /// Requests made (first opens and reconnects).
    public var requests = 0
    /// Reconnects after a transient failure.
    public var retries = 0
    /// HLS discontinuities (an inserted ad's start and end) played across.
    public var discontinuities = 0
    /// The source's throughput estimate in bytes per second: the moving averages bit-rate
    /// switching decides by (fed by whole segments; without switching, by one-second windows of
    /// the bytes as they arrive); 0 before the first sample.
    public var throughput: Double = 0
    /// The last transient failure, for the stats box.
    public var lastError: String?
    /// What an internet radio station says about itself (nil: the source is not one).
    public var station: StationMetadata?

    public init() {}
}

