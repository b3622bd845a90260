/// A colour as a theme file names it.
///
/// The sixteen names (`red`, `bright-blue`, …) and the numbers `0`–`255` are palette
/// indices, shown in whatever colours the terminal's palette holds; `#rrggbb` is an exact colour,
/// reduced to the nearest xterm-256 entry when the terminal cannot show it exactly.
public enum ThemeColor: Equatable, Hashable, Sendable {
    /// The terminal's own foreground or background (ncurses colour -1 after `use_default_colors`).
    case terminalDefault
    /// An xterm palette index, 0–255. 0–7 are the eight basic colours, 8–15 their bright forms,
    /// 16–231 the 6×6×6 colour cube, 232–255 the grey ramp.
    case index(Int)
    /// An exact colour, `#rrggbb`.
    case rgb(UInt8, UInt8, UInt8)

    /// The xterm-256 palette index to draw this colour with: the index itself, or for `.rgb` the
    /// nearest entry of the 6×6×6 cube and the grey ramp (16…255, squared distance in RGB; ties go
    /// to the cube). Palette entries 0–15 are never chosen for `.rgb`, because users and terminal
    /// themes redefine them. nil for `.terminalDefault` (and for an index outside 0…255, which the
    /// theme parser never produces).
    public var xterm256Index: Int? {
        switch self {
        case .terminalDefault: return nil
        case .index(let n): return (0...255).contains(n) ? n : nil
        case .rgb(let r, let g, let b): return XtermPalette.nearest(r, g, b, in: 16...255)
        }
    }

    /// The palette index to draw this colour with on a terminal that has `colors` colours
    /// (ncurses' `COLORS`): 256 or more → ``xterm256Index``; 16 → the nearest of the sixteen basic
    /// colours (as xterm's default palette defines them); 8 → the same, bright colours folded onto
    /// their basic forms. nil for `.terminalDefault`, and for every colour when `colors` < 8.
    public func paletteIndex(colors: Int) -> Int? {
        guard let full = xterm256Index, colors >= 8 else { return nil }
        if colors >= 256 { return full }
        let basic: Int
        if full < 16 {
            basic = full
        } else {
            let (r, g, b) = XtermPalette.rgb(full)
            basic = XtermPalette.nearest(r, g, b, in: 0...15)
        }
        return colors >= 16 ? basic : basic % 8
    }
}

/// xterm's default 256-colour palette.
enum XtermPalette {
    /// The six levels of each channel in the colour cube (16…231).
    static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

    /// xterm's defaults for the sixteen basic colours.
    static let basic: [(UInt8, UInt8, UInt8)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// The RGB value of palette entry `index` (0…255).
    static func rgb(_ index: Int) -> (UInt8, UInt8, UInt8) {
        switch index {
        case 0..<16:
            return basic[index]
        case 16..<232:
            let i = index - 16
            return (cubeLevels[i / 36], cubeLevels[(i / 6) % 6], cubeLevels[i % 6])
        default:
            let level = UInt8(8 + 10 * (min(index, 255) - 232))
            return (level, level, level)
        }
    }

    /// The entry in `range` closest to (r, g, b); the lowest index wins a tie.
    static func nearest(_ r: UInt8, _ g: UInt8, _ b: UInt8, in range: ClosedRange<Int>) -> Int {
        var best = range.lowerBound
        var bestDistance = Int.max
        for index in range {
            let (pr, pg, pb) = rgb(index)
            let dr = Int(r) - Int(pr), dg = Int(g) - Int(pg), db = Int(b) - Int(pb)
            let distance = dr * dr + dg * dg + db * db
            if distance < bestDistance {
                best = index
                bestDistance = distance
                if distance == 0 { break }
            }
        }
        return best
    }
}
