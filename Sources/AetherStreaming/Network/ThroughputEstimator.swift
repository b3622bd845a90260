import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The link's throughput from segment downloads, as hls.js estimates it (`EwmaBandWidthEstimator`):
/// two exponentially weighted moving averages of the measured rate, a fast one and a slow one,
/// each corrected for its zero start, and the lower of the two is the estimate (quick to fall,
/// slow to trust a rise).
///
/// A sample's weight is the longer of its download time (hls.js's weight: a slow download
/// counts for as long as it took, so a falling link is seen within one segment) and the media
/// time it bought (a fast download of a 2 s segment counts 2 s, so a link that came back is
/// trusted after a few segments rather than after tens of seconds of transfer time).
/// Downloads under ``Policy/minSampleBytes`` say more about latency than throughput and are
/// left out; download times are taken as at least ``Policy/minSampleSeconds`` (a cached or
/// local answer does not make the link infinitely fast); the rate is capped at
/// ``Policy/maxRate``.
public struct ThroughputEstimator: Sendable, Equatable {
    public struct Policy: Sendable, Equatable {
        /// Half-lives in seconds of weight (hls.js `abrEwmaFastVoD`, `abrEwmaSlowVoD`).
        public var fastHalfLife = 3.0
        public var slowHalfLife = 9.0
        public var minSampleBytes = 16 << 10
        /// hls.js's `minDelayMs` (50 ms).
        public var minSampleSeconds = 0.05
        /// Bits per second no sample may claim (10 Gb/s).
        public var maxRate = 10e9
        public init() {}
    }

    struct EWMA: Sendable, Equatable {
        let alpha: Double
        var estimate = 0.0
        var totalWeight = 0.0
        init(halfLife: Double) { alpha = exp(log(0.5) / max(0.001, halfLife)) }
        mutating func sample(weight: Double, value: Double) {
            let adjusted = pow(alpha, weight)
            estimate = value * (1 - adjusted) + adjusted * estimate
            totalWeight += weight
        }
        /// The average corrected for starting at zero.
        var value: Double {
            let zeroFactor = 1 - pow(alpha, totalWeight)
            return zeroFactor > 0 ? estimate / zeroFactor : 0
        }
    }

    public let policy: Policy
    private var fast: EWMA
    private var slow: EWMA
    /// Samples taken and left out.
    public private(set) var samples = 0
    public private(set) var ignored = 0
    /// The rate of the last download taken (b/s).
    public private(set) var lastRate: Double?

    public init(policy: Policy = Policy()) {
        self.policy = policy
        fast = EWMA(halfLife: policy.fastHalfLife)
        slow = EWMA(halfLife: policy.slowHalfLife)
    }

    /// Adds one download: `bytes` in `seconds`, of a segment of `mediaSeconds`. Returns false
    /// when the sample was left out (too small, or not a usable number).
    @discardableResult
    public mutating func sample(bytes: Int, seconds: Double, mediaSeconds: Double) -> Bool {
        guard bytes >= policy.minSampleBytes, seconds.isFinite, seconds >= 0 else {
            ignored += 1
            return false
        }
        let time = max(policy.minSampleSeconds, seconds)
        let rate = min(policy.maxRate, Double(bytes) * 8 / time)
        let media = mediaSeconds.isFinite ? min(HLSMediaPlaylist.maxSegmentSeconds, max(0, mediaSeconds)) : 0
        let weight = min(HLSMediaPlaylist.maxSegmentSeconds, max(time, media))
        fast.sample(weight: weight, value: rate)
        slow.sample(weight: weight, value: rate)
        samples += 1
        lastRate = rate
        return true
    }

    /// Bits per second, nil before the first sample.
    public var estimate: Double? {
        guard samples > 0 else { return nil }
        return min(fast.value, slow.value)
    }

    /// The fast average alone (b/s), nil before the first sample: what the link did in the last
    /// few segments. ``AdaptiveRule`` trusts it for a switch up when the buffer is deep.
    public var fastEstimate: Double? {
        guard samples > 0 else { return nil }
        return fast.value
    }
}
