extension Comparable {
    /// The value held within `range` (the code base's one clamp).
    @inlinable public func clamped(to range: ClosedRange<Self>) -> Self {
        Swift.min(range.upperBound, Swift.max(range.lowerBound, self))
    }
}

extension Int64 {
    /// `value` clamped into Int64's range; NaN becomes 0. Media values (durations, timestamps,
    /// sizes) go through this (or `Int(saturating:)`) before any integer conversion.
    public init(saturating value: Double) {
        if value.isNaN { self = 0 } else if value >= 9.2e18 { self = .max } else if value <= -9.2e18 { self = .min } else { self = Int64(value) }
    }
}

extension Int {
    /// `value` clamped into Int's range; NaN becomes 0.
    public init(saturating value: Double) { self = Int(Int64(saturating: value)) }
}

extension Int32 {
    /// `value` clamped into Int32's range; NaN becomes 0.
    public init(saturating value: Double) {
        if value.isNaN { self = 0 } else { self = Int32(Swift.max(-2147483648, Swift.min(2147483647, value.rounded(.towardZero)))) }
    }
}

extension Double {
    /// `self` when it is finite and inside `range`, else nil (a media value out of all reason).
    public func sane(in range: ClosedRange<Double>) -> Double? { isFinite && range.contains(self) ? self : nil }
}
