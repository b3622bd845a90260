import AetherControl
import AetherPlayback
import AetherSubtitles
import AetherInput
import AetherThemes
import TerminalGraphics

/// Everything the TUI needs from the command line.
public struct TUIOptions: Sendable {
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
    /// `--vo` and how the picture is drawn.
    public var output: OutputSettings
    public var theme: Theme
    /// The theme for a terminal whose background is light, when no `--theme` was given (the
    /// bundled `light`): the terminal's answer to OSC 11 decides (``theme(on:)``).
    public var themeOnLight: Theme?
    public var startPaused: Bool
    /// `inspect`: where the inspector opens at start (nil: it does not).
    public var inspector: InspectorStart?
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

    public init(playlist: Playlist, controller: ControllerSettings, output: OutputSettings, theme: Theme, startPaused: Bool = false) {
        self.playlist = playlist
        self.controller = controller
        self.output = output
        self.theme = theme
        self.startPaused = startPaused
    }

    /// The chrome's theme on a terminal whose background is `background` (its OSC 11 answer;
    /// nil: it gave none): ``themeOnLight`` on a light one where there is one, else ``theme``.
    /// xterm and mlterm answer white unless told otherwise, where the dark default's white
    /// progress bar would not show.
    public func theme(on background: RGBColour?) -> Theme {
        if background?.isLight == true, let themeOnLight { return themeOnLight }
        return theme
    }

    /// The first item (the playlist's, before any shuffle).
    public var source: String {
        playlist.items.first?.source ?? ""
    }

    /// The engine's options (the controller's, the one home).
    public var player: PlayerOptions {
        controller.player
    }
}

/// `--vo` and how the picture is drawn.
public struct OutputSettings: Sendable {
    /// `--vo`: a ``VideoDrivers`` name or `auto`.
    public var choice: VideoDrivers.Choice
    /// The drivers' own options (`--vo-sixel-colors`, …).
    public var drivers: VideoDrivers.Options
    /// `--vo-governor`: step quality down when the terminal cannot keep up (false pins it).
    public var governor = true
    /// How long the terminal's replies are waited for at start.
    public var probeBudget: Duration = CapabilityProbe.defaultBudget

    public init(choice: VideoDrivers.Choice, drivers: VideoDrivers.Options) {
        (self.choice, self.drivers) = (choice, drivers)
    }
}

/// `inspect FILE [NODE]`: the inspector opens on `tab` at start, its container tree opened down
/// to `node` (a node path).
public struct InspectorStart: Sendable {
    public var tab: InspectorTab
    public var node: String?

    public init(tab: InspectorTab, node: String? = nil) {
        (self.tab, self.node) = (tab, node)
    }
}
