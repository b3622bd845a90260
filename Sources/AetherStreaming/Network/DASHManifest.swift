import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A DASH MPD read into what a player plays: per period, the adaptation sets and their
/// representations, each with its init section and its segments on the presentation timeline,
/// and the periods joined into tracks (``DASHManifest/tracks``).
///
/// Read with ``ManifestXML`` (its element and depth limits apply) by ``DASHReader`` and bounded
/// there (``DASHBudget``): at most ``Limits/segmentsPerRepresentation`` segments per
/// representation and ``Limits/totalSegments`` in the manifest, ``Limits/periods`` periods and
/// ``Limits/representations`` representations. Every number goes through ``OutsideValue``
/// (``DASHValues``): a negative, overflowing or absurd value refuses the manifest with one line
/// (a timeline the player cannot trust is not guessed at); `Int(double)` is never used on
/// anything from it. A manifest fetched over the network may only name http(s) URLs (as the HLS
/// rule: a remote manifest must not read local files).
///
/// Addressing: `SegmentTemplate` (`$Number$`, `$Time$`, `$RepresentationID$`, `$Bandwidth$`,
/// `%0Nd` widths, `startNumber`, `timescale`, `duration`, `presentationTimeOffset`, a
/// `SegmentTimeline` of `S@t/d/r` with `r=-1` up to the next `S` or the period's end);
/// `SegmentList` (`SegmentURL@media/mediaRange`, `Initialization@sourceURL/range`);
/// `SegmentBase` (`indexRange`: the segments come from the `sidx` box, see
/// ``DASHManifest/needsIndex`` and ``SegmentIndex``; no `indexRange`: the whole resource is one
/// segment), each read by its own family reader (``DASHAddressing``). Each level's `BaseURL`
/// (the first) resolves against the level above. The template, list and base inherit from the
/// Period and AdaptationSet attribute by attribute.
public struct DASHManifest: Sendable, Equatable {
    public struct Limits: Sendable, Equatable {
        public var segmentsPerRepresentation = 100_000
        public var totalSegments = 400_000
        public var periods = 1000
        public var representations = 512
        public init() {}
    }

    /// A byte range of a resource: `offset`, `length` bytes.
    public struct ByteRange: Sendable, Hashable {
        public var offset: Int64
        public var length: Int64
    }

    /// An init section or a segment: an absolute URL and maybe a byte range of it.
    public struct Resource: Sendable, Hashable {
        public var url: String
        public var range: ByteRange?

        /// `options` (libavformat's) asking for this byte range (and no other).
        func rangeOptions(_ options: [String: String]) -> [String: String] {
            var options = options
            options.removeValue(forKey: "offset")
            options.removeValue(forKey: "end_offset")
            if let range {
                options["offset"] = String(range.offset)
                options["end_offset"] = String(range.offset + range.length)
            }
            return options
        }
    }

    public struct Segment: Sendable, Equatable {
        public var resource: Resource
        /// Seconds on the presentation timeline (the period's start included).
        public var start: Double
        public var duration: Double
        /// `$Number$` of a template segment (the index from the period's first for the others).
        public var number: Int64
        /// The init section this segment needs when it is not its representation's (a later
        /// period's, joined by ``DASHManifest/tracks``).
        public var initialization: Resource? = nil
        /// Its representation's `@codecs` when they are not the joined representation's (a later
        /// period's in another codec, joined by ``DASHManifest/tracks``).
        public var codecs: String? = nil
        /// Where its period starts on the presentation timeline, seconds (set by
        /// ``DASHManifest/tracks``): a WebVTT text segment's cue times count from it.
        public var periodStart = 0.0
        /// Seconds that place the segment's media timestamps on the presentation timeline: its
        /// period's start less its `presentationTimeOffset`.
        public var timeOffset = 0.0
        /// Its period's place among the periods joined (set by ``DASHManifest/tracks``): a later
        /// period may name the same URLs again (an advert played twice).
        public var periodIndex = 0
    }

