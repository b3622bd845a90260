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
}
