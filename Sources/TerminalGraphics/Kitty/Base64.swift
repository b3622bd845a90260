import AetherBase

/// Base64 (RFC 4648, standard alphabet, `=` padding) written straight into reserved output.
///
/// Twelve input bits at a time through a 4096-entry table of character pairs: three bytes become
/// one 32-bit store. The output alphabet is `A–Z a–z 0–9 + / =`, so it never contains ESC (a
/// payload cannot end the escape sequence that carries it).
enum Base64 {
    /// The 64 characters.
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// For every 12-bit value, its two characters packed little-endian (first character in the low byte).
    static let pairs: [UInt16] = (0..<4096).map { v in
        UInt16(alphabet[v >> 6]) | UInt16(alphabet[v & 63]) << 8
    }

    /// Characters for `count` input bytes.
    @inline(__always) static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Encodes `count` bytes from `source` through `writer`, which must have room for
    /// ``encodedCount(_:)`` bytes plus 3 bytes of slack (stores are 4 bytes wide).
    @inline(__always)
    static func encode(_ source: UnsafePointer<UInt8>, count: Int, pairs: UnsafePointer<UInt16>, into writer: inout ByteWriter) {
        var i = 0
        var out = UnsafeMutableRawPointer(writer.cursor)
        while i + 3 <= count {
            let v = UInt32(source[i]) << 16 | UInt32(source[i + 1]) << 8 | UInt32(source[i + 2])
            let word = UInt32(pairs[Int(v >> 12)]) | UInt32(pairs[Int(v & 0xFFF)]) << 16
            out.storeBytes(of: word.littleEndian, as: UInt32.self)
            out += 4
            i += 3
        }
        writer.cursor = out.assumingMemoryBound(to: UInt8.self)
        let rest = count - i
        guard rest > 0 else { return }
        let b0 = UInt32(source[i]), b1 = rest > 1 ? UInt32(source[i + 1]) : 0
        let v = b0 << 16 | b1 << 8
        let first = pairs[Int(v >> 12)], second = pairs[Int(v & 0xFFF)]
        let pad = UInt8(ascii: "=")
        writer.bytes(UInt8(truncatingIfNeeded: first), UInt8(truncatingIfNeeded: first >> 8))
        writer.bytes(rest > 1 ? UInt8(truncatingIfNeeded: second) : pad, pad)
    }

    /// `bytes` in base64 (short strings: names, queries).
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedCount(bytes.count))
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i]), b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(v & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return out
    }
}
