import AetherControl
import AetherEngine
import AetherInput
import CNcurses
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

extension TUIApp {
    /// Reads what the terminal sent (the loop waited for it, ``TUIApp/waitForEvents(timeout:)``),
    /// drops terminal replies, and acts on each key and mouse event.
    /// True when anything was read.
    @discardableResult
    func readInput() -> Bool {
        // Read without blocking (the wait happened without holding the TTY lock: the present
        // thread must never wait on us).
        // Everything available now, in one read, so that a terminal reply is seen whole.
        var batch: [TerminalInput] = []
        terminal.withScreen {
            var wch: wint_t = 0
            while batch.count < TUIApp.maxInputPerRead {
                let result = get_wch(&wch)
                if result == ERR { break }
                batch.append(result == KEY_CODE_YES ? .functionKey(Int32(wch)) : .character(UInt32(wch)))
            }
        }
        // ncurses may hold more decoded input than one read takes: read again without waiting.
        view.pendingInput = batch.count >= TUIApp.maxInputPerRead
        for input in replyFilter.feed(batch, now: clock.seconds) { handle(input) }
        return !batch.isEmpty
    }

    /// Most inputs taken in one read (a paste can be long; the screen must still be drawn).
    static let maxInputPerRead = 4096

    private func handle(_ input: TerminalInput) {
        // A reply the player asked for is no user input: the chrome stays as it is.
        if case .reply(let bytes) = input { takeReply(bytes); return }
        view.noteInput(at: clock.seconds)
        screen.dirty = true
        switch input {
        case .functionKey(KEY_RESIZE): relayout(); return
        case .mouse(let report): handleMouse(report); return
        default: break
        }
        guard let key = TUIApp.key(for: input) else { return }
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
            context.barRange = barAxis().range
            context.chapterStarts = (player.mediaInfo?.chapters ?? []).map(\.start)
            context.position = player.currentTime
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
            case .redraw: screen.dirty = true
            case .relayout: relayout()
            case .seekExactly(let target):
                player.seek(to: target, mode: .exact)
                osd("seek \(TimeFormat.clock(target))")
            case .wantPreview(let time, let duration): previews?.request(time, duration: duration)
            case .openPreviews:
                // Without a playing video stream (the music view) the marker has a time but no picture.
                if player.hasVideo { _ = previewFetcher() }
            }
        }
    }

    /// Key codes ncurses is taught for Ctrl++ and Ctrl+- as xterm's modifyOtherKeys and the
    /// kitty keyboard protocol send them.
    static let ctrlPlusCode: Int32 = 0x7E01
    static let ctrlMinusCode: Int32 = 0x7E02

    static func key(for input: TerminalInput) -> Key? {
        switch input {
        case .functionKey(let code):
            switch code {
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_SLEFT: return .shiftLeft
            case KEY_SRIGHT: return .shiftRight
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_BACKSPACE: return .backspace
            case KEY_ENTER: return .enter
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_DC: return .delete
            case KEY_IC: return .insert
            case ctrlPlusCode: return .control("+")
            case ctrlMinusCode: return .control("-")
            case (KEY_F0 + 1)...(KEY_F0 + 12): return .function(Int(code - KEY_F0))
            default: return nil
            }
        case .character(let code):
            switch code {
            case 27: return .escape
            case 127, 8: return .backspace
            case 10, 13: return .enter
            case 9: return .tab
            // Ctrl+letter; 0x1F is what terminals send for Ctrl+- (and Ctrl+_ , Ctrl+/).
            case 1...26: return .control(Character(Unicode.Scalar(code + 0x60)!))
            case 0x1F: return .control("-")
            default:
                guard code >= 0x20, let scalar = Unicode.Scalar(code) else { return nil }
                return .character(Character(scalar))
            }
        case .mouse, .reply:
            return nil
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
            guard player.hasVideo || music?.cover != nil else { return .failure("no picture to draw") }
            guard let next = VideoDrivers.cycle(after: driver.name, capabilities: capabilities) else {
                return .failure("no other video output suits this terminal")
            }
            switchDriver(to: next)
        case .scrub: send(.ui(action, now: clock.seconds))
        case .filmstrip: openFilmstrip()
        case .inspector:
            if view.inspector != nil { closeInspector() } else { openInspector(tab: .container) }
        }
        screen.dirty = true
        return .ok
    }

    /// Shows `text` for 1.5 s; sanitised (track labels and chapter names come from the media).
    func osd(_ text: String, seconds: Double = 1.5) {
        view.showMessage(TextSanitizer.clean(text), seconds: seconds, at: clock.seconds)
    }

    /// A mouse report (``ReplyFilter`` decoded it): the wheel seeks, a press in a menu chooses;
    /// on the progress bar hovering shows the scrub marker and its preview, dragging moves it,
    /// releasing the button seeks there exactly.
    func handleMouse(_ report: MouseReport) {
        let x = min(report.column, max(0, layout.columns - 1)), y = report.row
        let progressRow = layout.rows - 2
        switch report.action {
        case .wheelUp: send(.wheel(up: true)); return
        case .wheelDown: send(.wheel(up: false)); return
        default: break
        }
        let pressed = report.action == .press && report.button == 0
        if let menu = view.menu, let rect = screen.menuRect {
            if rect.contains(column: x, row: y), pressed { send(.menuPick(y - rect.row - 1 + menu.scroll)) }
            return
        }
        // The bar's own axis: the file, or a live stream's kept window.
        let axis = barAxis()
        guard axis.range != nil else { return }
        let action: BarMouse.Action = pressed ? .press : report.action == .motion ? .motion : report.action == .release ? .release : .other
        send(.bar(BarMouse(action: action, onBar: y == progressRow, time: axis.time(atColumn: x, width: layout.columns))))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
