import AetherBase
import AetherMedia

/// Collects ``NetworkStatus`` from every reader of one source (main input, playlists,
/// segments), from whichever thread reads.
package final class NetworkMonitor: Sendable {
    private struct State {
        var status = NetworkStatus()
        var windowStart: UInt64 = 0
        var windowBytes: Int64 = 0
        var lastByte: UInt64 = 0
    }
    private let state = Guarded(State())

    // Every reading of the clock is taken inside the lock: readers on several threads (the
    // main input, segments, playlists) and the status getter otherwise saw a newer time stored
    // than their own, and the unsigned difference trapped (a crash under load, in the bit-rate
    // switching test, with a segment reader and the status getter racing).
    func received(_ count: Int) {
        state.withLock { s in
            let now = MonotonicClock.nanoseconds()
            s.status.bytes += Int64(count)
            s.windowBytes += Int64(count)
            s.lastByte = now
            if s.windowStart == 0 { s.windowStart = now }
            let elapsed = Double(now - s.windowStart) / 1e9
            if elapsed >= 1 {
                s.status.throughput = Double(s.windowBytes) / elapsed
                s.windowStart = now
                s.windowBytes = 0
            }
            if case .reconnecting = s.status.phase { s.status.phase = .flowing }
        }
    }

    func requested() { state.withLock { $0.status.requests += 1 } }

    func reconnecting(attempt: Int, after error: String) {
        state.withLock {
            $0.status.retries += 1
            $0.status.phase = .reconnecting(attempt: attempt)
            $0.status.lastError = error
        }
    }

    func recovered() {
        state.withLock { if case .reconnecting = $0.status.phase { $0.status.phase = .flowing } }
    }

    func failed(_ reason: String) { state.withLock { $0.status.phase = .failed(reason) } }

    package var status: NetworkStatus {
        state.withLock { s in
            let now = MonotonicClock.nanoseconds()
            var status = s.status
            // Nothing for over two seconds: the rate is what arrived in the open window.
            if s.lastByte != 0, now - s.lastByte > 2_000_000_000 { status.throughput = 0 }
            return status
        }
    }
}
