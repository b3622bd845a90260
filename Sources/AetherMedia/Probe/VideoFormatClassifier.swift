/// Decides a stream's `VideoFormat` from what the container and first packets said.
/// Pure, so every branch is testable without media.
public enum VideoFormatClassifier {
    public static func classify(transfer: String?, hasDolbyVisionConfig: Bool,
                                hasHDR10PlusMetadata: Bool) -> VideoFormat {
        if hasDolbyVisionConfig { return .dolbyVision }
        switch transfer {
        case "smpte2084": return hasHDR10PlusMetadata ? .hdr10Plus : .hdr10
        case "arib-std-b67": return .hlg
        default: return .sdr
        }
    }
}
