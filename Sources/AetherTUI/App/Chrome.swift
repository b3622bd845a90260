import AetherControl
import AetherEngine
import AetherInput
import AetherScreen
import CNcurses
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

extension TUIApp {
    /// What a draw composed: the text cells, and the cells the overlays, the menu and the stills
    /// (scrub preview, filmstrip) take.
    struct Frame {
        var cells: CellGrid
        var overlays: [CellRect] = []
        var menu: CellRect?
        var stills: CellRect?
        /// Where the inspector's frames tab leaves room for its picture.
        var inspectorPicture: CellRect?
    }

    /// One pass of the screen: the model brought up to date with the clock, then, when anything
    /// changed, a frame composed from it outside the terminal lock and handed to the compositor,
    /// which writes only the cells that changed.
    func draw() {
        let now = clock.seconds
        let cues = update(now: now)
        guard screen.dirty else { return }
        screen.dirty = false
        // Wrapped here, outside the terminal lock, and only when a cue is new (SubtitleWrapCache).
        let frame = composeFrame(subtitles: subtitlePlacement(cues))
        screen.menuRect = frame.menu
        screen.inspectorPicture = frame.inspectorPicture
        terminal.withScreen {
            let written = screen.compositor.present(frame.cells, palette: palette)
            eraseStillLeftovers(now: [frame.stills, inspectorStill()?.placement.rect].compactMap { $0 })
            // The mask changes before ncurses writes: no frame may paint over a new overlay,
            // and cells an overlay leaves are repainted by the next frame.
            let changed = frame.overlays != screen.overlayRects
            if changed {
                eraseNewlyCovered(old: screen.overlayRects, new: frame.overlays)
                screen.overlayRects = frame.overlays
            }
            // A new thumbnail can arrive for a preview that stays in place: the output gets the
            // scene whenever stills are up (it ignores a scene equal to the one it has).
            if changed || frame.stills != nil || view.inspector?.tab == .frames { updateOutputScene() }
            updateTerminalTitle(now: now)
            refresh()
            output.drawnOver(rows: written)
            if screen.screenCleared {
                // ncurses just cleared the terminal: everything under the video is gone.
                screen.screenCleared = false
                output.repaint(full: true)
            } else if changed, player.isPaused {
                output.repaint()
            }
        }
    }

    /// The update step before a draw: the chrome's timeout, the message line's expiry, the clock
    /// text's quarter second, the cues of the moment, the music view's bars, the live baseline,
    /// the menu's and the inspector's scroll; marks the screen dirty when any of them changed
    /// what it shows. Returns the cues to draw.
    private func update(now: Double) -> [SubtitleCue] {
        let playing = player.state == .playing
        // The network's trouble (`buffering…`, `reconnecting (2)`) shows the chrome, as mpv's OSD does.
        let visible = view.chromePinned || !playing || view.menu != nil || view.chromeShownByInput(at: now)
            || networkText() != nil
        if visible != screen.chromeVisible { screen.chromeVisible = visible; screen.dirty = true }
        send(.tick(now: now))
        let tick = (player.currentTime * 4).rounded(.down)
        if tick != screen.tick { screen.tick = tick; screen.dirty = true }
        // Cues change on their own (a cue ends, the look-behind prefetch lands while paused).
        // Text cues libass draws into the picture are not text cells too.
        let libass = VideoOutput.drawsTextSubtitles(driver: driver, style: options.subtitleStyle)
        // `sub-visibility` changed: libass's overlay comes or goes on the frame shown (paused too).
        if libass, output.textSubtitlesVisible.exchange(controller.subtitlesVisible, ordering: .relaxed) != controller.subtitlesVisible {
            output.repaint()
        }
        // The music view's lyrics pane shows the lyrics track's line already (highlighted there).
        let lyricsShown = music.map { !$0.layout.lyrics.isEmpty } == true && player.lyricsTrack != nil
            && player.activeSubtitleTrack == player.lyricsTrack
        let cues = controller.subtitlesVisible && !lyricsShown ? player.subtitleCues(at: player.currentTime)
            .filter { $0.text == nil || ($0.hasVisibleText && !(libass && $0.ass != nil)) } : []
        let cueKey = cues.map { "\($0.start)" }.joined(separator: ",")
        // (Bitmap cues come with their frame: the engine hands the shown frame over again
        // when its cues change while paused.)
        if cueKey != screen.cueKey { screen.cueKey = cueKey; screen.dirty = true }
        if musicViewNeedsDrawing(now: now) { screen.dirty = true }
        updateLiveBaseline()
        if var menu = view.menu {
            menu.scrollToSelection(visibleRows: TrackMenuView.visibleRows(in: layout.videoArea))
            view.menu = menu
        }
        if let inspector = view.inspector { InspectorView.keepSelectionsInView(inspector, in: inspectorRect(inspector)) }
        return cues
    }

