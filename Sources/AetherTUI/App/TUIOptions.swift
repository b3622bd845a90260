import AetherControl
import AetherEngine
import AetherInput
import AetherThemes
import TerminalGraphics

/// Everything the TUI needs from the command line.
public struct TUIOptions: Sendable {
    /// The first item (the playlist's, before any shuffle).
    public var source: String
    public var player: PlayerOptions
    /// What to play and how (`--loop-file`, `--shuffle`, resume …).
    public var playlist: Playlist
    public var controller: ControllerSettings
    /// The key bindings: the defaults with input.conf over them.
    public var bindings = InputBindings()
    /// `--input-ipc-server`, MPRIS.
    public var remote = RemoteServices.Options()
    /// `--sub-delay`.
    public var subtitleDelay = 0.0
    /// `--sub-ass` and the `--sub-*` style options: text subtitles drawn by libass in pixel outputs.
    public var subtitleStyle = ASSStyleOptions()
    /// `--vo`: a ``VideoDrivers`` name or `auto`.
    public var videoOutput: VideoDrivers.Choice
    /// The drivers' own options (`--vo-sixel-colors`, …).
    public var drivers: VideoDrivers.Options
    public var theme: Theme
    /// `--vo-governor`: step quality down when the terminal cannot keep up (false pins it).
    public var governor = true
    public var startPaused: Bool
    /// `inspect`: the inspector opens on this tab (container, packets, frames, live) at start.
    public var inspectorTab: InspectorTab?
    /// `inspect FILE NODE`: the container tab opens down to this node path.
    public var inspectorNode: String?
    /// `--stats-file`: 1 Hz telemetry and a summary (with terminal bytes) as JSON lines.
    public var statsFile: String?
    /// `--screenshot-directory` (nil: `$XDG_PICTURES_DIR`, else the current directory).
    public var screenshotDirectory: String?
    /// What was wrong in aether-tui.conf, input.conf and the playlist (also printed on
    /// stderr): shown on the message line once the screen is up.
    public var startupWarnings: [String] = []
    /// `--title`: the terminal's title while playing, a ``PropertyExpansion`` template over the
    /// player's properties; empty leaves the terminal's title alone.
    public var title = PlayerIdentity.defaultTitle
    /// Probe budget for the terminal's replies.
    public var probeBudget: Duration = CapabilityProbe.defaultBudget

    public init(playlist: Playlist, controller: ControllerSettings, videoOutput: VideoDrivers.Choice, drivers: VideoDrivers.Options,
                theme: Theme, startPaused: Bool = false) {
        self.source = playlist.items.first?.source ?? ""
        self.playlist = playlist
        self.controller = controller
        self.player = controller.player
        self.videoOutput = videoOutput
        self.drivers = drivers
        self.theme = theme
        self.startPaused = startPaused
    }
}
