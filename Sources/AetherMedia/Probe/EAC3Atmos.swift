/// Detects Dolby Atmos (Joint Object Coding) in an E-AC-3 frame by walking its bit stream
/// information (ATSC A/52:2018 Annex E, `bsi()`) to the additional-bsi field, whose first byte's
/// least significant bit is `flag_ec3_extension_type_a` — the same signal FFmpeg ≥ 7 reads.
/// FFmpeg 5.1 (Debian 12) does not expose it, so we parse it ourselves.
public enum EAC3Atmos {
    /// True when `frame` is an E-AC-3 sync frame whose BSI signals extension type A (JOC).
    public static func frameSignalsJOC(_ frame: [UInt8]) -> Bool {
        var r = BitReader(frame)
        guard r.read(16) == 0x0B77 else { return false }
        let strmtyp = r.read(2)
        _ = r.read(3)          // substreamid
        _ = r.read(11)         // frmsiz
        let fscod = r.read(2)
        var numblkscod = 3
        if fscod == 3 { _ = r.read(2) } else { numblkscod = r.read(2) }
        let numblks = [1, 2, 3, 6][numblkscod]
        let acmod = r.read(3)
        let lfeon = r.read(1)
        let bsid = r.read(5)
        guard bsid > 10, bsid <= 16 else { return false }  // not E-AC-3
        _ = r.read(5)          // dialnorm
        if r.read(1) == 1 { _ = r.read(8) }               // compr
        if acmod == 0 {
            _ = r.read(5)
            if r.read(1) == 1 { _ = r.read(8) }
        }
        if strmtyp == 1, r.read(1) == 1 { _ = r.read(16) } // chanmap
        if r.read(1) == 1 {                                 // mixmdate
            if acmod > 2 { _ = r.read(2) }
            if acmod & 1 == 1, acmod > 2 { _ = r.read(6) }
            if acmod & 4 != 0 { _ = r.read(6) }
            if lfeon == 1, r.read(1) == 1 { _ = r.read(5) }
            if strmtyp == 0 {
                if r.read(1) == 1 { _ = r.read(6) }         // pgmscl
                if acmod == 0, r.read(1) == 1 { _ = r.read(6) }
                if r.read(1) == 1 { _ = r.read(6) }         // extpgmscl
                switch r.read(2) {                          // mixdef
                case 1: _ = r.read(5)
                case 2: _ = r.read(12)
                case 3: r.skip((r.read(5) + 2) * 8)
                default: break
                }
                if acmod < 2 {
                    if r.read(1) == 1 { _ = r.read(14) }
                    if acmod == 0, r.read(1) == 1 { _ = r.read(14) }
                }
                if r.read(1) == 1 {                         // frmmixcfginfoe
                    if numblkscod == 0 { _ = r.read(5) } else {
                        for _ in 0..<numblks where r.read(1) == 1 { _ = r.read(5) }
                    }
                }
            }
        }
        if r.read(1) == 1 {                                 // infomdate
            _ = r.read(5)                                   // bsmod, copyrightb, origbs
            if acmod == 2 { _ = r.read(4) }
            if acmod >= 6 { _ = r.read(2) }
            if r.read(1) == 1 { _ = r.read(8) }
            if acmod == 0, r.read(1) == 1 { _ = r.read(8) }
            if fscod < 3 { _ = r.read(1) }
        }
        if strmtyp == 0, numblkscod != 3 { _ = r.read(1) }  // convsync
        if strmtyp == 2 {
            let blkid = numblkscod == 3 ? 1 : r.read(1)
            if blkid == 1 { _ = r.read(6) }
        }
        guard r.read(1) == 1 else { return false }          // addbsie
        _ = r.read(6)                                        // addbsil
        let first = r.read(8)
        return !r.overran && first & 1 == 1
    }
}

/// MSB-first bit reader that reads zeros (and flags `overran`) past the end instead of trapping.
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0
    private(set) var overran = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = position >> 3
            var bit = 0
            if byte < bytes.count { bit = Int(bytes[byte] >> (7 - UInt8(position & 7))) & 1 } else { overran = true }
            value = value << 1 | bit
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) {
        position += count
        if position > bytes.count * 8 { overran = true }
    }
}