    /// Live: keeps the smallest latency behind the edge seen since the item began (the bar says
    /// how far behind only beyond it).
    func updateLiveBaseline() {
        guard let latency = player.liveLatency else { return }
        view.liveBaseline = min(view.liveBaseline ?? latency, latency)
    }

    /// Every view of the screen rendered, bottom to top, into one frame. Reads the model only.
    private func composeFrame(subtitles: [SubtitleCellLayout.Line]) -> Frame {
        var frame = Frame(cells: CellGrid(columns: layout.columns, rows: layout.rows))
        musicPane()?.render(into: &frame.cells)
        if screen.chromeVisible {
            titleBar().render(into: &frame.cells)
            transportBar().render(into: &frame.cells)
        }
        if let pane = layout.telemetryPane {
            TelemetryPane(telemetry: telemetry.latest, history: telemetry.history).render(in: pane, into: &frame.cells)
        }
        if !subtitles.isEmpty { frame.overlays += SubtitleCellLayout.render(subtitles, into: &frame.cells) }
        if view.statsShown {
            frame.overlays.append(BoxView(title: "Stats", lines: statsLines(), style: .stats, border: .statsBorder)
                .render(at: (layout.videoArea.column + 1, layout.videoArea.row), into: &frame.cells))
        }
        if view.showHelp { frame.overlays.append(helpBox(into: &frame.cells)) }
        if let inspector = view.inspector {
            let drawn = renderInspector(inspector, into: &frame.cells)
            frame.overlays.append(drawn.covered)
            frame.inspectorPicture = drawn.picture
        }
        if let menu = view.menu {
            let rect = TrackMenuView(menu: menu).render(in: layout.videoArea, into: &frame.cells)
            frame.overlays.append(rect)
            frame.menu = rect
        }
        if let osd = view.osdMessage {
            frame.overlays.append(MessageView(text: osd.text).render(in: layout.videoArea, avoiding: frame.overlays, into: &frame.cells))
        }
        frame.stills = scrubLabel()?.render(into: &frame.cells) ?? filmstripLabels()?.render(into: &frame.cells)
        if let stills = frame.stills { frame.overlays.append(stills) }
        return frame
    }

    /// Cells an overlay now covers still show video on the terminal, while ncurses believes
    /// them blank (it never drew the video) and so skips the overlay's blank cells there: the
    /// picture would show through a box's spaces. Erase them (ECH) before ncurses draws, so the
    /// terminal is what ncurses believes it is; in terminals that keep graphics per cell (xterm)
    /// the erase takes the sixel picture off those cells too. Inside `terminal.withScreen`.
    private func eraseNewlyCovered(old: [CellRect], new: [CellRect]) {
        let pictures = [layout.video, musicPictureRect].compactMap { $0 }.filter { !$0.isEmpty }
        guard !pictures.isEmpty else { return }
        var before = CellMask(columns: layout.columns, rows: layout.rows)
        for r in old { before.cover(r) }
        let bytes = ByteBuffer(capacity: 1024)
        for rect in new {
            for picture in pictures { bytes.appendErase(rect.intersection(picture), sparing: before) }
        }
        emitErase(bytes)
    }

    /// Sends `bytes` (erases) in order with ncurses' output, with default attributes and the
    /// cursor put back; false when there was nothing to send. Inside `terminal.withScreen`.
    @discardableResult
    private func emitErase(_ bytes: ByteBuffer) -> Bool {
        guard !bytes.isEmpty else { return false }
        terminal.emitInScreen(Escape.saveCursor + Escape.resetAttributes + bytes.bytes + Escape.restoreCursor)
        return true
    }

    // MARK: pieces

    /// `--title` over the player's properties (one snapshot, taken only when the title is due
    /// and names a property), sent when it changed. Inside `terminal.withScreen`.
    func updateTerminalTitle(now: Double) {
        guard screen.terminalTitle.isEnabled else { return }
        var snapshot: PlayerSnapshot?
        let bytes = screen.terminalTitle.update(now: now, item: controller.playlist.position) { [controller] name in
            if snapshot == nil { snapshot = controller.snapshot() }
            return snapshot?.text(of: name)
        }
        if let bytes { terminal.emitInScreen(bytes) }
    }

