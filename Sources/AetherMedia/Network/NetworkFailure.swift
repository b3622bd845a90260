import CFFmpeg
import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// Why a network transfer, or a whole network source, gave up: its cause named in the user's
/// words (refused, timed out, reset, an HTTP status, TLS, a name that does not resolve, a budget)
/// and the URL it happened on. What the player's last line says, what the exit code is chosen
/// by (``ExitStatus/network``), and what the stats box shows.
public struct NetworkFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Cause: Sendable, Equatable {
        /// The host name does not resolve.
        case dns(host: String)
        /// Nothing listens there (the connection was refused).
        case refused
        /// No byte within the read deadline (`--network-timeout`).
        case timedOut
        /// The connection was reset or broke.
        case reset
        /// The server answered with an HTTP error status (499: a 4xx libavformat does not name).
        case http(status: Int)
        /// The TLS handshake failed (the port answers, but not with TLS, or the peer refused).
        case tls
        /// The server's certificate is not trusted (no authority the player trusts signed it,
        /// or it names another host): refused, as `curl` refuses it (`--tls-verify=no` plays it).
        case certificate
        /// The server closed the connection before the body's end.
        case closed
        /// A budget of ours was passed (its name, as the man page lists it).
        case budget(String)
        /// A URL the policy does not allow (a local file or another protocol from a network source).
        case policy
        /// Anything else (FFmpeg's words say it).
        case other

        /// The cause of an FFmpeg error `code` (`flowing`: bytes had arrived, so an I/O error is
        /// a broken transfer, not a name that does not resolve).
        public static func of(_ code: Int32, flowing: Bool = true) -> Cause {
            let status = Int(aether_http_status_of(code))
            if status != 0 { return .http(status: status) }
            switch code {
            case aether_AVERROR(ECONNREFUSED): return .refused
            case aether_AVERROR(ETIMEDOUT): return .timedOut
            case aether_AVERROR(ECONNRESET), aether_AVERROR(ECONNABORTED), aether_AVERROR(EPIPE), aether_AVERROR(ENETRESET): return .reset
            case aether_AVERROR(ENETUNREACH), aether_AVERROR(EHOSTUNREACH), aether_AVERROR(ENETDOWN): return .refused
            case aether_AVERROR(EFBIG): return .budget("")
            case aether_AVERROR(EIO) where flowing: return .reset
            default: return .other
            }
        }

        /// The cause in a word or two, for the stats box and the stats file (`failed: certificate`).
        public var name: String {
            switch self {
            case .dns: return "host not found"
            case .refused: return "refused"
            case .timedOut: return "timed out"
            case .reset: return "reset"
            case .http(let status): return "HTTP \(status)"
            case .tls: return "TLS"
            case .certificate: return "certificate"
            case .closed: return "closed early"
            case .budget: return "budget"
            case .policy: return "policy"
            case .other: return "error"
            }
        }

        /// Whether the network failed to deliver (the exit status of its own, 5), rather than
        /// what it delivered being refused (a budget, the policy, anything else: the usual one).
        /// A certificate nobody trusted is the network's (issue 59): the server cannot be
        /// reached as the one named, as a failed handshake cannot.
        public var isTransport: Bool {
            switch self {
            case .dns, .refused, .timedOut, .reset, .http, .tls, .certificate, .closed: return true
            case .budget, .policy, .other: return false
            }
        }
    }

    public let cause: Cause
    /// The URL it happened on (sanitised).
    public let url: String
    /// The whole line (sanitised): what happened, in FFmpeg's or our words.
    public let line: String

    /// `line` is said as is (it names the cause and, where it is not the source's own, the URL).
    public init(_ cause: Cause, url: String, line: String) {
        self.cause = cause
        self.url = TextSanitizer.clean(url)
        self.line = TextSanitizer.clean(line)
    }

    public var description: String { line }
}
