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
    public init() {}
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
        let room = max(buffer * 0.5, segment * 0.75)
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
        guard let best = (current + 1..<rates.count).last(where: { rates[$0] <= trusted * factor && segmentUp($0) <= allowance }) else {
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
/// every segment it opens goes through ``NetworkSession``, which asks ``plan(for:)`` which
/// variant's segment at the same place on the timeline to fetch instead. The segments of a
/// switchable ladder are aligned (same start times, each starting with a keyframe) and carry
/// their audio and video muxed (MPEG-TS, same streams), so the demuxer reads one continuous
/// stream, audio and video switch together, and the decoder picks up the new parameters in band.
/// Each segment is downloaded whole and timed (``downloaded(_:bytes:seconds:)``) to feed the
/// ``ThroughputEstimator``. A variant whose playlist cannot be read, is not VOD, uses byte
/// ranges, keys or init sections (``HLSMediaPlaylist/switchRefusal``), or whose segments do not
/// line up with the anchor's is left out of the ladder when first wanted (logged). Before
/// ``arm()`` (during the open and probe) the anchor's own segments are fetched.
///
/// Only the anchor's segments are replaced; anything else libavformat opens passes through.
/// So a master whose sound is in separate audio renditions (read whole by libavformat's hls
/// demuxer) switches its video variants while the chosen rendition plays on, and a translated
/// DASH manifest's audio set likewise; a DASH `SegmentBase`/`SegmentList` fragment is named by
/// its file and range (`#aether-range=`), so it plans like any other segment.
///
/// Called from the demux thread (``plan(for:)``, ``downloaded(_:bytes:seconds:)``) and read
/// from any thread (``status``); its state is behind one lock, never held across I/O.
final class AdaptiveSwitcher: Sendable {
    struct Plan: Sendable, Equatable {
        /// The URL to fetch.
        var url: String
        /// The ladder rung it belongs to.
        var rung: Int
        var mediaSeconds: Double
    }

    struct Rung: Sendable {
        var variant: StreamVariant
        /// Index in the master's variant list.
        var index: Int
        var playlist: HLSMediaPlaylist?
        var unusable = false
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
    }

    /// Switches kept for the status (the count goes on).
    static let keptSwitches = 256

    let policy: AdaptivePolicy
    private let anchor: HLSMediaPlaylist
    private let anchorRung: Int
    private let state: Guarded<State>
    private let bufferLevel = Guarded<(@Sendable () -> Double)?>(nil)
    /// Reads a variant's media playlist (nil when it cannot be read).
    private let loader: @Sendable (String) -> String?

    /// `ladder`: indices into `variants`, rates ascending; `anchor`: the rung libavformat plays,
    /// whose media playlist is `anchorPlaylist`.
    init(variants: [StreamVariant], ladder: [Int], anchor: Int, anchorPlaylist: HLSMediaPlaylist, policy: AdaptivePolicy,
         loader: @escaping @Sendable (String) -> String?) {
        var rungs = ladder.map { Rung(variant: variants[$0], index: $0) }
        rungs[anchor].playlist = anchorPlaylist
        self.anchor = anchorPlaylist
        self.anchorRung = anchor
        self.policy = policy
        self.loader = loader
        state = Guarded(State(rungs: rungs, current: anchor, estimator: ThroughputEstimator(policy: policy.estimator)))
    }

    /// Seconds demuxed ahead of the playhead (set by the session before it starts).
    func setBufferLevel(_ level: @escaping @Sendable () -> Double) { bufferLevel.withLock { $0 = level } }

    /// From now on segments may come from other variants.
    func arm() { state.withLock { $0.armed = true } }

    var status: AdaptiveStatus {
        state.withLock { s in
            AdaptiveStatus(variant: s.rungs[s.current].variant, variantIndex: s.rungs[s.current].index,
                           estimate: s.estimator.estimate, switches: s.switches, switchCount: s.switchCount)
        }
    }

    /// Which URL to fetch for `url` when it is a segment of the anchor playlist; nil otherwise
    /// (the caller opens `url` as it is).
    func plan(for url: String) -> Plan? {
        guard let i = anchor.index(of: url) else { return nil }
        let segment = anchor.segments[i]
        let buffer = bufferLevel.withLock { $0 }?() ?? 0
        let now = MonotonicClock.seconds()
        // Decide under the lock; load a playlist (I/O) outside it.
        for _ in 0..<3 {
            let (wanted, decision, current) = state.withLock { s -> (Int, AdaptiveRule.Decision?, Int) in
                guard s.armed else { return (s.current, nil, s.current) }
                let usable = s.rungs.indices.filter { !s.rungs[$0].unusable || $0 == s.current }
                let rates = usable.map { Double(s.rungs[$0].variant.bandwidth) }
                guard let here = usable.firstIndex(of: s.current),
                      let d = AdaptiveRule.decide(current: here, rates: rates, estimate: s.estimator.estimate ?? policy.defaultEstimate,
                                                  recent: s.estimator.lastRate, fast: s.estimator.fastEstimate, buffer: buffer,
                                                  segmentSeconds: segment.duration, sinceSwitch: now - s.lastSwitch,
                                                  segmentsSinceSwitch: s.measuredSinceSwitch, policy: policy) else {
                    return (s.current, nil, s.current)
                }
                return (usable[d.rung], d, s.current)
            }
            let rung = wanted
            guard let playlist = playlist(of: rung) else { continue }
            let tolerance = min(0.5, segment.duration * 0.25)
            guard let k = playlist.index(startingAt: segment.start, tolerance: tolerance) else {
                markUnusable(rung, why: "its segments do not line up with the playing variant's")
                continue
            }
            let target = playlist.segments[k]
            if let decision, rung != current {
                state.withLock { s in
                    let from = s.rungs[s.current], to = s.rungs[rung]
                    let change = BitrateSwitch(position: segment.start, fromBandwidth: from.variant.bandwidth, toBandwidth: to.variant.bandwidth,
                                               fromVariant: from.index + 1, toVariant: to.index + 1, reason: decision.reason,
                                               estimate: s.estimator.estimate ?? policy.defaultEstimate, buffer: buffer)
                    s.switches.append(change)
                    if s.switches.count > Self.keptSwitches { s.switches.removeFirst(s.switches.count - Self.keptSwitches) }
                    s.switchCount += 1
                    s.current = rung
                    s.lastSwitch = now
                    s.measuredSinceSwitch = 0
                    FFmpegLog.write("abr", String(format: "segment at %.1f s: variant %d (%d b/s) -> %d (%d b/s): %@",
                                                  segment.start, change.fromVariant, change.fromBandwidth, change.toVariant,
                                                  change.toBandwidth, change.reason))
                }
            }
            return Plan(url: target.uri, rung: rung, mediaSeconds: target.duration)
        }
        // Nothing usable came of it: the anchor's own segment.
        state.withLock { $0.current = anchorRung }
        return Plan(url: url, rung: anchorRung, mediaSeconds: segment.duration)
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
        if let why = parsed.switchRefusal {
            markUnusable(rung, why: "its playlist \(why)")
            return nil
        }
        state.withLock { $0.rungs[rung].playlist = parsed }
        return parsed
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
