import AetherMedia

// How a translated representation's segments reach the demuxer, and the periods that cannot follow.
extension DASHPlaylists {
    /// What a representation's segments are served as (``SegmentTransmuxer``).
    public enum Carrier: Sendable, Equatable {
        /// Remuxed to MPEG-TS, each with its init section.
        case mpegts
        /// Remuxed to Matroska clusters after a header made from the init section.
        case matroska
        /// WebM as it comes: the init section is a Matroska header, a segment is clusters.
        case webm

        /// Served as Matroska (a playlist with an `EXT-X-MAP` of a header).
        public var isMatroska: Bool { self != .mpegts }

        /// Codecs (RFC 6381 names, lower case) libavformat 5.1's MPEG-TS muxer carries.
        static let mpegtsCodecs = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "mp4a", "ac-3", "ec-3", "mp4v"]

        /// WebM for WebM; MPEG-TS when every codec `rep` names is one MPEG-TS carries (or it
        /// names none); Matroska for the rest (VP8, VP9, AV1, Opus, Vorbis, FLAC, unknown).
        public static func of(_ rep: DASHManifest.Representation) -> Carrier {
            if rep.mimeType?.lowercased().contains("webm") == true { return .webm }
            let codecs = (rep.codecs ?? "").lowercased().split(separator: ",").map { $0.trimmingWhitespace() }
            return codecs.allSatisfy { c in mpegtsCodecs.contains { c.hasPrefix($0) } } ? .mpegts : .matroska
        }
    }

    /// The later periods whose video or audio cannot follow the first period's, one line each: a
    /// codec the first period's carrier cannot take (AV1 after H.264: MPEG-TS has no AV1, and
    /// the HLS demuxer keeps the container it opened), or another codec in Matroska (one header
    /// stands for the representation). Their segments are left out; the player says so
    /// instead of losing them silently.
    public static func unfollowable(_ manifest: DASHManifest) -> [String] {
        guard let first = manifest.periods.first else { return [] }
        var lines: [String] = []
        for type in [DASHManifest.ContentType.video, .audio] {
            guard let own = first.adaptationSets.first(where: { $0.contentType == type })?.representations.first else { continue }
            let carrier = Carrier.of(own)
            for (k, period) in manifest.periods.enumerated().dropFirst() {
                guard let rep = period.adaptationSets.first(where: { $0.contentType == type })?.representations.first,
                      Carrier.of(rep) != carrier || (carrier.isMatroska && rep.codecFamily != own.codecFamily) else { continue }
                let name = TextSanitizer.clean(String((period.id ?? String(k + 1)).prefix(40)))
                lines.append("period '\(name)': its \(type.rawValue) (\(TextSanitizer.clean(rep.codecs ?? "?"))) cannot follow the first period's (\(TextSanitizer.clean(own.codecs ?? "?"))) and is left out")
            }
        }
        return lines
    }
}
