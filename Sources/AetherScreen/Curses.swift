import AetherBase
import CNcurses
import CSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Thin helpers over ncursesw's C API (stdscr only). Callers hold the TTY lock.
package enum Curses {
    package static var columns: Int { Int(aether_COLS()) }
    package static var rows: Int { Int(aether_LINES()) }

    /// The screen as the player draws on it: no cursor, no waiting for input, the keys taught
    /// (``teachKeys()``), the terminal's default colours. The colours it has (0: none).
    package static func setUp() -> Int {
        // ncurses believes the cells under the video are blank: insert/delete-character
        // would shift video cells into an overlay (seen as picture cells inside the stats box
        // in tmux). Rows are always rewritten in place.
        idcok(aether_stdscr(), false)
        idlok(aether_stdscr(), false)
        set_escdelay(25)
        nodelay(aether_stdscr(), true)
        curs_set(0)
        teachKeys()
        guard has_colors() else { return 0 }
        start_color()
        use_default_colors()
        return Int(aether_COLORS())
    }

    /// Blanks the screen and shows it.
    package static func clear() {
        erase()
        refresh()
    }

    /// What changed on the screen goes to the terminal.
    package static func show() { refresh() }

    /// Rows `rows` are written again at the next ``show()`` (ncurses believed them unchanged).
    package static func touch(rows: Range<Int>) {
        for row in rows { wtouchln(aether_stdscr(), Int32(row), 1, 1) }
    }

    /// ncurses' screen is `rows` × `columns` now.
    package static func resize(rows: Int, columns: Int) { _ = resizeterm(Int32(rows), Int32(columns)) }

    /// Draws `text` at row/column, clipped to `width` display columns.
    ///
    /// Every text cell reaches the screen here (``Compositor`` writes its runs with it), so here
    /// it is sanitised once more, whatever the caller did: no control character, escape
    /// sequence, bidi or invisible character from a file name or a tag reaches the terminal.
    /// (Views sanitise too, so widths are measured on the text that is drawn.)
    package static func put(_ text: String, row: Int, column: Int, style: CursesStyle, width: Int? = nil) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        let room = min(width ?? Int.max, columns - column)
        guard room > 0 else { return }
        let clipped = DisplayWidth.clip(TextSanitizer.clean(text), to: room)
        _ = clipped.withCString { aether_put(Int32(row), Int32(column), $0, style.attributes, style.pair, -1) }
    }
}

/// An ncurses attribute set and colour pair.
package struct CursesStyle: Equatable {
    package var attributes: attr_t
    package var pair: Int32
    package static let plain = CursesStyle(attributes: 0, pair: 0)
}