    public enum ContentType: String, Sendable {
        case video, audio, text, image, other
    }

    public struct Representation: Sendable, Equatable {
        public var id: String
        /// `@bandwidth`, bits per second; 0 when the manifest gives none (or 0): unknown,
        /// ranked after every known rate (``byRate(_:_:)``), chosen only when nothing else is.
        public var bandwidth: Int
        public var width: Int?
        public var height: Int?
        public var codecs: String?
        public var mimeType: String?
        public var frameRate: Double?
        public var initialization: Resource?
        public var segments: [Segment] = []
        /// `SegmentBase@indexRange`: the `sidx` box to fetch (the whole range) before the
        /// segments are known; nil once they are (or when there is none).
        public var index: Resource?
        /// The file the index's segments are in (the representation's own, where a
        /// `RepresentationIndex` names another).
        var indexMedia: String?
        /// Where the index's segments start on the timeline (the period's start).
        var indexStart = 0.0
        var indexPresentationOffset: Int64 = 0
        var indexTimescale: Int64 = 1
        /// Where its period ends (static manifests): the index's segments stop there.
        var indexEnd: Double?

        /// Whether the manifest says its rate.
        public var bandwidthKnown: Bool { bandwidth > 0 }

        /// The first codec's name before its parameters (`avc1`, `hvc1`, `mp4a` …), lower case.
        public var codecFamily: String? { Self.family(codecs) }

        /// The first name of a `@codecs` list before its parameters, lower case.
        public static func family(_ codecs: String?) -> String? {
            codecs?.lowercased().split(separator: ",").first?.split(separator: ".").first
                .map { $0.trimmingWhitespace() }
        }

        /// Rates ascending, representations of unknown rate after every known one.
        public static func byRate(_ a: Representation, _ b: Representation) -> Bool {
            if a.bandwidthKnown != b.bandwidthKnown { return a.bandwidthKnown }
            return a.bandwidth < b.bandwidth
        }

        /// The lowest (`lowest`) or highest known rate of `reps` (sorted by ``byRate(_:_:)``);
        /// one of unknown rate only when no rate is known.
        public static func pick(_ reps: [Representation], lowest: Bool) -> Representation? {
            let known = reps.filter(\.bandwidthKnown)
            return (lowest ? known.first : known.last) ?? reps.first
        }
    }

    public struct AdaptationSet: Sendable, Equatable {
        public var id: String?
        public var contentType: ContentType
        public var language: String?
        public var representations: [Representation]
    }

    public struct Period: Sendable, Equatable {
        public var id: String?
        public var start: Double
        public var duration: Double?
        public var adaptationSets: [AdaptationSet]
    }

    /// One adaptation set followed across periods: the representations of each period matched
    /// by rank of bandwidth (lowest with lowest), segments concatenated; each segment keeps its
    /// period's init section (``Segment/initialization``).
    public struct Track: Sendable, Equatable {
        public var contentType: ContentType
        public var language: String?
        public var representations: [Representation]
    }

    public var isDynamic: Bool
    /// `mediaPresentationDuration` (seconds).
    public var duration: Double?
    /// `minimumUpdatePeriod` (seconds; dynamic manifests).
    public var minimumUpdatePeriod: Double?
    /// `availabilityStartTime` (seconds since 1970).
    public var availabilityStartTime: Double?
    /// `timeShiftBufferDepth` (seconds).
    public var timeShiftBufferDepth: Double?
    public var periods: [Period]
    /// What the reader left out and why, one sanitised line each (a representation or
    /// adaptation set it could not use): the rest plays (``DASHPlaylists`` names them when
    /// nothing is left).
    public var leftOut: [String] = []

    /// What was left out, for the line that refuses a manifest with nothing left:
    /// ` (the first line; N more left out)`, or empty.
    public var leftOutSummary: String {
        guard let first = leftOut.first else { return "" }
        return " (\(first)" + (leftOut.count > 1 ? "; \(leftOut.count - 1) more left out" : "") + ")"
    }

