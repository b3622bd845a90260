/// A radio station's side of its ``ResilientInput`` across reconnects: the in-band title blocks
/// (each parsed only when it differs from the last, ``StationMetadata``) and the drop its
/// reconnects are timed from (they stop ``NetworkSettings/readTimeout`` after its last byte).
struct StationConnection {
    /// The last in-band block read.
    private var lastPacket: [UInt8] = []
    /// No block yet on a connection that resumed the station
    /// (``StationMetadata/take(packet:reconnected:)``).
    private var resumed = false
    /// When its last byte arrived (seconds of the session's clock).
    private(set) var lastByteAt: Double?
    /// Why its bytes stopped (the first failure since the last byte), for the line that gives up.
    private var dropCause: String?

    /// The station as a new connection finds it: no block read on it yet; `resuming`: it follows
    /// a drop.
    func connected(resuming: Bool) -> StationConnection {
        var s = self
        s.lastPacket = []
        s.resumed = resuming
        return s
    }

    /// Bytes arrived at `now`.
    mutating func received(at now: Double) {
        lastByteAt = now
        dropCause = nil
    }

    /// Whether `block` is the first on a resumed connection, or nil when it is empty or the same
    /// as the last one (nothing to parse).
    mutating func newBlock(_ block: [UInt8]) -> Bool? {
        guard !block.isEmpty, block != lastPacket else { return nil }
        lastPacket = block
        defer { resumed = false }
        return resumed
    }

    /// The cause of the drop: the first failure (`message`) since the last byte.
    mutating func dropped(_ message: String) -> String {
        let cause = dropCause ?? message
        dropCause = cause
        return cause
    }
}
