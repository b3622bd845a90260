import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Every threshold of bit-rate switching, in one place tests can vary, grouped by what each
/// decides: keeping a rate (``keepFactor``), going up (``Up``), dropping fast when the buffer runs
/// dry (``Emergency``) and giving up a slow download (``Abandon``).
public struct AdaptivePolicy: Sendable, Equatable {
    /// When a higher variant may play.
    public struct Up: Sendable, Equatable {
        /// Its peak rate must be under this share of the estimate (hls.js
        /// `abrBandWidthUpFactor`) with little buffered, rising linearly to ``factorHighBuffer``
        /// between ``AdaptivePolicy/lowBuffer`` and ``AdaptivePolicy/highBuffer`` seconds
        /// buffered (BOLA's idea: a deep buffer can afford a rate closer to the link's).
        public var factor = 0.7
        public var factorHighBuffer = 0.9
        /// Seconds after a switch before the player may switch up again (no oscillation); a
        /// switch down is never held.
        public var holdSeconds = 4.0
        /// With at least ``AdaptivePolicy/highBuffer`` seconds buffered the hold also ends after
        /// this many segments measured since the switch (a demuxer filling a deep buffer fetches
        /// several segments in the hold's seconds; each is a measurement, and a wrong step costs
        /// no stall).
        public var holdSegments = 3
        /// Live: its segment must also load within this share of what is buffered (a live buffer
        /// cannot grow past the distance to the edge, so a step up whose segment outlasts it
        /// stalls; seen at the start of live HLS with separate audio renditions, whose audio
        /// segment the demuxer fetches in series); nil: not asked (VOD, where one segment's time
        /// is allowed).
        public var withinBuffer: Double? = nil
        public init() {}
    }

    /// When the buffer runs dry: under ``buffer`` seconds buffered, only a variant whose next
    /// segment loads within half the buffer, or within ``loadShare`` of the segment's own
    /// length, may play (drop fast before the buffer runs dry, but not after a seek on a link
    /// that carries the rate).
    public struct Emergency: Sendable, Equatable {
        public var buffer = 4.0
        /// The share of its own length a segment may take to load (it refills even an empty
        /// buffer: after a seek, at start).
        public var loadShare = 0.75
        /// Live: ``loadShare`` is at least this (nil: ``AdaptivePolicy/keepFactor``, keeping pace;
        /// see ``AdaptivePolicy/live(segment:)``).
        public var liveLoadShare: Double? = nil
        public init() {}
    }

    /// hls.js's abandon rule: a segment being downloaded is given up once ``after`` of its media
    /// duration has passed, when what is left of it would take longer than the buffer holds and
    /// a lower variant's whole segment loads sooner (at ``margin`` of the rate seen).
    public struct Abandon: Sendable, Equatable {
        public var after = 0.5
        public var margin = 0.8
        public init() {}
    }

    public var estimator = ThroughputEstimator.Policy()
    /// Bits per second assumed before the first download is measured (picks the start variant).
    public var defaultEstimate = 1_000_000.0
    /// A variant keeps playing while its peak rate is at most this share of the estimate
    /// (hls.js `abrBandWidthFactor`).
    public var keepFactor = 0.95
    /// Seconds buffered between which the rule trusts the fast average (and the last download)
    /// more and more over the slow one, and a step up may come closer to the link's rate
    /// (``Up/factor`` to ``Up/factorHighBuffer``).
    public var lowBuffer = 8.0
    public var highBuffer = 20.0
    public var up = Up()
    public var emergency = Emergency()
    public var abandon = Abandon()
    /// Variants considered at most (a master listing thousands keeps this many, spread over
    /// its rates).
    public var maxRungs = 32
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
        p.emergency.loadShare = max(emergency.loadShare, emergency.liveLoadShare ?? keepFactor)
        p.up.withinBuffer = up.withinBuffer ?? 0.8
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
    /// Every switch so far (the last ``SwitchHistory/kept``), oldest first, and how
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
        let mbps = { (v: Double) in String(cFormat: "%.2f Mb/s", v / 1e6) }
        // Running dry: the best rung whose segment loads within half of what is buffered.
        // A segment that loads in under 3/4 of its own length refills even an empty buffer (after
        // a seek, at start), so it may stay.
        let room = max(buffer * 0.5, segment * policy.emergency.loadShare)
        if buffer < policy.emergency.buffer, fetch(current) > room {
            let best = (0..<current).last { fetch($0) <= room } ?? 0
            if best < current {
                return Decision(rung: best, reason: String(cFormat: "buffer %.1f s, throughput ", buffer) + mbps(low))
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
        let held = !(sinceSwitch >= policy.up.holdSeconds)
            && !(buffer >= policy.highBuffer && segmentsSinceSwitch >= policy.up.holdSegments)
        guard !held, current + 1 < rates.count else { return nil }
        let factor = policy.up.factor + (policy.up.factorHighBuffer - policy.up.factor) * depth
        let segmentUp = { (r: Int) in rates[r] * segment / trusted }
        let allowance = max(segment, buffer * 0.5)
        // Never past what the last download itself carried (the averages still remember a fast
        // link for a while after it slowed: stepping up on them alone oscillates).
        let lastCarries = { (r: Int) in positive(recent).map { rates[r] <= $0 * factor } ?? true }
        let withinBuffer = { (r: Int) in policy.up.withinBuffer.map { segmentUp(r) <= buffer * $0 } ?? true }
        guard let best = (current + 1..<rates.count).last(where: {
            rates[$0] <= trusted * factor && segmentUp($0) <= allowance && lastCarries($0) && withinBuffer($0)
        }) else {
            return nil
        }
        return Decision(rung: best, reason: "throughput \(mbps(trusted))" + String(cFormat: ", buffer %.1f s", buffer))
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
