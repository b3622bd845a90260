import AetherScreen
import AetherThemes
import TerminalGraphics

/// A bordered box of lines (the stats overlay, the key help, the track menu's frame).
struct BoxView: Equatable {
    var title: String
    var lines: [String]
    var style: ThemeRole
    var border: ThemeRole
    /// The box's whole width (nil: as wide as the longest line needs).
    var width: Int?

    /// Draws the box with its top-left corner at `origin`, clipped to the rows above the two
    /// transport rows; returns the cells it covers (empty when there is no room).
    @discardableResult
    func render(at origin: (column: Int, row: Int), into surface: inout some TextSurface) -> CellRect {
        let empty = CellRect(column: 0, row: 0, width: 0, height: 0)
        // As wide as the longest line, and at least as wide as the title.
        let wanted = max((lines.map(DisplayWidth.of).max() ?? 0) + 2, DisplayWidth.of(title) + 4)
        let inner = width.map { $0 - 2 } ?? min(surface.columns - origin.column - 2, wanted)
        guard inner > 2 else { return empty }
        let height = min(lines.count + 2, surface.rows - 2 - origin.row)
        guard height >= 2 else { return empty }
        let (x, y) = origin
        let top = "┌─ " + DisplayWidth.truncate(title, to: max(0, inner - 3)) + " "
        surface.put(top + String(repeating: "─", count: max(0, inner - DisplayWidth.of(top) + 1)) + "┐", row: y, column: x, role: border, width: inner + 2)
        for i in 0..<(height - 2) {
            surface.put("│", row: y + 1 + i, column: x, role: border)
            let text = " " + DisplayWidth.truncate(lines[i], to: inner - 1)
            surface.put(text + String(repeating: " ", count: max(0, inner - DisplayWidth.of(text))), row: y + 1 + i, column: x + 1, role: style, width: inner)
            surface.put("│", row: y + 1 + i, column: x + inner + 1, role: border)
        }
        surface.put("└" + String(repeating: "─", count: inner) + "┘", row: y + height - 1, column: x, role: border, width: inner + 2)
        return CellRect(column: x, row: y, width: inner + 2, height: height)
    }
}

/// The message line: one transient message at the top of the video area, below any box there.
struct MessageView: Equatable {
    var text: String

    @discardableResult
    func render(in area: CellRect, avoiding boxes: [CellRect], into surface: inout some TextSurface) -> CellRect {
        let column = area.column + 1
        // Too long for the line (a screenshot's path in a deep directory): its start and end.
        let shown = DisplayWidth.middleClip(text, to: max(1, area.width - 4))
        let width = DisplayWidth.of(shown) + 2
        let row = MessageLine.row(width: width, column: column, area: area, avoiding: boxes)
        surface.put(" \(shown) ", row: row, column: column, role: .status)
        return CellRect(column: column, row: row, width: width, height: 1)
    }
}

/// The two transport rows at the bottom: the progress bar (played, buffered, chapter ticks,
/// the scrub marker) and the status line (state, time, badges right-aligned as room allows).
struct TransportBar: Equatable {
    enum State: Equatable { case playing, paused, seeking, buffering }
    var state: State
    /// Where the bar starts and how long it spans (the file, or a live stream's kept window).
    var origin: Double
    var span: Double
    var position: Double
    /// How far the source is read or queued (seconds on the same axis).
    var buffered: Double
    var chapterStarts: [Double] = []
    /// The scrub marker's time (nil: no scrub).
    var scrubMarker: Double?
    /// The time text (`00:07 / 00:12`, `-00:05`, `LIVE`, the scrub hint, network state).
    var timeText: String
    /// Right-aligned items, left to right; the leftmost go first when room runs out.
    var badges: [Badge]

    struct Badge: Equatable {
        var text: String
        var role: ThemeRole
    }

    /// The state's glyph on the status line. Only characters the common monospace fonts have
    /// (DejaVu Sans Mono, Noto Sans Mono, both checked by the tests): `⏸` (U+23F8) is in
    /// neither, nor in any font Debian installs with them, and xterm, which does not fall back
    /// to other fonts for it, drew an empty box; `⇥` is not in Noto Sans Mono. Asking the
    /// terminal would not tell: it moves the cursor by the character's width whether or not a
    /// font has the glyph (xterm, kitty, foot and mlterm all reported one cell for `⏸`).
    static func icon(_ state: State) -> String {
        switch state {
        case .paused: "‖"
        case .seeking: "»"
        case .buffering: "…"
        case .playing: "▶"
        }
    }

