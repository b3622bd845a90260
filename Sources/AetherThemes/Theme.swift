/// A complete set of styles, one per ``ThemeRole``.
///
/// Load one with ``ThemeLoader/load(_:environment:executablePath:)``; the format is described in
/// `themes/default.theme` and in the Themes article.
public struct Theme: Equatable, Sendable {
    /// The theme's name: the file name without `.theme`.
    public let name: String
    private var styles: [ThemeRole: ThemeStyle]

    /// A theme with the given styles; roles missing from `styles` take ``builtinDefault``'s.
    public init(name: String, styles: [ThemeRole: ThemeStyle]) {
        self.name = name
        self.styles = styles
    }

    public subscript(role: ThemeRole) -> ThemeStyle {
        styles[role] ?? Theme.defaultStyles[role] ?? .plain
    }

    /// The same theme with every colour set to the terminal's own; attributes (bold, dim, reverse,
    /// underline) stay, so the chrome stays readable. What to draw with when `NO_COLOR` is set.
    public func withoutColor() -> Theme {
        var plain: [ThemeRole: ThemeStyle] = [:]
        for role in ThemeRole.allCases { plain[role] = self[role].withoutColor }
        return Theme(name: name, styles: plain)
    }

    public static func == (lhs: Theme, rhs: Theme) -> Bool {
        lhs.name == rhs.name && ThemeRole.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    /// `themes/default.theme`, compiled in, so the player has a theme even with no files installed.
    /// ThemeTests checks that the two stay equal.
    public static let builtinDefault = Theme(name: "default", styles: defaultStyles)

    private static let defaultStyles: [ThemeRole: ThemeStyle] = {
        let cyan = ThemeColor.index(6), yellow = ThemeColor.index(3), white = ThemeColor.index(7)
        return [
            .title: ThemeStyle(bold: true),
            .status: ThemeStyle(),
            .time: ThemeStyle(bold: true),
            .progressPlayed: ThemeStyle(foreground: cyan, bold: true),
            .progressBuffered: ThemeStyle(foreground: white),
            .progressEmpty: ThemeStyle(foreground: white, dim: true),
            .progressChapter: ThemeStyle(foreground: yellow, bold: true),
            .badge: ThemeStyle(foreground: cyan, reverse: true),
            .badgeHDR: ThemeStyle(foreground: yellow, bold: true, reverse: true),
            .menu: ThemeStyle(),
            .menuSelected: ThemeStyle(foreground: cyan, bold: true, reverse: true),
            .menuBorder: ThemeStyle(foreground: cyan),
            .subtitle: ThemeStyle(foreground: .index(15), background: .index(0), bold: true),
            .stats: ThemeStyle(),
            .statsBorder: ThemeStyle(foreground: .index(12)),
            .telemetry: ThemeStyle(),
            .sparkline: ThemeStyle(foreground: .index(2), bold: true),
            .help: ThemeStyle(),
            .warning: ThemeStyle(foreground: yellow, bold: true),
        ]
    }()
}
