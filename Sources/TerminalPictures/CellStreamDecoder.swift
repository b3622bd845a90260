import TerminalGraphics
/// Turns what a cell output sent back into what the terminal shows: a screen of cells (colour
/// pairs and characters) and, from it, the picture's pixels on a fine sub-cell grid. The tests
/// and `aether-bench` judge the cell outputs by this, not by what the renderer meant to send.
///
/// Understands what the cell renderers (and mpv's tct and timg) write: CUP, CUF, CUB/CUU/CUD,
/// SGR 0/39/49/38;2/48;2/38;5/48;5 (colon forms too), UTF-8 characters, CR/LF; every other
/// escape, control or string is skipped. Input is bounded by the screen size: the cursor is
/// clamped, numbers are capped, nothing grows with the stream.
public struct CellStreamDecoder {
    /// A colour as the terminal holds it.
    public enum Color: Equatable, Sendable {
        case defaultColor
        case rgb(UInt8, UInt8, UInt8)
        case index(UInt8)
    }

    public struct Cell: Equatable, Sendable {
        public var scalar: UInt32 = 0x20
        public var fg: Color = .defaultColor
        public var bg: Color = .defaultColor
        public var writes = 0
        /// Combining marks written after the character (at most ``maximumMarks``): kitty's
        /// placeholder cells carry their row, column and image id's high byte this way.
        public var marks: [UInt32] = []
    }
    /// Marks kept per cell; more are dropped (a cell stream is bounded by the screen).
    public static let maximumMarks = 4

    public let columns: Int
    public let rows: Int
    public private(set) var cells: [Cell]
    /// Characters written that are not block characters (text, boxes) and escape sequences
    /// the decoder skipped: a cell stream should have none.
    public private(set) var otherCharacters = 0
    public private(set) var skippedSequences = 0

    private var column = 0, row = 0
    private var fg: Color = .defaultColor, bg: Color = .defaultColor
    /// The terminal's default colours, for cells that never got one.
    public var defaultForeground: (UInt8, UInt8, UInt8) = (255, 255, 255)
    public var defaultBackground: (UInt8, UInt8, UInt8) = (0, 0, 0)

    public init(columns: Int, rows: Int) {
        self.columns = max(1, min(4096, columns))
        self.rows = max(1, min(4096, rows))
        cells = Array(repeating: Cell(), count: self.columns * self.rows)
    }

    public subscript(column: Int, row: Int) -> Cell { cells[row * columns + column] }

    /// Feeds bytes (any split: a sequence cut between two calls is finished by the next).
    public mutating func feed(_ bytes: [UInt8]) {
        pending.append(contentsOf: bytes)
        var i = 0
        let b = pending
        parse: while i < b.count {
            let c = b[i]
            switch c {
            case 0x1B:
                guard i + 1 < b.count else { break parse }
                let kind = b[i + 1]
                if kind == UInt8(ascii: "[") {
                    var j = i + 2
                    while j < b.count, !(0x40...0x7E).contains(b[j]) { j += 1 }
                    guard j < b.count else { break parse }
                    csi(b[(i + 2)..<j], final: b[j])
                    i = j + 1
                } else if [UInt8(ascii: "P"), UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X")].contains(kind) {
                    // A string: skip to ST (ESC \) or BEL.
                    var j = i + 2
                    while j < b.count, b[j] != 0x07, !(b[j] == 0x1B && j + 1 < b.count && b[j + 1] == UInt8(ascii: "\\")) { j += 1 }
                    guard j < b.count, b[j] == 0x07 || j + 1 < b.count else { break parse }
                    skippedSequences += 1
                    i = b[j] == 0x07 ? j + 1 : j + 2
                } else {
                    skippedSequences += 1
                    i += 2
                }
            case 0x0D:
                column = 0
                i += 1
            case 0x0A:
                row = min(rows - 1, row + 1)
                i += 1
            case 0x08:
                column = max(0, column - 1)
                i += 1
            case ..<0x20, 0x7F:
                i += 1
            default:
                let length = c < 0x80 ? 1 : (c >= 0xF0 ? 4 : (c >= 0xE0 ? 3 : (c >= 0xC0 ? 2 : 1)))
                guard i + length <= b.count else { break parse }
                var scalar = UInt32(c)
                if length > 1 {
                    scalar = UInt32(c) & (0xFF >> UInt32(length + 1))
                    for k in 1..<length { scalar = scalar << 6 | UInt32(b[i + k] & 0x3F) }
                }
                put(scalar)
                i += length
            }
        }
        pending = i < b.count ? Array(b[i...].prefix(65536)) : []
    }
    private var pending: [UInt8] = []

    private mutating func put(_ scalar: UInt32) {
        if let s = Unicode.Scalar(scalar), s.properties.generalCategory == .nonspacingMark {
            // A combining mark belongs to the character before it, which holds the cell.
            guard column > 0 else { return }
            let index = row * columns + min(column - 1, columns - 1)
            if cells[index].marks.count < Self.maximumMarks { cells[index].marks.append(scalar) }
            return
        }
        if CellSymbols.coverage(of: scalar) == nil { otherCharacters += 1 }
        let index = row * columns + min(column, columns - 1)
        cells[index].marks = []
        cells[index].scalar = scalar
        cells[index].fg = fg
        cells[index].bg = bg
        cells[index].writes += 1
        column = min(columns, column + 1)
    }