/// Terminal display width of text, as the terminal counts it: glibc's `wcwidth` in C.UTF-8
/// (Unicode's East Asian Width: wide and fullwidth characters take two columns; combining marks,
/// Hangul's medial and final jamo and format characters none), the table tmux measures by and
/// the one xterm's own follows. `สวัสดีครับ` is 7 columns (10 scalars), `नमस्ते` 4 (6 scalars).
/// A scalar `wcwidth` gives no width (unassigned) takes one column, as terminals draw it.
package enum DisplayWidth {
    package static func of(_ s: String) -> Int { s.unicodeScalars.reduce(0) { $0 + width($1) } }

    package static func width(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v < 0x300 { return v == 0 ? 0 : 1 }   // fast path: ASCII and Latin
        if v < 0x1_0000 { return Int(basicPlane[Int(v)]) }
        return libc(v)
    }

    /// The Basic Multilingual Plane's widths, read from `wcwidth` once (65,536 calls, a few
    /// milliseconds, at the first text past Latin).
    private static let basicPlane: [UInt8] = (0..<0x1_0000).map { UInt8(libc(UInt32($0))) }

    private static func libc(_ v: UInt32) -> Int {
        let w = aether_wcwidth(v)
        if w >= 0 { return Int(w) }
        return w == -2 ? fallback(v) : 1
    }

    /// Without a C.UTF-8 locale (a libc that lacks it): the wide blocks and the common
    /// combining marks by range.
    static func fallback(_ v: UInt32) -> Int {
        if (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) { return 0 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v) { return 2 }
        return 1
    }

    package static func clip(_ s: String, to columns: Int) -> String {
        var out = String.UnicodeScalarView()
        var used = 0
        for u in s.unicodeScalars {
            let w = width(u)
            if used + w > columns { break }
            out.append(u)
            used += w
        }
        return String(out)
    }

    /// `s` in at most `columns`: whole when it fits, else its start and "…" (a box's line, a
    /// badge: what is cut is said to be cut).
    package static func truncate(_ s: String, to columns: Int) -> String {
        guard of(s) > columns else { return s }
        guard columns > 1 else { return clip(s, to: columns) }
        return clip(s, to: columns - 1) + "…"
    }

    /// `s` in at most `columns`: whole when it fits, else its start and its end around "…": the
    /// start up to its first ": " (what happened, when that is short) or half the room, the rest
    /// from the end (for a path, its file name).
    package static func middleClip(_ s: String, to columns: Int) -> String {
        guard of(s) > columns else { return s }
        guard columns > 1 else { return clip(s, to: columns) }
        let gist = s.firstRange(of: ": ").map { of(String(s[..<$0.upperBound])) } ?? .max
        let head = gist <= (columns - 1) / 2 ? gist : (columns - 1) / 2
        let tail = columns - 1 - head
        var end = String.UnicodeScalarView()
        var used = 0
        for u in s.unicodeScalars.reversed() {
            let w = width(u)
            if used + w > tail { break }
            end.insert(u, at: end.startIndex)
            used += w
        }
        return clip(s, to: head) + "…" + String(end)
    }

    /// Word-wraps `text` (which may contain newlines) to lines of at most `columns` display
    /// columns: words are separated by runs of spaces (kept as one), a word wider than a line is
    /// cut.
    ///
    /// One pass over the text's UTF-8 bytes, lines copied out once: a 4 MiB single-line cue
    /// wraps in linear time. (The wrapper this replaces re-measured the whole line for every
    /// word and re-copied a long word for every cut: quadratic.)
    package static func wrap(_ text: String, to columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        var text = text
        return text.withUTF8 { wrap(utf8: $0, to: columns) }
    }

    private static func wrap(utf8 bytes: UnsafeBufferPointer<UInt8>, to columns: Int) -> [String] {
        // Plain pointer reads (`p[i]` is transparent): this runs over megabytes in debug builds too.
        guard let p = bytes.baseAddress, bytes.count > 0 else { return [] }
        let space: UInt8 = 0x20, newline: UInt8 = 0x0A
        let count = bytes.count
        var lines: [String] = []
        func string(_ from: Int, _ to: Int) -> String { String(decoding: UnsafeBufferPointer(start: p + from, count: to - from), as: UTF8.self) }
        // The line being filled is p[lineStart..<lineEnd] (none: lineStart < 0); `gapped` when a
        // gap inside it is more than one space (then the copy collapses the runs).
        var lineStart = -1, lineEnd = 0, lineWidth = 0, gapped = false
        func emitLine() {
            guard lineStart >= 0 else { return }
            lines.append(gapped ? collapsingSpaces(UnsafeBufferPointer(start: p + lineStart, count: lineEnd - lineStart))
                                : string(lineStart, lineEnd))
            lineStart = -1
            gapped = false
        }
        var i = 0
        while i < count {
            let b = p[i]
            if b == newline {
                emitLine()
                i += 1
                continue
            }
            if b == space { i += 1; continue }
            // A word: p[i..<k], `w` columns wide.
            var k = i, w = 0
            while k < count {
                let c = p[k]
                if c == space || c == newline { break }
                if c < 0x80 {
                    w += 1
                    k += 1
                } else {
                    let (scalar, length) = decode(p, count, at: k)
                    w += width(scalar)
                    k += length
                }
            }
            if lineStart >= 0, lineWidth + 1 + w <= columns {
                if i - lineEnd > 1 { gapped = true }
                lineEnd = k
                lineWidth += 1 + w
            } else {
                emitLine()
                if w <= columns {
                    lineStart = i
                    lineEnd = k
                    lineWidth = w
                } else {
                    // Wider than a line: cut it into full lines; the rest starts the next line.
                    var start = i, used = 0, c = i
                    while c < k {
                        var cw = 1, length = 1
                        if p[c] >= 0x80 {
                            let (scalar, n) = decode(p, count, at: c)
                            cw = width(scalar)
                            length = n
                        }
                        if used + cw > columns, c > start {
                            lines.append(string(start, c))
                            start = c
                            used = 0
                        }
                        used += cw
                        c += length
                    }
                    lineStart = start
                    lineEnd = k
                    lineWidth = used
                }
            }
            i = k
        }
        emitLine()
        return lines
    }

    /// The scalar whose UTF-8 encoding starts at `bytes[i]` (valid UTF-8: it came from a String).
    private static func decode(_ p: UnsafePointer<UInt8>, _ count: Int, at i: Int) -> (Unicode.Scalar, Int) {
        let b = UInt32(p[i])
        let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        guard i + length <= count, length > 1 else { return (Unicode.Scalar(UInt8(truncatingIfNeeded: b)), 1) }
        var value = b & (0xFF >> UInt32(length + 1))
        for n in 1..<length { value = value << 6 | UInt32(p[i + n] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// `slice` as a string with each run of spaces made one space.
    private static func collapsingSpaces(_ slice: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var previousSpace = false
        for b in slice {
            if b == 0x20, previousSpace { continue }
            previousSpace = b == 0x20
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