    /// The title line: the media's title (``PlayerController/mediaTitle``) and the chapter playing.
    func titleBar() -> TitleBar {
        let name = controller.mediaTitle ?? URL(fileURLWithPath: currentSource).lastPathComponent
        return TitleBar(title: name, chapter: currentChapter().map { $0.title ?? "chapter" })
    }

    func currentChapter() -> Chapter? {
        let now = player.currentTime
        return player.mediaInfo?.chapters.last { $0.start <= now + 0.01 }
    }

    /// The progress bar's axis: the file, or a live stream's kept window (its right end the
    /// live edge). The bar, the scrub marker and the preview all place times with it.
    func barAxis() -> TransportBar.Axis {
        TransportBar.Axis(duration: player.duration, liveWindow: player.isLive ? player.liveWindow : nil)
    }

    /// The scrub marker's column on the progress bar for `time`.
    func markerColumn(_ time: Double) -> Int {
        barAxis().markerColumn(time, width: layout.columns)
    }

    /// Scrub mode's label, over its preview picture when there is one (nil: not scrubbing).
    private func scrubLabel() -> ScrubLabel? {
        guard let scrub = view.scrub else { return nil }
        let chapter = player.mediaInfo?.chapters.last { $0.start <= scrub.target + 0.01 }
        let marker = markerColumn(scrub.target)
        let spot = view.preview.flatMap { previewPlacement(for: $0, marker: marker) }
        return ScrubLabel(target: scrub.target, chapter: chapter.map { $0.title ?? "chapter" }, marker: marker, pictureLabel: spot?.label)
    }

    /// The filmstrip's labels, on the row above its placed thumbnails (nil: closed).
    private func filmstripLabels() -> FilmstripLabels? {
        guard let strip = view.filmstrip else { return nil }
        return FilmstripLabels(strip: strip, row: filmstripPlacements(strip).map(\.label.row).min())
    }

    /// Cells a still (preview, filmstrip, the inspector's frame) no longer covers are erased (ECH;
    /// xterm drops sixel there too) and their rows rewritten; the video repaints its own cells.
    private func eraseStillLeftovers(now current: [CellRect]) {
        defer { screen.stillRects = current }
        let old = screen.stillRects
        guard !old.isEmpty, old != current else { return }
        var keep = CellMask(columns: layout.columns, rows: layout.rows)
        for rect in current { keep.cover(rect) }
        let bytes = ByteBuffer(capacity: 1024)
        for rect in old { bytes.appendErase(rect, sparing: keep) }
        guard emitErase(bytes) else { return }
        // ncurses rewrites those rows from scratch (the chrome and text under the old stills).
        for rect in old {
            for row in rect.row..<rect.endRow { wtouchln(aether_stdscr(), Int32(row), 1, 1) }
        }
        output.repaint(full: false)
    }

    /// The transport rows' state, from the player and the view (reads them only).
    func transportBar() -> TransportBar {
        let duration = player.duration ?? 0
        let now = player.currentTime
        let axis = barAxis()
        // A source with a demuxer cache shows how far it has read; others what is queued.
        let buffered = axis.live ? now : min(duration, player.cachedUntil ?? (now + telemetry.latest.bufferedSeconds))
        let chapters = duration > 0 ? (player.mediaInfo?.chapters ?? []).dropFirst().map(\.start) : []
        let state: TransportBar.State = player.state == .paused ? .paused : player.state == .seeking ? .seeking
            : player.isBuffering ? .buffering : .playing
        var timeText: String
        if let scrub = view.scrub {
            timeText = "\(TimeFormat.clock(scrub.target)) / \(TimeFormat.clock(duration))  scrub: Enter seeks, Esc leaves"
        } else if let latency = player.liveLatency {
            // As close as playback joined the stream is live; further back says how far.
            // (The loop keeps the baseline: ``updateLiveBaseline()``.)
            let behind = latency - min(view.liveBaseline ?? latency, latency)
            timeText = "\(TimeFormat.clock(now))  LIVE" + (behind >= 2.5 ? " -\(TimeFormat.clock(behind))" : "")
        } else if view.showRemaining {
            timeText = "\(TimeFormat.clock(now)) / -\(TimeFormat.clock(max(0, duration - now)))"
        } else {
            timeText = "\(TimeFormat.clock(now)) / \(TimeFormat.clock(duration))"
        }
        if let network = networkText() { timeText += "  " + network }
        var badges: [TransportBar.Badge] = []
        badges.append(.init(text: player.isMuted ? "muted" : "vol \(Int(player.volume.rounded()))%", role: .status))
        badges.append(.init(text: String(cFormat: "%.2f×", player.rate), role: .status))
        if player.hasVideo, let v = player.playingVideo {
            badges.append(.init(text: v.format.rawValue, role: v.format == .sdr ? .badge : .badgeHDR))
            let upright = v.uprightSize
            badges.append(.init(text: "\(upright.width)×\(upright.height)", role: .badge))
        }
        if let k = player.activeAudioTrack, let a = player.mediaInfo?.audio[safe: k] {
            badges.append(.init(text: a.layoutShort + (a.isAtmos ? " Atmos" : ""), role: .badge))
        }
        badges.append(.init(text: driver.name, role: .badge))
        return TransportBar(state: state, origin: axis.origin, span: axis.span, position: now, buffered: buffered,
                            chapterStarts: chapters, scrubMarker: view.scrub?.target, timeText: timeText, badges: badges)
    }