    /// The bar's time axis: where it starts and how long it spans. The one mapping from a time
    /// to a column: the bar, the scrub marker and the preview above it all go through it.
    struct Axis: Equatable {
        var origin: Double
        var span: Double
        /// A live stream's kept window (its right end the live edge).
        var live = false

        init(origin: Double, span: Double, live: Bool = false) {
            self.origin = origin
            self.span = span
            self.live = live
        }

        /// The file (`duration`; none known: no span) or, for a live stream, its kept window.
        init(duration: Double?, liveWindow: ClosedRange<Double>?) {
            if let liveWindow {
                self.init(origin: liveWindow.lowerBound, span: liveWindow.upperBound - liveWindow.lowerBound, live: true)
            } else {
                self.init(origin: 0, span: duration ?? 0)
            }
        }

        /// The column for `time` on a bar `width` wide (clamped: a damaged file can claim 1.8e19 s).
        func column(_ time: Double, width: Int) -> Int {
            span > 0 ? Int(saturating: min(1, max(0, (time - origin) / span)) * Double(width)) : 0
        }

        /// The scrub marker's column for `time`: on the bar, the last column at the end.
        func markerColumn(_ time: Double, width: Int) -> Int {
            min(width - 1, column(time, width: width))
        }

        /// The times the bar covers (nil: nothing to point at).
        var range: ClosedRange<Double>? { span > 0 ? origin...(origin + span) : nil }

        /// The time under column `x` of a bar `width` wide (a mouse on the bar): the first column
        /// is the start, the last the end; the inverse of ``markerColumn(_:width:)``.
        func time(atColumn x: Int, width: Int) -> Double {
            origin + min(1, max(0, Double(x) / Double(max(1, width - 1)))) * span
        }
    }

    var axis: Axis { Axis(origin: origin, span: span) }

    func render(into surface: inout some TextSurface) {
        let row = surface.rows - 2
        let width = surface.columns
        guard row >= 0 else { return }
        func column(_ t: Double) -> Int { axis.column(t, width: width) }
        let played = column(position)
        let bufferedColumn = column(buffered)
        let ticks = Set(chapterStarts.map(column))
        for x in 0..<width {
            let (glyph, role): (String, ThemeRole) =
                ticks.contains(x) ? ("┃", .progressChapter)
                : x < played ? ("━", .progressPlayed)
                : x == played ? ("●", .progressPlayed)
                : x < bufferedColumn ? ("─", .progressBuffered) : ("─", .progressEmpty)
            surface.put(glyph, row: row, column: x, role: role)
        }
        if let scrubMarker {
            surface.put("◆", row: row, column: axis.markerColumn(scrubMarker, width: width), role: .time)
        }
        let status = row + 1
        surface.fill(row: status, column: 0, width: width, role: .status)
        let icon = Self.icon(state)
        surface.put(" \(icon) ", row: status, column: 0, role: .status)
        surface.put(timeText, row: status, column: 3, role: .time)
        var x = width
        for badge in Self.fitting(badges, in: width - (3 + DisplayWidth.of(timeText) + 1)).reversed() {
            x -= DisplayWidth.of(badge.text) + 3
            surface.put(" \(badge.text) ", row: status, column: x, role: badge.role)
        }
    }

    /// The badges that fit in `room` columns (each takes its text, two spaces and a gap), in
    /// their order: what the user acts on first (``ThemeRole/status``: volume, speed), then the
    /// rest from the left; a narrow terminal loses the descriptions, not the volume.
    static func fitting(_ badges: [Badge], in room: Int) -> [Badge] {
        var left = room
        var kept = Set<Int>()
        let order = badges.indices.filter { badges[$0].role == .status } + badges.indices.filter { badges[$0].role != .status }
        for i in order {
            let w = DisplayWidth.of(badges[i].text) + 3
            guard w < left else { continue }
            kept.insert(i)
            left -= w
        }
        return badges.indices.filter(kept.contains).map { badges[$0] }
    }
}
