import Foundation

/// An HLS media playlist as far as bit-rate switching needs it: each segment's URI and place
/// on the timeline, and the features that rule a switch out (byte ranges, keys, init sections,
/// a live playlist). Values from the playlist go through ``OutsideValue``: a duration that is
/// not a finite number in `0.001…3600` s refuses the whole playlist (a switch needs a timeline
/// it can trust); at most ``maxSegments`` segments.
public struct HLSMediaPlaylist: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        /// Absolute (resolved against the playlist's URL).
        public var uri: String
        /// Seconds from the playlist's first segment.
        public var start: Double
        public var duration: Double
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

    /// Segments one playlist may list (a ten-hour VOD of 2 s segments has 18 000).
    public static let maxSegments = 100_000
    /// Longest segment accepted, seconds.
    public static let maxSegmentSeconds = 3600.0
    /// Shortest segment accepted, seconds (zero or negative durations refuse the playlist).
    public static let minSegmentSeconds = 0.001

    /// Whether a variant switch may replace this playlist's segments with another variant's.
    public var isSwitchable: Bool { isEnded && !usesByteRanges && !isEncrypted && !hasInitSection && !segments.isEmpty }

    /// Parses a media playlist; throws a one-line refusal when it is not one, has an unusable
    /// duration, or lists more than ``maxSegments`` segments.
    public static func parse(_ text: String, base: String) throws(OutsideValue.Refusal) -> HLSMediaPlaylist {
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)[...]
        guard let first = lines.first, first.trimmingCharacters(in: .whitespaces).hasPrefix("#EXTM3U") else {
            throw OutsideValue.Refusal("not an HLS playlist")
        }
        lines = lines.dropFirst()
        var playlist = HLSMediaPlaylist()
        var pending: Double?
        var start = 0.0
        for raw in lines {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let seconds = try OutsideValue.number(String(value).trimmingCharacters(in: .whitespaces), name: "EXTINF")
                guard seconds >= minSegmentSeconds, seconds <= maxSegmentSeconds else {
                    throw OutsideValue.Refusal("'EXTINF': \(OutsideValue.describe(seconds)) s is not a segment duration in \(minSegmentSeconds)…\(Int(maxSegmentSeconds))")
                }
                pending = seconds
            } else if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                let value = String(line.dropFirst("#EXT-X-TARGETDURATION:".count))
                playlist.targetDuration = try? OutsideValue.clamped(OutsideValue.number(value, name: "EXT-X-TARGETDURATION"),
                                                                     to: minSegmentSeconds...maxSegmentSeconds, name: "EXT-X-TARGETDURATION")
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                playlist.isEnded = true
            } else if line.hasPrefix("#EXT-X-BYTERANGE") {
                playlist.usesByteRanges = true
            } else if line.hasPrefix("#EXT-X-KEY:") {
                let method = HLSMasterPlaylist.attributes(String(line.dropFirst("#EXT-X-KEY:".count)))["METHOD"]
                if method?.uppercased() != "NONE" { playlist.isEncrypted = true }
            } else if line.hasPrefix("#EXT-X-MAP") {
                playlist.hasInitSection = true
            } else if line.hasPrefix("#EXT-X-STREAM-INF") {
                throw OutsideValue.Refusal("a master playlist, not a media playlist")
            } else if !line.hasPrefix("#"), let duration = pending {
                pending = nil
                guard playlist.segments.count < maxSegments else {
                    throw OutsideValue.Refusal("more than \(maxSegments) segments")
                }
                playlist.segments.append(Segment(uri: HLSMasterPlaylist.resolve(line, against: base), start: start, duration: duration))
                start += duration
            }
        }
        return playlist
    }

    /// The segment whose URI is `uri`, or nil.
    public func index(of uri: String) -> Int? {
        segments.firstIndex { $0.uri == uri }
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
