import AetherBase

/// Where an ``AdaptiveSwitcher`` stands, behind its one lock: the ladder's rungs (each variant and
/// what is known of its playlist), the rung playing, the anchor's playlist as the demuxer read it
/// and the switches made.
struct SwitchState {
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

    var rungs: [Rung]
    var current: Int
    /// Segments may come from other variants (``AdaptiveSwitcher/arm()``).
    var armed = false
    var anchor: AnchorCopy
    var history = SwitchHistory()

    /// The rungs a decision may choose from: the one playing, and those neither left out nor
    /// `skipped`.
    func usable(skipping skipped: Set<Int>) -> [Int] {
        rungs.indices.filter { (!rungs[$0].unusable && !skipped.contains($0)) || $0 == current }
    }

    /// Leaves `rung` out of switching (when it was playing, `fallback` plays); returns its index
    /// in the master's variant list.
    mutating func leaveOut(_ rung: Int, fallback: Int) -> Int {
        rungs[rung].unusable = true
        if current == rung { current = fallback }
        return rungs[rung].index
    }

    /// Moves to `rung`, noting `change`, at `now` (monotonic seconds).
    mutating func switched(to rung: Int, _ change: BitrateSwitch, at now: Double) {
        history.record(change, at: now)
        current = rung
    }
}

/// The anchor's media playlist as the demuxer last read it (the copy its segments are looked up
/// in), and where its first segment is on the timeline of the first copy: live, the starts of
/// later copies are shifted onto it, for the switch positions.
struct AnchorCopy {
    var playlist: HLSMediaPlaylist
    /// Media seconds of the copy's first segment on the first copy's timeline.
    private(set) var base = 0.0

    /// The demuxer read `parsed` again (a live reload): the positions stay continuous through a
    /// sequence number both copies list, else it follows the old copy's end.
    mutating func reloaded(_ parsed: HLSMediaPlaylist) {
        if let first = parsed.segments.first {
            if let k = playlist.index(sequence: first.sequence) {
                base += playlist.segments[k].start - first.start
            } else if let last = playlist.segments.last, first.sequence > last.sequence {
                base += last.start + last.duration
            }
        }
        playlist = parsed
    }

    /// The segment at `url` and its position on the first copy's timeline, nil when the copy
    /// does not list it.
    func place(of url: String) -> (segment: HLSMediaPlaylist.Segment, position: Double)? {
        guard let i = playlist.index(of: url) else { return nil }
        return (playlist.segments[i], base + playlist.segments[i].start)
    }
}

/// The switches made: the last ``kept`` for the status (the count goes on), when the last one was
/// and how many segments were measured since (the hold before the next step up).
struct SwitchHistory {
    /// Switches kept for the status.
    static let kept = 256

    private(set) var switches: [BitrateSwitch] = []
    private(set) var count = 0
    /// When the last switch was (monotonic seconds).
    private(set) var last = -Double.infinity
    private(set) var measuredSinceLast = 0

    mutating func record(_ change: BitrateSwitch, at now: Double) {
        switches.append(change)
        if switches.count > Self.kept { switches.removeFirst(switches.count - Self.kept) }
        count += 1
        last = now
        measuredSinceLast = 0
    }

    /// A segment's download was measured (it counts for the estimate).
    mutating func measured() { measuredSinceLast += 1 }
}
