import AetherControl
import AetherInput

/// What happens to the host's model (Elm's and Bubble Tea's messages): a key no mode outside the
/// model took, a click on the open menu, or time passing on the loop's clock.
enum HostEvent: Equatable {
    /// A key, typed or sent by IPC `keypress`.
    case key(Key)
    /// The open menu's row `index` was clicked.
    case menuPick(Int)
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
}

/// The mouse as the progress bar sees it (``HostEvent/bar(_:)``).
struct BarMouse: Equatable {
    enum Action: Equatable { case press, motion, release, other }
    var action: Action
    var onBar: Bool
    var time: Double
}

/// What the runtime carries out for ``HostUpdate`` (Elm's commands): the only way a model change
/// reaches the player or the screen.
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
}

/// The host's update: `update(&view, event)` changes the model (``ViewState``) and returns the
/// effects, with no I/O, so every rule here is tested on values (`HostUpdateTests`), time
/// included (the event carries it). The runtime (``TUIApp``) reads the events, runs this and
/// carries out the effects. Under it so far: the track and playlist menus, scrub (its keys and
/// the mouse on the bar; the pictures are fetched by the runtime), the filmstrip's choice, the
/// wheel, help, the stats overlay and the telemetry pane, the remaining time and the pinned bar,
/// the message line's turn, and the bindings; the inspector still takes its keys in the runtime
/// first (``TUIApp/press(_:)``), and the output's cycle and opening the filmstrip and the
/// inspector are the runtime's.
enum HostUpdate {
    static func update(_ view: inout ViewState, _ event: HostEvent, context: HostContext) -> [HostEffect] {
        switch event {
        case .key(let key):
            if view.menu != nil { return menuKey(&view, key) }
            if let effects = scrubKey(&view, key, context) ?? filmstripKey(&view, key) { return effects }
            if key == .escape {
                guard view.showHelp || view.statsShown else { return [] }
                view.showHelp = false
                view.showStats = false
                view.statsUntil = nil
                return [.redraw]
            }
            // Everything else goes through the bindings (the defaults under input.conf's) to the
            // controller, like IPC and MPRIS commands.
            return context.bindings.command(for: key).map { [.command($0)] } ?? []
        case .menuPick(let index):
            guard let menu = view.menu, menu.items.indices.contains(index) else { return [] }
            view.menu?.selection = index
            return choose(&view)
        case .openMenu(let menu):
            view.menu = menu
            return [.redraw]
        case .wheel(let up):
            return [.command(.seek(up ? 5 : -5, .relative, .auto))]
        case .bar(let mouse):
            return barMouse(&view, mouse, context)
        case .ui(let action, let now):
            switch action {
            case .scrub:
                guard let range = context.barRange else {
                    view.showMessage("nothing to scrub", seconds: 1.5, at: now)
                    return [.redraw]
                }
                return placeMarker(&view, at: context.position, byMouse: false, range: range)
            case .stats: view.showStatsBriefly(at: now)
            case .statsToggle:
                view.showStats.toggle()
                view.statsUntil = nil
            case .help: view.showHelp.toggle()
            case .telemetry:
                view.showTelemetry.toggle()
                return [.relayout, .redraw]
            case .remaining: view.showRemaining.toggle()
            case .pinOSD:
                view.chromePinned.toggle()
                view.showMessage(view.chromePinned ? "transport bar pinned" : "transport bar auto-hides", seconds: 1.5, at: now)
            // The runtime's: they fetch pictures or change the output.
            case .menuAudio, .menuSub, .menuPlaylist, .cycleVO, .filmstrip, .inspector: return []
            }
            return [.redraw]
        case .tick(let now):
            var effects: [HostEffect] = []
            if view.statsExpire(at: now) { effects.append(.redraw) }
            if view.messageExpired(at: now) {
                view.osdMessage = nil
                // The next start-up warning (aether-tui.conf, input.conf, playlists) in turn.
                if !view.queuedMessages.isEmpty { view.showMessage(view.queuedMessages.removeFirst(), seconds: 4, at: now) }
                effects.append(.redraw)
            }
            return effects
        }
    }

