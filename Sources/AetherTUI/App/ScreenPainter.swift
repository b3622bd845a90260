import AetherControl
import AetherMedia
import AetherPlayback
import AetherSubtitles
import AetherScreen
import AetherBase
import FoundationEssentials
import TerminalGraphics

/// The model onto the screen: the layout for the picture playing, each frame composed from the
/// model and the player (``ChromeView``) and handed to the ``Display``, the stills over the
/// picture, the music view, and the governor's steps carried out. It keeps no model of its own
/// and writes none: the runtime hands it the one it has (``HostRuntime/view``) by value, and
/// what the model must learn (the output made anew, a new scale) it returns as an event.
final class ScreenPainter {
    let display: Display
    let controller: PlayerController
    var player: Player {
        controller.player
    }
    let options: TUIOptions
    let clock: TimeSource
    /// The music view (cover, tags, spectrum), shown while no video stream plays.
    var music: MusicView?
    /// Music views made so far: each one's cover has a stamp of its own.
    private var covers = 0
    /// The equalizer's curve as last drawn for a pixel output, and its stamp.
    private var equalizerPicture: (panel: EqualizerPanel, width: Int, height: Int, picture: VideoOutput.StillPicture, stamp: Int)?
    private var equalizerStamp = 0

    init(display: Display, controller: PlayerController, options: TUIOptions, clock: TimeSource) {
        (self.display, self.controller, self.options, self.clock) = (display, controller, options, clock)
    }

    /// The item playing (its path or URL).
    var source: String { controller.playlist.current?.source ?? options.source }

    /// The player and the controller as they are now, for a pass of the loop.
    func read() -> PlayerReading { PlayerReading(controller: controller, source: source) }

    /// The views over `view` and `player` as read, with `telemetry` shown.
    func chrome(_ view: ViewState, _ player: PlayerReading, telemetry: TelemetrySampler) -> ChromeView {
        ChromeView(model: view, player: player, display: display.reading, telemetry: telemetry,
                   music: music, bindings: options.bindings, now: clock.seconds)
    }

    /// What the display says changed: a new layout is laid out; a driver made anew is the
    /// model's to learn (its scale starts over, and the update lays out again).
    func apply(_ change: Display.Change, _ view: ViewState) -> HostEvent? {
        switch change {
        case .nothing: return nil
        case .layout:
            relayout(view)
            return nil
        case .driver: return .outputChanged(message: nil, now: clock.seconds)
        }
    }

    /// Lays the screen out again for the picture as it is shown: upright (a phone's portrait
    /// video stands up), at the size the playing variant has; the engine scales to it.
    func relayout(_ view: ViewState) {
        let reading = read()
        let (cols, rows) = display.terminal.withScreen { (Curses.columns, Curses.rows) }
        let caps = display.capabilities
        display.layout = Layout(columns: cols, rows: rows, cellSize: caps.window.cellSize,
                                displayAspect: reading.pictureAspect, driver: reading.hasVideo ? display.driver : nil,
                                showTelemetry: view.chrome.showTelemetry, maxPicture: caps.sixel.effectiveMaxGeometry,
                                scale: view.pictureScale)
        layoutMusicView(reading)
        let layout = display.layout
        if layout.placement.isEmpty {
            player.setRenderSize(nil)
        } else {
            player.setRenderSize(layout.renderSize, eightBitStaging: display.driver.showsEveryPixelsColour ? .rgb : Scaler.standardEightBit)
        }
        display.terminal.withScreen {
            display.screen.compositor.clear()
            // Keep the old overlay rectangles masked until the next draw recomputes them, so no
            // frame paints where ncurses is about to draw an overlay.
            updateOutputScene(view, reading)
        }
        display.screen.screenCleared = true
        player.redisplay()
        display.screen.dirty = true
    }

    /// Draws with `entry`'s driver from now on (the `d` key, the governor's last resort); the
    /// event that tells the model (the update lays out again), saying `message` or the output's name.
    func switchDriver(to entry: VideoDrivers.Entry, options drivers: VideoDrivers.Options? = nil, message: String? = nil) -> HostEvent {
        display.use(entry, options: drivers)
        return .outputChanged(message: message ?? "video output: \(display.driver.name)", now: clock.seconds)
    }

