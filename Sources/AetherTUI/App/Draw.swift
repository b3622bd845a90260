import AetherControl
import AetherEngine
import AetherScreen
import AetherBase
import TerminalGraphics

/// The runtime's draw pass.
extension TUIApp {
    /// The views over the model and the player as they stand (``ChromeView``).
    var chrome: ChromeView {
        ChromeView(model: view, player: player, controller: controller, display: display, telemetry: recorder.telemetry,
                   music: music, source: currentSource)
    }

    /// One pass of the screen: the model brought up to date with the clock, then, when anything
    /// changed, a frame composed from it outside the terminal lock and handed to the display.
    func draw() {
        let now = clock.seconds
        let cues = tick(now: now)
        guard display.screen.dirty else { return }
        display.screen.dirty = false
        // Wrapped here, outside the terminal lock, and only when a cue is new (SubtitleWrapCache).
        let frame = chrome.compose(subtitles: display.textCues.lines(for: cues, layout: display.layout, driver: display.driver))
        display.screen.inspectorPicture = frame.inspectorPicture
        let inspectorStill = inspectorStill()
        var snapshot: PlayerSnapshot?   // taken only when the title is due and names a property
        display.present(frame, pictures: [display.layout.video, music?.coverPlacement?.rect].compactMap { $0 },
                        stillRects: [frame.stills, inspectorStill?.placement.rect].compactMap { $0 },
                        paused: player.isPaused, scene: frame.stills != nil || view.inspector?.tab == .frames,
                        stills: sceneStills) {
            display.updateTerminalTitle(now: now, item: controller.playlist.position) { [controller] name in
                if snapshot == nil { snapshot = controller.snapshot() }
                return snapshot?.text(of: name)
            }
        }
    }

    /// The update step before a draw: the chrome's timeout, the message line's expiry, the clock
    /// text's quarter second, the cues of the moment, the music view's bars, the live baseline,
    /// the menu's and the inspector's scroll; marks the screen dirty when any of them changed
    /// what it shows. Returns the cues to draw.
    private func tick(now: Double) -> [SubtitleCue] {
        let playing = player.state == .playing
        // The network's trouble (`buffering…`, `reconnecting (2)`) shows the chrome, as mpv's OSD does.
        let visible = view.chromePinned || !playing || view.menu != nil || view.chromeShownByInput(at: now)
            || chrome.networkText() != nil
        if visible != display.screen.chromeVisible { display.screen.chromeVisible = visible; display.screen.dirty = true }
        send(.tick(now: now))
        let tick = (player.currentTime * 4).rounded(.down)
        if tick != display.screen.tick { display.screen.tick = tick; display.screen.dirty = true }
        // Cues change on their own (a cue ends, the look-behind prefetch lands while paused).
        // Text cues libass draws into the picture are not text cells too.
        let libass = VideoOutput.drawsTextSubtitles(driver: display.driver, style: options.subtitleStyle)
        // `sub-visibility` changed: libass's overlay comes or goes on the frame shown (paused too).
        if libass, display.output.textSubtitlesVisible.exchange(controller.subtitlesVisible, ordering: .relaxed) != controller.subtitlesVisible {
            display.output.repaint()
        }
        // The music view's lyrics pane shows the lyrics track's line already (highlighted there).
        let lyricsShown = music.map { !$0.layout.lyrics.isEmpty } == true && player.lyricsTrack != nil
            && player.activeSubtitleTrack == player.lyricsTrack
        let cues = controller.subtitlesVisible && !lyricsShown ? player.subtitleCues(at: player.currentTime)
            .filter { $0.text == nil || ($0.hasVisibleText && !(libass && $0.ass != nil)) } : []
        let cueKey = cues.map { "\($0.start)" }.joined(separator: ",")
        // (Bitmap cues come with their frame: the engine hands the shown frame over again
        // when its cues change while paused.)
        if cueKey != display.screen.cueKey { display.screen.cueKey = cueKey; display.screen.dirty = true }
        if musicViewNeedsDrawing(now: now) { display.screen.dirty = true }
        updateLiveBaseline()
        if var menu = view.menu {
            menu.scrollToSelection(visibleRows: TrackMenuView.visibleRows(in: display.layout.videoArea))
            view.menu = menu
        }
        if let inspector = view.inspector { InspectorView.keepSelectionsInView(inspector, in: inspector.rect(in: display.layout.videoArea)) }
        return cues
    }

    /// Live: keeps the smallest latency behind the edge seen since the item began (the bar says
    /// how far behind only beyond it).
    func updateLiveBaseline() {
        guard let latency = player.liveLatency else { return }
        view.liveBaseline = min(view.liveBaseline ?? latency, latency)
    }

    /// The stills the output draws over the picture, kept out of `mask` (the overlays): the
    /// music view's cover, the scrub preview or the filmstrip, the inspector's frame.
    func sceneStills(mask: CellMask) -> [VideoOutput.Still] {
        var stills: [VideoOutput.Still] = []
        if let music, let picture = music.cover, let placement = music.coverPlacement {
            stills.append(VideoOutput.Still(placement: placement, stamp: music.coverStamp, picture: picture, mask: mask))
        }
        if let preview = view.preview, let scrub = view.scrub,
           let spot = display.stillLayout.preview(preview.picture, marker: chrome.markerColumn(scrub.target)) {
            stills.append(.init(placement: spot.placement, stamp: preview.stamp, picture: preview.picture))
        } else if let strip = view.filmstrip {
            stills = display.stillLayout.filmstripStills(strip)
        }
        if let still = inspectorStill() { stills.append(still) }
        return stills
    }

    /// The output's scene for the current layout and overlays. Inside `terminal.withScreen`.
    func updateOutputScene() {
        display.updateScene(stills: sceneStills)
    }
}
