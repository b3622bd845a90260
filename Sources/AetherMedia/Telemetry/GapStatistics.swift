/// Statistics of any number of A/V gaps in fixed memory: an exact count, mean and maximum, and
/// the 95th percentile of magnitudes from a histogram of `resolution`-wide bins up to `range`
/// (larger gaps share the last bin; the maximum stays exact).
public struct GapHistogram: Sendable, Equatable {
    public static let resolution = 0.000_25
    public static let range = 2.0
    private var bins = [UInt32](repeating: 0, count: Int(range / resolution) + 1)
    public private(set) var count = 0
    private var sum = 0.0
    private var maxMagnitude = 0.0

    public init() {}

    public mutating func add(_ gap: Double) {
        guard gap.isFinite else { return }
        let m = abs(gap)
        bins[Int(min(Double(bins.count - 1), m / GapHistogram.resolution))] &+= 1
        count += 1
        sum += gap
        maxMagnitude = max(maxMagnitude, m)
    }

    public var statistics: GapStatistics {
        guard count > 0 else { return GapStatistics([]) }
        let rank = Int((Double(count) * 0.95).rounded(.up))
        var seen = 0
        var p95 = maxMagnitude
        for (i, n) in bins.enumerated() {
            seen += Int(n)
            if seen >= rank {
                p95 = min(maxMagnitude, Double(i + 1) * GapHistogram.resolution)
                break
            }
        }
        return GapStatistics(count: count, mean: sum / Double(count), p95: p95, max: maxMagnitude)
    }
}

/// Mean, 95th percentile (of absolute values) and maximum of A/V gaps.
public struct GapStatistics: Sendable, Codable, Equatable {
    public let count: Int
    public let mean: Double
    public let p95: Double
    public let max: Double

    public init(count: Int, mean: Double, p95: Double, max: Double) {
        self.count = count
        self.mean = mean
        self.p95 = p95
        self.max = max
    }

    public init(_ gaps: [Double]) {
        count = gaps.count
        guard !gaps.isEmpty else {
            mean = 0
            p95 = 0
            max = 0
            return
        }
        mean = gaps.reduce(0, +) / Double(gaps.count)
        let magnitudes = gaps.map(abs).sorted()
        p95 = magnitudes[Swift.min(magnitudes.count - 1, Int((Double(magnitudes.count) * 0.95).rounded(.up)) - 1)]
        max = magnitudes.last ?? 0
    }
}
