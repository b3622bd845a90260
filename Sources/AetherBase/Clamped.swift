extension Comparable {
    /// The value held within `range` (the code base's one clamp).
    @inlinable public func clamped(to range: ClosedRange<Self>) -> Self {
        Swift.min(range.upperBound, Swift.max(range.lowerBound, self))
    }
}
