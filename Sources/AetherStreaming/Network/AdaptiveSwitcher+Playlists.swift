import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// The ladder's other playlists: loading and refreshing them (live), and finding the anchor's segment in them.
extension AdaptiveSwitcher {
    /// The rung's media playlist, loaded on first use; nil (and the rung marked unusable) when it
    /// cannot be read or cannot be switched to.
    func playlist(of rung: Int) -> HLSMediaPlaylist? {
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
        if let why = refusal(parsed) {
            markUnusable(rung, why: "its playlist \(why)")
            return nil
        }
        if !parsed.isEnded {
            markUnusable(rung, why: "its playlist is live while the playing variant's is VOD")
            return nil
        }
        state.withLock { $0.rungs[rung].playlist = parsed }
        return parsed
    }

    enum LiveLookup: Equatable {
        case found(HLSMediaPlaylist.Segment)
        /// Not listed yet, and not read again now (too soon, or interrupted): try later.
        case notYet
        /// The variant is left out (logged).
        case never
    }

    /// Live: the segment of `rung` at the place of the anchor's `segment` (by sequence number,
    /// or by date for a variant whose numbers do not line up), reading the rung's playlist again
    /// when its copy does not list it yet and its target duration has passed since the last
    /// read. `patient` (the variant playing): waits for that moment, up to
    /// ``liveReadsForCurrent`` reads, then leaves the variant out; else one read at most, no wait.
    func liveSegment(_ rung: Int, matching segment: HLSMediaPlaylist.Segment, patient: Bool,
                     wait: ((Double) -> Bool)?) -> LiveLookup {
        var reads = 0
        while true {
            let (copy, fetchedAt, byDate, unusable, uri) = state.withLock { s in
                (s.rungs[rung].playlist, s.rungs[rung].fetchedAt, s.rungs[rung].byDate, s.rungs[rung].unusable, s.rungs[rung].variant.uri)
            }
            if unusable { return .never }
            if let copy, let k = Self.match(segment, in: copy, byDate: byDate) { return .found(copy.segments[k]) }
            if byDate, segment.programDateTime == nil {
                markUnusable(rung, why: "it is matched by program date-time and the playing segment has none")
                return .never
            }
            guard reads < (patient ? Self.liveReadsForCurrent : 1) else {
                if patient {
                    let newest = copy?.segments.last.map { "#\($0.sequence)" } ?? "none"
                    markUnusable(rung, why: "its playlist stopped updating (newest segment \(newest), wanted #\(segment.sequence))")
                    return .never
                }
                return .notYet
            }
            // Not sooner than a target duration after the last read (a local loader's first
            // read at once: the copy in memory may already be newer than this rung's).
            let target = copy?.targetDuration ?? min(max(segment.duration, 1), HLSMediaPlaylist.maxSegmentSeconds)
            let due = localLoader && reads == 0 ? 0 : fetchedAt + target - clock.seconds
            if due > 0 {
                guard patient, let wait, wait(due) else { return .notYet }
            }
            reads += 1
            guard let uri, let text = loader(uri) else {
                if patient {
                    markUnusable(rung, why: "its playlist cannot be read")
                    return .never
                }
                state.withLock { $0.rungs[rung].fetchedAt = clock.seconds }
                return .notYet
            }
            let parsed: HLSMediaPlaylist
            do { parsed = try HLSMediaPlaylist.parse(text, base: uri) } catch {
                markUnusable(rung, why: "its playlist is refused (\(error.message))")
                return .never
            }
            if let why = refusal(parsed) {
                markUnusable(rung, why: "its playlist \(why)")
                return .never
            }
            if let copy, parsed.mediaSequence < copy.mediaSequence {
                markUnusable(rung, why: "its media sequence went back (\(parsed.mediaSequence) after \(copy.mediaSequence))")
                return .never
            }
            let (dates, anchorLive) = state.withLock { s in (Self.needsDates(parsed, anchor: s.anchor.playlist), !s.anchor.playlist.isEnded) }
            if parsed.isEnded, anchorLive, parsed.segments.last.map({ $0.sequence < segment.sequence }) ?? true {
                markUnusable(rung, why: "its playlist ended before the playing variant's")
                return .never
            }
            state.withLock { s in
                s.rungs[rung].playlist = parsed
                s.rungs[rung].fetchedAt = clock.seconds
                if dates, !s.rungs[rung].byDate {
                    s.rungs[rung].byDate = true
                    AppLog.write("abr", "variant \(s.rungs[rung].index + 1): its media sequence numbers do not line up with the playing variant's; matched by EXT-X-PROGRAM-DATE-TIME")
                }
            }
        }
    }

    /// The index in `playlist` of the segment at `segment`'s place: the same media sequence
    /// number, or (`byDate`) a program date-time within a quarter of its duration (at most 0.5 s).
    package static func match(_ segment: HLSMediaPlaylist.Segment, in playlist: HLSMediaPlaylist, byDate: Bool) -> Int? {
        if byDate {
            guard let date = segment.programDateTime else { return nil }
            return playlist.index(date: date, tolerance: min(0.5, segment.duration * 0.25))
        }
        return playlist.index(sequence: segment.sequence)
    }

    /// Whether `playlist`'s sequence numbers fail to line up with `anchor`'s: a number both list
    /// carries dates further apart than the match tolerance, or they share no number while
    /// their dates overlap.
    package static func needsDates(_ playlist: HLSMediaPlaylist, anchor: HLSMediaPlaylist) -> Bool {
        for a in anchor.segments {
            guard let k = playlist.index(sequence: a.sequence) else { continue }
            guard let d1 = a.programDateTime, let d2 = playlist.segments[k].programDateTime else { return false }
            return abs(d1 - d2) > min(0.5, a.duration * 0.25)
        }
        // No common number: dates that overlap mean the numbering differs.
        guard let a0 = anchor.segments.first?.programDateTime, let a1 = anchor.segments.last?.programDateTime,
              let p0 = playlist.segments.first?.programDateTime, let p1 = playlist.segments.last?.programDateTime else { return false }
        return p0 <= a1 && a0 <= p1
    }

    func markUnusable(_ rung: Int, why: String) {
        let index = state.withLock { $0.leaveOut(rung, fallback: anchorRung) }
        AppLog.write("abr", "variant \(index + 1) left out of switching: \(why)")
    }
}
