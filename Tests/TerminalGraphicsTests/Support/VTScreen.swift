/// A small VT parser for the half-block tests: CUP, CUF, SGR (0, 38/48;2, 38/48;5),
/// DEC private modes (ignored) and the three glyphs the renderer writes.
struct VTScreen {
    enum Color: Equatable {
        case unset
        case rgb(UInt8, UInt8, UInt8)
        case index(Int)
    }

    struct Cell: Equatable {
        var glyph: Character = " "
        var fg: Color = .unset
        var bg: Color = .unset
        var writes = 0

        /// The colours a viewer sees in the upper and lower half of the cell.
        var halves: (top: Color, bottom: Color) {
            switch glyph {
            case "▀": (fg, bg)
            case "▄": (bg, fg)
            case "█": (fg, fg)
            default: (bg, bg)
            }
        }
    }

    enum ParseError: Error { case unexpected(String) }

    let columns: Int, rows: Int
    var cells: [Cell]
    var cursor = (column: 0, row: 0)
    var fg: Color = .unset, bg: Color = .unset

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Cell(), count: columns * rows)
    }

    subscript(column: Int, row: Int) -> Cell { cells[row * columns + column] }

    mutating func feed(_ bytes: [UInt8]) throws {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") else { throw ParseError.unexpected("ESC at \(i)") }
                var j = i + 2
                while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                guard j < bytes.count else { throw ParseError.unexpected("truncated CSI") }
                try csi(String(decoding: bytes[(i + 2)..<j], as: UTF8.self), final: bytes[j])
                i = j + 1
            } else {
                // A UTF-8 glyph.
                let len = b < 0x80 ? 1 : (b >= 0xF0 ? 4 : (b >= 0xE0 ? 3 : 2))
                guard i + len <= bytes.count, let ch = String(decoding: bytes[i..<(i + len)], as: UTF8.self).first else {
                    throw ParseError.unexpected("bad UTF-8")
                }
                guard ["▀", "▄", "█", " "].contains(ch) else { throw ParseError.unexpected("glyph \(ch)") }
                guard cursor.column < columns, cursor.row < rows else { throw ParseError.unexpected("write outside screen") }
                var cell = cells[cursor.row * columns + cursor.column]
                cell.glyph = ch
                cell.fg = fg
                cell.bg = bg
                cell.writes += 1
                cells[cursor.row * columns + cursor.column] = cell
                cursor.column += 1
                i += len
            }
        }
    }

    private mutating func csi(_ params: String, final: UInt8) throws {
        if params.hasPrefix("?") { return }   // ?2026h/l, ?25l …
        let numbers = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        switch final {
        case UInt8(ascii: "H"):
            cursor = (column: max(1, numbers.count > 1 ? numbers[1] : 1) - 1, row: max(1, numbers.first ?? 1) - 1)
        case UInt8(ascii: "C"):
            cursor.column += max(1, params.isEmpty ? 1 : numbers[0])
        case UInt8(ascii: "m"):
            var k = 0
            while k < numbers.count {
                switch numbers[k] {
                case 0:
                    fg = .unset
                    bg = .unset
                    k += 1
                case 38, 48:
                    guard k + 1 < numbers.count else { throw ParseError.unexpected("SGR \(params)") }
                    let color: Color
                    if numbers[k + 1] == 2, k + 4 < numbers.count {
                        color = .rgb(UInt8(numbers[k + 2]), UInt8(numbers[k + 3]), UInt8(numbers[k + 4]))
                        if numbers[k] == 38 { fg = color } else { bg = color }
                        k += 5
                    } else if numbers[k + 1] == 5, k + 2 < numbers.count {
                        color = .index(numbers[k + 2])
                        if numbers[k] == 38 { fg = color } else { bg = color }
                        k += 3
                    } else {
                        throw ParseError.unexpected("SGR \(params)")
                    }
                default:
                    throw ParseError.unexpected("SGR \(params)")
                }
            }
        default:
            throw ParseError.unexpected("CSI \(params)\(Character(UnicodeScalar(final)))")
        }
    }
}