    /// Scrub mode's keys (nil: not scrub mode's): ←/→ 5 s, Shift+←/→ 1 s, ↓/↑ a minute, Home/End
    /// the ends, PgUp/PgDn the chapters, Enter seeks there exactly, Esc or `b` leave.
    private static func scrubKey(_ view: inout ViewState, _ key: Key, _ context: HostContext) -> [HostEffect]? {
        guard let scrub = view.scrub else { return nil }
        let range = context.barRange ?? 0...0
        let target: Double
        switch key {
        case .left: target = scrub.target - 5
        case .right: target = scrub.target + 5
        case .shiftLeft: target = scrub.target - 1
        case .shiftRight: target = scrub.target + 1
        case .down: target = scrub.target - 60
        case .up: target = scrub.target + 60
        case .home: target = range.lowerBound
        case .end: target = max(range.lowerBound, range.upperBound - 1)
        case .pageUp, .pageDown:
            // PgUp: this chapter's start, or the one before when the marker is within a second of it.
            let starts = context.chapterStarts
            let current = starts.lastIndex { $0 <= scrub.target + 0.01 } ?? -1
            let index = key == .pageUp ? (current > 0 && scrub.target - starts[current] < 1 ? current - 1 : current) : current + 1
            guard starts.indices.contains(index) else { return [] }
            target = starts[index]
        case .enter:
            view.scrub = nil
            view.preview = nil
            return [.seekExactly(scrub.target), .redraw]
        case .escape, .character("b"):
            view.scrub = nil
            view.preview = nil
            return [.redraw]
        default: return nil
        }
        guard let bar = context.barRange else { return [] }
        return placeMarker(&view, at: target, byMouse: scrub.byMouse, range: bar)
    }

    /// The marker at `time` (within the bar's `range`): scrub mode begins there (asking for the
    /// thumbnail fetcher) or its marker moves; its thumbnail is wanted.
    private static func placeMarker(_ view: inout ViewState, at time: Double, byMouse: Bool, range: ClosedRange<Double>) -> [HostEffect] {
        let target = time.clamped(to: range)
        let starts = view.scrub == nil
        if starts { view.scrub = ScrubState(target: target, byMouse: byMouse) } else { view.scrub?.target = target }
        return (starts ? [.openPreviews] : []) + [.wantPreview(target, duration: range.upperBound), .redraw]
    }

    /// The mouse and the progress bar: a press on it starts scrub there (or moves the marker) and
    /// a drag; hovering on its row scrubs; moving off it ends a hover's scrub; releasing a drag
    /// seeks to the marker exactly. Nothing without a bar (nothing to scrub).
    private static func barMouse(_ view: inout ViewState, _ mouse: BarMouse, _ context: HostContext) -> [HostEffect] {
        guard let range = context.barRange else { return [] }
        var effects: [HostEffect] = []
        switch mouse.action {
        case .press where mouse.onBar:
            effects = placeMarker(&view, at: mouse.time, byMouse: view.scrub?.byMouse ?? true, range: range)
            view.dragging = true
            view.scrub?.dragging = true
        case .motion:
            if view.dragging || mouse.onBar {
                effects = placeMarker(&view, at: mouse.time, byMouse: view.scrub?.byMouse ?? true, range: range)
            } else if view.scrub?.byMouse == true {
                view.scrub = nil
                view.preview = nil
                effects = [.redraw]
            }
        default: break
        }
        if mouse.action == .release {
            if view.dragging, let scrub = view.scrub {
                view.scrub = nil
                view.preview = nil
                effects += [.seekExactly(scrub.target), .redraw]
            }
            view.dragging = false
        }
        return effects
    }

    /// The filmstrip's keys (nil: not the filmstrip's): ←/→, Home/End choose a thumbnail, Enter
    /// seeks to what it shows, Esc or `B` close it.
    private static func filmstripKey(_ view: inout ViewState, _ key: Key) -> [HostEffect]? {
        guard var strip = view.filmstrip else { return nil }
        switch key {
        case .left: strip.selection = max(0, strip.selection - 1)
        case .right: strip.selection = min(strip.times.count - 1, strip.selection + 1)
        case .home: strip.selection = 0
        case .end: strip.selection = strip.times.count - 1
        case .enter:
            view.filmstrip = nil
            return [.seekExactly(strip.shown[strip.selection] ?? strip.times[strip.selection]), .redraw]
        case .escape, .character("B"):
            view.filmstrip = nil
            return [.redraw]
        default: return nil
        }
        view.filmstrip = strip
        return [.redraw]
    }

    /// The open menu: ↑/↓ move (wrapping), Enter or space choose, Esc or q close; other keys do nothing.
    private static func menuKey(_ view: inout ViewState, _ key: Key) -> [HostEffect] {
        switch key {
        case .up: view.menu?.move(-1)
        case .down: view.menu?.move(1)
        case .escape, .character("q"): view.menu = nil
        case .enter, .character(" "): return choose(&view)
        default: return []
        }
        return [.redraw]
    }

    /// The menu's selection is chosen: the menu closes and the choice goes to the controller.
    private static func choose(_ view: inout ViewState) -> [HostEffect] {
        guard let menu = view.menu, menu.items.indices.contains(menu.selection) else { return [] }
        let item = menu.items[menu.selection]
        view.menu = nil
        switch menu.kind {
        case .audio: return [.selectAudio(item.value), .redraw]
        case .subtitles: return [.selectSubtitle(item.value), .redraw]
        case .playlist: return (item.value.map { [.command(.playlistPlay($0))] } ?? []) + [.redraw]
        }
    }
}
