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
    /// One line per item that could not be played (printed after the screen is gone), and any
    /// other trouble to report then (a position that could not be saved): the first
    /// ``keptLines``; the lines after them are only counted (``linesLeftOut``), so a playlist of
    /// 100 000 missing files does not hold 100 000 lines.
    private(set) var errors: [String] = []
    private(set) var linesLeftOut = 0
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
        note(line, network: network)
    }

    /// The item that opened failed while it played (`line` says why): not played after all.
    mutating func failedPlaying(_ line: String, network: Bool = false) {
        note(line, network: network)
        failed += 1
        played -= 1
    }

    /// The item ended before its end (`line` says why); it still counts as played.
    mutating func endedEarly(_ line: String, network: Bool = false) {
        endedEarly = true
        note(line, network: network)
    }

    /// Keeps `line` to report when the player leaves (or counts it, past ``keptLines``).
    mutating func say(_ line: String) {
        if errors.count < Self.keptLines { errors.append(line) } else { linesLeftOut += 1 }
    }

    private mutating func note(_ line: String, network: Bool) {
        say(line)
        if network { networkTrouble = true } else { otherTrouble = true }
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
        let all = errors.count + linesLeftOut
        guard all > limit else { return errors }
        return Array(errors.prefix(limit)) + ["… and \(all - limit) more items that could not be played"]
    }
}
