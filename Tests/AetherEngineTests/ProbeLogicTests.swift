import AetherEngine
@testable import AetherMedia
import Testing

@Suite struct FrameRateTests {
    static let cases: [(Double, Double)] = [
        (24000.0 / 1001, 23.976), (23.9760239, 23.976), (24.0, 24), (2997.0 / 125, 23.976),
        (25.0, 25), (30000.0 / 1001, 29.97), (29.97, 29.97), (50.0, 50), (59.94, 59.94), (60.0, 60),
        (12.5, 12.5), (23.5, 23.5),
    ]

    @Test(arguments: cases)
    func snapsToStandardRates(raw: Double, expected: Double) {
        #expect(FrameRate.snapped(raw) == expected)
    }
}

@Suite struct VideoFormatClassifierTests {
    @Test func classifies() {
        #expect(VideoFormatClassifier.classify(transfer: nil, hasDolbyVisionConfig: false, hasHDR10PlusMetadata: false) == .sdr)
        #expect(VideoFormatClassifier.classify(transfer: "bt709", hasDolbyVisionConfig: false, hasHDR10PlusMetadata: false) == .sdr)
        #expect(VideoFormatClassifier.classify(transfer: "smpte2084", hasDolbyVisionConfig: false, hasHDR10PlusMetadata: false) == .hdr10)
        #expect(VideoFormatClassifier.classify(transfer: "smpte2084", hasDolbyVisionConfig: false, hasHDR10PlusMetadata: true) == .hdr10Plus)
        #expect(VideoFormatClassifier.classify(transfer: "smpte2084", hasDolbyVisionConfig: true, hasHDR10PlusMetadata: true) == .dolbyVision)
        #expect(VideoFormatClassifier.classify(transfer: "arib-std-b67", hasDolbyVisionConfig: false, hasHDR10PlusMetadata: false) == .hlg)
    }
}

/// Builds E-AC-3 sync frames bit by bit to check the BSI walk that finds the JOC flag.
@Suite struct EAC3AtmosTests {
    struct BitWriter {
        var bytes: [UInt8] = []
        var bit = 0
        mutating func put(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) {
                if bit % 8 == 0 { bytes.append(0) }
                if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (7 - bit % 8)) }
                bit += 1
            }
        }
    }

    /// An independent 5.1 frame (acmod 7, LFE on, 6 blocks) with mixing and informational
    /// metadata present, then `addbsi` whose first byte's LSB is `extensionTypeA`.
    func frame(extensionTypeA: Int?, mixdef: Int = 2) -> [UInt8] {
        var w = BitWriter()
        w.put(0x0B77, 16); w.put(0, 2); w.put(0, 3); w.put(767, 11)
        w.put(0, 2); w.put(3, 2)          // fscod 48 kHz, numblkscod 6 blocks
        w.put(7, 3); w.put(1, 1); w.put(16, 5); w.put(27, 5)  // acmod, lfeon, bsid 16, dialnorm
        w.put(1, 1); w.put(0x55, 8)       // compr
        w.put(1, 1)                       // mixmdate
        w.put(1, 2); w.put(4, 3); w.put(4, 3); w.put(4, 3); w.put(4, 3)  // dmixmod, ltrt/loro c, sur
        w.put(1, 1); w.put(10, 5)         // lfemixlevcod
        w.put(0, 1); w.put(0, 1)          // pgmscle, extpgmscle
        w.put(mixdef, 2)
        if mixdef == 2 { w.put(0xABC, 12) }
        if mixdef == 3 { w.put(1, 5); w.put(0xFFFFFF, 24) }
        w.put(1, 1); for _ in 0..<6 { w.put(1, 1); w.put(3, 5) }  // frmmixcfginfoe, per-block
        w.put(1, 1); w.put(0, 3); w.put(1, 1); w.put(1, 1); w.put(1, 2)  // infomdate, bsmod, copyright, origbs, dsurexmod
        w.put(1, 1); w.put(5, 5); w.put(1, 2); w.put(0, 1)  // audprodie
        w.put(0, 1)                       // sourcefscod
        if let extensionTypeA {
            w.put(1, 1); w.put(1, 6)      // addbsie, addbsil (2 bytes)
            w.put(extensionTypeA, 8); w.put(16, 8)
        } else {
            w.put(0, 1)
        }
        w.put(0, 32)
        return w.bytes
    }

    @Test func findsJointObjectCoding() {
        #expect(EAC3Atmos.frameSignalsJOC(frame(extensionTypeA: 1)))
        #expect(EAC3Atmos.frameSignalsJOC(frame(extensionTypeA: 1, mixdef: 3)))
    }

    @Test func plainEAC3IsNotAtmos() {
        #expect(!EAC3Atmos.frameSignalsJOC(frame(extensionTypeA: nil)))
        #expect(!EAC3Atmos.frameSignalsJOC(frame(extensionTypeA: 0)))
        #expect(!EAC3Atmos.frameSignalsJOC([0x0B, 0x77]))
        #expect(!EAC3Atmos.frameSignalsJOC([]))
        #expect(!EAC3Atmos.frameSignalsJOC([0x12, 0x34, 0x56]))
    }
}

@Suite struct TextSanitizerTests {
    static let cases: [(String, String)] = [
        ("Demo\u{1B}[31m Title", "Demo Title"),
        ("a\u{1B}]0;evil title\u{07}b", "ab"),
        ("a\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\b", "alinkb"),
        ("x\u{1B}P1;2qDATA\u{1B}\\y", "xy"),
        ("bell\u{07}and\u{08}bs\u{7F}", "bellandbs"),
        ("c1\u{9B}2Jcsi", "c1csi"),
        ("tab\there", "tab here"),
        ("line1\nline2", "line1line2"),
        ("bidi\u{202E}txet", "biditxet"),
        ("Français ✓ 日本", "Français ✓ 日本"),
        ("trailing\u{1B}", "trailing"),
    ]

    @Test(arguments: cases)
    func strips(input: String, expected: String) {
        #expect(TextSanitizer.clean(input) == expected)
    }

    @Test func keepsNewlinesWhenAsked() {
        #expect(TextSanitizer.clean("one\n\u{1B}[1mtwo", keepNewlines: true) == "one\ntwo")
    }

    @Test func invalidUTF8BecomesReplacement() {
        #expect(TextSanitizer.clean(bytes: [0x61, 0xFF, 0x62]) == "a\u{FFFD}b")
    }
}
