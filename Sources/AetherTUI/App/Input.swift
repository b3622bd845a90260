import AetherControl
import AetherBase
import AetherCommands
import AetherInput
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

extension HostRuntime {
    /// Reads what the terminal sent (the loop waited for it, ``waitForEvents(timeout:readTerminal:)``)
    /// and acts on each key and mouse event; replies go to the display. True when anything was read.
    @discardableResult
    func readInput() -> Bool {
        let (inputs, read, more) = display.read()
        // ncurses may hold more decoded input than one read takes: read again without waiting.
        pendingInput = more
        for input in inputs { handle(input) }
        return read
    }

    private func handle(_ input: TerminalInput) {
        // A reply the player asked for is no user input: the chrome stays as it is.
        if case .reply(let bytes) = input {
            if let event = painter.apply(display.takeReply(bytes), view) { send(event) }
            return
        }
        send(.input(now: clock.seconds))
        switch input {
        case .resize:
            // Laid out again and, the screen cleared, the picture sent again: logged, so that
            // each picture the terminal gets has its reason in the log.
            AppLog.write("tui", "the terminal was resized: laid out again")
            relayout()
            return
        case .mouse(let report):
            handleMouse(report)
            return
        default: break
        }
        guard let key = Key(input) else { return }
        press(key)
    }

    /// A key, typed or sent by IPC `keypress`: the open menu takes it first, then the inspector,
    /// then scrub mode, the filmstrip, help and stats and the bindings (``HostUpdate``).
    func press(_ key: Key) {
        if view.menu == nil, view.inspector != nil, handleInspectorKey(key) { return }
        send(.key(key))
    }

    /// The TUI's own commands (``PlayerCommand/ui(_:)``), from keys, input.conf or the IPC.
    func perform(ui action: UIAction) -> CommandResult {
        switch action {
        case .stats, .statsToggle, .help, .telemetry, .remaining, .pinOSD, .equalizer: send(.ui(action, now: clock.seconds))
        // The menus are made from what the player has now; opening one is the model's.
        case .menuAudio: send(.openMenu(TrackMenu.audio(player: read())))
        case .menuSub:
            let reading = read()
            send(.openMenu(TrackMenu.subtitles(player: reading, selected: reading.activeSubtitleTrack)))
        case .menuPlaylist: send(.openMenu(TrackMenu.playlist(controller.playlistTitles)))
        case .cycleVO:
            guard player.hasVideo || painter.music?.cover != nil else { return .failure("no picture to draw") }
            guard let next = VideoDrivers.cycle(after: display.driver.name, capabilities: display.capabilities) else {
                return .failure("no other video output suits this terminal")
            }
            send(painter.switchDriver(to: next))
        case .scrub, .filmstrip: send(.ui(action, now: clock.seconds))
        case .inspector:
            if view.inspector != nil { closeInspector() } else { openInspector(tab: .container) }
        }
        display.screen.dirty = true
        return .ok
    }

    /// A mouse report (``ReplyFilter`` decoded it): the wheel seeks, a press in a menu chooses;
    /// on the progress bar hovering shows the scrub marker and its preview, dragging moves it,
    /// releasing the button seeks there exactly.
    func handleMouse(_ report: MouseReport) {
        let (layout, axis) = (display.layout, read().barAxis)
        let x = min(report.column, max(0, layout.columns - 1)), y = report.row
        let progressRow = layout.rows - 2
        let onPanel = view.equalizer != nil && (EqualizerPanelView.Geometry(videoArea: layout.videoArea)?.box.contains(column: x, row: y) ?? false)
        switch report.action {
        case .wheelUp where !onPanel:
            send(.wheel(up: true))
            return
        case .wheelDown where !onPanel:
            send(.wheel(up: false))
            return
        default: break
        }
        let pressed = report.action == .press && report.button == 0
        if view.equalizer != nil, let panel = EqualizerPanelView.Geometry(videoArea: layout.videoArea), panel.box.contains(column: x, row: y) {
            let band = panel.band(atColumn: x)
            if report.action == .wheelUp || report.action == .wheelDown {
                send(.equalizerMouse(band: band, gain: nil, wheelUp: report.action == .wheelUp))
            } else if pressed || (report.action == .motion && view.dragging) {
                let rowsBelow = display.driver.rowsBelowPicture
                let curve = panel.curve(rowsBelow: rowsBelow)
                send(.equalizerMouse(band: band, gain: curve.contains(column: x, row: y) ? panel.gain(atRow: y, rowsBelow: rowsBelow) : nil, wheelUp: nil))
            }
            return
        }
        if let menu = view.menu, let rect = display.screen.menuRect {
            if rect.contains(column: x, row: y), pressed { send(.menuPick(y - rect.row - 1 + menu.scroll)) }
            return
        }
        // The bar's own axis: the file, or a live stream's kept window.
        guard axis.range != nil else { return }
        let action: BarMouse.Action = pressed ? .press : report.action == .motion ? .motion : report.action == .release ? .release : .other
        send(.bar(BarMouse(action: action, onBar: y == progressRow, time: axis.time(atColumn: x, width: layout.columns))))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
