import AetherBase
import TerminalGraphics

/// The message line's model: the message showing and until when, the messages waiting their
/// turn (start-up warnings), and how many of the engine's warnings were shown. Every text is
/// sanitised here (track labels, chapter names and warnings come from the media).
struct MessageLine {
    /// The message showing, until the loop's clock reads `until`.
    var current: (text: String, until: Double)?
    /// Waiting for the line, shown in turn, 4 s each.
    var queued: [String] = []
    /// How many of the engine's warnings were shown.
    private(set) var warningsShown = 0

    /// Shows `text` from `now` for `seconds`.
    mutating func show(_ text: String, seconds: Double, at now: Double) {
        current = (TextSanitizer.clean(text), now + seconds)
    }

    /// Whether the message is over at `now` (at exactly its end).
    func expired(at now: Double) -> Bool { current.map { now >= $0.until } ?? false }

    /// At `now`: a message that is over goes, and the next waiting one shows. True when the line changed.
    mutating func turn(at now: Double) -> Bool {
        guard expired(at: now) else { return false }
        current = nil
        if !queued.isEmpty { show(queued.removeFirst(), seconds: 4, at: now) }
        return true
    }

    /// What was wrong in aether-tui.conf, input.conf or the playlist, once the screen is up: one
    /// after another, 4 s each, `shown` at most (all of them are on stderr, read after quitting).
    mutating func queueStartup(_ warnings: [String], at now: Double, shown: Int = 4) {
        var lines = warnings.map { "⚠ " + $0 }
        guard !lines.isEmpty else { return }
        if lines.count > shown {
            let more = lines.count - (shown - 1)
            lines = Array(lines.prefix(shown - 1)) + ["⚠ \(more) more warnings: listed on stderr after quitting"]
        }
        if current == nil { show(lines.removeFirst(), seconds: 4, at: now) }
        queued += lines.map { TextSanitizer.clean($0) }
    }

    /// The engine's warnings as they stand (a stream found undecodable mid-way): the newest shows
    /// for 5 s when any arrived since the last look. True when the line changed.
    mutating func engineWarnings(_ warnings: [String], at now: Double) -> Bool {
        guard warnings.count > warningsShown, let last = warnings.last else { return false }
        show("⚠ " + last, seconds: 5, at: now)
        warningsShown = warnings.count
        return true
    }

    /// Where the line goes: the first row of `area`, from the top, where a message `width` cells wide at `column`
    /// covers none of `boxes`; the top row when every row is taken.
    static func row(width: Int, column: Int, area: CellRect, avoiding boxes: [CellRect]) -> Int {
        let top = area.row
        for row in top..<max(top + 1, area.row + area.height) {
            let rect = CellRect(column: column, row: row, width: width, height: 1)
            if !boxes.contains(where: { !$0.intersection(rect).isEmpty }) { return row }
        }
        return top
    }
}
