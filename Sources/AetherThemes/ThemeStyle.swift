/// How one role of the chrome is drawn: colours plus attributes.
public struct ThemeStyle: Equatable, Hashable, Sendable {
    public var foreground: ThemeColor
    public var background: ThemeColor
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool

    public init(foreground: ThemeColor = .terminalDefault, background: ThemeColor = .terminalDefault,
                bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// Terminal colours, no attributes.
    public static let plain = ThemeStyle()

    /// The same attributes with both colours set to the terminal's own.
    public var withoutColor: ThemeStyle {
        ThemeStyle(bold: bold, dim: dim, reverse: reverse, underline: underline)
    }
}

/// The parts of the chrome a theme colours. The raw value is the key in a `.theme` file.
public enum ThemeRole: String, CaseIterable, Sendable {
    /// The media title in the transport bar.
    case title
    /// The state line: playing/paused, speed, volume, track names.
    case status
    /// Position and duration (or remaining time).
    case time
    /// The played part of the progress bar.
    case progressPlayed = "progress.played"
    /// The part of the progress bar already demuxed ahead of the position.
    case progressBuffered = "progress.buffered"
    /// The rest of the progress bar.
    case progressEmpty = "progress.empty"
    /// Chapter marks on the progress bar.
    case progressChapter = "progress.chapter"
    /// Format badges (codec, resolution, channel layout).
    case badge
    /// The HDR badge (HDR10, HLG), tone-mapped content.
    case badgeHDR = "badge.hdr"
    /// Track menu entries.
    case menu
    /// The highlighted menu entry.
    case menuSelected = "menu.selected"
    /// The menu's frame and title.
    case menuBorder = "menu.border"
    /// Text subtitles drawn over the picture.
    case subtitle
    /// The stats overlay's text.
    case stats
    /// The stats overlay's frame.
    case statsBorder = "stats.border"
    /// The telemetry pane's text.
    case telemetry
    /// The telemetry pane's sparklines.
    case sparkline
    /// The key help overlay.
    case help
    /// Warnings shown in the chrome (a fallback clock, a failed audio device, dropped frames).
    case warning
}
