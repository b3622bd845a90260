import AetherScreen
import TerminalGraphics

// The model's parts and the screen's render cache. The model itself (``ViewState``) is in
// HostLoop.swift, with the loop's events, update and effects.

/// The transport rows' part of the model.
struct ChromeState {
    /// `t`: the telemetry pane.
    var showTelemetry = false
    /// `R`: the time left instead of the duration.
    var showRemaining = false
    /// `del`: the transport bar pinned (it does not auto-hide).
    var pinned = false
    var lastInput = 0.0
    /// Seconds of playback without input after which the chrome hides (mpv's OSD timeout).
    static let timeout = 3.0

    /// Input at `now` (a key, a click, a resize, a return from job control): the chrome shows.
    mutating func noteInput(at now: Double) { lastInput = now }

    /// Whether the chrome still shows at `now` for the input alone: it hides at exactly
    /// ``timeout`` after the last input.
    func shownByInput(at now: Double) -> Bool { now - lastInput < Self.timeout }
}

/// The overlays over the picture: the stats box and the key help.
struct Overlays {
    /// `I`: the stats overlay stays until toggled off.
    var stats = false
    /// `i`: the stats overlay shows until then (mpv's stats script, four seconds); nil: not so.
    var statsUntil: Double?
    /// `?`: the key help.
    var help = false
    /// How long `i` shows the stats overlay (mpv's stats script: 4 s).
    static let statsSeconds = 4.0

    /// The stats overlay is up (toggled on, or shown for a while).
    var statsShown: Bool { stats || statsUntil != nil }

    /// `i`: the overlay for ``statsSeconds`` from `now` (again from now when it is up for a while).
    mutating func showStatsBriefly(at now: Double) {
        if !stats { statsUntil = now + Self.statsSeconds }
    }

    /// Whether the overlay `i` showed is over at `now` (at exactly its end): it is taken down.
    mutating func statsExpire(at now: Double) -> Bool {
        guard let until = statsUntil, now >= until else { return false }
        statsUntil = nil
        return true
    }
}

/// What was last drawn, kept to decide whether and what to draw next (render caches; views never
/// read them). Written by the draw pass, except `dirty`, which anything that changes the model sets.
struct ScreenState {
    /// The model changed since the last frame: compose a new one.
    var dirty = true
    /// The chrome (title and transport rows) was drawn.
    var chromeVisible = true
    /// The quarter second of media time the clock text last showed.
    var tick = -1.0
    /// What the transport row said of an item opening.
    var openingText: String?
    /// Which subtitle cues were last drawn.
    var cueKey = ""
    /// The overlays' cells as last drawn (the video's mask).
    var overlayRects: [CellRect] = []
    /// The menu's cells as last drawn (where a click chooses).
    var menuRect: CellRect?
    /// Where the inspector's frames tab left room for its picture when last drawn.
    var inspectorPicture: CellRect?
    /// Where the equalizer's panel left room for its curve's picture when last drawn.
    var equalizerPicture: CellRect?
    /// Cells the stills (preview, filmstrip, the inspector's frame) covered when last drawn
    /// (erased when they move or go).
    var stillRects: [CellRect] = []
    /// The next refresh clears the terminal (clearok): the video must be repainted after it.
    var screenCleared = false
    /// When the pixel picture goes through tmux's passthrough again (``Display/repaintThroughTmux(now:)``).
    var tmuxRepaints: [Double] = []
    /// Pictures through tmux's passthrough checked for delivery (``Display/checkTmuxDelivery(now:)``).
    var tmuxDelivery = TmuxDeliveryCheck()
    /// The text cells on screen, and what writes them.
    var compositor = Compositor()
    /// The terminal's title (`--title`), set with the frames.
    var terminalTitle = TerminalTitle(template: "")
}
