import AetherEngine
import CNcurses
import Foundation
import TerminalGraphics

extension TUIApp {
    /// Reads what the terminal sent (waits up to 30 ms for it), drops terminal replies, and acts
    /// on each key and mouse event.
    func readInput() {
        // Wait for input without holding the TTY lock (the present thread must never wait on us),
        // then read it without blocking.
        // get_wch also runs even when poll saw nothing: a SIGWINCH interrupts poll, and ncurses
        // reports it as KEY_RESIZE only from get_wch.
        var pfd = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        if !view.pendingInput { _ = poll(&pfd, 1, 30) }
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
        for input in replyFilter.feed(batch, now: MonotonicClock.seconds()) { handle(input) }
    }

    /// Most inputs taken in one read (a paste can be long; the screen must still be drawn).
    static let maxInputPerRead = 4096

    private func handle(_ input: TerminalInput) {
        view.lastInput = MonotonicClock.seconds()
        view.dirty = true
        if !view.chromeVisible { view.chromeVisible = true }
        switch input {
        case .functionKey(KEY_RESIZE): relayout(); return
        case .functionKey(KEY_MOUSE): handleMouse(); return
        default: break
        }
        guard let key = TUIApp.key(for: input) else { return }
        if view.menu != nil { handleMenuKey(key); return }
        if handleScrubKey(key) || handleFilmstripKey(key) { return }
        if key == .escape {
            if view.showHelp || view.showStats { view.showHelp = false; view.showStats = false }
            return
        }
        if let command = KeyMap.command(for: key) { perform(command) }
    }

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
            default: return nil
            }
        case .character(let code):
            switch code {
            case 27: return .escape
            case 127, 8: return .backspace
            case 10, 13: return .enter
            default:
                guard code >= 0x20, let scalar = Unicode.Scalar(code) else { return nil }
                return .character(Character(scalar))
            }
        }
    }

    func perform(_ command: Command) {
        switch command {
        case .togglePause:
            player.togglePause()
        case .seek(let seconds, let exact):
            player.seek(by: seconds, mode: exact ? .exact : .keyframe)
            osd(String(format: "seek %+.0f s", seconds))
        case .chapter(let delta):
            jumpChapter(delta)
        case .speedMultiply(let factor):
            player.setRate((player.rate * factor * 100).rounded() / 100)
            osd(String(format: "speed %.2f×", player.rate))
        case .speedReset:
            player.setRate(1)
            osd("speed 1.00×")
        case .volume(let delta):
            player.setVolume(player.volume + delta)
            osd("volume \(Int(player.volume.rounded())) %")
        case .toggleMute:
            player.setMuted(!player.isMuted)
            osd(player.isMuted ? "mute" : "unmute")
        case .cycleAudio:
            let count = player.mediaInfo?.audio.count ?? 0
            guard count > 0 else { osd("no audio tracks"); return }
            let next = ((player.activeAudioTrack ?? -1) + 1) % count
            player.selectAudioTrack(next)
            osd("audio: \(audioLabel(next))")
        case .cycleSubtitles(let forward):
            let tracks = player.subtitleTracks
            guard !tracks.isEmpty else { osd("no subtitle tracks"); return }
            // Order: off, 0, 1, … (mpv's j cycles through "no" too).
            let current = view.subtitleTrack.map { $0 + 1 } ?? 0
            let next = (current + (forward ? 1 : tracks.count)) % (tracks.count + 1)
            selectSubtitle(next == 0 ? nil : next - 1)
        case .toggleSubtitles:
            view.subtitlesVisible.toggle()
            osd(view.subtitlesVisible ? "subtitles visible" : "subtitles hidden")
        case .subtitleDelay(let delta):
            view.subtitleDelayBox.set(view.subtitleDelayBox.value + delta)
            osd(String(format: "subtitle delay %+.1f s", view.subtitleDelayBox.value))
        case .frameStep(let forward):
            if forward { player.step() } else { player.stepBack() }
        case .toggleStats:
            view.showStats.toggle()
        case .toggleHelp:
            view.showHelp.toggle()
        case .toggleTelemetry:
            view.showTelemetry.toggle()
            relayout()
        case .openAudioMenu:
            view.menu = TrackMenu.audio(player: player)
        case .openSubtitleMenu:
            view.menu = TrackMenu.subtitles(player: player, selected: view.subtitleTrack)
        case .cycleRenderer:
            guard player.hasVideo || music?.cover != nil else { return }
            guard let next = VideoDrivers.cycle(after: driver.name, capabilities: capabilities) else {
                osd("no other video output suits this terminal"); return
            }
            switchDriver(to: next)
        case .toggleRemaining:
            view.showRemaining.toggle()
        case .togglePinChrome:
            view.chromePinned.toggle()
            osd(view.chromePinned ? "transport bar pinned" : "transport bar auto-hides")
        case .browse:
            startScrub(at: player.currentTime, byMouse: false)
        case .filmstrip:
            openFilmstrip()
        case .screenshot(let subtitles):
            takeScreenshot(subtitles: subtitles)
        case .quit:
            view.quitRequested = true
        }
    }

    func selectSubtitle(_ id: Int?) {
        player.selectSubtitleTrack(id)
        view.subtitleTrack = id
        view.subtitlesVisible = true
        let label = id.flatMap { i in player.subtitleTracks.first { $0.id == i }?.label } ?? "off"
        osd("subtitles: \(label)")
    }

    func audioLabel(_ index: Int) -> String {
        guard let a = player.mediaInfo?.audio[safe: index] else { return "off" }
        return [a.tags.language, a.tags.title.map { "\"\($0)\"" }, a.codec, a.layoutShort].compactMap { $0 }.joined(separator: " · ")
    }

    func jumpChapter(_ delta: Int) {
        guard let chapters = player.mediaInfo?.chapters, !chapters.isEmpty else { osd("no chapters"); return }
        let now = player.currentTime
        let current = chapters.lastIndex { $0.start <= now + 0.01 } ?? -1
        // Like mpv: going back from more than a second into a chapter restarts it.
        var target = current + delta
        if delta < 0, current >= 0, now - chapters[current].start > 1 { target = current }
        guard target >= 0, target < chapters.count else { osd("no more chapters"); return }
        player.seek(to: chapters[target].start, mode: .exact)
        osd("chapter \(target + 1)/\(chapters.count): \(chapters[target].title ?? "")")
    }

    /// Shows `text` for 1.5 s; sanitised (track labels and chapter names come from the media).
    func osd(_ text: String, seconds: Double = 1.5) {
        view.osdMessage = (TextSanitizer.clean(text), MonotonicClock.seconds() + seconds)
    }

    func handleMenuKey(_ key: Key) {
        guard var menu = view.menu else { return }
        switch key {
        case .up: menu.move(-1)
        case .down: menu.move(1)
        case .escape, .character("q"): view.menu = nil; return
        case .enter, .character(" "): choose(menu.selection, in: menu); return
        default: return
        }
        view.menu = menu
    }

    func choose(_ index: Int, in menu: TrackMenu) {
        guard menu.items.indices.contains(index) else { return }
        let item = menu.items[index]
        switch menu.kind {
        case .audio:
            player.selectAudioTrack(item.value)
            osd("audio: \(item.value.map(audioLabel) ?? "off")")
        case .subtitles:
            selectSubtitle(item.value)
        }
        view.menu = nil
    }

    private func handleMouse() {
        var event = MEVENT()
        guard terminal.withScreen({ getmouse(&event) }) == OK else { return }
        let x = Int(event.x), y = Int(event.y)
        let state = event.bstate
        let progressRow = layout.rows - 2
        if state & aether_BUTTON4_PRESSED() != 0 { player.seek(by: 5, mode: .keyframe); return }
        if state & aether_BUTTON5_PRESSED() != 0 { player.seek(by: -5, mode: .keyframe); return }
        if var menu = view.menu, let rect = view.menuRect {
            if rect.contains(column: x, row: y), state & (aether_BUTTON1_PRESSED() | aether_BUTTON1_CLICKED()) != 0 {
                let index = y - rect.row - 1 + menu.scroll
                if menu.items.indices.contains(index) { menu.selection = index; choose(index, in: menu) }
            }
            return
        }
        // The progress bar: hovering shows the scrub marker and its preview, dragging moves it,
        // releasing the button (or a click) seeks there exactly.
        let pressed = state & aether_BUTTON1_PRESSED() != 0
        let clicked = state & aether_BUTTON1_CLICKED() != 0
        let released = state & aether_BUTTON1_RELEASED() != 0
        let motion = state & aether_REPORT_MOUSE_POSITION() != 0
        guard let duration = player.duration, duration > 0 else { return }
        let time = min(1, max(0, Double(x) / Double(max(1, layout.columns - 1)))) * duration
        if (pressed || clicked) && y == progressRow {
            if view.scrub == nil { startScrub(at: time, byMouse: true) } else { moveScrub(to: time) }
            if clicked { commitScrub(); return }
            view.dragging = true
            view.scrub?.dragging = true
        } else if motion {
            if view.dragging || y == progressRow {
                if view.scrub == nil { startScrub(at: time, byMouse: true) } else { moveScrub(to: time) }
            } else if view.scrub?.byMouse == true {
                cancelScrub()
            }
        }
        if released {
            if view.dragging, view.scrub != nil { commitScrub() }
            view.dragging = false
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