    /// What the network is doing when the user should know: `reconnecting (2)` while a transfer
    /// is retried, `buffering…` while playback waits for the cache, nil otherwise.
    func networkText() -> String? {
        if case .reconnecting(let attempt) = player.networkStatus?.phase { return "reconnecting (\(attempt))" }
        return player.isBuffering ? "buffering…" : nil
    }

    /// Where text cues go: the bottom of the video rectangle, or under a sixel picture.
    private func subtitleArea() -> CellRect {
        var area = layout.video.isEmpty ? layout.videoArea : layout.video
        // A sixel image hides text drawn over it in some terminals (xterm): use the letterbox
        // rows under the picture when there are any.
        if driver.drawsAboveText, !layout.video.isEmpty, layout.video.endRow < layout.videoArea.endRow {
            area = CellRect(column: layout.video.column, row: layout.videoArea.row, width: layout.video.width,
                            height: layout.videoArea.endRow - layout.videoArea.row)
        }
        return area
    }

    /// The text cues in `cues` placed in cells: as their script places them (SubtitleCellLayout)
    /// over the picture, or, where a sixel picture would hide text drawn over it (xterm), as
    /// lines at the bottom of the subtitle area.
    private func subtitlePlacement(_ cues: [SubtitleCue]) -> [SubtitleCellLayout.Line] {
        let area = subtitleArea()
        guard area.height > 0, cues.contains(where: { $0.text != nil }) else { return [] }
        if !driver.drawsAboveText, !layout.video.isEmpty {
            return subtitleCells.lines(for: cues.filter { $0.text != nil }, in: layout.video)
        }
        let width = max(10, area.width - 4)
        var lines: [String] = []
        for cue in cues {
            guard let text = cue.text else { continue }
            lines += subtitleWraps.lines(start: cue.start, end: cue.end, text: text, width: width).suffix(area.height)
        }
        let bottom = area.endRow - 1
        return lines.suffix(area.height).reversed().enumerated().map { i, line in
            let w = min(DisplayWidth.of(line) + 2, area.width)
            return SubtitleCellLayout.Line(row: bottom - i, column: area.column + max(0, (area.width - w) / 2), width: w,
                                           segments: [SubtitleCellLayout.Segment(text: line, style: SubtitleCellStyle())])
        }
    }

