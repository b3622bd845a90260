import AetherMedia
import Foundation
import Testing

/// Unit tier: a JPEG's EXIF orientation, read from its bytes (the fuzz target's seeds), and
/// what is not one.
struct EXIFOrientationTests {
    static func seed(_ name: String) throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("Fuzz/Regressions/exif/\(name)")))
    }

    @Test func bothByteOrdersAndNothingElse() throws {
        #expect(EXIFOrientation.read(try Self.seed("seed-be6")) == 6)
        #expect(EXIFOrientation.read(try Self.seed("seed-le8")) == 8)
        // A directory claiming 900 entries past the end of its bytes: none.
        #expect(EXIFOrientation.read(try Self.seed("seed-cut")) == nil)
        // Not a JPEG, a JPEG without EXIF, a segment longer than the bytes.
        #expect(EXIFOrientation.read(Array("not a jpeg at all".utf8)) == nil)
        #expect(EXIFOrientation.read([0xFF, 0xD8, 0xFF, 0xDA, 0, 2]) == nil)
        #expect(EXIFOrientation.read([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x45]) == nil)
        // An orientation out of 1…8 is none.
        var bad = try Self.seed("seed-be6")
        if let k = bad.indices.dropLast(1).first(where: { bad[$0] == 0x01 && bad[$0 + 1] == 0x12 }) { bad[k + 9] = 9 }
        #expect(EXIFOrientation.read(bad) == nil)
        #expect(EXIFOrientation.rotation(6) == 90 && EXIFOrientation.rotation(8) == -90 && EXIFOrientation.rotation(3) == 180)
        #expect(EXIFOrientation.rotation(1) == nil && EXIFOrientation.rotation(5) == nil)
    }
}
