import AetherBase
import FoundationEssentials

/// mpv's A-B loop (`--ab-loop-a`, `--ab-loop-b`, `--ab-loop-count`, and the `l` key's
/// `ab-loop`): playback that passes B goes back to A. An unset A is the file's start, an unset
/// B its end; with neither there is no loop. Seeking past B does not loop (mpv's rule: only
/// playing through it does). Each loop takes one off the count (`inf`: none). Pure: the
/// controller tells it where playback was and is.
public struct ABLoop: Equatable, Sendable {
    public var a: Double?
    public var b: Double?
    /// Loops left (`--ab-loop-count`: inf by default; `no` or 0, none).
    public var count = LoopCount.infinite

    public init(a: Double? = nil, b: Double? = nil, count: LoopCount = .infinite) {
        (self.a, self.b, self.count) = (a, b, count)
    }

    /// Points are set and loops are left.
    public var isOn: Bool { (a != nil || b != nil) && count.isOn }

    /// The longest move between two looks at the position that is still playing through B,
    /// at 1×: the hosts look at least every 0.25 s while playing, and at B itself
    /// (``secondsToB(from:rate:)``); a longer move was a seek. It grows with the speed.
    static let playingStep = 1.0

    /// Where playback goes now that it moved from `previous` to `now` (media seconds) at
    /// `rate`: A (or the start) when it played through B; nil to go on.
    public mutating func target(from previous: Double, to now: Double, rate: Double = 1) -> Double? {
        guard isOn, let b, previous < b, now >= b, now - previous <= Self.playingStep * max(1, rate) else { return nil }
        return loop()
    }

    /// Seconds of real time until playback at `position` and `rate` reaches B (nil: no B ahead,
    /// or no loop): when the host should look next.
    public func secondsToB(from position: Double, rate: Double) -> Double? {
        guard isOn, let b, b >= position, rate > 0 else { return nil }
        return (b - position) / rate
    }

    /// The item played to its end: A when B is unset (the end stands for it); nil to go on.
    public mutating func targetAtEnd() -> Double? {
        guard isOn, b == nil else { return nil }
        return loop()
    }

    private mutating func loop() -> Double {
        if case .times(let n) = count { count = n > 1 ? .times(n - 1) : .no }
        return a ?? 0
    }

    /// The `ab-loop` command (`l`): A here, then B here, then both cleared; returns what the
    /// player says (mpv's words).
    public mutating func press(at position: Double) -> String {
        if a == nil {
            a = position
            return "A-B loop start: \(TimeFormat.clock(position))"
        }
        if b == nil {
            b = position
            return "A-B loop: \(TimeFormat.clock(a ?? 0)) - \(TimeFormat.clock(position))"
        }
        (a, b) = (nil, nil)
        return "Clear A-B loop"
    }
}