    /// The presentation's length as the manifest gives it: `mediaPresentationDuration`, else
    /// the periods' end; nil when neither says (a live manifest).
    public var presentationLength: Double? {
        if let duration { return duration }
        guard let last = periods.last, let d = last.duration else { return nil }
        return last.start + d
    }

    /// A chapter at each period's start when there is more than one, named by `Period@id`
    /// (else its start time); each ends where the next starts (the last, at its own end or the
    /// presentation's). Empty for one period.
    public var periodChapters: [Chapter] {
        guard periods.count > 1 else { return [] }
        return periods.enumerated().map { k, p in
            let next = k + 1 < periods.count ? periods[k + 1].start : nil
            let end = next ?? p.duration.map { p.start + $0 } ?? presentationLength ?? p.start
            let id = TextSanitizer.cleanOrNil(p.id.map { String($0.prefix(200)) })
            return Chapter(title: id.map { "Period \($0)" } ?? "Period at \((p.start * 1000).rounded() / 1000) s", start: p.start, end: max(p.start, end))
        }
    }

    /// Whether a later period's video or audio is in another codec than the first period's
    /// (by the codecs' first names: `avc1`, `hvc1`, `mp4a` …).
    public var changesCodec: Bool {
        func families(_ p: Period, _ type: ContentType) -> Set<String> {
            Set(p.adaptationSets.filter { $0.contentType == type }.flatMap(\.representations).compactMap(\.codecFamily))
        }
        guard let first = periods.first else { return false }
        return [ContentType.video, .audio].contains { type in
            let own = families(first, type)
            return periods.dropFirst().contains { !families($0, type).isEmpty && families($0, type) != own }
        }
    }

    /// Longest segment or period accepted, seconds.
    static let maxSeconds = OutsideValue.maxSeconds
    static let maxBandwidth = HLSMasterPlaylist.maxBandwidth

    /// Whether some representation's segments are still in a `sidx` box to fetch.
    public var needsIndex: Bool { periods.contains { $0.adaptationSets.contains { $0.representations.contains { $0.index != nil } } } }

    /// Parses an MPD fetched from `base`. `now` (seconds since 1970) places a dynamic
    /// manifest's `duration`-addressed segments (the ones available at that time). Throws one
    /// line when the manifest is not an MPD or is refused.
    public static func parse(_ text: String, base: String, now: Double = WallClock.seconds(),
                             limits: Limits = Limits()) throws(OutsideValue.Refusal) -> DASHManifest {
        guard let root = ManifestXML.parse(text) else {
            throw OutsideValue.Refusal("the manifest is not well-formed XML or is past \(ManifestXML.maxElements) elements or \(ManifestXML.maxDepth) levels")
        }
        guard root.name == "MPD" else { throw OutsideValue.Refusal("not a DASH manifest (the root is '\(TextSanitizer.clean(String(root.name.prefix(40))))')") }
        var reader = DASHReader(base: base, now: now, limits: limits, remote: NetworkSettings.isNetwork(base))
        return try reader.manifest(root)
    }

