// Temporary stand-in until the theme loader lands (same API).
public enum ThemeColor: Equatable, Sendable {
    case terminalDefault
    case index(Int)
    case rgb(UInt8, UInt8, UInt8)
    public var xterm256Index: Int? {
        switch self {
        case .terminalDefault: return nil
        case .index(let i): return i
        case .rgb(let r, let g, let b): return 16 + 36 * (Int(r) * 5 / 255) + 6 * (Int(g) * 5 / 255) + Int(b) * 5 / 255
        }
    }
}
public struct ThemeStyle: Equatable, Sendable {
    public var foreground: ThemeColor = .terminalDefault
    public var background: ThemeColor = .terminalDefault
    public var bold = false, dim = false, reverse = false, underline = false
}
public enum ThemeRole: String, CaseIterable, Sendable {
    case title, status, time, progressPlayed = "progress.played", progressBuffered = "progress.buffered", progressEmpty = "progress.empty", progressChapter = "progress.chapter", badge, badgeHDR = "badge.hdr", menu, menuSelected = "menu.selected", menuBorder = "menu.border", subtitle, stats, statsBorder = "stats.border", telemetry, sparkline, help, warning
}
public struct Theme: Sendable {
    public let name: String
    var styles: [ThemeRole: ThemeStyle]
    public subscript(role: ThemeRole) -> ThemeStyle { styles[role] ?? ThemeStyle() }
    public static let builtinDefault = Theme(name: "default", styles: [
        .title: ThemeStyle(foreground: .index(15), background: .index(236), bold: true),
        .status: ThemeStyle(foreground: .index(252), background: .index(236)),
        .time: ThemeStyle(foreground: .index(15), background: .index(236), bold: true),
        .progressPlayed: ThemeStyle(foreground: .index(39)),
        .progressBuffered: ThemeStyle(foreground: .index(245)),
        .progressEmpty: ThemeStyle(foreground: .index(238)),
        .progressChapter: ThemeStyle(foreground: .index(214)),
        .badge: ThemeStyle(foreground: .index(16), background: .index(250)),
        .badgeHDR: ThemeStyle(foreground: .index(16), background: .index(214), bold: true),
        .menu: ThemeStyle(foreground: .index(252), background: .index(235)),
        .menuSelected: ThemeStyle(foreground: .index(16), background: .index(39), bold: true),
        .menuBorder: ThemeStyle(foreground: .index(39), background: .index(235)),
        .subtitle: ThemeStyle(foreground: .index(15), background: .index(16), bold: true),
        .stats: ThemeStyle(foreground: .index(252), background: .index(235)),
        .statsBorder: ThemeStyle(foreground: .index(39), background: .index(235)),
        .telemetry: ThemeStyle(foreground: .index(252)),
        .sparkline: ThemeStyle(foreground: .index(39)),
        .help: ThemeStyle(foreground: .index(252), background: .index(235)),
        .warning: ThemeStyle(foreground: .index(16), background: .index(203), bold: true),
    ])
    public func withoutColor() -> Theme {
        var s = styles
        for (k, v) in s { var n = v; n.foreground = .terminalDefault; n.background = .terminalDefault; s[k] = n }
        return Theme(name: name, styles: s)
    }
}
public enum ThemeLoader {
    public static func load(_ nameOrPath: String, environment: [String: String], executablePath: String) throws -> Theme { .builtinDefault }
}
