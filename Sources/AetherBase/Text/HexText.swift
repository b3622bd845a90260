/// Bytes as hexadecimal text, two digits a byte: the one spelling of a digest, an IV or a key
/// in a file name, a state file or the inspector.
public enum HexText {
    /// `bytes` as `0a1b…` (`uppercase`: `0A1B…`, as mpv's watch-later file names).
    public static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        digits.withUTF8Buffer { table in
            for b in bytes {
                out.append(table[Int(b >> 4)])
                out.append(table[Int(b & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells (two digits a byte, either case); nil when it is not that.
    public static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ d: UInt8) -> UInt8? {
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return d - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return d - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return d - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
