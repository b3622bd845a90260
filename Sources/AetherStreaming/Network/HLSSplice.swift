import AetherBase
import AetherMedia

/// The timeline of an HLS media playlist spliced with `EXT-X-DISCONTINUITY` (an ad inserted
/// server-side): at each discontinuity the timestamps may start again, and the resolution, frame
/// rate, profile, audio layout or PIDs may change. libavformat's HLS demuxer passes each
/// segment's timestamps on as they are, so an ad that starts again at 1.4 s lands before the
/// programme it follows, and its seeks look for times no segment has.
///
/// ``NetworkSession`` offers every HLS media playlist it serves or reads whole
/// (``playlistSeen(_:playlist:)``, live reloads too). Once one lists a discontinuity, each of its
/// segments is fetched whole and served remuxed (``SegmentTransmuxer/retimed(_:clock:shift:)``): one
/// PID a codec, and every timestamp moved so that the segment starts where the playlist puts
/// it. The timeline is the first fetched segment's own (its timestamps kept), so a stream
/// without discontinuities, or the part before the first, is unchanged; every later
/// discontinuity sequence is moved by one amount, fixed at its first fetched segment, so its
/// segments stay continuous among themselves. Segments are known by media sequence number across
/// live reloads (their starts carried over from the first reload that listed them).
package final class HLSSplice: Sendable {
    /// A segment on the spliced timeline.
    package struct Place: Sendable, Equatable {
        package var sequence: Int
        /// Seconds on the playlist's timeline (the first segment ever seen starts at 0).
        package var start: Double
        package var discontinuity: Int

        package init(sequence: Int, start: Double, discontinuity: Int) {
            self.sequence = sequence
            self.start = start
            self.discontinuity = discontinuity
        }
    }

    private struct State {
        var playlists = Set<String>()
        var spliced = false
        var places: [Int: Place] = [:]
        var byURI: [String: [Int]] = [:]
        /// Seconds to add to a discontinuity sequence's timestamps; the base maps playlist time
        /// to the first fetched segment's timestamps.
        var shifts: [Int: Double] = [:]
        var base: Double?
        var lastServed: Int?
        var crossings = 0
        /// A translated DASH manifest's periods served so far (by their start), and the last.
        var periods = Set<Double>()
        var lastPeriod: Double?
    }
    private let state = Guarded(State())

    /// Segments remembered at most (the oldest forgotten first): a live stream's last hours.
    static let maxPlaces = 20_000

    package init() {}

    /// Whether `url` is a media playlist seen before (its reloads are read whole and offered).
    package func watches(_ url: String) -> Bool { state.withLock { $0.playlists.contains(url) } }

    /// Discontinuity boundaries played across in order (not by a seek).
    package var crossings: Int { state.withLock { $0.crossings } }

    /// Takes in a media playlist the demuxer is served (`playlist` at `url`; ``PlaylistOffer``).
    package func playlistSeen(_ url: String, playlist: HLSMediaPlaylist) {
        guard let first = playlist.segments.first else { return }
        state.withLock { s in
            s.playlists.insert(url)
            if playlist.hasDiscontinuities, !s.spliced {
                s.spliced = true
                AppLog.write("hls", "\(TextSanitizer.clean(String(url.prefix(200)))): discontinuities: segments are served on one timeline")
            }
            // Starts carried over from the segments known already (a live reload), else from 0.
            let places = s.places
            let carried = playlist.segments.lazy.compactMap { segment in places[segment.sequence].map { $0.start - segment.start } }.first
            let shift = carried
                ?? s.places.values.map(\.start).max().map { last in last + (playlist.targetDuration ?? first.duration) - first.start } ?? 0
            for segment in playlist.segments where s.places[segment.sequence] == nil {
                s.places[segment.sequence] = Place(sequence: segment.sequence, start: segment.start + shift, discontinuity: segment.discontinuity)
                s.byURI[segment.uri, default: []].append(segment.sequence)
            }
            if s.places.count > Self.maxPlaces, let cut = s.places.keys.sorted().dropLast(Self.maxPlaces).last {
                s.places = s.places.filter { $0.key > cut }
                s.byURI = s.byURI.compactMapValues { list in
                    let kept = list.filter { $0 > cut }
                    return kept.isEmpty ? nil : kept
                }
            }
        }
    }

    /// Where the segment the demuxer asks for by `url` sits, or nil when it is not a segment of a
    /// spliced playlist. A URI listed twice (the same ad in two breaks) is taken as the next
    /// after the segment served last.
    package func place(of url: String) -> Place? {
        state.withLock { s in
            guard s.spliced, let list = s.byURI[url] else { return nil }
            let next = s.lastServed.flatMap { last in list.first { $0 > last } } ?? list[0]
            return s.places[next]
        }
    }

    /// A segment of a translated DASH manifest's period that starts at `offset` (seconds) was
    /// served: a period first served right after the one before it counts as crossed (a period
    /// boundary is DASH's discontinuity).
    package func served(period offset: Double) {
        state.withLock { s in
            if !s.periods.contains(offset), let last = s.lastPeriod, last == s.periods.max(), offset > last { s.crossings += 1 }
            s.periods.insert(offset)
            s.lastPeriod = offset
        }
    }

    /// Seconds to add to the timestamps of the segment at `place` whose earliest timestamp is
    /// `first` (seconds); counts a discontinuity crossed when it follows the last one served.
    package func shift(for place: Place, first: Double) -> Double {
        state.withLock { s in
            if let last = s.lastServed, last == place.sequence - 1, let before = s.places[last], before.discontinuity != place.discontinuity {
                s.crossings += 1
            }
            s.lastServed = place.sequence
            if let known = s.shifts[place.discontinuity] { return known }
            let base = s.base ?? (first - place.start)
            s.base = base
            let shift = base + place.start - first
            s.shifts[place.discontinuity] = shift
            return shift
        }
    }
}