    /// The periods joined into tracks: for each content type and language in the first period,
    /// the set in every following period with the same type and language (else the same type),
    /// representations matched by bandwidth rank. Image sets are left out.
    public var tracks: [Track] {
        guard let first = periods.first else { return [] }
        var tracks: [Track] = []
        for set in first.adaptationSets where set.contentType != .image {
            var track = Track(contentType: set.contentType, language: set.language,
                              representations: set.representations.sorted(by: Representation.byRate))
            for k in track.representations.indices {
                for i in track.representations[k].segments.indices { track.representations[k].segments[i].periodStart = first.start }
            }
            for (p, period) in periods.enumerated().dropFirst() {
                let same = period.adaptationSets.first { $0.contentType == set.contentType && $0.language == set.language }
                    ?? period.adaptationSets.first { $0.contentType == set.contentType }
                guard let next = same?.representations.sorted(by: Representation.byRate), !next.isEmpty else { continue }
                for k in track.representations.indices {
                    let joined = next[min(k, next.count - 1)]
                    // A segment of another init section (or codec) carries it (see Segment.initialization).
                    let own = track.representations[k].initialization, ownCodecs = track.representations[k].codecs
                    track.representations[k].segments += joined.segments.map { s in
                        var s = s
                        if joined.initialization != own { s.initialization = joined.initialization }
                        if joined.codecs != ownCodecs { s.codecs = joined.codecs }
                        s.periodStart = period.start
                        s.periodIndex = p
                        return s
                    }
                }
            }
            tracks.append(track)
        }
        return tracks
    }

    /// `segments` cut to a period ending at `end`: none starting at or after it, the last one
    /// ending there (a `SegmentTemplate@duration` longer than the period, a `Period@duration`
    /// shorter than the file: the period's length is the manifest's word on what plays).
    static func clipped(_ segments: [Segment], to end: Double) -> [Segment] {
        segments.compactMap { s in
            guard s.start < end - 1e-6 else { return nil }
            var s = s
            s.duration = min(s.duration, end - s.start)
            return s
        }
    }

    /// Fills in the segments of every `SegmentBase@indexRange` representation: `fetch` returns
    /// the bytes of a resource's range (nil when it cannot be read: the representation is
    /// dropped). Throws when an index is refused.
    public mutating func resolveIndexes(limits: Limits = Limits(),
                                        fetch: (Resource) -> [UInt8]?) throws(OutsideValue.Refusal) {
        for p in periods.indices {
            for s in periods[p].adaptationSets.indices {
                var kept: [Representation] = []
                for var rep in periods[p].adaptationSets[s].representations {
                    guard let index = rep.index else { kept.append(rep); continue }
                    guard let range = index.range, let bytes = fetch(index) else { continue }
                    let sidx = try SegmentIndex.parse(bytes, at: range.offset, maxReferences: limits.segmentsPerRepresentation)
                    let timescale = Double(sidx.timescale)
                    let presentationOffset = Double(rep.indexPresentationOffset) / Double(rep.indexTimescale)
                    var offset = sidx.firstOffset
                    var time = sidx.earliestPresentationTime
                    for (k, ref) in sidx.references.enumerated() {
                        let start = rep.indexStart + Double(time) / timescale - presentationOffset
                        rep.segments.append(Segment(resource: Resource(url: rep.indexMedia ?? index.url, range: ByteRange(offset: offset, length: ref.size)),
                                                    start: start, duration: Double(ref.duration) / timescale, number: Int64(k),
                                                    timeOffset: rep.indexStart - presentationOffset))
                        offset += ref.size
                        time += ref.duration
                    }
                    if let end = rep.indexEnd { rep.segments = Self.clipped(rep.segments, to: end) }
                    rep.index = nil
                    kept.append(rep)
                }
                periods[p].adaptationSets[s].representations = kept
            }
        }
    }
}

extension DASHManifest {
    /// The element's first `BaseURL`, trimmed (nil: none, or empty).
    static func baseURLText(of element: ManifestXML.Element) -> String? {
        guard let text = element.first("BaseURL")?.text.trimmingWhitespaceAndNewlines(), !text.isEmpty else { return nil }
        return text
    }

    /// `base` with the element's first `BaseURL` applied (ISO/IEC 23009-1 §5.6: each level's
    /// resolves against the level above): the one BaseURL resolution of the DASH readers. The
    /// manifest reader checks what it gives (``DASHValues/resolveBase(_:against:)``), the thumbnail
    /// reader the sheet URLs it ends with.
    static func baseURL(of element: ManifestXML.Element, against base: String) -> String {
        baseURLText(of: element).map { URLReference.resolve($0, against: base) } ?? base
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
