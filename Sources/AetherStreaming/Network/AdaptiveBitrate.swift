import AetherBase
import AetherMedia
import Foundation

/// Every threshold of bit-rate switching, in one place tests can vary.
public struct AdaptivePolicy: Sendable, Equatable {
    public var estimator = ThroughputEstimator.Policy()
    /// Bits per second assumed before the first download is measured (picks the start variant).
    public var defaultEstimate = 1_000_000.0
    /// A variant keeps playing while its peak rate is at most this share of the estimate
    /// (hls.js `abrBandWidthFactor`).
    public var keepFactor = 0.95
    /// A higher variant needs its peak rate under this share of the estimate (hls.js
    /// `abrBandWidthUpFactor`) with little buffered, rising linearly to ``upFactorHighBuffer``
    /// between ``lowBuffer`` and ``highBuffer`` seconds buffered (BOLA's idea: a deep buffer
    /// can afford a rate closer to the link's).
    public var upFactor = 0.7
    public var upFactorHighBuffer = 0.9
    public var lowBuffer = 8.0
    public var highBuffer = 20.0
    /// Under this many seconds buffered, only a variant whose next segment loads within half
    /// the buffer, or within 3/4 of the segment's own length, may play (drop fast before the
    /// buffer runs dry, but not after a seek on a link that carries the rate).
    public var emergencyBuffer = 4.0
    /// ...or whose segment loads within this share of its own length (refills even an empty
    /// buffer: after a seek, at start).
    public var emergencyLoadShare = 0.75
    /// Seconds after a switch before the player may switch up again (no oscillation); a
    /// switch down is never held.
    public var upHoldSeconds = 4.0
    /// With at least ``highBuffer`` seconds buffered the hold also ends after this many
    /// segments measured since the switch (a demuxer filling a deep buffer fetches several
    /// segments in the hold's seconds; each is a measurement, and a wrong step costs no stall).
    public var upHoldSegments = 3
    /// Variants considered at most (a master listing thousands keeps this many, spread over
    /// its rates).
    public var maxRungs = 32
    /// A segment being downloaded is abandoned (hls.js's rule) once this share of its media
    /// duration has passed, when what is left of it would take longer than the buffer holds and
    /// a lower variant's whole segment loads sooner (at ``abandonMargin`` of the rate seen).
    public var abandonAfter = 0.5
    public var abandonMargin = 0.8
    /// Live: a higher variant's segment must also load within this share of what is buffered
    /// (a live buffer cannot grow past the distance to the edge, so a step up whose segment
    /// outlasts it stalls; seen at the start of live HLS with separate audio renditions, whose
    /// audio segment the demuxer fetches in series); nil: not asked (VOD, where one segment's
    /// time is allowed).
    public var upWithinBuffer: Double? = nil
    public init() {}

    /// The policy for a live stream of `segment`-second segments: a live player holds no more
    /// than its distance to the live edge (it joins three segments behind it, and a segment is
    /// only there once published), so the buffer depths at which the rule trusts the fast
    /// average (``lowBuffer``, ``highBuffer``) are at most 1 and 2 segments: two segments ahead
    /// is a full live buffer. Otherwise a live stream, never 8 s ahead, would climb back only as
    /// fast as the slow average forgets a slow link. A wrong step up is caught by the abandon
    /// rule (``AdaptiveSwitcher/abandon(_:loaded:elapsed:)``).
    public func live(segment: Double) -> AdaptivePolicy {
        var p = self
        let d = segment.isFinite && segment > 0 ? min(segment, HLSMediaPlaylist.maxSegmentSeconds) : 2
        p.lowBuffer = min(lowBuffer, d)
        p.highBuffer = max(p.lowBuffer + 0.001, min(highBuffer, 2 * d))
        // A live buffer never leaves the emergency range (1-3 s is normal), and it holds steady
        // as long as each segment loads within its own length (one is published per length):
        // keeping pace is the keep rule's own share, not the 3/4 a VOD refill needs (the 3/4 rule
        // stepped down on a 4.66 Mb/s link playing 3.6 Mb/s, and back up, in the live run).
        p.emergencyLoadShare = max(emergencyLoadShare, keepFactor)
        p.upWithinBuffer = upWithinBuffer ?? 0.8
        return p
    }
}

/// One change of variant, for the stats box, IPC and `--stats-file`.
public struct BitrateSwitch: Sendable, Equatable, Codable {
    /// Media seconds of the first segment played at the new rate.
    public var position: Double
    /// Peak bits per second (`BANDWIDTH`) before and after.
    public var fromBandwidth: Int
    public var toBandwidth: Int
    /// 1-based numbers of the variants in the master's order.
    public var fromVariant: Int
    public var toVariant: Int
    /// Why (`throughput 0.98 Mb/s under 3.60 Mb/s`, `buffer 2.1 s`, `throughput 5.92 Mb/s, buffer 14.0 s`).
    public var reason: String
    /// Bits per second estimated and seconds buffered when it was decided.
    public var estimate: Double
    public var buffer: Double
}

