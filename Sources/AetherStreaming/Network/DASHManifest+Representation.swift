import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension DASHManifest.Reader {
    /// One representation; throws when it cannot be used (it is left out, the rest plays).
    mutating func representation(_ element: ManifestXML.Element, in set: ManifestXML.Element, base setBase: String,
                                  addressing setAddressing: DASHManifest.Addressing, periodStart: Double, periodDuration: Double?,
                                  dynamic: Bool, availabilityStart: Double?, depth: Double?,
                                  contentType: inout DASHManifest.ContentType) throws(OutsideValue.Refusal) -> DASHManifest.Representation {
        let id = element["id"] ?? ""
        // No rate, or 0: unknown (ranked after the known ones), not a reason to refuse.
        let bandwidth = try (element["bandwidth"] ?? set["bandwidth"]).map { t throws(OutsideValue.Refusal) in
            try OutsideValue.integer(t.trimmingWhitespace(), in: 0...DASHManifest.maxBandwidth, name: "Representation@bandwidth")
        } ?? 0
        var rep = DASHManifest.Representation(id: id, bandwidth: bandwidth)
        rep.width = try (element["width"] ?? set["width"]).map { t throws(OutsideValue.Refusal) in try OutsideValue.integer(t, in: 1...65_535, name: "width") }
        rep.height = try (element["height"] ?? set["height"]).map { t throws(OutsideValue.Refusal) in try OutsideValue.integer(t, in: 1...65_535, name: "height") }
        rep.codecs = (element["codecs"] ?? set["codecs"]).map { TextSanitizer.clean(String($0.prefix(200))) }
        rep.mimeType = element["mimeType"] ?? set["mimeType"]
        rep.frameRate = try (element["frameRate"] ?? set["frameRate"]).map { t throws(OutsideValue.Refusal) in
            try OutsideValue.clamped(OutsideValue.number(t, name: "frameRate"), to: 0...1000, name: "frameRate")
        }
        if contentType == .other { contentType = Self.contentType(set, element) }
        let repBase = try resolveBase(element, against: setBase)
        try address(&rep, addressing: setAddressing.applying(element), base: repBase, periodStart: periodStart,
                    periodDuration: periodDuration, dynamic: dynamic, availabilityStart: availabilityStart, depth: depth)
        if let periodDuration, !dynamic {
            rep.segments = DASHManifest.clipped(rep.segments, to: periodStart + periodDuration)
            rep.indexEnd = periodStart + periodDuration
        }
        // (A live manifest may have none yet: its next reading will.)
        guard dynamic || rep.index != nil || !rep.segments.isEmpty else { throw OutsideValue.Refusal("it has no segment in its period") }
        return rep
    }

    /// A name for a log line: the manifest's id, sanitised, else the element's place.
    static func name(_ id: String?, fallback: Int) -> String {
        guard let id, !id.isEmpty else { return "#\(fallback)" }
        return TextSanitizer.clean(String(id.prefix(40)))
    }
}

extension DASHManifest.Representation {
    /// A WebVTT file (`text/vtt`, or a `.vtt` URL with no MIME type): a text representation
    /// playback and the download can join; not TTML, not segments in MP4.
    package var isWebVTT: Bool {
        if let mime = mimeType?.lowercased() { return mime == "text/vtt" }
        let path = URLComponents(string: segments.first?.resource.url ?? "")?.path.lowercased() ?? ""
        return path.hasSuffix(".vtt")
    }
}
