import AetherBase
import AetherMedia
import AetherStreaming

/// Why a source cannot play: what `Player.load`, `SourceOpener.open` and a session's start throw,
/// and what a session that failed later says (``Player/failure``). It keeps its cause, so a host
/// can tell one failure from another without reading the text; ``description`` is the one line
/// shown for it (the TUI's message, the headless error line, IPC's `end-file` reason).
public struct PlayerError: Error, Sendable, CustomStringConvertible {
    public enum Cause: Sendable {
        /// An FFmpeg call failed: its function and `AVERROR` code.
        case ffmpeg(function: String, code: Int32)
        /// A network source failed (its cause named: refused, timed out, an HTTP status, …).
        case network(NetworkFailure)
        /// A system call failed: `errno`.
        case system(errno: Int32)
        /// What the source sent was refused (a value out of range, a budget passed).
        case refused(budget: Bool)
        /// A web page had no media yt-dlp could find, or yt-dlp failed.
        case page
        /// Opened, but nothing in it can be played (no stream, or every one undecodable or
        /// encrypted).
        case nothingToPlay
        /// The open was cancelled (a quit, a newer load).
        case interrupted
        /// Anything else, said by the message alone.
        case other
    }

    public let message: String
    public let cause: Cause

    public init(_ message: String, cause: Cause = .other) {
        self.message = message
        self.cause = cause
    }

    // The other modules' errors as a player error, each by its type, its cause kept.
    public init(_ e: FFmpegError) { self.init(e.message, cause: .ffmpeg(function: e.function, code: e.code)) }
    public init(_ e: OutsideValue.Refusal) { self.init(e.message, cause: .refused(budget: e.isBudget)) }
    public init(_ e: PageError) { self.init(e.message, cause: .page) }
    public init(_ e: NetworkFailure) { self.init(e.line, cause: .network(e)) }
    /// A header given that no request may carry (refused before anything is fetched).
    public init(_ e: SourceOptions.InvalidHeader) { self.init(e.description, cause: .refused(budget: false)) }

    public var description: String { message }

    /// The system's error number behind the failure, when there is one (FFmpeg's `AVERROR(e)`
    /// of a file or socket call is `-e`).
    public var errno: Int32? {
        switch cause {
        case .system(let e): return e
        case .ffmpeg(_, let code) where code < 0 && code > -4096: return -code
        default: return nil
        }
    }

    /// The network failure behind it, when a network cause is.
    public var network: NetworkFailure? {
        if case .network(let failure) = cause { return failure }
        return nil
    }
}
