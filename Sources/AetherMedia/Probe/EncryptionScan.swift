import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
        guard let data = FileBytes.prefix(path: path, limit: window) else { return nil }
        return scan(bytes: data)
    }

    /// How deep the walk goes (a scheme sits nine boxes down: moov trak mdia minf stbl stsd
    /// encv sinf schm), how many boxes one level may hold, and how many it reads in all.
    static let maxDepth = 12
    static let maxBoxesPerLevel = 4096
    static let maxBoxes = 1 << 16

    /// Walks the boxes (``ISOBMFFBoxes``, a box cut off by the end of the bytes taken as far as
    /// it goes) to the sample descriptions: an `encv`/`enca` entry of an `stsd` is a protected
    /// track, and the `schm` in its `sinf` names the scheme. `pssh` boxes say nothing about
    /// which track is encrypted and are not needed.
    public static func scan(bytes: [UInt8]) -> Finding? {
        var walk = Walk(bytes: bytes)
        walk.level(0..<bytes.count, depth: 0, inDescriptions: false)
        return walk.found ? walk.finding : nil
    }

    private struct Walk {
        let bytes: [UInt8]
        var finding = Finding()
        var found = false
        var budget = EncryptionScan.maxBoxes

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func level(_ range: Range<Int>, depth: Int, inDescriptions: Bool) {
            guard depth < EncryptionScan.maxDepth else { return }
            for box in ISOBMFFBoxes.clippedBoxes(bytes, in: range, maxBoxes: EncryptionScan.maxBoxesPerLevel) {
                guard budget > 0 else { return }
                budget -= 1
                let payload = box.payload
                switch box.type {
                case "moov", "trak", "mdia", "minf", "stbl", "sinf":
                    level(payload, depth: depth + 1, inDescriptions: false)
                case "stsd":
                    // A full box (version, flags) and its entry count before the entries.
                    level(Self.after(8, payload), depth: depth + 1, inDescriptions: true)
                case "encv" where inDescriptions:
                    finding.video = true
                    found = true
                    // A visual sample entry's fixed fields are 78 bytes (ISO/IEC 14496-12 §12.1.3).
                    level(Self.after(78, payload), depth: depth + 1, inDescriptions: false)
                case "enca" where inDescriptions:
                    finding.audio = true
                    found = true
                    // An audio sample entry's are 28; QuickTime's sound description version 1
                    // adds 16 and version 2 adds 36.
                    let version = payload.count >= 10 ? Int(bytes[payload.lowerBound + 8]) << 8 | Int(bytes[payload.lowerBound + 9]) : 0
                    level(Self.after(28 + (version == 1 ? 16 : version == 2 ? 36 : 0), payload), depth: depth + 1, inDescriptions: false)
                case "schm" where payload.count >= 8:
                    let s = String(decoding: bytes[(payload.lowerBound + 4)..<(payload.lowerBound + 8)], as: UTF8.self)
                    if s.allSatisfy({ $0.isLetter || $0.isNumber }) { finding.scheme = s }
                default:
                    break
                }
            }
        }

        /// `range` without its first `count` bytes (empty when it has no more).
        static func after(_ count: Int, _ range: Range<Int>) -> Range<Int> {
            min(range.upperBound, range.lowerBound + count)..<range.upperBound
        }
    }
}