    /// The governor stepped: a new picture scale (the model's, as an event); its last resort is
    /// another output: under `--vo=auto` the best other one by the figures with the live one in
    /// (``AutoOutput/givenUp(live:pixels:sourceFPS:)``), else half-block.
    func applyGovernor(_ view: ViewState) -> HostEvent? {
        guard let (change, figure) = display.output.takeGovernorChange() else { return nil }
        let driver = display.driver
        if change.fallback, driver.name != VideoDrivers.fallback.name {
            if let auto = display.autoOutput, auto.candidate.driver == driver.name, let figure,
               let next = auto.givenUp(live: figure.milliseconds, pixels: figure.pixels, sourceFPS: player.playingVideo?.frameRate ?? 24),
               let entry = VideoDrivers.entry(named: next.candidate.driver) {
                display.autoOutput = next
                AppLog.write("tui", "--vo=auto: \(auto.candidate.label) given up at \(Int(figure.milliseconds)) ms a frame of \(figure.pixels) px: \(next.candidate.label)")
                return switchDriver(to: entry, options: next.options(options.output.drivers),
                                    message: "terminal too slow for \(auto.candidate.label): \(next.candidate.label)")
            }
            return switchDriver(to: VideoDrivers.fallback, message: "terminal too slow for \(options.output.choice.name): half-block")
        }
        return change.scale != view.pictureScale ? .pictureScale(change.scale) : nil
    }
    /// One pass of the screen: what it shows compared with what it showed (the render caches of
    /// ``ScreenState``), then, when anything changed, a frame composed from the model and
    /// `reading` outside the terminal lock and handed to the display. The model is read, never written.
    func draw(_ view: ViewState, _ reading: PlayerReading, telemetry: TelemetrySampler) {
        let now = clock.seconds
        let cues = compare(view, reading, now: now)
        guard display.screen.dirty else { return }
        display.screen.dirty = false
        // Wrapped here, outside the terminal lock, and only when a cue is new (SubtitleWrapCache).
        let frame = chrome(view, reading, telemetry: telemetry).compose(subtitles: display.textCues.lines(for: cues, layout: display.layout, driver: display.driver))
        display.screen.inspectorPicture = frame.inspectorPicture
        display.screen.equalizerPicture = frame.equalizerPicture
        let inspectorStill = inspectorStill(view), equalizerStill = equalizerStill(view)
        var snapshot: PlayerSnapshot?   // taken only when the title is due and names a property
        display.present(frame, pictures: [display.layout.video, music?.coverPlacement?.rect].compactMap { $0 },
                        stillRects: [frame.stills, inspectorStill?.placement.rect, equalizerStill?.placement.rect].compactMap { $0 },
                        paused: reading.isPaused, scene: frame.stills != nil || view.inspector?.tab == .frames || equalizerStill != nil,
                        stills: { sceneStills(view, reading, mask: $0) }) {
            display.updateTerminalTitle(now: now, item: reading.playlistPosition) { [controller] name in
                if snapshot == nil { snapshot = controller.snapshot() }
                return snapshot?.text(of: name)
            }
        }
    }

    /// What the screen shows now against what it showed: the chrome's timeout, the clock text's
    /// quarter second, the opening line, the cues of the moment, the music view's bars; marks
    /// the screen dirty when any of them changed. Returns the cues to draw.
    private func compare(_ view: ViewState, _ reading: PlayerReading, now: Double) -> [SubtitleCue] {
        let playing = reading.state == .playing
        // The network's trouble (`buffering…`, `reconnecting (2)`) shows the chrome, as mpv's OSD does.
        let visible = view.chrome.pinned || !playing || view.menu != nil || view.chrome.shownByInput(at: now)
            || reading.networkText != nil
        if visible != display.screen.chromeVisible {
            display.screen.chromeVisible = visible
            display.screen.dirty = true
        }
        let tick = (reading.position * 4).rounded(.down)
        if tick != display.screen.tick {
            display.screen.tick = tick
            display.screen.dirty = true
        }
        let opening = ChromeView.openingText(reading.opening, now: now)
        if opening != display.screen.openingText {
            display.screen.openingText = opening
            display.screen.dirty = true
        }
        // Cues change on their own (a cue ends, the look-behind prefetch lands while paused).
        // Text cues libass draws into the picture are not text cells too.
        let libass = VideoOutput.drawsTextSubtitles(driver: display.driver, style: options.subtitleStyle)
        // `sub-visibility` changed: libass's overlay comes or goes on the frame shown (paused too).
        if libass, display.output.textSubtitlesVisible.exchange(reading.subtitlesVisible, ordering: .relaxed) != reading.subtitlesVisible {
            display.output.repaint()
        }
        // The music view's lyrics pane shows the lyrics track's line already (highlighted there).
        let lyricsShown = music.map { !$0.layout.lyrics.isEmpty } == true && reading.lyricsTrack != nil
            && reading.activeSubtitleTrack == reading.lyricsTrack
        let cues = reading.subtitlesVisible && !lyricsShown ? player.subtitleCues(at: reading.position)
            .filter { $0.text == nil || ($0.hasVisibleText && !(libass && $0.ass != nil)) } : []
        let cueKey = cues.map { "\($0.start)" }.joined(separator: ",")
        // (Bitmap cues come with their frame: the engine hands the shown frame over again
        // when its cues change while paused.)
        if cueKey != display.screen.cueKey {
            display.screen.cueKey = cueKey
            display.screen.dirty = true
        }
        if music?.needsDrawing(player: player, reading: reading, now: now) == true { display.screen.dirty = true }
        return cues
    }

