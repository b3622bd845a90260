import AetherSubtitles
import AetherScreen
import TerminalGraphics

/// Text subtitles placed in the picture's cells as their script placed them (libass's rules in
/// cells): `\pos` anchors the text at its cell, the numpad alignment (`\an`, the style's) picks
/// the corner and the margins inset it, lines break at `\N` and wrap by the script's WrapStyle,
/// and events that are not positioned and would overlap are stacked (bottom ones upwards, top
/// ones downwards, in script order), as libass does. A cue with no script (none today: FFmpeg
/// gives every text decoder an ASS event) is a bottom-centred line.
///
/// A pure value: it places lines, ``render(_:into:)`` draws them on a ``TextSurface``.
package struct SubtitleCellLayout {
    struct Segment: Equatable {
        var text: String
        var style: SubtitleCellStyle
    }

    /// One line on screen: where it starts and its styled segments (`width` display columns,
    /// the one-cell padding either side included).
    package struct Line: Equatable {
        package var row: Int
        package var column: Int
        package var width: Int
        var segments: [Segment]
        package var text: String { segments.map(\.text).joined() }
    }

    /// Most lines one cue may wrap into (a 4,000-character cue in a narrow window).
    static let maxLinesPerCue = 64

    /// The lines of `cues` (in the store's start order) placed in `picture`.
    package static func place(_ cues: [SubtitleCue], in picture: CellRect) -> [Line] {
        guard picture.width >= 3, picture.height >= 1 else { return [] }
        var placed: [Line] = []
        /// Blocks of earlier events that were not positioned: later ones are moved off them.
        var occupied: [CellRect] = []
        let events = cues.enumerated().compactMap { n, cue -> (Int, StyledSubtitle)? in
            if let styled = cue.styled { return (n, styled) }
            guard let text = cue.text else { return nil }
            return (n, StyledSubtitle(runs: [StyledSubtitle.Run(text: text)]))
        }
        // libass resolves collisions in script order within a layer, lower layers first.
        let ordered = events.sorted { a, b in
            (a.1.layer, a.1.readOrder, a.0) < (b.1.layer, b.1.readOrder, b.0)
        }
        for (_, event) in ordered {
            let lines = block(event, in: picture)
            guard !lines.isEmpty else { continue }
            let height = min(lines.count, picture.height)
            let widths = lines.map { $0.reduce(0) { $0 + DisplayWidth.of($1.text) } + 2 }
            let blockWidth = min(picture.width, widths.max() ?? 0)
            let ml = Int((event.marginLeft * Double(picture.width)).rounded())
            let mr = Int((event.marginRight * Double(picture.width)).rounded())
            let mv = Int((event.marginVertical * Double(picture.height)).rounded())
            var top: Int
            var anchorColumn: Int
            if let p = event.position {
                let x = picture.column + Int((min(max(p.x, 0), 1) * Double(picture.width)).rounded(.down))
                let y = picture.row + min(picture.height - 1, Int((min(max(p.y, 0), 1) * Double(picture.height)).rounded(.down)))
                anchorColumn = x
                switch event.vertical {
                case 2: top = y
                case 1: top = y - height / 2
                default: top = y - height + 1
                }
            } else {
                switch event.vertical {
                case 2: top = picture.row + mv
                case 1: top = picture.row + (picture.height - height) / 2
                default: top = picture.endRow - mv - height
                }
                let left = picture.column + min(ml, picture.width - 1)
                let right = max(left + 1, picture.endColumn - mr)
                switch event.horizontal {
                case 0: anchorColumn = left
                case 2: anchorColumn = right
                default: anchorColumn = (left + right) / 2
                }
            }
            top = min(max(top, picture.row), picture.endRow - height)
            func column(width: Int) -> Int {
                let c: Int
                switch event.horizontal {
                case 0: c = anchorColumn
                case 2: c = anchorColumn - width
                default: c = anchorColumn - width / 2
                }
                return min(max(c, picture.column), picture.endColumn - min(width, picture.width))
            }
            if event.position == nil {
                // Stack off earlier blocks: bottom and middle ones move up, top ones down.
                let down = event.vertical == 2
                let left = column(width: blockWidth)
                var tries = 0
                while tries < picture.height * 2 {
                    let rect = CellRect(column: left, row: top, width: blockWidth, height: height)
                    guard let hit = occupied.first(where: { !$0.intersection(rect).isEmpty }) else { break }
                    top = down ? hit.endRow : hit.row - height
                    tries += 1
                }
                occupied.append(CellRect(column: left, row: top, width: blockWidth, height: height))
            }
            for (i, segments) in lines.prefix(height).enumerated() {
                let row = top + i
                guard row >= picture.row, row < picture.endRow else { continue }
                let width = min(widths[i], picture.width)
                placed.append(Line(row: row, column: column(width: width), width: width, segments: segments))
            }
        }
        return placed
    }

    /// The event's text wrapped into lines of segments (padding not included).
    static func block(_ event: StyledSubtitle, in picture: CellRect) -> [[Segment]] {
        let margins = event.position == nil
            ? Int(((event.marginLeft + event.marginRight) * Double(picture.width)).rounded()) : 0
        let room = max(1, min(picture.width - 2, picture.width - margins - 2))
        // Cells: each scalar with its style; paragraphs split at hard breaks.
        var paragraphs: [[(Unicode.Scalar, SubtitleCellStyle)]] = [[]]
        for run in event.runs {
            let style = SubtitleCellStyle(bold: run.bold, italic: run.italic, color: run.color)
            for scalar in run.text.unicodeScalars {
                if scalar == "\n" { paragraphs.append([]); continue }
                paragraphs[paragraphs.count - 1].append((scalar, style))
            }
        }
        var lines: [[(Unicode.Scalar, SubtitleCellStyle)]] = []
        for paragraph in paragraphs {
            if lines.count >= maxLinesPerCue { break }
            lines += wrap(paragraph, to: room, style: event.wrapStyle)
        }
        // Blank lines at either end of the event take no room (libass trims them too).
        while let first = lines.first, first.allSatisfy({ $0.0 == " " || $0.0 == "\u{A0}" }) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy({ $0.0 == " " || $0.0 == "\u{A0}" }) { lines.removeLast() }
        return lines.prefix(maxLinesPerCue).map(segments)
    }

    typealias Cell = (Unicode.Scalar, SubtitleCellStyle)

    /// One paragraph in lines of at most `width` columns: WrapStyle 2 never wraps (the line is
    /// clipped), 1 fills each line in turn, 0 and 3 balance the lines (0 the top one wider, 3
    /// the bottom one). Spaces between words collapse at a break; `\h` (U+00A0) never breaks.
    static func wrap(_ paragraph: [Cell], to width: Int, style: Int) -> [[Cell]] {
        func w(_ cells: ArraySlice<Cell>) -> Int { cells.reduce(0) { $0 + DisplayWidth.width($1.0) } }
        if style == 2 { return [paragraph] }
        // Words: maximal runs of non-space cells; a word wider than a line is cut.
        var words: [ArraySlice<Cell>] = []
        var i = 0
        while i < paragraph.count {
            while i < paragraph.count, paragraph[i].0 == " " { i += 1 }
            var j = i
            while j < paragraph.count, paragraph[j].0 != " " { j += 1 }
            var word = paragraph[i..<j]
            while w(word) > width, word.count > 1 {
                var cut = word.startIndex
                var used = 0
                while cut < word.endIndex, used + DisplayWidth.width(word[cut].0) <= width {
                    used += DisplayWidth.width(word[cut].0)
                    cut += 1
                }
                cut = max(cut, word.startIndex + 1)
                words.append(word[..<cut])
                word = word[cut...]
            }
            if !word.isEmpty { words.append(word) }
            i = j
        }
        guard !words.isEmpty else { return paragraph.isEmpty ? [] : [[]] }
        func greedy(_ words: [ArraySlice<Cell>], _ limit: Int) -> [[ArraySlice<Cell>]] {
            var lines: [[ArraySlice<Cell>]] = [[]]
            var used = 0
            for word in words {
                let ww = w(word)
                if !lines[lines.count - 1].isEmpty, used + 1 + ww > limit {
                    lines.append([])
                    used = 0
                }
                used += (lines[lines.count - 1].isEmpty ? 0 : 1) + ww
                lines[lines.count - 1].append(word)
            }
            return lines
        }
        var lines = greedy(words, width)
        if style != 1, lines.count > 1 {
            // Balanced: the narrowest limit that still needs no more lines than filling does.
            let total = words.reduce(0) { $0 + w($1) } + words.count - 1
            let n = lines.count
            var limit = max(words.map { w($0) }.max() ?? 1, (total + n - 1) / n)
            let order = style == 3 ? Array(words.reversed()) : words
            while limit < width {
                let trial = greedy(order, limit)
                if trial.count <= n {
                    lines = style == 3 ? trial.reversed().map { $0.reversed() } : trial
                    break
                }
                limit += 1
            }
        }
        return lines.map { line in
            var cells: [Cell] = []
            for (k, word) in line.enumerated() {
                if k > 0 { cells.append((" ", word.first?.1 ?? SubtitleCellStyle())) }
                cells += word
            }
            return cells
        }
    }

    static func segments(_ cells: [Cell]) -> [Segment] {
        var out: [Segment] = []
        for (scalar, style) in cells {
            if let last = out.last, last.style == style {
                out[out.count - 1].text.unicodeScalars.append(scalar)
            } else {
                out.append(Segment(text: String(Character(scalar)), style: style))
            }
        }
        return out
    }

    /// Draws `lines` on a band in the theme's subtitle style (one padding cell either side);
    /// returns the cells they cover (the overlay mask).
    static func render(_ lines: [Line], into surface: inout some TextSurface) -> [CellRect] {
        var rects: [CellRect] = []
        for line in lines {
            surface.put(" ", row: line.row, column: line.column, role: .subtitle, width: 1)
            var column = line.column + 1
            let end = line.column + line.width - 1
            for segment in line.segments where column < end {
                surface.putStyled(segment.text, row: line.row, column: column, style: segment.style, width: end - column)
                column += min(DisplayWidth.of(segment.text), end - column)
            }
            if column < line.column + line.width {
                surface.put(" ", row: line.row, column: column, role: .subtitle, width: 1)
            }
            rects.append(CellRect(column: line.column, row: line.row, width: line.width, height: 1))
        }
        return rects
    }
}

/// The last placement, reused while the same cues show in the same rectangle: the chrome is
/// redrawn several times a second, the cues change a few times a minute.
struct SubtitleCellCache {
    private var cues: [SubtitleCue] = []
    private var picture = CellRect(column: 0, row: 0, width: 0, height: 0)
    private var lines: [SubtitleCellLayout.Line] = []
    /// How many times cues were placed (not found here): for tests.
    private(set) var placements = 0

    mutating func lines(for cues: [SubtitleCue], in picture: CellRect) -> [SubtitleCellLayout.Line] {
        if picture == self.picture, cues == self.cues { return lines }
        lines = SubtitleCellLayout.place(cues, in: picture)
        self.cues = cues
        self.picture = picture
        placements += 1
        return lines
    }
}
