import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The entries of a sample description (every child of `stsd`, found by its parent, whatever its
/// type): a visual or audio sample entry's fixed fields, or a text or metadata entry's, and where
/// the boxes after them (its codec configuration) start.
struct SampleEntries: BoxReader {
    /// Sample entries whose fixed fields are a visual sample entry's (78 bytes after the header).
    static let visualEntries: Set<String> = [
        "avc1", "avc2", "avc3", "avc4", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "vp08", "vp09",
        "mp4v", "encv", "s263", "jpeg", "mjpa", "mjpb", "apcn", "apch", "apcs", "apco", "ap4h", "ap4x", "vvc1",
        "vvi1", "evc1", "mp2v", "resv", "rv60", "uncv", "j2ki", "png ",
    ]
    /// Sample entries whose fixed fields are an audio sample entry's (28 bytes, QuickTime
    /// versions 1 and 2 add 16 and 36).
    static let audioEntries: Set<String> = [
        "mp4a", "ac-3", "ec-3", "ac-4", "Opus", "fLaC", "alac", "enca", "sowt", "twos", "lpcm", "ipcm", "fpcm",
        "dtsc", "dtsh", "dtsl", "dtse", "dtsx", "mha1", "mha2", "mhm1", "mhm2", ".mp3", "ulaw", "alaw", "samr",
        "sawb", "in24", "in32", "fl32", "fl64", "raw ", "mlpa",
    ]
    let window: ContainerScan.Window
    let budget: StructureBudget

    func read(_ node: inout StructureNode, type: String, damage: inout [String]) {
        var c = ContainerScan.Cursor(payload(node, limit: 256))
        guard c.skip(6), let dref = c.u16() else {
            damage.append("sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short")
            return
        }
        node.fields.append(StructureField("codec", type))
        node.fields.append(StructureField("data reference", String(dref)))
        var fixed: Int? = nil
        if Self.visualEntries.contains(type) {
            guard c.skip(16), let w = c.u16(), let h = c.u16(), let hr = c.u32(), let vr = c.u32(), c.skip(4), let frames = c.u16(),
                  let nameField = c.take(32), let depth = c.u16() else {
                damage.append("visual sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
                return
            }
            let nameLength = min(31, Int(nameField[0]))
            let compressor = TextSanitizer.clean(bytes: nameField[1..<(1 + nameLength)])
            node.fields += [StructureField("width", String(w)), StructureField("height", String(h)),
                            StructureField("resolution", "\(hr >> 16)×\(vr >> 16) dpi"), StructureField("frames per sample", String(frames)),
                            StructureField("compressor", compressor), StructureField("depth", String(cFormat: "0x%04x", depth))]
            node.summary = "\(type) \(w)×\(h)"
            fixed = 78
        } else if Self.audioEntries.contains(type) {
            guard let version = c.u16(), c.skip(6), let channels = c.u16(), let bits = c.u16(), c.skip(4), let rate = c.u32() else {
                damage.append("audio sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its fields")
                return
            }
            var shownRate = String(rate >> 16)
            var shownChannels = String(channels)
            var extra = 0
            switch version {
            case 1: extra = 16
            case 2:
                extra = 36
                // QuickTime v2 keeps the real rate (a Double) and channel count after the fixed part.
                if c.skip(4), let bitsRate = c.u64(), let ch = c.u32() {
                    let r = Double(bitPattern: bitsRate)
                    if r.isFinite, r >= 0, r < 1e9 { shownRate = String(cFormat: "%.0f", r) }
                    shownChannels = String(ch)
                }
            default: break
            }
            node.fields += [StructureField("channels", shownChannels), StructureField("sample size", String(bits)), StructureField("sample rate", shownRate)]
            if version != 0 { node.fields.append(StructureField("QuickTime version", String(version))) }
            node.summary = "\(type) \(shownChannels) ch, \(shownRate) Hz"
            fixed = 28 + extra
        } else {
            switch type {
            case "tx3g":
                fixed = 38
                node.summary = "timed text"
            case "wvtt":
                fixed = 8
                node.summary = "WebVTT"
            case "stpp", "mett", "metx", "sbtt":
                // Strings after the 8 fixed bytes: namespace, schema location, MIME types
                // (stpp); content encoding and MIME type (sbtt, mett).
                var strings: [String] = []
                let count = type == "stpp" ? 3 : 2
                for _ in 0..<count where c.remaining > 0 { strings.append(c.cString(limit: 256)) }
                if let first = strings.first { node.fields.append(StructureField(type == "stpp" ? "namespace" : "encoding", first)) }
                node.summary = type == "stpp" ? "TTML" : type
                fixed = c.at
            case "mp4s":
                fixed = 8
            default:
                node.summary = type
            }
        }
        if let fixed, Int64(fixed) <= payloadLength(node) {
            node.isContainer = true
            node.tag = UInt64(node.payloadOffset + Int64(fixed))
        } else if fixed != nil {
            damage.append("sample entry '\(type)' at offset \(ContainerScan.grouped(node.offset)) is shorter than its fixed fields")
        }
    }
}
