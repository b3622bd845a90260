import CNcurses

/// Theme roles turned into ncurses colour pairs (one pair per role), for however many colours
/// the terminal has. With NO_COLOR the theme arrives colourless and only attributes remain.
struct Palette {
    private var styles: [ThemeRole: CursesStyle] = [:]

    init(theme: Theme, colors: Int) {
        var pair: Int32 = 1
        for role in ThemeRole.allCases {
            let style = theme[role]
            var attributes: attr_t = 0
            if style.bold { attributes |= aether_A_BOLD() }
            if style.dim { attributes |= aether_A_DIM() }
            if style.reverse { attributes |= aether_A_REVERSE() }
            if style.underline { attributes |= aether_A_UNDERLINE() }
            let fg = Palette.colorNumber(style.foreground, colors: colors)
            let bg = Palette.colorNumber(style.background, colors: colors)
            if colors > 0, fg >= 0 || bg >= 0, Int(pair) < Int(aether_COLOR_PAIRS()) {
                init_pair(Int16(pair), Int16(fg), Int16(bg))
                styles[role] = CursesStyle(attributes: attributes, pair: pair)
                pair += 1
            } else {
                styles[role] = CursesStyle(attributes: attributes, pair: 0)
            }
        }
    }

    subscript(role: ThemeRole) -> CursesStyle { styles[role] ?? .plain }

    /// -1 is the terminal's default colour (use_default_colors).
    static func colorNumber(_ color: ThemeColor, colors: Int) -> Int {
        guard let index = color.xterm256Index else { return -1 }
        if colors >= 256 { return index }
        if colors >= 16, index < 16 { return index }
        return nearestBasic(index, limit: colors >= 16 ? 16 : 8)
    }

    /// Maps an xterm-256 index onto the 8 (or 16) basic colours.
    static func nearestBasic(_ index: Int, limit: Int) -> Int {
        if index < limit { return index }
        if index < 16 { return index - 8 }
        let rgb = XtermRGB.rgb(index)
        let basics: [(Int, Int, Int)] = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
                                         (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
                                         (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
        var best = 0, bestD = Int.max
        for (i, b) in basics.prefix(limit).enumerated() {
            let d = (b.0 - rgb.0) * (b.0 - rgb.0) + (b.1 - rgb.1) * (b.1 - rgb.1) + (b.2 - rgb.2) * (b.2 - rgb.2)
            if d < bestD { bestD = d; best = i }
        }
        return best
    }
}

enum XtermRGB {
    static func rgb(_ index: Int) -> (Int, Int, Int) {
        if index >= 232 { let v = 8 + (index - 232) * 10; return (v, v, v) }
        let i = max(0, index - 16)
        let steps = [0, 95, 135, 175, 215, 255]
        return (steps[i / 36 % 6], steps[i / 6 % 6], steps[i % 6])
    }
}
