/// The tally of a walk through the playlist: how many items played and how many could not, a
/// line for each that could not (or ended early), the passes of the item and of the playlist
/// left to loop, and how a quit or a stop ended the run. How the run ends follows from it
/// (``status(items:)``).
struct WalkTally: Equatable {
    /// Items that opened, less those that then failed while playing.
    private(set) var played = 0
    /// Items that could not be played.
    private(set) var failed = 0
    /// An item ended before its end (truncated, a read error).
    private(set) var endedEarly = false
    /// Of the items that failed or ended early: whether any did for a network cause, and
    /// whether any did for another.
    private(set) var networkTrouble = false
    private(set) var otherTrouble = false
    /// What went wrong with an item, or with the run: its kind, its cause and the line that says it.
    struct Trouble: Equatable {
        enum Kind: Equatable {
            /// The item could not be played (``notPlayed(_:network:)``).
            case notPlayed
            /// It opened, then failed while it played (``failedPlaying(_:network:)``).
            case failedPlaying
            /// It ended before its end (``endedEarly(_:network:)``).
            case endedEarly
            /// Other trouble to report as the player leaves (a position that could not be saved).
            case other
        }
        var kind: Kind
        var line: String
        /// For a network cause.
        var network = false
    }

    /// One per item that could not be played, played short or failed (printed after the screen
    /// is gone), and other trouble to report then: the first ``keptLines``; the ones after them
    /// are only counted (``linesLeftOut``), so a playlist of 100 000 missing files does not hold
    /// 100 000 of them.
    private(set) var troubles: [Trouble] = []
    private(set) var linesLeftOut = 0
    /// The troubles' lines.
    var errors: [String] { troubles.map(\.line) }
    static let keptLines = 1000
    /// More passes of the current item (`--loop-file`), set again as each item opens.
    var fileLoopsLeft = LoopCount.no
    /// More passes of the playlist (`--loop-playlist`).
    var playlistLoopsLeft = LoopCount.no
    /// How the run ends, once a quit (its own code) or a stop (the tally's status) said so.
    var end: RunEnd?

    /// Item opened: counted, its `loops` (`--loop-file`) ahead.
    mutating func opened(loops: LoopCount) {
        played += 1
        fileLoopsLeft = loops
    }

    /// An item could not be played (`line` says why; `network`: for a network cause).
    mutating func notPlayed(_ line: String, network: Bool = false) {
        failed += 1
        note(Trouble(kind: .notPlayed, line: line, network: network))
    }

    /// The item that opened failed while it played (`line` says why): not played after all.
    mutating func failedPlaying(_ line: String, network: Bool = false) {
        note(Trouble(kind: .failedPlaying, line: line, network: network))
        failed += 1
        played -= 1
    }

    /// The item ended before its end (`line` says why); it still counts as played.
    mutating func endedEarly(_ line: String, network: Bool = false) {
        endedEarly = true
        note(Trouble(kind: .endedEarly, line: line, network: network))
    }

    /// Keeps `line` to report when the player leaves (or counts it, past ``keptLines``).
    mutating func say(_ line: String) { keep(Trouble(kind: .other, line: line)) }

    private mutating func keep(_ trouble: Trouble) {
        if troubles.count < Self.keptLines { troubles.append(trouble) } else { linesLeftOut += 1 }
    }

    private mutating func note(_ trouble: Trouble) {
        keep(trouble)
        if trouble.network { networkTrouble = true } else { otherTrouble = true }
    }

    /// Another pass of the current item, if one is left: true, and one pass fewer.
    mutating func takeFileLoop() -> Bool { Self.take(&fileLoopsLeft) }

    /// Another pass of the playlist, if one is left and something played on the last (a list
    /// of broken files is not walked for ever): true, and one pass fewer.
    mutating func takePlaylistLoop() -> Bool {
        guard played > 0 else { return false }
        return Self.take(&playlistLoopsLeft)
    }

    private static func take(_ loops: inout LoopCount) -> Bool {
        guard loops.isOn else { return false }
        if case .times(let n) = loops { loops = n > 1 ? .times(n - 1) : .no }
        return true
    }

    /// mpv's exit codes over a playlist of `items`: 0 when everything played, 1 when the one
    /// item could not be played, 2 when none of several could, 3 when some could and some could
    /// not; 2 also when a file ended early (truncated, read error); ours, 5, when what failed
    /// failed for a network cause only.
    func status(items: Int) -> ExitStatus {
        ExitStatus.of(played: played, failed: failed, items: items, endedEarly: endedEarly,
                      network: networkTrouble && !otherTrouble)
    }

    /// ``errors`` as printed when the player leaves: the first `limit`, then how many more
    /// (a playlist of 100 000 missing files is not 100 000 lines on the terminal).
    func reportedErrors(limit: Int) -> [String] {
        let all = troubles.count + linesLeftOut
        guard all > limit else { return errors }
        return Array(errors.prefix(limit)) + ["… and \(all - limit) more items that could not be played"]
    }
}