    func statsLines() -> [String] {
        let info = player.mediaInfo
        let t = telemetry.latest
        var lines: [String] = []
        let position = controller.playlist.count > 1 ? "  (\((controller.playlist.position ?? 0) + 1)/\(controller.playlist.count))" : ""
        lines.append("File       \(controller.playlist.current?.displayName ?? URL(fileURLWithPath: currentSource).lastPathComponent)\(position)")
        if let info { lines.append("Container  \(info.containerLongName)") }
        if let v = player.playingVideo {
            lines.append("Video      \(v.codec)\(v.profile.map { " (\($0))" } ?? "")  decoder \(t.videoDecoder)")
            lines.append("           \(v.width)×\(v.height)  \(v.pixelFormat ?? "?")  \(v.frameRate.map { String(cFormat: "%.3f fps", $0) } ?? "")  \(v.format.rawValue)\(t.deinterlacing ? "  deinterlaced" : "")\(t.loopFilterSkip.map { "  loop filter skipped: \($0)" } ?? "")\(t.toneMapping ? "  tone-mapped" : "")")
        }
        if let k = player.activeAudioTrack, let a = info?.audio[safe: k] {
            lines.append("Audio      #\(k + 1) \(a.codec)  \(a.layoutShort)  \(a.tags.language ?? "und")\(a.tags.title.map { "  \"\($0)\"" } ?? "")")
        } else {
            lines.append("Audio      none")
        }
        lines.append("Output     \(t.audioDevice)  \(t.audioFormat)\(player.audioDelay != 0 ? String(cFormat: "  audio delay %+.1f s", player.audioDelay) : "")")
        if let gain = t.replayGain { lines.append("ReplayGain \(gain)") }
        // The music view plays no picture: its stats are the sound's alone.
        if music == nil {
            lines.append("Clock      \(t.clockSource)  A/V \(String(cFormat: "%+.1f ms (p95 %.1f)", t.avGapLastMs, t.avGapP95Ms))")
            lines.append("Frames     \(t.framesPresented) shown, \(t.framesDropped) dropped (\(t.framesDroppedLate) late, \(t.framesDroppedEarly) early), \(t.framesSuperseded) superseded"
                         + (t.framesSkipped > 0 ? ", \(t.framesSkipped) skipped" : ""))
            lines.append(String(cFormat: "Speed      %.2f×   fps %.1f   decode %.2f ms/frame", t.rate, t.observedFPS, t.decodeMsPerFrame))
            let cell = capabilities.cellSize.map { "\($0.width)×\($0.height) px" } ?? "unknown"
            lines.append("Video out  \(outputDescription)  \(layout.video.width)×\(layout.video.height) cells of \(layout.columns)×\(layout.rows)  picture \(layout.renderSize.width)×\(layout.renderSize.height) px  cell \(cell)"
                         + (checksTmuxDelivery && screen.tmuxDelivery.lost > 0 ? "  \(screen.tmuxDelivery.lost) lost in tmux, sent again" : ""))
        } else {
            lines.append("Clock      \(t.clockSource)")
            lines.append(String(cFormat: "Speed      %.2f×", t.rate))
        }
        if let adaptive = player.adaptive {
            lines.append("Variant    \(adaptive.variant.summary) (\(adaptive.variantIndex + 1) of \(player.variants.count))  auto")
            let estimate = adaptive.estimate.map { String(cFormat: "%.2f Mb/s", $0 / 1e6) } ?? "not measured"
            var line = "Bit rate   estimate \(estimate)  \(adaptive.switchCount) switch\(adaptive.switchCount == 1 ? "" : "es")"
            if let last = adaptive.switches.last {
                line += "  last \(last.fromVariant)→\(last.toVariant) at \(TimeFormat.clock(last.position)): \(last.reason)"
            }
            lines.append(line)
        } else if let variant = player.variant {
            let k = player.variants.firstIndex(of: variant).map { " (\($0 + 1) of \(player.variants.count))" } ?? ""
            lines.append("Variant    \(variant.summary)\(k)")
        }
        if let net = player.networkStatus {
            let phase: String
            switch net.phase {
            case .flowing: phase = player.isBuffering ? "buffering" : "flowing"
            case .reconnecting(let attempt): phase = "reconnecting (\(attempt))"
            case .failed: phase = "failed"
            }
            lines.append("Network    \(phase)" + String(cFormat: "  %.1f MB received  %.0f kB/s  %d retries",
                                Double(net.bytes) / 1e6, net.throughput / 1000, net.retries))
            if let until = player.cachedUntil {
                lines.append(String(cFormat: "Cache      %.1f s ahead  %d rebuffers", max(0, until - player.currentTime), t.rebuffers))
            }
        }
        if let track = player.activeSubtitleTrack, let s = player.subtitleTracks.first(where: { $0.id == track }) {
            lines.append("Subtitles  \(s.label)\(player.subtitleDelay != 0 ? String(cFormat: "  delay %+.1f s", player.subtitleDelay) : "")")
        }
        return lines.map { TextSanitizer.clean($0) }
    }

    /// The key help, centred at the top of the video area; returns the cells it covers.
    private func helpBox(into surface: inout CellGrid) -> CellRect {
        let rows = KeyMap.helpRows.map { row in DisplayWidth.clip(row.keys, to: 16).paddedOrCut(to: 16) + " " + row.description }
        let width = (rows.map(DisplayWidth.of).max() ?? 20) + 4
        let column = max(0, (layout.columns - width) / 2)
        return BoxView(title: "Keys", lines: rows + ["", "mouse: hover the bar for a preview, click or drag and release to seek; wheel ±5 s"],
                       style: .help, border: .menuBorder).render(at: (column, layout.videoArea.row), into: &surface)
    }
}
