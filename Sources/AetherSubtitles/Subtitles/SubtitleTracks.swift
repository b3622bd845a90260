import AetherBase
import AetherMedia

/// The store's tracks, their cues and which one is selected: what is on screen at `t`, when that
/// changes, and where a decoded cue goes.
///
/// Bounded: only the selected track keeps embedded cues (selecting another drops them), cues
/// ending `keepBehind` seconds before the demuxer are pruned, and a track holds at most `maxCues`
/// cues and `maxBitmapBytes` of bitmaps. Cues are kept in start order; insertion and lookup are
/// binary searches. A value: ``SubtitleStore`` keeps it under its lock.
struct SubtitleTracks {
    struct Track {
        var info: SubtitleTrackInfo
        var cues: [SubtitleCue] = []
        var bitmapBytes = 0
        /// Longest cue so far: how far back from `t` a cue showing at `t` can start.
        var longest = 0.0
        /// Passes made over the cues to prune them (each costs the track's length).
        var prunes = 0
    }

    static let maxCues = 20_000
    static let maxBitmapBytes = 64 << 20
    /// Embedded cues ending this long before the demuxer's position are dropped.
    static let keepBehind = 120.0

    var tracks: [Track] = []
    var selected: Int?
    var insertsSincePrune = 0

    /// Selects track `id` (nil = off; an unknown id is off) and drops the embedded cues of the
    /// others. True when the selection changed to an embedded track, whose recent cues the
    /// demuxer has passed already.
    mutating func select(_ id: Int?) -> Bool {
        let new = id.flatMap { id in tracks.indices.contains(id) ? id : nil }
        guard new != selected else { return false }
        selected = new
        for i in tracks.indices where i != new {
            if case .embedded = tracks[i].info.source {
                tracks[i].cues = []
                tracks[i].bitmapBytes = 0
                tracks[i].longest = 0
            }
        }
        guard let new, case .embedded = tracks[new].info.source else { return false }
        return true
    }

    /// The requested track if it exists, else the first in a preferred language (`languages`,
    /// most wanted first), else a forced or default one.
    func initial(requested: Int?, languages: [String]) -> Int? {
        if let requested, tracks.indices.contains(requested) { return requested }
        if let match = LanguagePreference.first(of: languages, in: tracks.map(\.info.language)) { return match }
        return tracks.firstIndex { $0.info.isForced } ?? tracks.firstIndex { $0.info.isDefault }
    }

    /// The stream index of the selected track when it is embedded.
    var selectedStream: Int? {
        guard let selected, case .embedded(let index) = tracks[selected].info.source else { return nil }
        return index
    }

    /// Cues of the selected track on screen at `time`, in start order: the `limit` latest-starting.
    func active(at time: Double, limit: Int) -> [SubtitleCue] {
        guard let id = selected else { return [] }
        var found: [SubtitleCue] = []
        SubtitleTracks.forEachShowing(tracks[id], at: time) { cue in
            found.append(cue)
            return found.count < max(1, limit)
        }
        return found.reversed()
    }

    /// The next time after `time` at which the selected track's active cues change (a cue
    /// starts or one showing ends), or nil when none will.
    func nextChange(after time: Double) -> Double? {
        guard let id = selected else { return nil }
        let cues = tracks[id].cues
        let i = SubtitleTracks.upperBound(cues, time)
        var next = i < cues.count ? cues[i].start : Double.infinity
        SubtitleTracks.forEachShowing(tracks[id], at: time) { cue in
            next = min(next, cue.end)
            return true
        }
        return next.isFinite ? next : nil
    }

    /// Calls `body` with each cue of `track` showing at `time`, latest start first, while it
    /// returns true. Only cues that can still show are looked at: none lasts longer than
    /// `track.longest`.
    private static func forEachShowing(_ track: Track, at time: Double, _ body: (SubtitleCue) -> Bool) {
        let cues = track.cues
        var i = upperBound(cues, time)  // first cue starting after `time`
        let earliest = time - track.longest
        while i > 0 {
            i -= 1
            let cue = cues[i]
            if cue.start < earliest { break }
            if time < cue.end, !body(cue) { return }
        }
    }

