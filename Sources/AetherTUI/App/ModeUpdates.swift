import AetherControl
import AetherInput
import AetherMedia

/// Scrub mode's update: its keys, the mouse on the progress bar, and the thumbnail for its marker.
enum ScrubUpdate {
    /// Scrub mode's keys (nil: not scrub mode's): ←/→ 5 s, Shift+←/→ 1 s, ↓/↑ a minute, Home/End
    /// the ends, PgUp/PgDn the chapters, Enter seeks there exactly, Esc or `b` leave.
    static func key(_ view: inout ViewState, _ key: Key, _ context: HostContext) -> [HostEffect]? {
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
    static func placeMarker(_ view: inout ViewState, at time: Double, byMouse: Bool, range: ClosedRange<Double>) -> [HostEffect] {
        let target = time.clamped(to: range)
        let starts = view.scrub == nil
        if starts { view.scrub = ScrubState(target: target, byMouse: byMouse) } else { view.scrub?.target = target }
        return (starts ? [.openPreviews] : []) + [.wantPreview(target, duration: range.upperBound), .redraw]
    }

    /// The mouse and the progress bar: a press on it starts scrub there (or moves the marker) and
    /// a drag; hovering on its row scrubs; moving off it ends a hover's scrub; releasing a drag
    /// seeks to the marker exactly. Nothing without a bar (nothing to scrub).
    static func barMouse(_ view: inout ViewState, _ mouse: BarMouse, _ context: HostContext) -> [HostEffect] {
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

    /// A thumbnail arrived for the marker (kept only while scrubbing).
    static func arrived(_ view: inout ViewState, _ still: StillArrival) -> [HostEffect] {
        guard view.scrub != nil else { return [] }
        view.previewStamp += 1
        view.preview = ScrubPreview(time: still.time, stamp: view.previewStamp, picture: still.picture)
        return [.redraw]
    }
}

/// The filmstrip's update: opening it, its keys, and its thumbnails as they arrive.
enum FilmstripUpdate {
    /// `B`: playback pauses and a row of thumbnails opens across the bar (chapters' starts when
    /// there are two or more, else evenly spaced), the one playing chosen; nothing without a
    /// picture and a duration.
    static func open(_ view: inout ViewState, _ context: HostContext, now: Double) -> [HostEffect] {
        guard let duration = context.duration, duration > 0, context.hasPicture else {
            view.message.show("nothing to show in a filmstrip", seconds: 1.5, at: now)
            return [.redraw]
        }
        view.scrub = nil
        view.preview = nil
        let width = max(12, min(24, context.columns / 5))
        let count = max(1, min(7, (context.columns + 1) / (width + 1)))
        let chapters = context.chapterStarts, position = context.position
        let times = Filmstrip.times(now: position, duration: duration, chapters: chapters, count: count)
        guard !times.isEmpty else { return [.pause, .redraw] }
        let byChapter = chapters.count >= 2
        // The chapter playing (the last that started), else the nearest position.
        let selection = byChapter ? (times.lastIndex { $0 <= position + 0.01 } ?? 0)
                                  : times.indices.min { abs(times[$0] - position) < abs(times[$1] - position) } ?? 0
        view.filmstrip = Filmstrip(times: times, selection: selection, chapters: byChapter, width: width)
        return [.pause, .wantStrip(times, exact: byChapter), .redraw]
    }

    /// The filmstrip's keys (nil: not the filmstrip's): ←/→, Home/End choose a thumbnail, Enter
    /// seeks to what it shows, Esc or `B` close it.
    static func key(_ view: inout ViewState, _ key: Key) -> [HostEffect]? {
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

    /// Thumbnails arrived: each goes to the slot of its time, with the time it shows (a
    /// keyframe's, unless the strip shows chapters' starts exactly).
    static func arrived(_ view: inout ViewState, _ stills: [StillArrival]) -> [HostEffect] {
        guard var strip = view.filmstrip, !stills.isEmpty else { return [] }
        for still in stills {
            guard let slot = strip.times.firstIndex(where: { abs($0 - still.time) < 0.0005 }) else { continue }
            view.previewStamp += 1
            strip.pictures[slot] = still.picture
            if !strip.chapters, still.shows.isFinite { strip.shown[slot] = max(0, still.shows) }
            strip.stamps[slot] = view.previewStamp
        }
        view.filmstrip = strip
        return [.redraw]
    }
}

/// The track and playlist menus' update.
enum MenuUpdate {
    /// The open menu: ↑/↓ move (wrapping), Enter or space choose, Esc or q close; other keys do nothing.
    static func key(_ view: inout ViewState, _ key: Key) -> [HostEffect] {
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
    static func choose(_ view: inout ViewState) -> [HostEffect] {
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

/// The panel's update: its keys (←/→ a band, ↑/↓ its gain, `p`/`P` the presets, `r` flat, Esc or
/// `e` close; the rest go to the bindings, so the music can be paused, skipped and quit under it)
/// and the mouse on it.
enum EqualizerUpdate {
    static func key(_ view: inout ViewState, _ key: Key) -> [HostEffect]? {
        guard var panel = view.equalizer else { return nil }
        let now = view.chrome.lastInput
        switch key {
        case .left, .character("h"): panel.band = max(0, panel.band - 1)
        case .right, .character("l"): panel.band = min(GraphicBands.centres.count - 1, panel.band + 1)
        case .up, .down, .character("k"), .character("j"):
            let up = key == .up || key == .character("k")
            return move(&view, band: panel.band, by: up ? EqualizerPanel.step : -EqualizerPanel.step, now: now)
        case .character("p"): return [.command(.cycle("equalizer", up: true))]
        case .character("P"): return [.command(.cycle("equalizer", up: false))]
        case .character("r"): return set(&view, .flat)
        case .escape, .character("e"):
            view.equalizer = nil
            return [.redraw]
        default: return nil
        }
        view.equalizer = panel
        return [.redraw]
    }

    /// Band `band` moved by `delta` dB.
    static func move(_ view: inout ViewState, band: Int, by delta: Double, now: Double) -> [HostEffect] {
        guard let panel = view.equalizer, let gains = panel.gains else {
            view.message.show("a profile's filters are its own: p for a preset, r for flat bands", seconds: 2, at: now)
            return [.redraw]
        }
        view.equalizer?.band = band
        guard let choice = panel.choice(band: band, gain: gains[band] + delta) else { return [] }
        return set(&view, choice)
    }

    /// Band `band` at `gain` dB (a click on the panel).
    static func place(_ view: inout ViewState, band: Int, gain: Double, now: Double) -> [HostEffect] {
        guard let gains = view.equalizer?.gains else { return move(&view, band: band, by: 0, now: now) }
        return move(&view, band: band, by: gain.rounded() - gains[band], now: now)
    }

    /// The panel shows `choice` at once (a graphic curve resolves without reading anything) and
    /// the controller is told.
    private static func set(_ view: inout ViewState, _ choice: EqualizerChoice) -> [HostEffect] {
        view.equalizer?.setting = EqualizerSetting(resolving: choice, environment: [:]) { _ in }
        return [.command(.set("equalizer", .string(choice.text))), .redraw]
    }

    /// The loop's tick: the panel follows the player's equalizer (set by the IPC, a binding, the
    /// next item) and the curve it runs.
    static func follow(_ view: inout ViewState, setting: EqualizerSetting, running: EqualizerCurve) -> Bool {
        guard let panel = view.equalizer, panel.setting != setting || panel.running != running else { return false }
        view.equalizer?.setting = setting
        view.equalizer?.running = running
        return true
    }
}
