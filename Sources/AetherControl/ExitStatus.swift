/// How the program ends, one table: the controller decides which status a run ends with
/// (``of(played:failed:items:endedEarly:)``), the hosts and the command line exit with its
/// `rawValue`, and the man page's EXIT STATUS lists every case (`ExitStatusTests` holds the table
/// and the page together). mpv's where it has one: 1 for a bad option or a file that failed.
/// A crash has no status here: the process dies of its signal once the report is written
/// (CTerminal's crash handler), so the shell sees 128 + the signal's number.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Played to the end, or quit with `q`.
    case ok = 0
    /// The source could not be opened, an option or its value was wrong, or nothing in a single
    /// file could be played.
    case failed = 1
    /// None of several files could be played, there was nothing to play, or playback ended
    /// early (truncated or unreadable data; `probe --packets` stopped at a read error).
    case incomplete = 2
    /// Of several files, some played and some could not be.
    case partial = 3
    /// Stopped by a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT); an interrupted download.
    case interrupted = 4
    /// A network source failed to deliver, and nothing else failed: the last line names the
    /// cause (connection refused, timed out, reset, an HTTP status, TLS, a host name that does
    /// not resolve) and the URL. What a server sent and was refused (a budget, a malformed
    /// manifest) is 1 or 2 as any other file's.
    case network = 5

    /// A run over `items` items of which `played` played and `failed` could not be, one of
    /// them having ended early when `endedEarly`; `network`: every item that failed or ended
    /// early did so for a network cause.
    public static func of(played: Int, failed: Int, items: Int, endedEarly: Bool, network: Bool = false) -> ExitStatus {
        if failed == 0 { return endedEarly ? (network ? .network : .incomplete) : .ok }
        if played <= 0 { return network ? .network : items <= 1 ? .failed : .incomplete }
        return .partial
    }
}
