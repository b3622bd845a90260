/// Frame-rate snapping: containers report 23.976 as 24000/1001, as 2997/125, or as a measured
/// average like 23.9760239; players and users speak of the standard rates.
public enum FrameRate {
    /// The rates a probe reports as such.
    public static let standard: [Double] = [24000.0 / 1001, 24, 25, 30000.0 / 1001, 30, 50, 60000.0 / 1001, 60]
    /// How close (relative) a measured rate must be to a standard one to be snapped. Half the
    /// 1000/1001 gap, so 24 and 23.976 never snap to each other.
    public static let tolerance = 0.0004

    /// `rate` snapped to a standard rate (rounded to 3 decimals), else itself rounded to 3 decimals.
    public static func snapped(_ rate: Double) -> Double {
        guard rate.isFinite, rate > 0 else { return rate }
        if let nearest = standard.min(by: { abs(rate - $0) < abs(rate - $1) }), abs(rate - nearest) / nearest <= tolerance {
            return (nearest * 1000).rounded() / 1000
        }
        return (rate * 1000).rounded() / 1000
    }
}
