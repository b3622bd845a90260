/// Which frames the video thread decodes and hands on. A host that paints every `divisor`-th
/// frame (``Player/setFrameDivisor(_:)``) gets those on a grid of `divisor` frame intervals
/// counted from the first frame given since the last seek. The grid is by time, not by count,
/// so a packet can be judged before it is decoded: a packet off the grid is sent with
/// libavcodec's `AVDISCARD_NONREF`, and the decoder leaves it out when no other frame refers
/// to it; a reference frame off the grid is decoded, since the next ones need it, and not
/// converted. While the video is behind the clock, every packet is sent so (mpv's decoder
/// frame-dropping): the frames nothing refers to are not decoded only to be dropped late.
///
/// Nothing is lost silently: every frame off the grid is counted skipped once (at its packet,
/// or when it comes out of a packet that had no time); a frame left out while behind is
/// counted dropped when a later one comes out without it (frames come out in display order).
/// The video thread's own value.
package struct FrameCadence {
    /// Every how many frames the host paints (1: every frame).
    package var divisor = 1
    /// The first frame given since the last seek (nil: none yet; until then every packet is
    /// decoded in full, so an exact seek's target is never left out).
    package private(set) var anchor: Double?
    private let interval: Double
    /// Places of packets off the grid, counted skipped, whose frames may still come out.
    private var counted: Set<Int> = []
    /// Places of packets sent to be left out while behind, not counted yet.
    private var leftBehind: Set<Int> = []

    package init(interval: Double) {
        self.interval = interval
    }

    /// A seek (a new serial): the next frame given starts the grid again. (Frames in flight
    /// at a seek are not counted, whatever they were.)
    package mutating func reset() {
        anchor = nil
        counted.removeAll()
        leftBehind.removeAll()
    }

    /// The grid place of a time (nil: no grid yet, or a time too far from it to place).
    private func place(_ pts: Double) -> Int? {
        guard let anchor, interval > 0, pts.isFinite else { return nil }
        let steps = ((pts - anchor) / interval).rounded()
        guard abs(steps) < 1e9 else { return nil }
        return Int(steps)
    }

    private func offGrid(_ place: Int) -> Bool { divisor > 1 && ((place % divisor) + divisor) % divisor != 0 }

    /// A packet about to be decoded, stamped `pts`, with the video `behind` the clock or not:
    /// `discard` when the decoder may leave it out if unreferenced; `countNow` when it is off
    /// the grid and to be counted skipped now (once a place).
    package mutating func admits(packetAt pts: Double?, behind: Bool = false) -> (discard: Bool, countNow: Bool) {
        guard let pts, let place = place(pts) else { return (false, false) }
        if offGrid(place) { return (true, counted.insert(place).inserted) }
        if behind { leftBehind.insert(place) }
        return (behind, false)
    }

    /// A frame out of the decoder at `pts`: whether it is shown (the first one since a seek
    /// always, and it anchors the grid); `countNow` for a frame off the grid whose packet was
    /// not counted; `droppedBehind`, the frames left out while behind that can no longer come.
    package mutating func admits(frameAt pts: Double) -> (shown: Bool, countNow: Bool, droppedBehind: Int) {
        guard anchor != nil else {
            anchor = pts
            return (true, false, 0)
        }
        guard let place = place(pts) else { return (true, false, 0) }
        var dropped = 0
        if !leftBehind.isEmpty {
            leftBehind.remove(place)
            let gone = leftBehind.filter { $0 < place }
            dropped = gone.count
            leftBehind.subtract(gone)
        }
        if !counted.isEmpty { counted = counted.filter { $0 >= place } }
        guard offGrid(place) else { return (true, false, dropped) }
        return (false, counted.remove(place) == nil, dropped)
    }
}