    private mutating func csi(_ body: ArraySlice<UInt8>, final: UInt8) {
        if body.first.map({ (0x3C...0x3F).contains($0) }) == true {   // private (?2026h, ?25l …)
            skippedSequences += 1
            return
        }
        // Parameters split on ';', sub-parameters on ':' kept as their own numbers.
        var groups: [[Int]] = [[]]
        var number: Int?
        for byte in body {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                number = min(99_999, (number ?? 0) * 10 + Int(byte - 48))
            case UInt8(ascii: ":"):
                groups[groups.count - 1].append(number ?? 0)
                number = nil
            case UInt8(ascii: ";"):
                groups[groups.count - 1].append(number ?? 0)
                number = nil
                if groups.count < 64 { groups.append([]) }
            default:
                break
            }
        }
        groups[groups.count - 1].append(number ?? 0)
        let first = groups.first?.first ?? 0
        switch final {
        case UInt8(ascii: "H"), UInt8(ascii: "f"):
            row = min(rows - 1, max(1, first) - 1)
            column = min(columns - 1, max(1, groups.count > 1 ? groups[1].first ?? 1 : 1) - 1)
        case UInt8(ascii: "C"): column = min(columns, column + max(1, first))
        case UInt8(ascii: "D"): column = max(0, column - max(1, first))
        case UInt8(ascii: "A"): row = max(0, row - max(1, first))
        case UInt8(ascii: "B"): row = min(rows - 1, row + max(1, first))
        case UInt8(ascii: "G"): column = min(columns - 1, max(1, first) - 1)
        case UInt8(ascii: "m"): sgr(groups)
        default: skippedSequences += 1
        }
    }

    private mutating func sgr(_ groups: [[Int]]) {
        var k = 0
        // Flatten `38;2;r;g;b` into the same shape as `38:2::r:g:b`.
        while k < groups.count {
            let g = groups[k]
            let code = g.first ?? 0
            switch code {
            case 0:
                fg = .defaultColor
                bg = .defaultColor
            case 39: fg = .defaultColor
            case 49: bg = .defaultColor
            case 38, 48:
                var params = Array(g.dropFirst())
                if params.isEmpty {   // semicolon form: take what follows
                    let kind = k + 1 < groups.count ? groups[k + 1].first ?? 0 : 0
                    let needed = kind == 2 ? 4 : 2
                    params = groups[(k + 1)..<min(groups.count, k + 1 + needed)].map { $0.first ?? 0 }
                    k += params.count
                } else if params.first == 2, params.count == 5 {
                    params.remove(at: 1)   // `38:2:colourspace:r:g:b`
                }
                let color: Color?
                if params.first == 2, params.count >= 4 {
                    color = .rgb(UInt8(clamping: params[1]), UInt8(clamping: params[2]), UInt8(clamping: params[3]))
                } else if params.first == 5, params.count >= 2 {
                    color = .index(UInt8(clamping: params[1]))
                } else {
                    color = nil
                }
                if let color { if code == 38 { fg = color } else { bg = color } }
            case 30...37, 90...97: fg = .index(UInt8(code >= 90 ? code - 82 : code - 30))
            case 40...47, 100...107: bg = .index(UInt8(code >= 100 ? code - 92 : code - 40))
            default: break
            }
            k += 1
        }
    }

    /// The RGB of a colour (indices 0–15 as xterm's defaults).
    public func rgb(_ color: Color, foreground: Bool) -> (UInt8, UInt8, UInt8) {
        switch color {
        case .defaultColor: return foreground ? defaultForeground : defaultBackground
        case let .rgb(r, g, b): return (r, g, b)
        case let .index(i):
            if i >= 16 { let c = XtermPalette.rgb(index: Int(i)); return (c.r, c.g, c.b) }
            let base: [(UInt8, UInt8, UInt8)] = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
                                                  (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
                                                  (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
            return base[Int(i)]
        }
    }

    /// The cells of `rect` as pixels: `2 × rect.width` by `gridRows × rect.height`, RGB24, each
    /// block character's sub-cells in its foreground colour and the rest in its background
    /// (other characters show their background). `gridRows` divides 12 (2, 3, 4, 6, 12): every
    /// mode's sub-cells fall on whole grid rows, so one grid compares them all.
    public func pixels(of rect: CellRect, gridRows: Int = 12) -> [UInt8] {
        let fine = 12
        let g = [1, 2, 3, 4, 6, 12].contains(gridRows) ? gridRows : 12
        let band = fine / g
        let width = rect.width * 2
        var out = [UInt8](repeating: 0, count: width * rect.height * g * 3)
        for cy in 0..<rect.height {
            for cx in 0..<rect.width {
                let row = rect.row + cy, column = rect.column + cx
                guard row >= 0, row < rows, column >= 0, column < columns else { continue }
                let cell = self[column, row]
                let mask = CellSymbols.coverage(of: cell.scalar) ?? 0
                let f = rgb(cell.fg, foreground: true), b = rgb(cell.bg, foreground: false)
                for gy in 0..<g {
                    for sx in 0..<2 {
                        // The mean over the fine rows of this grid row.
                        var on = 0
                        for fy in (gy * band)..<((gy + 1) * band) where mask & (1 << UInt32(fy * 2 + sx)) != 0 { on += 1 }
                        let o = ((cy * g + gy) * width + cx * 2 + sx) * 3
                        out[o] = UInt8((Int(f.0) * on + Int(b.0) * (band - on) + band / 2) / band)
                        out[o + 1] = UInt8((Int(f.1) * on + Int(b.1) * (band - on) + band / 2) / band)
                        out[o + 2] = UInt8((Int(f.2) * on + Int(b.2) * (band - on) + band / 2) / band)
                    }
                }
            }
        }
        return out
    }
}
