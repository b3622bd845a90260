import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A DASH manifest translated into HLS playlists (UPlayer's design): one media playlist per
/// representation (a segment with an init section is named by its own line, with
/// `#aether-range=` for a byte range, and served transmuxed to MPEG-TS with that init section;
/// one without is an ordinary line, with `#EXT-X-BYTERANGE` for a range; `#EXT-X-DISCONTINUITY`
/// where a later period's init section takes over), and a master playlist with the chosen video representation as its one
/// variant and each audio adaptation set as an `AUDIO` rendition (the `--alang` choice marked
/// default). libavformat's HLS demuxer plays the master; every playlist it asks for is served
/// from here and every segment it opens goes through ``NetworkSession`` and a
/// ``ResilientInput`` (resume at the byte, backoff, deadlines, counts, headers, the protocol
/// whitelist), which lavf's own dash demuxer bypasses. Separate audio and video sets play
/// together because the HLS demuxer already muxes renditions at the packet level.
///
/// The playlists live at URLs under the manifest's own (`…/manifest.mpd/aether-dash/video-2.m3u8`):
/// they never reach a server (``NetworkSession`` answers them from memory first).
public struct DASHPlaylists: Sendable, Equatable {
    /// The master playlist's URL (what the demuxer opens).
    public let masterURL: String
    /// Playlist URL → text.
    public let documents: [String: String]
    /// The video representations as variants (rates ascending; `uri` is each one's media playlist).
    public let variants: [StreamVariant]
    /// The variant playing (index in ``variants``), nil for a manifest without video.
    public let chosen: Int?
    /// The audio adaptation sets as renditions (`uri` is each one's media playlist).
    public let renditions: [MediaRendition]
    /// Every representation's media playlist as ``HLSMediaPlaylist`` (by its URL): what bit-rate
    /// switching reads.
    public let mediaPlaylists: [String: HLSMediaPlaylist]
    /// An fMP4 segment as the demuxer gets it: fetched with its init section and served as
    /// MPEG-TS (``SegmentTransmuxer``), so the playlists name no init section and no byte range
    /// (the MPEG-TS is larger than the range, and the HLS demuxer stops reading a ranged
    /// segment at its length).
    public struct Fetch: Sendable, Equatable {
        public var segment: DASHManifest.Resource
        public var initialization: DASHManifest.Resource
        public var carrier: Carrier = .mpegts
        /// Seconds added to the segment's timestamps: a later period's media on the one
        /// timeline (``DASHManifest/Segment/timeOffset``; 0 for a manifest of one period).
        public var timeOffset = 0.0
        /// Where its period starts (seconds on the presentation timeline): periods crossed are counted.
        public var periodStart = 0.0
        /// The Matroska header made from the init section (a matroska playlist's `EXT-X-MAP`),
        /// not a segment.
        public var isHeader = false
    }

    /// The fragment that names an init section's Matroska header in a playlist (``Fetch/isHeader``).
    static let headerFragment = "#aether-header"

    /// The fMP4 segments by the URL their playlist names (the segment's own URL, with
    /// `#aether-range=OFFSET-LENGTH` when it is a byte range of it).
    public let fetches: [String: Fetch]

    /// A dynamic manifest's playlist's place on the timeline: the media sequence number of its
    /// first segment and every segment's start (seconds on the presentation timeline). The next
    /// translation numbers its segments on from these (``sequence(of:after:)``).
    public struct Numbering: Sendable, Equatable {
        public var first: Int
        public var starts: [Double]
    }

    /// Each dynamic playlist's numbering by its URL (empty for a static manifest).
    public let numbering: [String: Numbering]

    /// Renditions' group.
    static let audioGroup = "dash-audio"

    /// The prefix of the playlists of the manifest at `url` (its query and fragment dropped).
    static func prefix(of url: String) -> String {
        let bare = url.split(separator: "#", maxSplits: 1).first.map(String.init) ?? url
        return (bare.split(separator: "?", maxSplits: 1).first.map(String.init) ?? bare) + "/aether-dash/"
    }

    /// Translates `manifest` (from `url`): the video representation by `preference` and
    /// `range`, each audio set's representation by `preference` (lowest for `min`, highest
    /// otherwise), the default audio by `audioLanguages`. Throws when nothing is playable.
    /// `previous`: the translation of the same dynamic manifest read before (its playlists'
    /// numbering carries on, ``sequence(of:after:)``).
    public static func make(_ manifest: DASHManifest, url: String, preference: VariantPreference, range: VideoRangePreference,
                            audioLanguages: [String], previous: DASHPlaylists? = nil) throws(OutsideValue.Refusal) -> DASHPlaylists {
        let prefix = prefix(of: url)
        let tracks = manifest.tracks
        var documents: [String: String] = [:]
        var media: [String: HLSMediaPlaylist] = [:]
        var fetches: [String: Fetch] = [:]
        var numbering: [String: Numbering] = [:]
        func add(_ rep: DASHManifest.Representation, name: String) throws(OutsideValue.Refusal) -> String {
            let uri = prefix + name + ".m3u8"
            var first = 0
            if manifest.isDynamic {
                first = sequence(of: rep.segments, after: previous?.numbering[uri])
                numbering[uri] = Numbering(first: first, starts: rep.segments.map(\.start))
            }
            let carrier = Carrier.of(rep)
            let text = mediaPlaylist(rep, dynamic: manifest.isDynamic, sequence: first, availabilityStart: manifest.availabilityStartTime)
            for segment in rep.segments {
                if let i = segment.initialization ?? rep.initialization {
                    fetches[line(for: segment)] = Fetch(segment: segment.resource, initialization: i, carrier: carrier,
                                                        timeOffset: manifest.periods.count > 1 ? segment.timeOffset : 0, periodStart: segment.periodStart)
                    if carrier.isMatroska { fetches[headerLine(i)] = Fetch(segment: i, initialization: i, carrier: carrier, isHeader: true) }
                }
            }
            documents[uri] = text
            var parsed = try HLSMediaPlaylist.parse(text, base: uri)
            // Our Matroska header stands for every representation of the codec (the segments
            // carry their init sections): it does not keep another's segment out.
            if carrier.isMatroska { parsed.hasInitSection = false }
            media[uri] = parsed
            return uri
        }
        // Video: every representation of every video set (rates ascending).
        let videoReps = tracks.filter { $0.contentType == .video }.flatMap(\.representations)
            .filter { !$0.segments.isEmpty }.sorted(by: DASHManifest.Representation.byRate)
        var variants: [StreamVariant] = []
        for (k, rep) in videoReps.enumerated() {
            var v = StreamVariant(uri: try add(rep, name: "video-\(k + 1)"), bandwidth: rep.bandwidth)
            v.width = rep.width
            v.height = rep.height
            v.codecs = rep.codecs
            v.frameRate = rep.frameRate
            v.audioGroup = nil
            variants.append(v)
        }
        // Audio: one representation per set.
        var renditions: [MediaRendition] = []
        var audioCodecs: [String] = []
        var audioBandwidth: [Int] = []
        for (k, track) in tracks.filter({ $0.contentType == .audio }).enumerated() {
            let reps = track.representations.filter { !$0.segments.isEmpty }
            guard let rep = DASHManifest.Representation.pick(reps, lowest: preference == .min) else { continue }
            var r = MediaRendition(type: "AUDIO", groupID: audioGroup)
            r.language = track.language.map(Self.token)
            r.name = "\(r.language ?? "audio") \(k + 1)"
            r.uri = try add(rep, name: "audio-\(k + 1)")
            renditions.append(r)
            audioCodecs.append(rep.codecs ?? "")
            audioBandwidth.append(rep.bandwidth)
        }
        guard !variants.isEmpty || !renditions.isEmpty else {
            throw OutsideValue.Refusal("the manifest has no video or audio representation with segments" + manifest.leftOutSummary)
        }
        let fallback = renditions.isEmpty ? nil : 0
        let preferred = LanguagePreference.first(of: audioLanguages, in: renditions.map(\.language)) ?? fallback
        if let preferred { renditions[preferred].isDefault = true }
        let chosen = VariantChooser.choose(variants, preference: preference, range: range)
        var master = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        if variants.isEmpty {
            // Sound only: the chosen audio set as the one variant.
            let k = preferred ?? 0
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\(audioBandwidth[k])\(audioCodecs[k].isEmpty ? "" : ",CODECS=\"\(quoted(audioCodecs[k]))\"")\n"
            master += (renditions[k].uri ?? "") + "\n"
        } else if let chosen {
            for r in renditions {
                master += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(audioGroup)\",NAME=\"\(quoted(r.name ?? ""))\""
                if let language = r.language { master += ",LANGUAGE=\"\(language)\"" }
                master += ",DEFAULT=\(r.isDefault ? "YES" : "NO"),AUTOSELECT=YES,URI=\"\(r.uri ?? "")\"\n"
            }
            let v = variants[chosen]
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\(v.bandwidth + (preferred.map { audioBandwidth[$0] } ?? 0))"
            if let w = v.width, let h = v.height { master += ",RESOLUTION=\(w)x\(h)" }
            if !renditions.isEmpty { master += ",AUDIO=\"\(audioGroup)\"" }
            master += "\n" + (v.uri ?? "") + "\n"
        }
        for k in variants.indices where !renditions.isEmpty { variants[k].audioGroup = audioGroup }
        let masterURL = prefix + "master.m3u8"
        documents[masterURL] = master
        return DASHPlaylists(masterURL: masterURL, documents: documents, variants: variants, chosen: chosen,
                             renditions: renditions, mediaPlaylists: media, fetches: fetches, numbering: numbering)
    }

    /// The media sequence number of the first of a dynamic representation's `segments`: the
    /// number a segment at the same start had in the `previous` translation's playlist (minus
    /// its place), so the numbers carry on from one manifest to the next whatever the manifest
    /// numbers (a `$Time$` template whose `startNumber` stays put while its window slides; the
    /// HLS demuxer and bit-rate switching follow a live playlist by its numbers). With no
    /// segment in common: the first segment's `$Number$` when it is past the previous
    /// playlist's last, else the number after it plus the segments the gap would hold. The
    /// first translation: the first segment's `$Number$`. Clamped to `0…Int32.max` (what
    /// `EXT-X-MEDIA-SEQUENCE` may carry).
    static func sequence(of segments: [DASHManifest.Segment], after previous: Numbering?) -> Int {
        let own = Int(clamping: segments.first?.number ?? 0)
        let limit = Int(Int32.max)
        guard let previous, let last = previous.starts.last, let head = segments.first else { return min(max(0, own), limit) }
        // Binary search for a start within a quarter of a segment (at most 0.5 s).
        func index(of start: Double, tolerance: Double) -> Int? {
            var low = 0, high = previous.starts.count
            while low < high {
                let mid = (low + high) / 2
                if previous.starts[mid] < start - tolerance { low = mid + 1 } else { high = mid }
            }
            return low < previous.starts.count && abs(previous.starts[low] - start) <= tolerance ? low : nil
        }
        // The first few segments are enough: a window that slid past them shares none.
        for (j, segment) in segments.prefix(64).enumerated() {
            if let k = index(of: segment.start, tolerance: min(0.5, segment.duration * 0.25)) {
                return min(max(0, previous.first + k - j), limit)
            }
        }
        let lastNumber = previous.first + previous.starts.count - 1
        if own > lastNumber { return min(own, limit) }
        let gap = head.start - last
        let skipped = head.duration > 0 && gap.isFinite && gap > 0
            ? OutsideValue.clampedInteger((gap / head.duration).rounded(), to: 0...limit) ?? 0 : 0
        return min(lastNumber + max(1, skipped), limit)
    }

    /// One representation's HLS media playlist. Init sections are not named: the segments that
    /// need one are served as MPEG-TS with it (``fetches``), or as Matroska clusters after the
    /// `EXT-X-MAP` of a header made from it (``Carrier``); where a later period's init section
    /// takes over, an `EXT-X-DISCONTINUITY` (and its header's `EXT-X-MAP`). A dynamic manifest's: its
    /// media sequence is the first segment's `$Number$` (the same number is the same place in
    /// every representation of an aligned set) and, given `availabilityStart`, each segment
    /// carries its `EXT-X-PROGRAM-DATE-TIME` (availability start + its start on the
    /// presentation timeline), which bit-rate switching matches by when the numbers differ.
    static func mediaPlaylist(_ rep: DASHManifest.Representation, dynamic: Bool, sequence: Int? = nil,
                              availabilityStart: Double? = nil) -> String {
        // A gap in the timeline (an `S@t` past the end of the segment before, a period that
        // starts after the last one's media) belongs to the segment before it: the playlist's
        // timeline stays the presentation's, so a seek lands where the manifest places it.
        let lengths = rep.segments.indices.map { k in
            let gap = k + 1 < rep.segments.count ? rep.segments[k + 1].start - (rep.segments[k].start + rep.segments[k].duration) : 0
            return rep.segments[k].duration + (gap > 0.001 ? gap : 0)
        }
        let longest = lengths.max() ?? 1
        let target = OutsideValue.clampedInteger(longest.rounded(.up), to: 1...3600) ?? 1
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:\(target)\n"
        text += "#EXT-X-MEDIA-SEQUENCE:\(dynamic ? sequence ?? Int(clamping: rep.segments.first?.number ?? 0) : 0)\n"
        if !dynamic { text += "#EXT-X-PLAYLIST-TYPE:VOD\n" }
        text += "#EXT-X-INDEPENDENT-SEGMENTS\n"
        var initialization = rep.initialization
        let matroska = Carrier.of(rep).isMatroska
        var mapped: DASHManifest.Resource?
        let dates = Date.ISO8601FormatStyle(includingFractionalSeconds: true)   // UTC
        for (segment, length) in zip(rep.segments, lengths) {
            if let own = segment.initialization, own != initialization {
                text += "#EXT-X-DISCONTINUITY\n"
                initialization = own
            }
            if matroska, let i = initialization, i != mapped {
                text += "#EXT-X-MAP:URI=\"\(quoted(headerLine(i)))\"\n"
                mapped = i
            }
            if dynamic, let availabilityStart, let date = programDateTime(availabilityStart + segment.start, formatter: dates) {
                text += "#EXT-X-PROGRAM-DATE-TIME:\(date)\n"
            }
            text += String(cFormat: "#EXTINF:%.6f,\n", length)
            if initialization == nil, let r = segment.resource.range { text += "#EXT-X-BYTERANGE:\(r.length)@\(r.offset)\n" }
            text += (initialization == nil ? line(segment.resource.url) : line(for: segment)) + "\n"
        }
        if !dynamic { text += "#EXT-X-ENDLIST\n" }
        return text
    }

    /// Seconds since 1970 as an `EXT-X-PROGRAM-DATE-TIME` value (UTC, milliseconds); nil for a
    /// time no date can carry.
    static func programDateTime(_ seconds: Double, formatter: Date.ISO8601FormatStyle) -> String? {
        guard seconds.isFinite, abs(seconds) < 1e11 else { return nil }
        return formatter.format(Date(timeIntervalSince1970: seconds))
    }

    /// The line naming a transmuxed segment (a key of ``fetches``): its URL, with its byte range
    /// and, in a later period, that period's place (the same URL may come again there, placed
    /// elsewhere on the timeline).
    static func line(for segment: DASHManifest.Segment) -> String {
        let url = line(segment.resource.url) + (segment.periodIndex > 0 ? "#aether-period=\(segment.periodIndex)" : "")
        guard let r = segment.resource.range else { return url }
        return url + HLSMediaPlaylist.rangeFragment + "\(r.offset)-\(r.length)"
    }

    /// The line naming the Matroska header made from the init section `i` (a key of ``fetches``).
    static func headerLine(_ i: DASHManifest.Resource) -> String {
        line(i.url) + headerFragment + (i.range.map { "=\($0.offset)-\($0.length)" } ?? "")
    }

    /// A URL as a playlist line: control characters cannot occur (the parser refuses them);
    /// a leading `#` would make it a tag.
    private static func line(_ url: String) -> String { url.hasPrefix("#") ? "%23" + url.dropFirst() : url }

    /// Text inside an attribute's quotes.
    private static func quoted(_ text: String) -> String { text.replacingAll("\"", with: "%22") }

    /// A language tag reduced to letters, digits and hyphens.
    private static func token(_ text: String) -> String {
        String(text.unicodeScalars.filter { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            .prefix(35).map(Character.init))
    }
}

/// A DASH source played through our reader: the manifest, its translation (``DASHPlaylists``)
/// and the lookup ``NetworkSession`` serves the playlists from. A dynamic manifest is fetched
/// again when a media playlist is asked for (libavformat's HLS demuxer reloads a live playlist
/// every target duration) and ``DASHManifest/minimumUpdatePeriod`` has passed since the last
/// fetch (a target duration when the manifest gives none); the translation is made again with
/// the same choices, so the URLs stay the same and the media sequence numbers carry on.
///
/// Called from the demux thread (``document(_:)``) and the loading thread; its state is behind
/// one lock, never held across the fetch.
package final class DASHSource: Sendable {
    package struct Choice: Sendable {
        var preference: VariantPreference
        var range: VideoRangePreference
        var audioLanguages: [String]

        package init(preference: VariantPreference, range: VideoRangePreference, audioLanguages: [String]) {
            self.preference = preference
            self.range = range
            self.audioLanguages = audioLanguages
        }
    }

    let url: String
    let choice: Choice
    /// Reads the manifest again (nil when it cannot be read).
    private let refetch: @Sendable () -> [UInt8]?
    /// Seconds since 1970 (a test may move it).
    private let clock: @Sendable () -> Double
    private struct State {
        var manifest: DASHManifest
        var playlists: DASHPlaylists
        var fetchedAt: Double
        var refreshing = false
        /// The fetches of the translation before the current one (a dynamic manifest's).
        var previousFetches: [String: DASHPlaylists.Fetch] = [:]
    }
    private let state: Guarded<State>

    package var playlists: DASHPlaylists { state.withLock { $0.playlists } }
    package var manifest: DASHManifest { state.withLock { $0.manifest } }

    /// Parses and translates `bytes` (the manifest read from `url`); `index` reads a
    /// `SegmentBase` index range (nil: it cannot be read). Throws one line when the manifest
    /// is refused or has nothing to play.
    package init(url: String, bytes: [UInt8], choice: Choice, clock: @escaping @Sendable () -> Double = { WallClock.seconds() },
         index: (DASHManifest.Resource) -> [UInt8]?, refetch: @escaping @Sendable () -> [UInt8]?) throws(OutsideValue.Refusal) {
        self.url = url
        self.choice = choice
        self.refetch = refetch
        self.clock = clock
        let now = clock()
        let manifest = try Self.read(bytes, url: url, now: now, index: index)
        let playlists = try DASHPlaylists.make(manifest, url: url, preference: choice.preference, range: choice.range,
                                               audioLanguages: choice.audioLanguages)
        state = Guarded(State(manifest: manifest, playlists: playlists, fetchedAt: now))
    }

    private static func read(_ bytes: [UInt8], url: String, now: Double,
                             index: (DASHManifest.Resource) -> [UInt8]?) throws(OutsideValue.Refusal) -> DASHManifest {
        var manifest = try DASHManifest.parse(String(decoding: bytes, as: UTF8.self), base: url, now: now)
        if manifest.needsIndex { try manifest.resolveIndexes(fetch: index) }
        return manifest
    }

    /// How the fMP4 segment the playlists name `url` is fetched (it is served as MPEG-TS), or nil.
    package func fetch(for url: String) -> DASHPlaylists.Fetch? {
        state.withLock { $0.playlists.fetches[url] ?? $0.previousFetches[url] }
    }

    /// The playlist at `url` (UTF-8), or nil when it is not one of this source's.
    package func document(_ url: String) -> [UInt8]? {
        guard url.hasPrefix(DASHPlaylists.prefix(of: self.url)) else { return nil }
        refreshIfDue(for: url)
        return state.withLock { $0.playlists.documents[url] }.map { Array($0.utf8) }
    }

    /// Seconds between fetches of a dynamic manifest.
    var updatePeriod: Double {
        state.withLock { s in
            let target = s.playlists.mediaPlaylists.values.compactMap(\.targetDuration).min() ?? 2
            return max(0.5, s.manifest.minimumUpdatePeriod ?? target)
        }
    }

    private func refreshIfDue(for url: String) {
        let period = updatePeriod
        let now = clock()
        let due = state.withLock { s -> Bool in
            guard s.manifest.isDynamic, url != s.playlists.masterURL, !s.refreshing, now - s.fetchedAt >= period else { return false }
            s.refreshing = true
            return true
        }
        guard due else { return }
        defer { state.withLock { $0.refreshing = false } }
        guard let bytes = refetch() else {
            AppLog.write("dash", "the live manifest could not be fetched again; keeping the last one")
            return
        }
        do {
            let manifest = try Self.read(bytes, url: self.url, now: clock(), index: { _ in nil })
            let playlists = try DASHPlaylists.make(manifest, url: self.url, preference: choice.preference, range: choice.range,
                                                   audioLanguages: choice.audioLanguages, previous: self.playlists)
            state.withLock { s in
                // A segment that just left the window may still be asked for (the switcher
                // matched it in the last copy): the last translation's fetches are kept beside.
                s.previousFetches = s.playlists.fetches
                s.manifest = manifest
                s.playlists = playlists
                s.fetchedAt = now
            }
            if !manifest.isDynamic { AppLog.write("dash", "the live manifest became static (the presentation ended)") }
        } catch {
            AppLog.write("dash", "the live manifest fetched again is refused (\(error.message)); keeping the last one")
        }
    }
}
