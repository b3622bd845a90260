import AetherBase

/// Tells a wedged live source from a slow one (AetherEngine's stall watchdog). A wedged source
/// keeps delivering bytes (at least ``minimumBytes`` over ``seconds``) while the newest
/// timestamp read from it stands still: a server looping an old segment, a playlist that
/// names the same segments again under new numbers. It is reopened at the live edge
/// (``PlayerController``). A slow source delivers few bytes in that time: it is rebuffered as
/// any other. Pure: the time, the newest timestamp and the bytes come in.
struct StallWatchdog: Equatable {
    enum Verdict: Equatable {
        case fine
        /// `bytes` arrived over `seconds` and brought no newer timestamp.
        case wedged(bytes: Int64, seconds: Double)
    }

    /// How long the newest timestamp may stand still while bytes arrive.
    static let seconds = 10.0
    /// Bytes over ``seconds`` that make a source "delivering" (a trickle below is slow, not wedged).
    static let minimumBytes: Int64 = 256 << 10

    /// The newest timestamp seen, when it last moved (seconds of the clock) and the bytes then.
    private var newest: Double?
    private var movedAt = 0.0
    private var bytesThen: Int64 = 0

    /// Looks at the source at `now`: its newest timestamp read (nil: none yet) and the bytes
    /// received in all. A wedge is said once; the watch starts again from it.
    mutating func observe(now: Double, newest timestamp: Double?, bytes: Int64) -> Verdict {
        if let timestamp, newest.map({ timestamp > $0 + 0.001 }) ?? true {
            newest = timestamp
            movedAt = now
            bytesThen = bytes
            return .fine
        }
        guard newest != nil, now - movedAt >= Self.seconds else { return .fine }
        let arrived = bytes - bytesThen, waited = now - movedAt
        movedAt = now
        bytesThen = bytes
        return arrived >= Self.minimumBytes ? .wedged(bytes: arrived, seconds: waited) : .fine
    }
}