/// Where bit-rate switching stands.
public struct AdaptiveStatus: Sendable, Equatable {
    /// The variant playing now (its index in ``Player/variants``).
    public var variant: StreamVariant
    public var variantIndex: Int
    /// Bits per second (nil before the first measured download).
    public var estimate: Double?
    /// Every switch so far (the last ``AdaptiveSwitcher/keptSwitches``), oldest first, and how
    /// many there were.
    public var switches: [BitrateSwitch]
    public var switchCount: Int
}

/// The switching rule, a pure function: which rung of the ladder (rates ascending) the next
/// segment should come from.
public enum AdaptiveRule {
    public struct Decision: Sendable, Equatable {
        public var rung: Int
        public var reason: String
    }

    /// `current` the rung playing; `estimate` bits/s; `recent` the last download's rate (b/s):
    /// the lower of the two decides whether to go down and how far (quick down, slow up);
    /// `buffer` seconds demuxed ahead of the playhead; `segmentSeconds` the next segment's
    /// length; `sinceSwitch` wall seconds since the last switch; `fast` the fast average alone
    /// (b/s): the deeper the buffer between ``AdaptivePolicy/lowBuffer`` and
    /// ``AdaptivePolicy/highBuffer``, the more the rule trusts it (and the last download) over
    /// the slow average, for keeping a rate as for going up to one (BOLA's idea again: with a
    /// deep buffer a wrong step up costs a segment, not a stall, so a link that came back is
    /// used within a few segments; the same estimate keeps what it chose, so no oscillation).
    /// Nil: stay.
    /// `segmentsSinceSwitch` counts the segments measured since the last switch.
    public static func decide(current: Int, rates: [Double], estimate: Double, recent: Double? = nil, fast: Double? = nil,
                              buffer: Double, segmentSeconds: Double, sinceSwitch: Double, segmentsSinceSwitch: Int = 0,
                              policy: AdaptivePolicy) -> Decision? {
        guard rates.indices.contains(current), estimate.isFinite, estimate > 0 else { return nil }
        let buffer = buffer.isFinite ? max(0, buffer) : 0
        let segment = segmentSeconds.isFinite ? max(0.001, segmentSeconds) : 2
        let positive = { (v: Double?) in v.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } }
        let depth = min(1, max(0, (buffer - policy.lowBuffer) / max(0.001, policy.highBuffer - policy.lowBuffer)))
        let lately = min(positive(fast) ?? estimate, positive(recent) ?? .infinity)
        let trusted = estimate + max(0, lately - estimate) * depth
        let low = min(trusted, positive(recent) ?? trusted)
        func fetch(_ r: Int) -> Double { rates[r] * segment / low }
        let mbps = { (v: Double) in String(format: "%.2f Mb/s", v / 1e6) }
        // Running dry: the best rung whose segment loads within half of what is buffered.
        // A segment that loads in under 3/4 of its own length refills even an empty buffer (after
        // a seek, at start), so it may stay.
        let room = max(buffer * 0.5, segment * policy.emergencyLoadShare)
        if buffer < policy.emergencyBuffer, fetch(current) > room {
            let best = (0..<current).last { fetch($0) <= room } ?? 0
            if best < current {
                return Decision(rung: best, reason: String(format: "buffer %.1f s, throughput %@", buffer, mbps(low)))
            }
        }
        // The link no longer carries this rate.
        if rates[current] > low * policy.keepFactor {
            let best = (0..<current).last { rates[$0] <= low * policy.keepFactor } ?? 0
            if best < current {
                return Decision(rung: best, reason: "throughput \(mbps(low)) under \(mbps(rates[current]))")
            }
            return nil
        }
        // Up: held after a switch; the rate must fit the buffer-dependent share of the estimate
        // and its segment must load well within what is buffered (or one segment's time).
        let held = !(sinceSwitch >= policy.upHoldSeconds)
            && !(buffer >= policy.highBuffer && segmentsSinceSwitch >= policy.upHoldSegments)
        guard !held, current + 1 < rates.count else { return nil }
        let factor = policy.upFactor + (policy.upFactorHighBuffer - policy.upFactor) * depth
        let segmentUp = { (r: Int) in rates[r] * segment / trusted }
        let allowance = max(segment, buffer * 0.5)
        // Never past what the last download itself carried (the averages still remember a fast
        // link for a while after it slowed: stepping up on them alone oscillates).
        let lastCarries = { (r: Int) in positive(recent).map { rates[r] <= $0 * factor } ?? true }
        let withinBuffer = { (r: Int) in policy.upWithinBuffer.map { segmentUp(r) <= buffer * $0 } ?? true }
        guard let best = (current + 1..<rates.count).last(where: {
            rates[$0] <= trusted * factor && segmentUp($0) <= allowance && lastCarries($0) && withinBuffer($0)
        }) else {
            return nil
        }
        return Decision(rung: best, reason: String(format: "throughput %@, buffer %.1f s", mbps(trusted), buffer))
    }

    /// At most `limit` rungs of `rates` (ascending): the lowest, the highest, and the rest spread
    /// evenly between them. Returns indices into `rates`.
    public static func thin(_ count: Int, limit: Int) -> [Int] {
        guard count > limit, limit >= 2 else { return Array(0..<count) }
        var picked: [Int] = []
        for k in 0..<limit {
            let i = Int((Double(k) * Double(count - 1) / Double(limit - 1)).rounded())
            if picked.last != i { picked.append(i) }
        }
        return picked
    }
}

