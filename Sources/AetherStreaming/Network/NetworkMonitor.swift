import AetherBase
import AetherMedia

/// Collects ``NetworkStatus`` from every reader of one source (main input, playlists,
/// segments), from whichever thread reads, and owns the source's one throughput estimate (a
/// ``ThroughputEstimator``): what bit-rate switching decides by (``AdaptiveSwitcher`` feeds it
/// and reads it), what the stats box, telemetry and IPC show.
///
/// What feeds the estimate (``Feed``): a segmented source's whole-segment downloads
/// (``measured(bytes:seconds:mediaSeconds:)``: their bytes flowing through ``received(_:)`` are
/// counted, not sampled twice); any other source's arrivals, in windows of at least
/// ``windowSeconds`` (a window still open after ``stallSeconds``, no byte since its first
/// second, is closed when the status is read: a stall or an idle source brings the estimate down).
package final class NetworkMonitor: Sendable {
    package enum Feed: Sendable {
        /// Whole-segment downloads (a source with bit-rate switching).
        case segments
        /// Bytes as they arrive, in windows (a progressive stream, a playlist read by the demuxer).
        case arrivals
    }

    private struct State {
        var status = NetworkStatus()
        var estimator: ThroughputEstimator
        /// The open arrival window: when it began (seconds of ``clock``, nil: none open) and its bytes.
        var windowStart: Double?
        var windowBytes: Int64 = 0
        /// When a title change was last logged, and the changes since that were not.
        var titleLoggedAt: Double?
        var titlesNotLogged = 0
        /// While reconnecting: when the source gives up (seconds of ``clock``).
        var givesUpAt: Double?
    }
    private let state: Guarded<State>
    private let clock: TimeSource
    let feed: Feed

    /// An arrival window is closed into a sample at the first byte after this many seconds.
    static let windowSeconds = 1.0
    /// An arrival window open this long (no byte since its first second) is closed when the status is read.
    static let stallSeconds = 2.0
    /// The estimator's policy for arrival windows: every window counts, however few its bytes
    /// (a trickle is what the link does).
    static let arrivalPolicy: ThroughputEstimator.Policy = {
        var p = ThroughputEstimator.Policy()
        p.minSampleBytes = 0
        return p
    }()

    /// `policy`: the estimator's (segments: the switcher's ``AdaptivePolicy/estimator``).
    package init(feed: Feed = .arrivals, policy: ThroughputEstimator.Policy? = nil, clock: TimeSource) {
        self.feed = feed
        self.clock = clock
        let policy = policy ?? (feed == .arrivals ? Self.arrivalPolicy : ThroughputEstimator.Policy())
        state = Guarded(State(estimator: ThroughputEstimator(policy: policy)))
    }

    // Every reading of the clock is taken inside the lock: readers on several threads (the
    // main input, segments, playlists) and the status getter otherwise saw a newer time stored
    // than their own.
    func received(_ count: Int) {
        state.withLock { s in
            s.status.bytes += Int64(count)
            if feed == .arrivals {
                let now = clock.seconds
                s.windowBytes += Int64(count)
                if let start = s.windowStart {
                    if now - start >= Self.windowSeconds { close(&s, now: now) }
                } else {
                    s.windowStart = now
                }
            }
            if case .reconnecting = s.status.phase { s.status.phase = .flowing }
        }
    }

    /// Closes the open arrival window into a sample and opens the next at `now`.
    private func close(_ s: inout State, now: Double) {
        guard let start = s.windowStart else { return }
        s.estimator.sample(bytes: Int(clamping: s.windowBytes), seconds: now - start, mediaSeconds: 0)
        s.windowStart = now
        s.windowBytes = 0
    }

    /// A whole segment was downloaded: `bytes` in `seconds`, `mediaSeconds` of media (the
    /// weight, ``ThroughputEstimator/sample(bytes:seconds:mediaSeconds:)``). False when the
    /// sample was left out.
    @discardableResult
    package func measured(bytes: Int, seconds: Double, mediaSeconds: Double) -> Bool {
        state.withLock { $0.estimator.sample(bytes: bytes, seconds: seconds, mediaSeconds: mediaSeconds) }
    }

    /// The estimator as it stands (its estimate, fast average and last rate, in bits per second).
    package var throughput: ThroughputEstimator { state.withLock { $0.estimator } }

    func requested() { state.withLock { $0.status.requests += 1 } }

    /// Discontinuities played across so far (``HLSSplice/crossings``).
    func discontinuities(_ count: Int) { state.withLock { $0.status.discontinuities = count } }

    /// A transfer broke and is retried: reconnect `attempt` of the outage (``NetworkSession/Outage``),
    /// which gives up at `givesUpAt` (seconds of the clock; nil: no deadline, a per-transfer count).
    func reconnecting(attempt: Int, after error: String, givesUpAt: Double?) {
        state.withLock {
            $0.status.retries += 1
            $0.status.phase = .reconnecting(attempt: attempt, secondsLeft: nil)
            $0.status.lastError = error
            $0.givesUpAt = givesUpAt
        }
    }

    func recovered() {
        state.withLock { if case .reconnecting = $0.status.phase { $0.status.phase = .flowing } }
    }

    /// The station's headers (at each connection) or an in-band block changed what it says;
    /// a new title is one log line, at most one each ``titleLogInterval`` (a station that
    /// floods titles gets the count of those not logged in its next line).
    func station(_ update: (inout StationMetadata) -> Bool) {
        let line: String? = state.withLock { s in
            var station = s.status.station ?? StationMetadata()
            let changed = update(&station)
            s.status.station = station
            guard changed else { return nil }
            let now = clock.seconds
            if let last = s.titleLoggedAt, now - last < Self.titleLogInterval {
                s.titlesNotLogged += 1
                return nil
            }
            defer { s.titleLoggedAt = now; s.titlesNotLogged = 0 }
            let skipped = s.titlesNotLogged > 0 ? " (\(s.titlesNotLogged) change(s) before it not logged)" : ""
            return "title: \(station.title ?? "(none)")\(skipped)"
        }
        if let line { AppLog.write("radio", line) }
    }

    /// Title changes closer than this to the last one logged are counted, not logged.
    static let titleLogInterval = 1.0

    func failed(_ failure: NetworkFailure) { state.withLock { $0.status.phase = .failed(failure) } }

    /// The status; its ``NetworkStatus/throughput`` is the estimate in bytes per second.
    package var status: NetworkStatus {
        state.withLock { s in
            // Nothing for a while: the open window is what arrived (the estimate falls).
            if let start = s.windowStart {
                let now = clock.seconds
                if now - start >= Self.stallSeconds { close(&s, now: now) }
            }
            var status = s.status
            if case .reconnecting(let attempt, _) = status.phase, let end = s.givesUpAt {
                status.phase = .reconnecting(attempt: attempt, secondsLeft: max(0, end - clock.seconds))
            }
            status.throughput = (s.estimator.estimate ?? 0) / 8
            return status
        }
    }
}
