import AetherBase
import AetherThemes
import CNcurses

/// Theme roles turned into ncurses colour pairs (one pair per role), for however many colours
/// the terminal has. With NO_COLOR the theme arrives colourless and only attributes remain.
package struct Palette {
    private var styles: [ThemeRole: CursesStyle] = [:]
    /// Pairs made for subtitle colours (script colour on the theme's subtitle background).
    private let subtitlePairs: SubtitlePairs

    package init(theme: Theme, colors: Int) {
        subtitlePairs = SubtitlePairs()
        var pair: Int32 = 1
        defer {
            // A theme without colours (mono, NO_COLOR) gets none from scripts either.
            let sub = theme[.subtitle]
            let colourful = colors >= 8 && (sub.foreground != .terminalDefault || sub.background != .terminalDefault)
            subtitlePairs.configure(next: pair, colors: colourful ? colors : 0,
                                    background: Palette.colorNumber(sub.background, colors: colors), base: styles[.subtitle] ?? .plain)
        }
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

    package subscript(role: ThemeRole) -> CursesStyle { styles[role] ?? .plain }

    /// The theme's subtitle style with a script's bold, italic and colour: the colour is the
    /// terminal palette's nearest entry (as a theme's `#rrggbb`), on the theme's subtitle
    /// background; the theme's own style when the theme has no colours or pairs run out.
    package func subtitle(_ style: SubtitleCellStyle) -> CursesStyle {
        var out = subtitlePairs.base
        if style.bold { out.attributes |= aether_A_BOLD() }
        if style.italic { out.attributes |= aether_A_ITALIC() }
        if let c = style.color, let pair = subtitlePairs.pair(for: ThemeColor.rgb(c.r, c.g, c.b)) { out.pair = pair }
        return out
    }

    /// -1 is the terminal's default colour (use_default_colors).
    package static func colorNumber(_ color: ThemeColor, colors: Int) -> Int {
        color.paletteIndex(colors: colors) ?? -1
    }
}

/// Colour pairs for subtitle colours, made on first use (at most `capacity`; the palette is
/// rebuilt, and this with it, when the theme changes).
package final class SubtitlePairs {
    package static let capacity = 64
    private(set) var base = CursesStyle.plain
    private var next: Int32 = 1
    private var colors = 0
    private var background = -1
    private var pairs: [Int: Int32] = [:]

    package func configure(next: Int32, colors: Int, background: Int, base: CursesStyle) {
        self.next = next
        self.colors = colors
        self.background = background
        self.base = base
        pairs = [:]
    }

    package func pair(for color: ThemeColor) -> Int32? {
        guard colors > 0, let index = color.paletteIndex(colors: colors) else { return nil }
        if let pair = pairs[index] { return pair }
        guard pairs.count < Self.capacity, Int(next) < Int(aether_COLOR_PAIRS()) else { return nil }
        init_pair(Int16(next), Int16(index), Int16(background))
        pairs[index] = next
        next += 1
        return pairs[index]
    }
}

/// How a run of subtitle text is drawn in cells: the theme's subtitle style plus the script's
/// bold, italic and colour (nil: the theme's own colour).
package struct SubtitleCellStyle: Hashable {
    package var bold = false
    package var italic = false
    package var color: RGBColor?

    package init(bold: Bool = false, italic: Bool = false, color: RGBColor? = nil) {
        self.bold = bold
        self.italic = italic
        self.color = color
    }
}
