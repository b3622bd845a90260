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
        view.pendingInput = more
        for input in inputs { handle(input) }
        return read
    }

    private func handle(_ input: TerminalInput) {
        // A reply the player asked for is no user input: the chrome stays as it is.
        if case .reply(let bytes) = input { painter.apply(display.takeReply(bytes), &view); return }
        view.chrome.noteInput(at: clock.seconds)
        display.screen.dirty = true
        switch input {
        case .resize:
            // Laid out again and, the screen cleared, the picture sent again: logged, so that
            // each picture the terminal gets has its reason in the log.
            AppLog.write("tui", "the terminal was resized: laid out again")
            relayout()
            return
        case .mouse(let report): handleMouse(report); return
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

    /// The runtime's half of ``HostUpdate``: runs the update on the model with what the player
    /// says now, and carries out its effects. The draw pass's tick, every pass of the loop, reads
    /// no timeline: the player's state is not asked for it.
    func send(_ event: HostEvent) {
        var context = HostContext(bindings: options.bindings)
        if case .tick = event {} else {
            context.barRange = ChromeView.barAxis(player).range
            context.chapterStarts = (player.mediaInfo?.chapters ?? []).map(\.start)
            context.position = player.currentTime
            context.duration = player.duration
            context.hasPicture = player.hasVideo
            context.columns = display.layout.columns
        }
        perform(HostUpdate.update(&view, event, context: context))
    }

    /// Carries out what the update asked for: the one place the model's effects reach the
    /// controller, the player and the screen.
    func perform(_ effects: [HostEffect]) {
        for effect in effects {
            switch effect {
            case .command(let command): controller.execute(command)
            case .selectAudio(let index): controller.selectAudio(index)
            case .selectSubtitle(let id): controller.selectSubtitle(id)
            case .redraw: display.screen.dirty = true
            case .relayout: relayout()
            case .seekExactly(let target):
                player.seek(to: target, mode: .exact)
                osd("seek \(TimeFormat.clock(target))")
            case .wantPreview(let time, let duration): stills.previews?.request(time, duration: duration)
            case .wantStrip(let times, let exact): previewFetcher()?.requestStrip(times, exact: exact)
            case .pause: if !player.isPaused { player.togglePause() }
            case .openPreviews:
                // Without a playing video stream (the music view) the marker has a time but no picture.
                if player.hasVideo { _ = previewFetcher() }
            }
        }
    }

    /// The TUI's own commands (``PlayerCommand/ui(_:)``), from keys, input.conf or the IPC.
    func perform(ui action: UIAction) -> CommandResult {
        switch action {
        case .stats, .statsToggle, .help, .telemetry, .remaining, .pinOSD: send(.ui(action, now: clock.seconds))
        // The menus are made from what the player has now; opening one is the model's.
        case .menuAudio: send(.openMenu(TrackMenu.audio(player: player)))
        case .menuSub: send(.openMenu(TrackMenu.subtitles(player: player, selected: player.activeSubtitleTrack)))
        case .menuPlaylist: send(.openMenu(TrackMenu.playlist(controller.playlistTitles)))
        case .cycleVO:
            guard player.hasVideo || painter.music?.cover != nil else { return .failure("no picture to draw") }
            guard let next = VideoDrivers.cycle(after: display.driver.name, capabilities: display.capabilities) else {
                return .failure("no other video output suits this terminal")
            }
            painter.switchDriver(to: next, &view)
        case .scrub, .filmstrip: send(.ui(action, now: clock.seconds))
        case .inspector:
            if view.inspector != nil { closeInspector() } else { openInspector(tab: .container) }
        }
        display.screen.dirty = true
        return .ok
    }

    /// Shows `text` for 1.5 s; sanitised (track labels and chapter names come from the media).
    func osd(_ text: String, seconds: Double = 1.5) {
        view.message.show(text, seconds: seconds, at: clock.seconds)
    }

    /// A mouse report (``ReplyFilter`` decoded it): the wheel seeks, a press in a menu chooses;
    /// on the progress bar hovering shows the scrub marker and its preview, dragging moves it,
    /// releasing the button seeks there exactly.
    func handleMouse(_ report: MouseReport) {
        let (layout, axis) = (display.layout, ChromeView.barAxis(player))
        let x = min(report.column, max(0, layout.columns - 1)), y = report.row
        let progressRow = layout.rows - 2
        switch report.action {
        case .wheelUp: send(.wheel(up: true)); return
        case .wheelDown: send(.wheel(up: false)); return
        default: break
        }
        let pressed = report.action == .press && report.button == 0
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
