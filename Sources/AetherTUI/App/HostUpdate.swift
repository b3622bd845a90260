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
}

/// The host's update: `update(&view, event)` changes the model (``ViewState``) and returns the
/// effects, with no I/O, so every rule here is tested on values (`HostUpdateTests`), time
/// included (the event carries it). The runtime (``TUIApp``) reads the events, runs this and
/// carries out the effects. Under it so far: the track and playlist menus, help, the stats
/// overlay and the telemetry pane, the remaining time and the pinned bar, the message line's
/// turn, and the bindings; the inspector, scrub and the filmstrip still take their keys in the
/// runtime first (``TUIApp/press(_:)``), as they fetch pictures, and so does the output's cycle.
enum HostUpdate {
    static func update(_ view: inout ViewState, _ event: HostEvent, bindings: InputBindings) -> [HostEffect] {
        switch event {
        case .key(let key):
            if view.menu != nil { return menuKey(&view, key) }
            if key == .escape {
                guard view.showHelp || view.statsShown else { return [] }
                view.showHelp = false
                view.showStats = false
                view.statsUntil = nil
                return [.redraw]
            }
            // Everything else goes through the bindings (the defaults under input.conf's) to the
            // controller, like IPC and MPRIS commands.
            return bindings.command(for: key).map { [.command($0)] } ?? []
        case .menuPick(let index):
            guard let menu = view.menu, menu.items.indices.contains(index) else { return [] }
            view.menu?.selection = index
            return choose(&view)
        case .openMenu(let menu):
            view.menu = menu
            return [.redraw]
        case .ui(let action, let now):
            switch action {
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
            case .menuAudio, .menuSub, .menuPlaylist, .cycleVO, .scrub, .filmstrip, .inspector: return []
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
