import Foundation

/// Finds CENC-protected tracks in an MP4/MOV header by its boxes: an `encv`/`enca` sample entry
/// and the `schm` scheme (`cenc`, `cbcs` …). libavformat hides them (it maps the entry to the
/// original format) and, for fragments it cannot read, never hands out a packet whose side data
/// would say so; this lets the player say "encrypted" instead of "invalid data".
public enum EncryptionScan {
    public struct Finding: Equatable, Sendable {
        public var video = false
        public var audio = false
        public var scheme = "cenc"
    }

    /// How much of the file is looked at (a `moov` at the start is well inside it).
    static let window = 8 << 20

    /// Scans the first `window` bytes of a local file; nil when nothing is encrypted.
    public static func scan(path: String) -> Finding? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: window) else { return nil }
        return scan(bytes: [UInt8](data))
    }

    /// Looks for `size` + `encv`/`enca` box headers (a plausible big-endian size before the type).
    public static func scan(bytes: [UInt8]) -> Finding? {
        var finding = Finding()
        var found = false
        let n = bytes.count
        var i = 4
        while i + 4 <= n {
            if bytes[i] == 0x65 || bytes[i] == 0x73 {  // 'e' (encv/enca) or 's' (schm)
                let type = String(decoding: bytes[i..<i + 4], as: UTF8.self)
                let size = bytes[(i - 4)..<i].reduce(0) { $0 << 8 | Int($1) }
                if size >= 8, size <= 1 << 20 {
                    switch type {
                    case "encv": finding.video = true; found = true
                    case "enca": finding.audio = true; found = true
                    case "schm" where i + 12 <= n:
                        let s = String(decoding: bytes[(i + 8)..<(i + 12)], as: UTF8.self)
                        if s.allSatisfy({ $0.isLetter || $0.isNumber }) { finding.scheme = s }
                    default: break
                    }
                }
            }
            i += 1
        }
        return found ? finding : nil
    }
}
