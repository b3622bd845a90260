import AetherEngine
import TerminalGraphics

/// Everything the TUI needs from the command line.
public struct TUIOptions: Sendable {
    public var source: String
    public var player: PlayerOptions
    public var videoOutput: VideoOutputMode
    public var theme: Theme
    public var sixelColors: Int?
    public var sixelDither: SixelDither
    /// `truecolor`, `256`, or nil for what the terminal says.
    public var halfBlockColors: String?
    public var startPaused: Bool
    /// Probe budget for the terminal's replies.
    public var probeBudget: Duration = CapabilityProbe.defaultBudget

    public init(source: String, player: PlayerOptions, videoOutput: VideoOutputMode, theme: Theme,
                sixelColors: Int?, sixelDither: SixelDither, halfBlockColors: String?, startPaused: Bool = false) {
        self.startPaused = startPaused
        self.source = source
        self.player = player
        self.videoOutput = videoOutput
        self.theme = theme
        self.sixelColors = sixelColors
        self.sixelDither = sixelDither
        self.halfBlockColors = halfBlockColors
    }
}