    /// The stills the output draws over the picture, kept out of `mask` (the overlays): the
    /// music view's cover, the scrub preview or the filmstrip, the inspector's frame.
    func sceneStills(_ view: ViewState, _ reading: PlayerReading, mask: CellMask) -> [VideoOutput.Still] {
        var stills: [VideoOutput.Still] = []
        if let music, let picture = music.cover, let placement = music.coverPlacement {
            stills.append(VideoOutput.Still(placement: placement, stamp: music.coverStamp, picture: picture, mask: mask))
        }
        if let preview = view.preview, let scrub = view.scrub,
           let spot = display.stillLayout.preview(preview.picture, marker: reading.barAxis.markerColumn(scrub.target, width: display.layout.columns)) {
            stills.append(.init(placement: spot.placement, stamp: preview.stamp, picture: preview.picture))
        } else if let strip = view.filmstrip {
            stills = display.stillLayout.filmstripStills(strip)
        }
        if let still = inspectorStill(view) { stills.append(still) }
        if let still = equalizerStill(view) { stills.append(still) }
        return stills
    }

    /// The output's scene for the current layout and overlays. Inside `terminal.withScreen`.
    func updateOutputScene(_ view: ViewState, _ reading: PlayerReading) {
        display.updateScene(stills: { sceneStills(view, reading, mask: $0) })
    }
    /// Relayout: the music view comes when no video stream plays (an audio file, `--vid=no`,
    /// a video stream left out as undecodable) and goes when one does.
    func layoutMusicView(_ player: PlayerReading) {
        guard !player.hasVideo else { music = nil; return }
        let tagLines = MusicView.tagLines(player).count
        let area = display.layout.videoArea
        if music == nil {
            // (Its own range of stamps, as the inspector's frame has: the previews count from 1.)
            covers &+= 1
            music = MusicView(cover: self.player.coverArt, stamp: 0x4D55_0000 &+ covers,
                              layout: MusicLayout(area: area, cellSize: display.layout.geometry.cellSize, textLines: tagLines,
                                                  lyrics: player.lyrics != nil))
        }
        music?.layOut(area: area, stills: display.stillLayout, player: player, tagLines: tagLines)
    }

    /// Whether the layout was made for another picture than `player`'s: the picture took
    /// another shape, the video stream went (or came), or lyrics came to the music view (the
    /// update's tick lays out again).
    func layoutIsStale(_ player: PlayerReading) -> Bool {
        if player.hasVideo, abs(player.pictureAspect / display.layout.displayAspect - 1) > 0.01 {
            AppLog.write("tui", "the picture is \(String(cFormat: "%.3f", player.pictureAspect)):1 now: laid out again")
            return true
        }
        return (music != nil) == player.hasVideo || music?.outOfDate(player: player) == true
    }
    /// The frames tab's picture, as a still beside the video (drawn by the output's still driver).
    func inspectorStill(_ view: ViewState) -> VideoOutput.Still? {
        guard let inspector = view.inspector, inspector.tab == .frames, let frame = inspector.frame,
              let rect = display.screen.inspectorPicture, !rect.isEmpty else { return nil }
        let picture = VideoOutput.StillPicture(width: frame.still.width, height: frame.still.height, pixels: frame.still.pixels)
        guard let placement = display.stillLayout.fit(picture, in: rect) else { return nil }
        return .init(placement: placement, stamp: 0x494E_0000 &+ inspector.frameStamp, picture: picture)
    }

    /// The equalizer's curve as a picture where the panel left room for it (pixel outputs),
    /// drawn again only when the panel or its room changes.
    func equalizerStill(_ view: ViewState) -> VideoOutput.Still? {
        guard let panel = view.equalizer, let rect = display.screen.equalizerPicture, !rect.isEmpty else { return nil }
        // As wide as the plot and as tall as it less the rows the driver keeps free under a
        // picture: the placement fills it, and the panel's scale stands beside it.
        let cell = display.layout.geometry.cellSize
        let (width, height) = (rect.width * cell.width, max(1, rect.height - display.driver.rowsBelowPicture) * cell.height)
        if let drawn = equalizerPicture, drawn.panel == panel, drawn.width == width, drawn.height == height {
            return display.stillLayout.fit(drawn.picture, in: rect).map { .init(placement: $0, stamp: 0x4551_0000 &+ drawn.stamp, picture: drawn.picture) }
        }
        let picture = VideoOutput.StillPicture(width: width, height: height, pixels: EqualizerCurveImage.render(panel, width: width, height: height))
        equalizerStamp &+= 1
        equalizerPicture = (panel, width, height, picture, equalizerStamp)
        return display.stillLayout.fit(picture, in: rect).map { .init(placement: $0, stamp: 0x4551_0000 &+ equalizerStamp, picture: picture) }
    }
}
