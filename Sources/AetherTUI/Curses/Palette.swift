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
        color.paletteIndex(colors: colors) ?? -1
    }
}
