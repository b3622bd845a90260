import AetherCommands
import AetherControl
import AetherInput
import AetherMedia

/// What happens to the host's model (Elm's and Bubble Tea's messages): a key no mode outside the
/// model took, a click on the open menu, time passing on the loop's clock, and what the runtime
/// saw happen (input, a new item, the output made anew, the inspector opened). ``HostUpdate`` is
/// the one writer of the model: the runtime sends it these and carries out what it returns.
enum HostEvent: Equatable {
    /// A key, typed or sent by IPC `keypress`.
    case key(Key)
    /// The user did something at `now` (a key, a click, a resize, a return from job control):
    /// the chrome shows.
    case input(now: Double)
    /// A line for the message line (the controller's, a screenshot's, a warning) for `seconds`.
    case message(String, seconds: Double, now: Double)
    /// The start-up warnings (aether-tui.conf, input.conf, playlists), shown in turn from `now`.
    case startupWarnings([String], now: Double)
    /// What the engine warns of so far (a stream left out, a sidecar refused): the new ones show.
    case engineWarnings([String], now: Double)
    /// Another item plays: its scrub state, previews, filmstrip, menu and live baseline belonged
    /// to the last one.
    case itemChanged
    /// The governor stepped the picture's scale.
    case pictureScale(Double)
    /// The video output was made anew (another driver, or the same again after the terminal's
    /// answers changed): its scale starts over; `message` says so on the message line.
    case outputChanged(message: String?, now: Double)
    /// The inspector opened (the runtime made it and its readers) or closed (nil).
    case inspector(Inspector?)
    /// The open menu's row `index` was clicked.
    case menuPick(Int)
    /// On the equalizer's panel: a press over band `band` at `gain` dB (nil: on its label row),
    /// or the wheel over it (`wheelUp`).
    case equalizerMouse(band: Int, gain: Double?, wheelUp: Bool?)
    /// The loop's clock reads `now`: what shows for a while ends at its time.
    case tick(now: Double)
    /// One of the screen's own actions (a binding's `script-binding`), at `now`.
    case ui(UIAction, now: Double)
    /// A menu, made from what the player has now, opens.
    case openMenu(TrackMenu)
    /// The mouse wheel turned (up: forward).
    case wheel(up: Bool)
    /// The mouse pressed (button 1), moved or released, on the progress bar's row or not, over
    /// `time` on the bar's axis: hovering and dragging scrub, releasing a drag seeks there.
    case bar(BarMouse)
    /// The thumbnail for scrub's marker arrived.
    case previewArrived(StillArrival)
    /// Thumbnails for the filmstrip arrived.
    case stripArrived([StillArrival])
}

/// A thumbnail from the fetcher: asked for at `time`, showing the frame at `shows` (a keyframe's
/// time, or `time` when decoded exactly).
struct StillArrival: Equatable {
    var time: Double
    var shows: Double
    var picture: VideoOutput.StillPicture

    static func == (a: StillArrival, b: StillArrival) -> Bool { a.time == b.time && a.shows == b.shows && a.picture === b.picture }
}

/// The mouse as the progress bar sees it (``HostEvent/bar(_:)``).
struct BarMouse: Equatable {
    enum Action: Equatable { case press, motion, release, other }
    var action: Action
    var onBar: Bool
    var time: Double
}

/// What the runtime carries out for ``HostUpdate`` (Elm's commands): how the update's decisions
/// reach the player or the screen. (The controller's callbacks still reach the player on their
/// own: attaching an item is theirs, #60.)
enum HostEffect: Equatable {
    /// To the controller, as a binding, IPC or MPRIS would send it.
    case command(PlayerCommand)
    /// A menu's choice (the controller says which track on the message line).
    case selectAudio(Int?)
    case selectSubtitle(Int?)
    /// What the screen shows changed: compose it again.
    case redraw
    /// The screen's parts moved (the telemetry pane came or went): lay out again.
    case relayout
    /// Seek there exactly (scrub's marker, the filmstrip's thumbnail), and say so.
    case seekExactly(Double)
    /// The thumbnail for scrub's marker at this time, of a timeline this long, is wanted.
    case wantPreview(Double, duration: Double)
    /// Scrub mode began: the thumbnail fetcher is needed (when the source has a picture to show).
    case openPreviews
    /// The filmstrip's thumbnails are wanted at these times (decoded exactly, or at keyframes).
    case wantStrip([Double], exact: Bool)
    /// Playback pauses (nothing when paused already).
    case pause
}

/// What the update reads besides the model and the event: the user's bindings and what the
/// player says the timeline is (made by the runtime for each event).
struct HostContext {
    var bindings: InputBindings
    /// What the progress bar covers: the file, or a live stream's kept window (nil: nothing to scrub).
    var barRange: ClosedRange<Double>? = nil
    /// Where the chapters start, in order.
    var chapterStarts: [Double] = []
    /// The playback position (where `b` puts the marker).
    var position = 0.0
    /// The item's duration (nil: unknown or live), whether a picture plays, and the screen's width.
    var duration: Double? = nil
    var hasPicture = false
    var columns = 80
    /// For the tick: how far behind a live stream's edge playback is now (nil: not live).
    var liveLatency: Double? = nil
    /// For the tick: the menu's rows that fit the video area.
    var menuRows = 1
    /// For the tick: the layout was made for another picture (its shape changed, a video stream
    /// came or went, lyrics came): lay out again.
    var layoutStale = false
    /// The player's equalizer as set and as it runs (the panel opens on them and follows them).
    var equalizer = EqualizerSetting.flat
    var runningEqualizer = EqualizerCurve.flat
}