    /// Index of the first cue starting after `time` (cues are in start order).
    private static func upperBound(_ cues: [SubtitleCue], _ time: Double) -> Int {
        var lo = 0, hi = cues.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if cues[mid].start <= time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Adds decoded cues to the track of `streamIndex` if it is the selected one, in start order,
    /// without duplicates, within the track's bounds; `position` is the demuxer's media time
    /// (older cues are pruned against it).
    mutating func insert(_ cues: [SubtitleCue], streamIndex index: Int, position: Double?) {
        guard let t = tracks.firstIndex(where: { $0.info.source == .embedded(streamIndex: index) }),
              t == selected else { return }
        for cue in cues {
            // Bitmap formats end a cue with an empty one: close the open cue instead.
            if cue.isClear {
                let at = SubtitleTracks.upperBound(tracks[t].cues, cue.start)
                if at > 0, tracks[t].cues[at - 1].end > cue.start { tracks[t].cues[at - 1].end = cue.start }
                continue
            }
            let at = SubtitleTracks.upperBound(tracks[t].cues, cue.start)
            var j = at
            var duplicate = false
            while j > 0, tracks[t].cues[j - 1].start == cue.start {
                j -= 1
                // Same text and, for ASS, the same event (typesetting layers one text several times).
                let other = tracks[t].cues[j]
                if other.content == cue.content, other.ass?.dedupKey == cue.ass?.dedupKey {
                    duplicate = true
                    break
                }
            }
            if duplicate { continue }
            tracks[t].cues.insert(cue, at: at)
            tracks[t].bitmapBytes += cue.bitmapBytes
            tracks[t].longest = max(tracks[t].longest, cue.end - cue.start)
            insertsSincePrune += 1
        }
        if insertsSincePrune >= 256 || tracks[t].cues.count > SubtitleTracks.maxCues
            || tracks[t].bitmapBytes > SubtitleTracks.maxBitmapBytes {
            insertsSincePrune = 0
            SubtitleTracks.prune(&tracks[t], before: position.map { $0 - SubtitleTracks.keepBehind })
        }
    }

    /// Adds a sidecar's cues (read whole) as a new track and returns its id.
    mutating func append(_ sidecar: SidecarTrack, cues: [SubtitleCue]) -> Int {
        let id = tracks.count
        var track = Track(info: SubtitleTrackInfo(id: id, source: .sidecar(path: sidecar.path), codec: sidecar.codec,
                                                  kind: sidecar.kind, language: sidecar.language, title: nil,
                                                  isDefault: false, isForced: false))
        track.cues = cues.filter { !$0.isClear }.sorted { $0.start < $1.start }
        track.longest = track.cues.map { $0.end - $0.start }.max() ?? 0
        tracks.append(track)
        return id
    }

    /// Drops cues that ended before `cutoff`, then the oldest ones past the count and byte caps:
    /// down to seven eighths of a cap once it is passed, so a stream of cues over it (a file of
    /// 200,000 cues) prunes once per eighth of the cap, not once per cue (each prune is a pass
    /// over the track: once per cue made reading quadratic).
    /// The pass touches only what it drops: the cues that start before the cutoff (start order:
    /// no later one can have ended before it) and the oldest past a cap; the byte count is kept
    /// by subtraction.
    private static func prune(_ track: inout Track, before cutoff: Double?) {
        var bytes = track.bitmapBytes
        if let cutoff {
            let head = upperBound(track.cues, cutoff)
            if head > 0, track.cues[..<head].contains(where: { $0.end < cutoff }) {
                var kept = Array(track.cues[..<head])
                bytes -= kept.reduce(0) { $1.end < cutoff ? $0 + $1.bitmapBytes : $0 }
                kept.removeAll { $0.end < cutoff }
                track.cues.replaceSubrange(0..<head, with: kept)
            }
        }
        let countCap = track.cues.count > maxCues ? maxCues - maxCues / 8 : maxCues
        var drop = max(0, track.cues.count - countCap)
        bytes -= track.cues[..<drop].reduce(0) { $0 + $1.bitmapBytes }
        let byteCap = bytes > maxBitmapBytes ? maxBitmapBytes - maxBitmapBytes / 8 : maxBitmapBytes
        while drop < track.cues.count, bytes > byteCap {
            bytes -= track.cues[drop].bitmapBytes
            drop += 1
        }
        if drop > 0 { track.cues.removeFirst(drop) }
        track.bitmapBytes = bytes
        track.prunes += 1
    }
}
