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
    /// `--stats-file`: 1 Hz telemetry and a summary (with terminal bytes) as JSON lines.
    public var statsFile: String?
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
