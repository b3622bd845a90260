import AetherEngine
import TerminalGraphics

/// Everything the TUI needs from the command line.
public struct TUIOptions: Sendable {
    public var source: String
    public var player: PlayerOptions
    /// `--vo`: a ``VideoDrivers`` name or `auto`.
    public var videoOutput: String
    /// The drivers' own options (`--vo-sixel-colors`, …).
    public var drivers: VideoDrivers.Options
    public var theme: Theme
    /// `--vo-governor`: step quality down when the terminal cannot keep up (false pins it).
    public var governor = true
    public var startPaused: Bool
    /// `--stats-file`: 1 Hz telemetry and a summary (with terminal bytes) as JSON lines.
    public var statsFile: String?
    /// `--screenshot-directory` (nil: `$XDG_PICTURES_DIR`, else the current directory).
    public var screenshotDirectory: String?
    /// Probe budget for the terminal's replies.
    public var probeBudget: Duration = CapabilityProbe.defaultBudget

    public init(source: String, player: PlayerOptions, videoOutput: String, drivers: VideoDrivers.Options,
                theme: Theme, startPaused: Bool = false) {
        self.source = source
        self.player = player
        self.videoOutput = videoOutput
        self.drivers = drivers
        self.theme = theme
        self.startPaused = startPaused
    }
}
