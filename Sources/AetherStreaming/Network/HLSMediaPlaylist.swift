import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An HLS media playlist as far as bit-rate switching needs it: each segment's URI and place
/// on the timeline, and the features that rule a switch out (byte ranges, keys, init sections,
/// a live playlist). Values from the playlist go through ``OutsideValue``: a duration that is
/// not a finite number of at least 0.001 s refuses the whole playlist (a switch needs a timeline
/// it can trust); one past ``maxSegmentSeconds`` is kept as given (up to
/// ``OutsideValue/maxSeconds``, with one log line), and what does work by durations bounds
/// them itself; at most ``maxSegments`` segments.
public struct HLSMediaPlaylist: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        /// Absolute (resolved against the playlist's URL).
        public var uri: String
        /// Seconds from the playlist's first segment.
        public var start: Double
        public var duration: Double
        /// Its media sequence number (`EXT-X-MEDIA-SEQUENCE` + its place): the AES-128 IV when
        /// the key gives none.
        public var sequence = 0
        /// The `EXT-X-KEY` in force for it (nil: clear).
        public var key: SegmentKey?
        /// `EXT-X-BYTERANGE`: only these bytes of `uri` (nil: all of it).
        public var byteRange: ByteRange?
        /// Seconds since 1970 of its first sample (`EXT-X-PROGRAM-DATE-TIME`, or the last one
        /// given plus the durations since); nil when the playlist gives none before it.
        public var programDateTime: Double?
        /// Its discontinuity sequence number (`EXT-X-DISCONTINUITY-SEQUENCE` + the
        /// `EXT-X-DISCONTINUITY` tags before it): segments of one number share a timeline.
        public var discontinuity = 0
    }

    /// A sub-range of a resource (`EXT-X-BYTERANGE:<length>[@<offset>]`).
    public struct ByteRange: Sendable, Equatable, Hashable {
        public var offset: Int
        public var length: Int
        public init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }

        /// Longest sub-range accepted (1 TiB); offsets up to 2^50.
        static let maxLength = 1 << 40
        static let maxOffset = 1 << 50

        /// `length[@offset]`; without `@offset` the range follows `previous` (the same
        /// resource's last sub-range). Nil when the numbers are not whole and in range, or no
        /// offset can be known.
        static func parse(_ text: String, following previous: ByteRange?) -> ByteRange? {
            let parts = text.trimmingWhitespace().split(separator: "@", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count),
                  let length = try? OutsideValue.integer(String(parts[0]), in: 1...maxLength, name: "EXT-X-BYTERANGE") else { return nil }
            let offset: Int
            if parts.count == 2 {
                guard let given = try? OutsideValue.integer(String(parts[1]), in: 0...maxOffset, name: "EXT-X-BYTERANGE") else { return nil }
                offset = given
            } else {
                guard let previous, previous.offset + previous.length <= maxOffset else { return nil }
                offset = previous.offset + previous.length
            }
            return ByteRange(offset: offset, length: length)
        }
    }

    /// An `EXT-X-KEY` other than `METHOD=NONE`.
    public struct SegmentKey: Sendable, Equatable, Hashable {
        /// `AES-128`, `SAMPLE-AES` ... upper-cased as given.
        public var method: String
        /// The key's URI (absolute); nil when the tag names none.
        public var uri: String?
        /// The 16-byte IV from `IV=0x…`; nil when the tag has none (the sequence number is the IV)
        /// or it is not 32 hex digits.
        public var iv: [UInt8]?
        /// `IV` was given but is not 32 hex digits.
        public var badIV = false
    }

    public var segments: [Segment] = []
    /// `EXT-X-TARGETDURATION` (nil when missing or unusable).
    public var targetDuration: Double?
    /// `EXT-X-ENDLIST`: the playlist is complete (VOD).
    public var isEnded = false
    /// `EXT-X-BYTERANGE`, `EXT-X-KEY` other than `NONE`, `EXT-X-MAP`: each makes a segment's
    /// bytes depend on more than its URI, so another variant's segment cannot stand in for it.
    public var usesByteRanges = false
    public var isEncrypted = false
    public var hasInitSection = false
    /// `EXT-X-MAP`'s URI (absolute), the first one, and its `BYTERANGE`.
    public var initSection: String?
    public var initRange: ByteRange?
    /// An `EXT-X-BYTERANGE` (or a `BYTERANGE` of `EXT-X-MAP`) that could not be read: its
    /// segment's range is unknown.
    public var hasBadByteRange = false
    /// `EXT-X-MEDIA-SEQUENCE` (0 when missing or unusable).
    public var mediaSequence = 0
    /// `EXT-X-DISCONTINUITY` before a segment: the timestamps may start again there (an
    /// inserted ad), with another resolution, layout or PIDs.
    public var hasDiscontinuities: Bool { segments.first.map { $0.discontinuity != segments[segments.count - 1].discontinuity } ?? false }

    /// Segments one playlist may list (a ten-hour VOD of 2 s segments has 18 000).
    public static let maxSegments = 100_000
    /// Longest segment anything counts work or waits by, seconds (the throughput estimate's
    /// weights, a live reload's wait, a translated playlist's target duration). A longer
    /// `EXTINF` is kept for the timeline: the bound is on work, not on the number.
    public static let maxSegmentSeconds = 3600.0
    /// Shortest segment accepted, seconds (zero or negative durations refuse the playlist).
    public static let minSegmentSeconds = 0.001

    /// Whether a variant switch may replace this playlist's segments with another variant's.
    public var isSwitchable: Bool { switchRefusal == nil }

    /// Why a variant switch may not replace this playlist's segments, as the rest of a sentence
    /// (`uses byte ranges …`) for the log; nil when it may: byte ranges, keys, init sections, or
    /// no segments. A live playlist (no `EXT-X-ENDLIST`) may be switched: its segments are
    /// matched across variants by media sequence number (``AdaptiveSwitcher``).
    public var switchRefusal: String? {
        if segments.isEmpty { return "lists no segments" }
        if usesByteRanges { return "uses byte ranges (EXT-X-BYTERANGE)" }
        if isEncrypted { return "is encrypted (EXT-X-KEY)" }
        if hasInitSection { return "needs an init section (EXT-X-MAP)" }
        return nil
    }

    /// Why a variant switch may not replace this playlist's segments when byte ranges are
    /// served as the switcher plans them (``rangesAsURLs(_:base:)`` for the playing variant, the
    /// range in the plan for another): ``switchRefusal`` less the byte ranges, unless one of
    /// them could not be read.
    public var rangedSwitchRefusal: String? {
        if usesByteRanges, hasBadByteRange { return "has a byte range that cannot be read (EXT-X-BYTERANGE)" }
        if segments.isEmpty { return "lists no segments" }
        if isEncrypted { return "is encrypted (EXT-X-KEY)" }
        if hasInitSection { return "needs an init section (EXT-X-MAP)" }
        return nil
    }

    /// The fragment naming a byte range of a segment's URL in a rewritten playlist
    /// (``rangesAsURLs(_:base:)``; a translated DASH manifest's the same).
    public static let rangeFragment = "#aether-range="

    /// `text` (a media playlist read from `base`) with each `EXT-X-BYTERANGE` segment named by
    /// its absolute URL and range (`…/index.ts#aether-range=OFFSET-LENGTH`) and no
    /// `EXT-X-BYTERANGE` line, so the HLS demuxer reads whatever is served for a segment to its
    /// end (it cuts a ranged segment at the playlist's length, and another variant's range at
    /// the same place is longer or shorter). Nil when there is nothing to rewrite or it may not
    /// be: no byte ranges, one that cannot be read, keys or an init section, or a playlist
    /// ``parse(_:base:)`` refuses (the same budgets).
    public static func rangesAsURLs(_ text: String, base: String) -> String? {
        guard let playlist = try? parse(text, base: base), playlist.usesByteRanges, playlist.rangedSwitchRefusal == nil else { return nil }
        var out: [Substring] = []
        var k = 0
        var pending = false
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = raw.trimmingWhitespace()
            if line.hasPrefix("#EXT-X-BYTERANGE") { continue }
            if line.hasPrefix("#EXTINF:") { pending = true }
            if !line.hasPrefix("#"), pending, k < playlist.segments.count {
                pending = false
                let segment = playlist.segments[k]
                k += 1
                var uri = segment.uri
                if uri.hasPrefix("#") { uri = "%23" + uri.dropFirst() }
                if let r = segment.byteRange { uri += rangeFragment + "\(r.offset)-\(r.length)" }
                out.append(Substring(uri))
                continue
            }
            out.append(raw)
        }
        guard k == playlist.segments.count else { return nil }
        return out.joined(separator: "\n") + "\n"
    }

    /// `url` named as ``rangesAsURLs(_:base:)`` names a range: the URL without the fragment and
    /// the range (its numbers through ``OutsideValue``, in ``ByteRange``'s bounds); nil otherwise.
    public static func rangedURL(_ url: String) -> (url: String, range: ByteRange)? {
        guard let mark = url.ranges(of: rangeFragment).last else { return nil }
        let parts = url[mark.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let offset = try? OutsideValue.integer(String(parts[0]), in: 0...ByteRange.maxOffset, name: "aether-range"),
              let length = try? OutsideValue.integer(String(parts[1]), in: 1...ByteRange.maxLength, name: "aether-range") else { return nil }
        return (String(url[..<mark.lowerBound]), ByteRange(offset: offset, length: length))
    }

    /// Parses a media playlist; throws a one-line refusal when it is not one, has an unusable
    /// duration, or lists more than ``maxSegments`` segments.
    public static func parse(_ text: String, base: String) throws(OutsideValue.Refusal) -> HLSMediaPlaylist {
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)[...]
        guard let first = lines.first, first.trimmingWhitespace().hasPrefix("#EXTM3U") else {
            throw OutsideValue.Refusal("not an HLS playlist")
        }
        lines = lines.dropFirst()
        var playlist = HLSMediaPlaylist()
        var pending: Double?
        var start = 0.0
        var key: SegmentKey?
        var pendingRange: String?
        var pendingDate: Double?
        var overlong: (first: Double, count: Int)?
        var discontinuity = 0
        for raw in lines {
            let line = raw.trimmingWhitespace()
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let seconds = try OutsideValue.number(String(value).trimmingWhitespace(), name: "EXTINF")
                guard seconds >= minSegmentSeconds else {
                    throw OutsideValue.Refusal("'EXTINF': \(OutsideValue.describe(seconds)) s is not a segment duration of at least \(minSegmentSeconds) s")
                }
                if seconds > maxSegmentSeconds { overlong = (overlong?.first ?? seconds, (overlong?.count ?? 0) + 1) }
                pending = min(seconds, OutsideValue.maxSeconds)
            } else if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                let value = String(line.dropFirst("#EXT-X-TARGETDURATION:".count))
                playlist.targetDuration = try? OutsideValue.clamped(OutsideValue.number(value, name: "EXT-X-TARGETDURATION"),
                                                                     to: minSegmentSeconds...maxSegmentSeconds, name: "EXT-X-TARGETDURATION")
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                playlist.isEnded = true
            } else if line.hasPrefix("#EXT-X-BYTERANGE") {
                playlist.usesByteRanges = true
                pendingRange = String(line.dropFirst("#EXT-X-BYTERANGE".count).drop { $0 == ":" })
            } else if line.hasPrefix("#EXT-X-KEY:") {
                let a = HLSMasterPlaylist.attributes(String(line.dropFirst("#EXT-X-KEY:".count)))
                let method = (a["METHOD"] ?? "").uppercased()
                if method == "NONE" {
                    key = nil
                } else {
                    playlist.isEncrypted = true
                    let iv = a["IV"].flatMap(Self.iv)
                    key = SegmentKey(method: method, uri: a["URI"].map { URLReference.resolve($0, against: base) },
                                     iv: iv, badIV: a["IV"] != nil && iv == nil)
                }
            } else if line.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") {
                discontinuity = (try? OutsideValue.integer(String(line.dropFirst("#EXT-X-DISCONTINUITY-SEQUENCE:".count)),
                                                           in: 0...Int(Int32.max), name: "EXT-X-DISCONTINUITY-SEQUENCE")) ?? 0
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = min(discontinuity + 1, Int(Int32.max))
            } else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                playlist.mediaSequence = (try? OutsideValue.integer(String(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)),
                                                                    in: 0...Int(Int32.max), name: "EXT-X-MEDIA-SEQUENCE")) ?? 0
            } else if line.hasPrefix("#EXT-X-MAP") {
                playlist.hasInitSection = true
                let a = line.hasPrefix("#EXT-X-MAP:") ? HLSMasterPlaylist.attributes(String(line.dropFirst("#EXT-X-MAP:".count))) : [:]
                if playlist.initSection == nil, let uri = a["URI"] {
                    playlist.initSection = URLReference.resolve(uri, against: base)
                    if let range = a["BYTERANGE"] {
                        // An init section's range always names its offset.
                        playlist.initRange = range.contains("@") ? ByteRange.parse(range, following: nil) : nil
                        if playlist.initRange == nil { playlist.hasBadByteRange = true }
                    }
                }
            } else if line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") {
                // An unreadable date is left out (the next segment extrapolates or has none).
                pendingDate = try? OutsideValue.dateTime(String(line.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)),
                                                         name: "EXT-X-PROGRAM-DATE-TIME")
            } else if line.hasPrefix("#EXT-X-STREAM-INF") {
                throw OutsideValue.Refusal("a master playlist, not a media playlist")
            } else if !line.hasPrefix("#"), let duration = pending {
                pending = nil
                guard playlist.segments.count < maxSegments else {
                    throw OutsideValue.Refusal("more than \(maxSegments) segments")
                }
                let uri = URLReference.resolve(line, against: base)
                var range: ByteRange?
                if let text = pendingRange {
                    // Without an offset a range continues the same resource's previous one.
                    let last = playlist.segments.last
                    range = ByteRange.parse(text, following: last?.uri == uri ? last?.byteRange : nil)
                    if range == nil { playlist.hasBadByteRange = true }
                }
                let date = pendingDate ?? playlist.segments.last.flatMap { last in last.programDateTime.map { $0 + last.duration } }
                playlist.segments.append(Segment(uri: uri, start: start, duration: duration,
                                                 sequence: playlist.mediaSequence + playlist.segments.count, key: key, byteRange: range,
                                                 programDateTime: date, discontinuity: discontinuity))
                pendingRange = nil
                pendingDate = nil
                start += duration
            }
        }
        if let overlong {
            AppLog.write("hls", "\(TextSanitizer.clean(String(base.prefix(200)))): \(overlong.count) segment(s) longer than an hour (the first \(OutsideValue.describe(overlong.first)) s) kept as given")
        }
        return playlist
    }

    /// `0x` + 32 hex digits → 16 bytes; nil otherwise.
    static func iv(_ text: String) -> [UInt8]? {
        var hex = Substring(text.trimmingWhitespace())
        guard hex.hasPrefix("0x") || hex.hasPrefix("0X") else { return nil }
        hex = hex.dropFirst(2)
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let next = hex.index(i, offsetBy: 2)
            guard let byte = UInt8(hex[i..<next], radix: 16) else { return nil }
            bytes.append(byte)
            i = next
        }
        return bytes
    }

    /// The segment whose URI is `uri`, or nil.
    public func index(of uri: String) -> Int? {
        segments.firstIndex { $0.uri == uri }
    }

    /// The segment whose media sequence number is `sequence` (numbers are consecutive), or nil.
    public func index(sequence: Int) -> Int? {
        guard let first = segments.first else { return nil }
        let k = sequence - first.sequence
        return segments.indices.contains(k) ? k : nil
    }

    /// The segment whose program date-time is within `tolerance` s of `date`, or nil.
    public func index(date: Double, tolerance: Double) -> Int? {
        segments.firstIndex { $0.programDateTime.map { abs($0 - date) <= tolerance } ?? false }
    }

    /// The segment starting within `tolerance` s of `start` (binary search), or nil.
    public func index(startingAt start: Double, tolerance: Double) -> Int? {
        var low = 0, high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].start < start - tolerance { low = mid + 1 } else { high = mid }
        }
        guard low < segments.count, abs(segments[low].start - start) <= tolerance else { return nil }
        return low
    }
}