/// The host's update: `update(&view, event)` changes the model (``ViewState``) and returns the
/// effects, with no I/O, so every rule here is tested on values (`HostUpdateTests`,
/// `HostRoomsTests`), time included (the event carries it). The runtime (``HostRuntime``) reads
/// the events, runs this and carries out the effects. Each mode has its own update (``MenuUpdate``,
/// ``ScrubUpdate``, ``FilmstripUpdate``); the inspector takes its keys first while it is open
/// (``Inspector/handle(_:pageRows:)``), and the output's cycle is the runtime's.
enum HostUpdate {
    static func update(_ view: inout ViewState, _ event: HostEvent, context: HostContext) -> [HostEffect] {
        switch event {
        case .key(let key):
            if view.menu != nil { return MenuUpdate.key(&view, key) }
            if let effects = EqualizerUpdate.key(&view, key) { return effects }
            if let effects = ScrubUpdate.key(&view, key, context) ?? FilmstripUpdate.key(&view, key) { return effects }
            if key == .escape {
                guard view.overlays.help || view.overlays.statsShown else { return [] }
                view.overlays.help = false
                view.overlays.stats = false
                view.overlays.statsUntil = nil
                return [.redraw]
            }
            // Everything else goes through the bindings (the defaults under input.conf's) to the
            // controller, like IPC and MPRIS commands.
            return context.bindings.command(for: key).map { [.command($0)] } ?? []
        case .equalizerMouse(let band, let gain, let wheelUp):
            let now = view.chrome.lastInput
            if let wheelUp { return EqualizerUpdate.move(&view, band: band, by: wheelUp ? EqualizerPanel.step : -EqualizerPanel.step, now: now) }
            guard let gain else {
                view.equalizer?.band = band
                return [.redraw]
            }
            return EqualizerUpdate.place(&view, band: band, gain: gain, now: now)
        case .menuPick(let index):
            guard let menu = view.menu, menu.items.indices.contains(index) else { return [] }
            view.menu?.selection = index
            return MenuUpdate.choose(&view)
        case .openMenu(let menu):
            view.menu = menu
            return [.redraw]
        case .wheel(let up):
            return [.command(.seek(up ? 5 : -5, .relative, .auto))]
        case .previewArrived(let still): return ScrubUpdate.arrived(&view, still)
        case .stripArrived(let stills): return FilmstripUpdate.arrived(&view, stills)
        case .bar(let mouse):
            return ScrubUpdate.barMouse(&view, mouse, context)
        case .ui(let action, let now):
            switch action {
            case .scrub:
                guard let range = context.barRange else {
                    view.message.show("nothing to scrub", seconds: 1.5, at: now)
                    return [.redraw]
                }
                return ScrubUpdate.placeMarker(&view, at: context.position, byMouse: false, range: range)
            case .stats: view.overlays.showStatsBriefly(at: now)
            case .statsToggle:
                view.overlays.stats.toggle()
                view.overlays.statsUntil = nil
            case .help: view.overlays.help.toggle()
            case .equalizer:
                view.equalizer = view.equalizer == nil ? EqualizerPanel(setting: context.equalizer, running: context.runningEqualizer) : nil
            case .telemetry:
                view.chrome.showTelemetry.toggle()
                return [.relayout, .redraw]
            case .remaining: view.chrome.showRemaining.toggle()
            case .pinOSD:
                view.chrome.pinned.toggle()
                view.message.show(view.chrome.pinned ? "transport bar pinned" : "transport bar auto-hides", seconds: 1.5, at: now)
            // The runtime's: they fetch pictures or change the output.
            case .filmstrip: return FilmstripUpdate.open(&view, context, now: now)
            case .menuAudio, .menuSub, .menuPlaylist, .cycleVO, .inspector: return []
            }
            return [.redraw]
        case .tick(let now):
            var effects: [HostEffect] = context.layoutStale ? [.relayout, .redraw] : []
            if view.overlays.statsExpire(at: now) { effects.append(.redraw) }
            // The next start-up warning (aether-tui.conf, input.conf, playlists) in turn.
            if view.message.turn(at: now) { effects.append(.redraw) }
            // Live: the smallest latency behind the edge seen since the item began.
            if let latency = context.liveLatency { view.liveBaseline = min(view.liveBaseline ?? latency, latency) }
            if var menu = view.menu {
                menu.scrollToSelection(visibleRows: context.menuRows)
                view.menu = menu
            }
            if EqualizerUpdate.follow(&view, setting: context.equalizer, running: context.runningEqualizer) { effects.append(.redraw) }
            return effects
        case .input(let now):
            view.chrome.noteInput(at: now)
            return [.redraw]
        case .message(let text, let seconds, let now):
            view.message.show(text, seconds: seconds, at: now)
            return [.redraw]
        case .startupWarnings(let warnings, let now):
            view.message.queueStartup(warnings, at: now)
            return [.redraw]
        case .engineWarnings(let warnings, let now):
            return view.message.engineWarnings(warnings, at: now) ? [.redraw] : []
        case .itemChanged:
            (view.scrub, view.preview, view.filmstrip, view.menu, view.liveBaseline) = (nil, nil, nil, nil, nil)
            return [.redraw]
        case .pictureScale(let scale):
            guard scale != view.pictureScale else { return [] }
            view.pictureScale = scale
            return [.relayout]
        case .outputChanged(let message, let now):
            view.pictureScale = 1
            if let message { view.message.show(message, seconds: 1.5, at: now) }
            return [.relayout, .redraw]
        case .inspector(let inspector):
            view.inspector = inspector
            return [.redraw]
        }
    }
}
