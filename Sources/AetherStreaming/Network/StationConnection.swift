/// A radio station's side of its ``ResilientInput`` across reconnects: the in-band title blocks
/// (each parsed only when it differs from the last, ``StationMetadata``). Its reconnects are
/// timed by the session's outage (``NetworkSession/Outage``), as every transfer's.
struct StationConnection {
    /// The last in-band block read.
    private var lastPacket: [UInt8] = []
    /// No block yet on a connection that resumed the station
    /// (``StationMetadata/take(packet:reconnected:)``).
    private var resumed = false
    /// The station as a new connection finds it: no block read on it yet; `resuming`: it follows
    /// a drop.
    func connected(resuming: Bool) -> StationConnection {
        var s = self
        s.lastPacket = []
        s.resumed = resuming
        return s
    }

    /// Whether `block` is the first on a resumed connection, or nil when it is empty or the same
    /// as the last one (nothing to parse).
    mutating func newBlock(_ block: [UInt8]) -> Bool? {
        guard !block.isEmpty, block != lastPacket else { return nil }
        lastPacket = block
        defer { resumed = false }
        return resumed
    }
}