/// Switches an HLS stream (or a DASH one translated to HLS playlists whose fMP4 segments are
/// served as MPEG-TS, ``DASHPlaylists``) between variants at segment boundaries while it plays.
///
/// libavformat plays one variant's media playlist (the *anchor*, the variant chosen at start);
/// every segment it opens goes through ``NetworkSession``, which asks ``plan(for:wait:)`` which
/// variant's segment at the same place on the timeline to fetch instead. The segments of a
/// switchable ladder are aligned (same start times, each starting with a keyframe) and carry
/// their audio and video muxed (MPEG-TS, same streams), so the demuxer reads one continuous
/// stream, audio and video switch together, and the decoder picks up the new parameters in band.
/// Each segment is downloaded whole and timed (``downloaded(_:bytes:seconds:)``) to feed the
/// ``ThroughputEstimator``. A variant whose playlist cannot be read, uses byte ranges, keys or
/// init sections (``HLSMediaPlaylist/switchRefusal``), or whose segments do not line up with the
/// anchor's is left out of the ladder when first wanted (logged). Before ``arm()`` (during the
/// open and probe) the anchor's own segments are fetched.
///
/// **VOD**: a segment of another variant stands in for the anchor's that starts at the same
/// time (cumulative durations from the playlist's first segment).
///
/// **Live** (the anchor has no `EXT-X-ENDLIST`): libavformat re-reads the anchor's playlist
/// itself; ``NetworkSession`` reads each such reload whole and hands it here
/// (``playlistFetched(_:text:)``) before serving it, so the anchor's copy is the demuxer's. Another
/// variant's playlist is read again only when a segment is wanted from it that its copy does not
/// list yet, and never sooner than its target duration after the last read (the HLS rule for
/// reloads): the variant playing waits for that (at most two reads; then it is left out as a
/// variant that stopped updating), a candidate for a switch is skipped for this segment instead.
/// Segments are matched by **media sequence number** (the HLS rule: the same number is the same
/// place in every variant). When the numbers do not line up (the same number carries program
/// date-times further apart than the match tolerance, or the windows share no number while their
/// dates overlap) that variant is matched by `EXT-X-PROGRAM-DATE-TIME` instead (logged once);
/// without dates it is left out. Cumulative time is not used for live: each variant's window
/// slides on its own, so its starts share no origin. A reload whose media sequence goes back, or
/// that turns VOD while the anchor is live (or the other way), leaves the variant out.
///
/// **Live DASH** (a dynamic MPD translated, ``DASHSource``): each representation's playlist
/// numbers its segments by `$Number$` (the same number is the same place in every
/// representation of an aligned set) and dates them from `availabilityStartTime` (so a
/// representation whose `startNumber` differs is matched by date, as above). The demuxer's
/// reloads of the anchor are served from memory and handed here like an HTTP reload; another
/// representation's playlist comes from the same translation (``localLoader``), so a copy that
/// does not list a segment yet is read again at once.
///
/// Only the anchor's segments are replaced; anything else libavformat opens passes through.
/// So a master whose sound is in separate audio renditions (read whole by libavformat's hls
/// demuxer) switches its video variants while the chosen rendition plays on, and a translated
/// DASH manifest's audio set likewise; a DASH `SegmentBase`/`SegmentList` fragment is named by
/// its file and range (`#aether-range=`), so it plans like any other segment.
///
/// Called from the demux thread (``plan(for:wait:)``, ``downloaded(_:bytes:seconds:)``,
/// ``playlistFetched(_:text:)``) and read from any thread (``status``); its state is behind one
/// lock, never held across I/O.
package final class AdaptiveSwitcher: Sendable {
    struct Plan: Sendable, Equatable {
        /// The URL to fetch.
        var url: String
        /// The ladder rung it belongs to.
        var rung: Int
        var mediaSeconds: Double
        /// The anchor's segment it stands for (its URL in the anchor's playlist).
        var anchorURL = ""
        /// Only these bytes of ``url`` (an `EXT-X-BYTERANGE` segment), nil: all of it.
        var range: HLSMediaPlaylist.ByteRange? = nil
    }

    /// The plan fetching `segment` of `rung`: its URL and byte range (a range named in a
    /// rewritten anchor playlist, ``HLSMediaPlaylist/rangesAsURLs(_:base:)``, or its own
    /// `EXT-X-BYTERANGE`).
    private func fetching(_ segment: HLSMediaPlaylist.Segment, rung: Int, anchorURL: String) -> Plan {
        if let range = segment.byteRange {
            return Plan(url: segment.uri, rung: rung, mediaSeconds: segment.duration, anchorURL: anchorURL, range: range)
        }
        if servesRanges, let (url, range) = HLSMediaPlaylist.rangedURL(segment.uri) {
            return Plan(url: url, rung: rung, mediaSeconds: segment.duration, anchorURL: anchorURL, range: range)
        }
        return Plan(url: segment.uri, rung: rung, mediaSeconds: segment.duration, anchorURL: anchorURL)
    }

    /// The anchor's own segment at `url` (what the demuxer asked for), to fetch when the planned
    /// one failed.
    func own(_ url: String, mediaSeconds: Double) -> Plan {
        if servesRanges, let (plain, range) = HLSMediaPlaylist.rangedURL(url) {
            return Plan(url: plain, rung: anchorRung, mediaSeconds: mediaSeconds, anchorURL: url, range: range)
        }
        return Plan(url: url, rung: anchorRung, mediaSeconds: mediaSeconds, anchorURL: url)
    }

    struct Rung: Sendable {
        var variant: StreamVariant
        /// Index in the master's variant list.
        var index: Int
        var playlist: HLSMediaPlaylist?
        var unusable = false
        /// Live: when its playlist was last read (monotonic seconds).
        var fetchedAt = -Double.infinity
        /// Live: matched by program date-time (its sequence numbers do not line up).
        var byDate = false
    }

    private struct State {
        var rungs: [Rung]
        var current: Int
        var estimator: ThroughputEstimator
        var switches: [BitrateSwitch] = []
        var switchCount = 0
        var lastSwitch = -Double.infinity
        var measuredSinceSwitch = 0
        var armed = false
        /// The anchor's playlist as the demuxer last read it.
        var anchor: HLSMediaPlaylist
        /// Live: media seconds of the anchor copy's first segment on the timeline of the first
        /// copy (starts of later copies are shifted onto it, for the switch positions).
        var anchorBase = 0.0
    }

    /// Switches kept for the status (the count goes on).
    static let keptSwitches = 256
    /// Live: reads of the playing variant's playlist for one segment before it is left out.
    static let liveReadsForCurrent = 2

    let policy: AdaptivePolicy
    private let anchorRung: Int
    /// The anchor's media playlist URL.
    private let anchorURI: String?
    /// The anchor is live (no `EXT-X-ENDLIST`).
    let isLive: Bool
    private let state: Guarded<State>
    private let bufferLevel = Guarded<(@Sendable () -> Double)?>(nil)
    /// Reads a variant's media playlist (nil when it cannot be read).
    private let loader: @Sendable (String) -> String?
    /// The loader reads from memory (a translated DASH manifest's playlists, all made from the
    /// one manifest the demuxer's copy came from): live, a copy that does not list a segment is
    /// read again at once, not a target duration after the last read.
    private let localLoader: Bool
    /// Byte-range playlists switch (HLS): the anchor's playlist is served rewritten
    /// (``HLSMediaPlaylist/rangesAsURLs(_:base:)``), another variant's ranges go in the plan.
    let servesRanges: Bool

    /// `ladder`: indices into `variants`, rates ascending; `anchor`: the rung libavformat plays,
    /// whose media playlist is `anchorPlaylist`.
    package init(variants: [StreamVariant], ladder: [Int], anchor: Int, anchorPlaylist: HLSMediaPlaylist, policy: AdaptivePolicy,
         localLoader: Bool = false, servesRanges: Bool = false, loader: @escaping @Sendable (String) -> String?) {
        var rungs = ladder.map { Rung(variant: variants[$0], index: $0) }
        rungs[anchor].playlist = anchorPlaylist
        rungs[anchor].fetchedAt = MonotonicClock.seconds()
        self.anchorRung = anchor
        self.anchorURI = rungs[anchor].variant.uri
        self.isLive = !anchorPlaylist.isEnded
        self.policy = policy
        self.loader = loader
        self.localLoader = localLoader
        self.servesRanges = servesRanges
        state = Guarded(State(rungs: rungs, current: anchor, estimator: ThroughputEstimator(policy: policy.estimator),
                              anchor: anchorPlaylist))
    }

    /// Seconds demuxed ahead of the playhead (set by the session before it starts).
    package func setBufferLevel(_ level: @escaping @Sendable () -> Double) { bufferLevel.withLock { $0 = level } }

    /// From now on segments may come from other variants.
    package func arm() { state.withLock { $0.armed = true } }

    package var status: AdaptiveStatus {
        state.withLock { s in
            AdaptiveStatus(variant: s.rungs[s.current].variant, variantIndex: s.rungs[s.current].index,
                           estimate: s.estimator.estimate, switches: s.switches, switchCount: s.switchCount)
        }
    }

    /// Whether `url` is the media playlist of a variant of the ladder (the session then reads it
    /// whole and hands it to ``playlistFetched(_:text:)``).
    func watches(_ url: String) -> Bool {
        state.withLock { s in s.rungs.contains { $0.variant.uri == url } }
    }

    /// The demuxer read `url`, a variant's media playlist (``watches(_:)``): the anchor's becomes
    /// the copy segments are looked up in (live: its reload); another variant's is kept when
    /// none was read yet (so it is not read twice). Returns the text to serve instead: the
    /// anchor's with its byte ranges named in its URLs (``servesRanges``), else nil.
    @discardableResult
    func playlistFetched(_ url: String, text: String) -> String? {
        var text = text
        var served: String?
        if servesRanges, url == anchorURI, let rewritten = HLSMediaPlaylist.rangesAsURLs(text, base: url) {
            text = rewritten
            served = rewritten
        }
        guard let parsed = try? HLSMediaPlaylist.parse(text, base: url) else { return served }
        let now = MonotonicClock.seconds()
        state.withLock { s in
            if url == anchorURI {
                let old = s.anchor
                // Keep the positions continuous: shift the new copy onto the old one's timeline
                // through a sequence number both list (else it follows the old copy's end).
                if let first = parsed.segments.first {
                    if let k = old.index(sequence: first.sequence) {
                        s.anchorBase += old.segments[k].start - first.start
                    } else if let last = old.segments.last, first.sequence > last.sequence {
                        s.anchorBase += last.start + last.duration
                    }
                }
                s.anchor = parsed
                s.rungs[anchorRung].playlist = parsed
                s.rungs[anchorRung].fetchedAt = now
            } else if let r = s.rungs.firstIndex(where: { $0.variant.uri == url }), s.rungs[r].playlist == nil, !s.rungs[r].unusable,
                      refusal(parsed) == nil, parsed.isEnded == s.anchor.isEnded {
                s.rungs[r].playlist = parsed
                s.rungs[r].fetchedAt = now
                if isLive { s.rungs[r].byDate = Self.needsDates(parsed, anchor: s.anchor) }
            }
        }
        return served
    }

    /// Why a rung's playlist cannot be switched to (byte ranges allowed when ``servesRanges``).
    private func refusal(_ playlist: HLSMediaPlaylist) -> String? {
        servesRanges ? playlist.rangedSwitchRefusal : playlist.switchRefusal
    }

    /// Which URL to fetch for `url` when it is a segment of the anchor playlist; nil otherwise
    /// (the caller opens `url` as it is). `wait` waits a number of seconds, false when the
    /// source is interrupted (live: waiting for the playing variant's playlist to list the
    /// segment; nil: never wait).
    func plan(for url: String, wait: ((Double) -> Bool)? = nil) -> Plan? {
        guard let (segment, position) = state.withLock({ s -> (HLSMediaPlaylist.Segment, Double)? in
            guard let i = s.anchor.index(of: url) else { return nil }
            return (s.anchor.segments[i], s.anchorBase + s.anchor.segments[i].start)
        }) else { return nil }
        let buffer = bufferLevel.withLock { $0 }?() ?? 0
        let now = MonotonicClock.seconds()
        // Live candidates whose playlist does not list this segment yet: not switched to now.
        var skipped = Set<Int>()
        // Decide under the lock; load a playlist (I/O) outside it.
        for _ in 0..<4 {
            let (wanted, decision, current) = state.withLock { s -> (Int, AdaptiveRule.Decision?, Int) in
                guard s.armed else { return (s.current, nil, s.current) }
                let usable = s.rungs.indices.filter { (!s.rungs[$0].unusable && !skipped.contains($0)) || $0 == s.current }
                let rates = usable.map { Double(s.rungs[$0].variant.bandwidth) }
                guard let here = usable.firstIndex(of: s.current),
                      let d = AdaptiveRule.decide(current: here, rates: rates, estimate: s.estimator.estimate ?? policy.defaultEstimate,
                                                  recent: s.estimator.lastRate, fast: s.estimator.fastEstimate, buffer: buffer,
                                                  segmentSeconds: segment.duration, sinceSwitch: now - s.lastSwitch,
                                                  segmentsSinceSwitch: s.measuredSinceSwitch,
                                                  policy: isLive ? policy.live(segment: s.anchor.targetDuration ?? segment.duration) : policy) else {
                    return (s.current, nil, s.current)
                }
                return (usable[d.rung], d, s.current)
            }
            let rung = wanted
            let target: HLSMediaPlaylist.Segment
            switch lookup(rung, segment, patient: rung == current, wait: wait) {
            case .found(let found): target = found
            case .notYet:
                skipped.insert(rung)
                continue
            case .never:
                continue
            }
            if let decision, rung != current {
                record(to: rung, segment: segment, position: position, reason: decision.reason, buffer: buffer, now: now)
            }
            return fetching(target, rung: rung, anchorURL: url)
        }
        // Nothing usable came of it: the anchor's own segment.
        state.withLock { $0.current = anchorRung }
        return fetching(segment, rung: anchorRung, anchorURL: url)
    }

    /// The segment of `rung` standing for the anchor's `segment`: the anchor's own, a live
    /// variant's by sequence number or date (``liveSegment(_:matching:patient:wait:)``), a VOD
    /// variant's by start time.
    private func lookup(_ rung: Int, _ segment: HLSMediaPlaylist.Segment, patient: Bool, wait: ((Double) -> Bool)?) -> LiveLookup {
        if rung == anchorRung { return .found(segment) }
        if isLive { return liveSegment(rung, matching: segment, patient: patient, wait: wait) }
        guard let playlist = playlist(of: rung) else { return .never }
        let tolerance = min(0.5, segment.duration * 0.25)
        guard let k = playlist.index(startingAt: segment.start, tolerance: tolerance) else {
            markUnusable(rung, why: "its segments do not line up with the playing variant's")
            return .never
        }
        return .found(playlist.segments[k])
    }

    /// Notes a switch to `rung` at the anchor's `segment` (logged, counted, kept for the status).
    private func record(to rung: Int, segment: HLSMediaPlaylist.Segment, position: Double, reason: String, buffer: Double, now: Double) {
        state.withLock { s in
            let from = s.rungs[s.current], to = s.rungs[rung]
            let change = BitrateSwitch(position: position, fromBandwidth: from.variant.bandwidth, toBandwidth: to.variant.bandwidth,
                                       fromVariant: from.index + 1, toVariant: to.index + 1, reason: reason,
                                       estimate: s.estimator.estimate ?? policy.defaultEstimate, buffer: buffer)
            s.switches.append(change)
            if s.switches.count > Self.keptSwitches { s.switches.removeFirst(s.switches.count - Self.keptSwitches) }
            s.switchCount += 1
            s.current = rung
            s.lastSwitch = now
            s.measuredSinceSwitch = 0
            FFmpegLog.write("abr", String(format: "segment at %.1f s%@: variant %d (%d b/s) -> %d (%d b/s): %@",
                                          position, isLive ? " (#\(segment.sequence))" : "", change.fromVariant, change.fromBandwidth,
                                          change.toVariant, change.toBandwidth, change.reason))
        }
    }

    /// hls.js's abandon rule, asked while `plan`'s segment downloads (`loaded` bytes after
    /// `elapsed` seconds): once ``AdaptivePolicy/abandonAfter`` of its media duration has
    /// passed, if the rest at the rate seen would take longer than the buffer holds, the same
    /// place from the highest lower variant whose whole segment loads within the buffer (at
    /// ``AdaptivePolicy/abandonMargin`` of that rate; else the lowest), when that is sooner than
    /// finishing. Returns that plan (the switch is counted, the partial download measured), or
    /// nil: carry on. A live variant whose playlist does not list the place yet is not waited for.
    func abandon(_ plan: Plan, loaded: Int, elapsed: Double) -> Plan? {
        guard plan.mediaSeconds > 0, elapsed.isFinite, elapsed > plan.mediaSeconds * policy.abandonAfter, loaded > 0 else { return nil }
        let buffer = bufferLevel.withLock { $0 }?() ?? 0
        let rate = Double(loaded) * 8 / elapsed
        guard let (segment, position, lower, expected) = state.withLock({ s -> (HLSMediaPlaylist.Segment, Double, [Int], Double)? in
            guard s.armed, s.rungs.indices.contains(plan.rung), let i = s.anchor.index(of: plan.anchorURL) else { return nil }
            let v = s.rungs[plan.rung].variant
            let lower = s.rungs.indices.filter { $0 < plan.rung && !s.rungs[$0].unusable }
            return (s.anchor.segments[i], s.anchorBase + s.anchor.segments[i].start, lower,
                    Double(v.averageBandwidth ?? v.bandwidth) * plan.mediaSeconds / 8)
        }) else { return nil }
        let remaining = max(0, expected - Double(loaded)) * 8 / rate
        guard remaining > buffer, !lower.isEmpty else { return nil }
        let bandwidth = { (r: Int) in Double(self.state.withLock { $0.rungs[r].variant.bandwidth }) }
        let fetch = { (r: Int) in bandwidth(r) * plan.mediaSeconds / (self.policy.abandonMargin * rate) }
        let pick = lower.last { fetch($0) < buffer } ?? lower[0]
        guard fetch(pick) < remaining, case .found(let target) = lookup(pick, segment, patient: false, wait: nil) else { return nil }
        let now = MonotonicClock.seconds()
        state.withLock { s in
            if s.estimator.sample(bytes: loaded, seconds: elapsed, mediaSeconds: plan.mediaSeconds * min(1, Double(loaded) / max(1, expected))) {
                s.measuredSinceSwitch += 1
            }
        }
        record(to: pick, segment: segment, position: position,
               reason: String(format: "abandoned a segment: throughput %.2f Mb/s, %.1f s left to load, buffer %.1f s", rate / 1e6, remaining, buffer),
               buffer: buffer, now: now)
        return fetching(target, rung: pick, anchorURL: plan.anchorURL)
    }

    /// A planned segment was downloaded whole: `bytes` in `seconds`.
    func downloaded(_ plan: Plan, bytes: Int, seconds: Double) {
        state.withLock { s in
            if s.estimator.sample(bytes: bytes, seconds: seconds, mediaSeconds: plan.mediaSeconds) { s.measuredSinceSwitch += 1 }
        }
    }

    /// A planned segment of another variant could not be fetched: that variant leaves the ladder.
    func failed(_ plan: Plan) {
        guard plan.rung != anchorRung else { return }
        markUnusable(plan.rung, why: "a segment could not be fetched")
    }

    /// The rung's media playlist, loaded on first use; nil (and the rung marked unusable) when it
    /// cannot be read or cannot be switched to.
    private func playlist(of rung: Int) -> HLSMediaPlaylist? {
        let (known, uri) = state.withLock { s in (s.rungs[rung].unusable ? nil : s.rungs[rung].playlist, s.rungs[rung].variant.uri) }
        if let known { return known }
        guard let uri, let text = loader(uri) else {
            markUnusable(rung, why: "its playlist cannot be read")
            return nil
        }
        let parsed: HLSMediaPlaylist
        do { parsed = try HLSMediaPlaylist.parse(text, base: uri) } catch {
            markUnusable(rung, why: "its playlist is refused (\(error.message))")
            return nil
        }
        if let why = refusal(parsed) {
            markUnusable(rung, why: "its playlist \(why)")
            return nil
        }
        if !parsed.isEnded {
            markUnusable(rung, why: "its playlist is live while the playing variant's is VOD")
            return nil
        }
        state.withLock { $0.rungs[rung].playlist = parsed }
        return parsed
    }

    enum LiveLookup: Equatable {
        case found(HLSMediaPlaylist.Segment)
        /// Not listed yet, and not read again now (too soon, or interrupted): try later.
        case notYet
        /// The variant is left out (logged).
        case never
    }

    /// Live: the segment of `rung` at the place of the anchor's `segment` (by sequence number,
    /// or by date for a variant whose numbers do not line up), reading the rung's playlist again
    /// when its copy does not list it yet and its target duration has passed since the last
    /// read. `patient` (the variant playing): waits for that moment, up to
    /// ``liveReadsForCurrent`` reads, then leaves the variant out; else one read at most, no wait.
    func liveSegment(_ rung: Int, matching segment: HLSMediaPlaylist.Segment, patient: Bool,
                     wait: ((Double) -> Bool)?) -> LiveLookup {
        var reads = 0
        while true {
            let (copy, fetchedAt, byDate, unusable, uri) = state.withLock { s in
                (s.rungs[rung].playlist, s.rungs[rung].fetchedAt, s.rungs[rung].byDate, s.rungs[rung].unusable, s.rungs[rung].variant.uri)
            }
            if unusable { return .never }
            if let copy, let k = Self.match(segment, in: copy, byDate: byDate) { return .found(copy.segments[k]) }
            if byDate, segment.programDateTime == nil {
                markUnusable(rung, why: "it is matched by program date-time and the playing segment has none")
                return .never
            }
            guard reads < (patient ? Self.liveReadsForCurrent : 1) else {
                if patient {
                    let newest = copy?.segments.last.map { "#\($0.sequence)" } ?? "none"
                    markUnusable(rung, why: "its playlist stopped updating (newest segment \(newest), wanted #\(segment.sequence))")
                    return .never
                }
                return .notYet
            }
            // Not sooner than a target duration after the last read (a local loader's first
            // read at once: the copy in memory may already be newer than this rung's).
            let target = copy?.targetDuration ?? max(segment.duration, 1)
            let due = localLoader && reads == 0 ? 0 : fetchedAt + target - MonotonicClock.seconds()
            if due > 0 {
                guard patient, let wait, wait(due) else { return .notYet }
            }
            reads += 1
            guard let uri, let text = loader(uri) else {
                if patient {
                    markUnusable(rung, why: "its playlist cannot be read")
                    return .never
                }
                state.withLock { $0.rungs[rung].fetchedAt = MonotonicClock.seconds() }
                return .notYet
            }
            let parsed: HLSMediaPlaylist
            do { parsed = try HLSMediaPlaylist.parse(text, base: uri) } catch {
                markUnusable(rung, why: "its playlist is refused (\(error.message))")
                return .never
            }
            if let why = refusal(parsed) {
                markUnusable(rung, why: "its playlist \(why)")
                return .never
            }
            if let copy, parsed.mediaSequence < copy.mediaSequence {
                markUnusable(rung, why: "its media sequence went back (\(parsed.mediaSequence) after \(copy.mediaSequence))")
                return .never
            }
            let (dates, anchorLive) = state.withLock { s in (Self.needsDates(parsed, anchor: s.anchor), !s.anchor.isEnded) }
            if parsed.isEnded, anchorLive, parsed.segments.last.map({ $0.sequence < segment.sequence }) ?? true {
                markUnusable(rung, why: "its playlist ended before the playing variant's")
                return .never
            }
            state.withLock { s in
                s.rungs[rung].playlist = parsed
                s.rungs[rung].fetchedAt = MonotonicClock.seconds()
                if dates, !s.rungs[rung].byDate {
                    s.rungs[rung].byDate = true
                    FFmpegLog.write("abr", "variant \(s.rungs[rung].index + 1): its media sequence numbers do not line up with the playing variant's; matched by EXT-X-PROGRAM-DATE-TIME")
                }
            }
        }
    }

    /// The index in `playlist` of the segment at `segment`'s place: the same media sequence
    /// number, or (`byDate`) a program date-time within a quarter of its duration (at most 0.5 s).
    static func match(_ segment: HLSMediaPlaylist.Segment, in playlist: HLSMediaPlaylist, byDate: Bool) -> Int? {
        if byDate {
            guard let date = segment.programDateTime else { return nil }
            return playlist.index(date: date, tolerance: min(0.5, segment.duration * 0.25))
        }
        return playlist.index(sequence: segment.sequence)
    }

    /// Whether `playlist`'s sequence numbers fail to line up with `anchor`'s: a number both list
    /// carries dates further apart than the match tolerance, or they share no number while
    /// their dates overlap.
    static func needsDates(_ playlist: HLSMediaPlaylist, anchor: HLSMediaPlaylist) -> Bool {
        for a in anchor.segments {
            guard let k = playlist.index(sequence: a.sequence) else { continue }
            guard let d1 = a.programDateTime, let d2 = playlist.segments[k].programDateTime else { return false }
            return abs(d1 - d2) > min(0.5, a.duration * 0.25)
        }
        // No common number: dates that overlap mean the numbering differs.
        guard let a0 = anchor.segments.first?.programDateTime, let a1 = anchor.segments.last?.programDateTime,
              let p0 = playlist.segments.first?.programDateTime, let p1 = playlist.segments.last?.programDateTime else { return false }
        return p0 <= a1 && a0 <= p1
    }

    private func markUnusable(_ rung: Int, why: String) {
        let index = state.withLock { s -> Int in
            s.rungs[rung].unusable = true
            if s.current == rung { s.current = anchorRung }
            return s.rungs[rung].index
        }
        FFmpegLog.write("abr", "variant \(index + 1) left out of switching: \(why)")
    }
}
