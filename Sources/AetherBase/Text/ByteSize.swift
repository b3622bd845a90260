/// Sizes as mpv writes them (`512M`, `2G`, `1.5GiB`, `65536`): a number of bytes, or with a
/// binary suffix k/KiB, M/MiB, G/GiB, T/TiB (case-insensitive; `KB`, `MB` … mean the same).
public enum ByteSize {
    /// The size in bytes; nil for anything else (negative, not finite, over 1 PiB).
    public static func parse(_ text: String) -> Int64? {
        var number = text.trimmingWhitespace().lowercased()
        var scale = 1.0
        for (suffixes, factor) in [(["kib", "kb", "k"], 1024.0), (["mib", "mb", "m"], 1048576.0),
                                   (["gib", "gb", "g"], 1073741824.0), (["tib", "tb", "t"], 1099511627776.0)] {
            if let suffix = suffixes.first(where: { number.hasSuffix($0) }) {
                number.removeLast(suffix.count)
                scale = factor
                break
            }
        }
        if number.hasSuffix("b"), scale == 1 { number.removeLast() }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number), value.isFinite, value >= 0 else { return nil }
        let bytes = (value * scale).rounded()
        guard bytes <= 1_125_899_906_842_624 else { return nil }
        return Int64(saturating: bytes)
    }

    /// `bytes` in a few characters: `150 MiB` when whole MiB, else `512 KiB`, else `300 bytes`.
    public static func describe(_ bytes: Int64) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
