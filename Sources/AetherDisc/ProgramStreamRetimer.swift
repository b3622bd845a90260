/// Moves the timestamps of a DVD's program stream, a 2048-byte pack at a time: a title whose
/// cells come from separate recordings (another VOB id) starts its clock again at each, and the
/// demuxer would take the second cell for one far in the past (seen: a two-cell title of 3 s and
/// 4 s played 4 s, its second cell's frames dropped as early). ``DiscInput`` moves each such
/// cell onto the title's timeline: its first VOBU (`vobu_s_ptm` of its navigation pack) where
/// the IFO's cell times put it. Every field is read inside the pack; anything it cannot read is
/// left as it is.
public enum ProgramStreamRetimer {
    public static let packBytes = 2048
    /// 90 kHz ticks of MPEG's 33-bit clock.
    static let clockWrap: Int64 = 1 << 33

    /// The presentation start of the VOBU a navigation pack begins (`vobu_s_ptm`, 90 kHz), or
    /// nil when `pack` is not one (pack header, system header, then PCI in private stream 2).
    public static func vobuStart(_ pack: ArraySlice<UInt8>) -> Int64? {
        let b = Array(pack.prefix(packBytes))
        guard b.count >= 61, b[0...3] == [0, 0, 1, 0xBA], b[38...41] == [0, 0, 1, 0xBF], b[44] == 0 else { return nil }
        return Int64(b[57]) << 24 | Int64(b[58]) << 16 | Int64(b[59]) << 8 | Int64(b[60])
    }

    /// Adds `ticks` (90 kHz) to every PTS and DTS of the PES packets in `pack` (one 2048-byte
    /// pack, changed in place); returns how many timestamps it moved.
    @discardableResult
    public static func shift(_ pack: inout [UInt8], from start: Int = 0, by ticks: Int64) -> Int {
        guard ticks != 0, let (first, end) = packets(in: pack, from: start) else { return 0 }
        var at = first, moved = 0
        while let length = packetLength(pack, at: at, end: end) {
            let id = pack[at + 3]
            let timed = (0xC0...0xEF).contains(id) || id == 0xBD
            if timed, at + 9 <= end, pack[at + 6] & 0xC0 == 0x80 {
                let flags = pack[at + 7] >> 6
                if flags >= 2, at + 14 <= end { moved += move(&pack, at: at + 9, by: ticks) }
                if flags == 3, at + 19 <= end { moved += move(&pack, at: at + 14, by: ticks) }
            }
            at += 6 + length
        }
        return moved
    }

    /// Where the PES packets of the pack at `start` begin (after its header and stuffing) and
    /// where the pack ends; nil when no MPEG-2 pack header is there. What ``shift(_:from:by:)``
    /// and ``hideNavigation(_:from:)`` walk.
    static func packets(in pack: [UInt8], from start: Int) -> (first: Int, end: Int)? {
        let end = min(pack.count, start + packBytes)
        guard end - start >= 14, pack[start..<(start + 4)] == [0, 0, 1, 0xBA], pack[start + 4] & 0xC0 == 0x40 else { return nil }
        return (start + 14 + Int(pack[start + 13] & 7), end)
    }

    /// The length of the PES packet (or system header) at `at` after its 6-byte start, nil when
    /// no start code is there inside `end`.
    static func packetLength(_ pack: [UInt8], at: Int, end: Int) -> Int? {
        guard at + 6 <= end, pack[at] == 0, pack[at + 1] == 0, pack[at + 2] == 1 else { return nil }
        return Int(pack[at + 4]) << 8 | Int(pack[at + 5])
    }

    /// Turns the navigation packets (PCI and DSI, in private stream 2) of `pack` (one 2048-byte
    /// pack, changed in place) into padding, which the demuxer skips: the disc's navigation is
    /// read from its IFO files (``DVDInfo``), and libavformat would make a stream of it
    /// (`dvd_nav_packet`) that plays nothing yet takes the first stream number, so a DVD's
    /// video would be `#1` where a Blu-ray's and a file's is `#0`. Returns how many it hid.
    @discardableResult
    public static func hideNavigation(_ pack: inout [UInt8], from start: Int = 0) -> Int {
        guard let (first, end) = packets(in: pack, from: start) else { return 0 }
        var at = first, hidden = 0
        while let length = packetLength(pack, at: at, end: end) {
            if pack[at + 3] == 0xBF {
                pack[at + 3] = 0xBE  // padding_stream: its length is kept, its bytes skipped
                hidden += 1
            }
            at += 6 + length
        }
        return hidden
    }

    /// The 5-byte timestamp at `at` (4-bit prefix, 33 bits with marker bits), moved by `ticks`.
    static func move(_ b: inout [UInt8], at: Int, by ticks: Int64) -> Int {
        let value = Int64(b[at] >> 1 & 7) << 30 | Int64(b[at + 1]) << 22 | Int64(b[at + 2] >> 1) << 15
            | Int64(b[at + 3]) << 7 | Int64(b[at + 4] >> 1)
        let moved = ((value + ticks) % clockWrap + clockWrap) % clockWrap
        b[at] = b[at] & 0xF0 | UInt8(moved >> 29 & 0x0E) | 1
        b[at + 1] = UInt8(moved >> 22 & 0xFF)
        b[at + 2] = UInt8(moved >> 14 & 0xFE) | 1
        b[at + 3] = UInt8(moved >> 7 & 0xFF)
        b[at + 4] = UInt8(moved << 1 & 0xFE) | 1
        return 1
    }
}
