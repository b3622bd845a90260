/// Moves the timestamps of a Blu-ray clip's transport stream, a 192-byte source packet at a
/// time (a 4-byte arrival time, then a 188-byte TS packet): each clip of a playlist starts its
/// clock where its recording did, and ``DiscInput`` moves each play item onto the playlist's
/// timeline (its in-time where the items before it end). The PCR of an adaptation field and
/// the PTS and DTS of a PES header that starts in the packet are moved; anything it cannot
/// read is left as it is. The PES timestamp itself is ``ProgramStreamRetimer``'s.
public enum TransportStreamRetimer {
    public static let packetBytes = 192

    /// Adds `ticks` (90 kHz) to the clocks of the source packet at `start` of `b` (in place);
    /// returns how many it moved.
    @discardableResult
    public static func shift(_ b: inout [UInt8], from start: Int = 0, by ticks: Int64) -> Int {
        let ts = start + 4
        guard ticks != 0, start + packetBytes <= b.count, b[ts] == 0x47 else { return 0 }
        let control = b[ts + 3] >> 4 & 3
        var payload = ts + 4
        var moved = 0
        if control & 2 != 0 {
            let length = Int(b[ts + 4])
            payload += 1 + length
            // The PCR's 33-bit base (then 6 reserved bits and a 9-bit extension).
            if length >= 7, b[ts + 5] & 0x10 != 0 {
                let p = ts + 6
                let base = Int64(b[p]) << 25 | Int64(b[p + 1]) << 17 | Int64(b[p + 2]) << 9 | Int64(b[p + 3]) << 1 | Int64(b[p + 4] >> 7)
                let value = ((base + ticks) % ProgramStreamRetimer.clockWrap + ProgramStreamRetimer.clockWrap) % ProgramStreamRetimer.clockWrap
                b[p] = UInt8(value >> 25 & 0xFF)
                b[p + 1] = UInt8(value >> 17 & 0xFF)
                b[p + 2] = UInt8(value >> 9 & 0xFF)
                b[p + 3] = UInt8(value >> 1 & 0xFF)
                b[p + 4] = b[p + 4] & 0x7F | UInt8(value & 1) << 7
                moved += 1
            }
        }
        let end = start + packetBytes
        // A PES packet that starts here: its optional header (not padding, private stream 2,
        // maps and the like) with PTS, or PTS and DTS.
        guard b[ts + 1] & 0x40 != 0, control & 1 != 0, payload + 9 <= end, b[payload] == 0, b[payload + 1] == 0, b[payload + 2] == 1,
              ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF].contains(b[payload + 3]), b[payload + 6] & 0xC0 == 0x80 else { return moved }
        let flags = b[payload + 7] >> 6
        if flags >= 2, payload + 14 <= end { moved += ProgramStreamRetimer.move(&b, at: payload + 9, by: ticks) }
        if flags == 3, payload + 19 <= end { moved += ProgramStreamRetimer.move(&b, at: payload + 14, by: ticks) }
        return moved
    }

    /// Per PID (null packets aside), the continuity counter of its first packet in `b` (192-byte
    /// source packets from its start) and whether that packet carries a payload, and the
    /// counter of its last packet.
    public static func continuity(_ b: [UInt8]) -> (first: [Int: (counter: UInt8, payload: Bool)], last: [Int: UInt8]) {
        var first: [Int: (counter: UInt8, payload: Bool)] = [:], last: [Int: UInt8] = [:]
        for at in stride(from: 0, to: b.count - packetBytes + 1, by: packetBytes) where b[at + 4] == 0x47 {
            let pid = Int(b[at + 5] & 0x1F) << 8 | Int(b[at + 6])
            guard pid != 0x1FFF else { continue }
            let counter = b[at + 7] & 0x0F
            if first[pid] == nil { first[pid] = (counter, b[at + 7] & 0x10 != 0) }
            last[pid] = counter
        }
        return (first, last)
    }

    /// Adds `deltas[pid]` (mod 16) to the continuity counter of the source packet at `start`.
    public static func renumber(_ b: inout [UInt8], from start: Int = 0, by deltas: [Int: UInt8]) {
        guard start + packetBytes <= b.count, b[start + 4] == 0x47 else { return }
        let pid = Int(b[start + 5] & 0x1F) << 8 | Int(b[start + 6])
        guard let delta = deltas[pid] else { return }
        b[start + 7] = b[start + 7] & 0xF0 | (b[start + 7] &+ delta) & 0x0F
    }

    /// What to add to each PID's continuity counters in a piece so that its first packets
    /// follow on from `last` (the piece before it, already renumbered by `before`): the
    /// demuxer then sees one stream, not a damaged packet at each join.
    public static func deltas(last: [Int: UInt8], before: [Int: UInt8], first: [Int: (counter: UInt8, payload: Bool)]) -> [Int: UInt8] {
        var out: [Int: UInt8] = [:]
        for (pid, head) in first {
            guard let tail = last[pid] else { continue }
            let wanted = (tail &+ (before[pid] ?? 0) &+ (head.payload ? 1 : 0)) & 0x0F
            let delta = (wanted &- head.counter) & 0x0F
            if delta != 0 { out[pid] = delta }
        }
        return out
    }
}
