import AetherBase
import AetherScreen

/// Text cues wrapped for the subtitle overlay, once per cue and width.
///
/// The chrome is redrawn several times a second, inside the terminal lock; wrapping a cue there
/// each time made a 4 MiB single-line cue hold the lock for seconds (q took over a second to
/// act). Wrapping is linear now, and it runs once per cue at each width, before the lock is
/// taken; a draw only looks the lines up.
struct SubtitleWrapCache {
    private struct Entry {
        let start: Double
        let end: Double
        let width: Int
        let text: String
        let lines: [String]
    }

    /// Cues remembered (a few are on screen at once; old ones fall out).
    static let capacity = 8
    private var entries: [Entry] = []
    /// How many times a cue was wrapped (not found here): for tests.
    private(set) var wraps = 0

    /// `text`'s lines at `width` columns, sanitised and wrapped on first use.
    ///
    /// A cue is known by its times, the width and its text; comparing the text costs nothing
    /// when it is the same string as last time (the store hands out the same storage).
    mutating func lines(start: Double, end: Double, text: String, width: Int) -> [String] {
        if let hit = entries.first(where: { $0.start == start && $0.end == end && $0.width == width && $0.text == text }) {
            return hit.lines
        }
        let lines = DisplayWidth.wrap(TextSanitizer.clean(text, keepNewlines: true), to: width)
        wraps += 1
        entries.append(Entry(start: start, end: end, width: width, text: text, lines: lines))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        return lines
    }
}
