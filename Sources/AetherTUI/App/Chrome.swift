import AetherEngine
import CNcurses
import Foundation
import TerminalGraphics

extension TUIApp {
    /// Redraws the chrome and overlays (ncurses sends only what changed) when something moved.
    func draw() {
        let now = MonotonicClock.seconds()
        let playing = player.state == .playing
        // The network's trouble (`buffering…`, `reconnecting (2)`) shows the chrome, as mpv's OSD does.
        let visible = view.chromePinned || !playing || view.menu != nil || now - view.lastInput < ViewState.chromeTimeout
            || networkText() != nil
        if visible != view.chromeVisible { view.chromeVisible = visible; view.dirty = true }
        if let osd = view.osdMessage, now > osd.until {
            view.osdMessage = nil
            view.dirty = true
            // The next start-up warning (aether-tui.conf, input.conf, playlists) in turn.
            if !view.queuedMessages.isEmpty { self.osd(view.queuedMessages.removeFirst(), seconds: 4) }
        }
        let tick = (player.currentTime * 4).rounded(.down)
        if tick != lastDrawnFrameSecond { lastDrawnFrameSecond = tick; view.dirty = true }
        // Cues change on their own (a cue ends, the look-behind prefetch lands while paused).
        // Text cues libass draws into the picture are not text cells too.
        let libass = VideoOutput.drawsTextSubtitles(driver: driver, style: options.subtitleStyle)
        // `sub-visibility` changed: libass's overlay comes or goes on the frame shown (paused too).
        if libass, output.textSubtitlesVisible.exchange(controller.subtitlesVisible, ordering: .relaxed) != controller.subtitlesVisible {
            output.repaint()
        }
        let cues = controller.subtitlesVisible ? player.subtitleCues(at: player.currentTime)
            .filter { $0.text == nil || ($0.hasVisibleText && !(libass && $0.ass != nil)) } : []
        let cueKey = cues.map { "\($0.start)" }.joined(separator: ",")
        // (Bitmap cues come with their frame: the engine hands the shown frame over again
        // when its cues change while paused.)
        if cueKey != view.cueKey { view.cueKey = cueKey; view.dirty = true }
        if musicViewNeedsDrawing(now: now) { view.dirty = true }
        guard view.dirty else { return }
        view.dirty = false
        // Wrapped here, outside the terminal lock, and only when a cue is new (SubtitleWrapCache).
        let subtitles = subtitlePlacement(cues)

        var overlays: [CellRect] = []
        terminal.withScreen {
            erase()
            drawMusicView()
            if view.chromeVisible {
                drawTitle()
                drawTransport()
            }
            if let pane = layout.telemetryPane { drawTelemetry(in: pane) }
            overlays += drawSubtitles(subtitles)
            if view.showStats { overlays.append(drawStats()) }
            if view.showHelp { overlays.append(drawHelp()) }
            if let inspector = view.inspector { overlays.append(drawInspector(inspector)) }
            if view.menu != nil { let r = drawMenu(); overlays.append(r); view.menuRect = r } else { view.menuRect = nil }
            if let osd = view.osdMessage { overlays.append(drawOSD(osd.text, avoiding: overlays)) }
            let stillsRect = drawScrubPreview() ?? drawFilmstrip()
            if let stillsRect { overlays.append(stillsRect) }
            erasePreviewLeftovers(now: stillsRect)
            // The mask changes before ncurses writes: no frame may paint over a new overlay,
            // and cells an overlay leaves are repainted by the next frame.
            let changed = overlays != view.overlayRects
            if changed {
                eraseNewlyCovered(old: view.overlayRects, new: overlays)
                view.overlayRects = overlays
            }
            // A new thumbnail can arrive for a preview that stays in place: the output gets the
            // scene whenever stills are up (it ignores a scene equal to the one it has).
            if changed || stillsRect != nil || view.inspector?.tab == .frames { updateOutputScene() }
            refresh()
            if view.screenCleared {
                // ncurses just cleared the terminal: everything under the video is gone.
                view.screenCleared = false
                output.repaint(full: true)
            } else if changed, player.isPaused {
                output.repaint()
            }
        }
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

    private func drawTitle() {
        let info = player.mediaInfo
        let name = info?.title ?? player.tags.title ?? controller.playlist.current?.displayName ?? URL(fileURLWithPath: currentSource).lastPathComponent
        let title = TextSanitizer.clean(name)
        Curses.fill(row: 0, column: 0, width: layout.columns, style: palette[.title])
        Curses.put(" " + title, row: 0, column: 0, style: palette[.title], width: layout.columns - 1)
        if let chapter = currentChapter() {
            let text = "\(TextSanitizer.clean(chapter.title ?? "chapter")) "
            Curses.put(text, row: 0, column: max(0, layout.columns - DisplayWidth.of(text)), style: palette[.title])
        }
    }

    func currentChapter() -> Chapter? {
        let now = player.currentTime
        return player.mediaInfo?.chapters.last { $0.start <= now + 0.01 }
    }

    /// The progress bar's column for `time`.
    func markerColumn(_ time: Double) -> Int {
        let duration = player.duration ?? 0
        return duration > 0 ? min(layout.columns - 1, Int(saturating: min(1, max(0, time / duration)) * Double(layout.columns))) : 0
    }

    /// The scrub preview's label row and cells (a box the video leaves alone; the picture is
    /// drawn there by the output's still driver). Nil when there is none.
    private func drawScrubPreview() -> CellRect? {
        guard let scrub = view.scrub else { return nil }
        let chapter = player.mediaInfo?.chapters.last { $0.start <= scrub.target + 0.01 }
        let label = " " + TimeFormat.clock(scrub.target) + (chapter.map { "  " + TextSanitizer.clean($0.title ?? "chapter") } ?? "") + " "
        guard let preview = view.preview,
              let spot = previewPlacement(for: preview, marker: markerColumn(scrub.target)) else {
            // No picture (yet): the label alone, above the marker.
            let w = min(layout.columns, DisplayWidth.of(label))
            let column = min(layout.columns - w, max(0, markerColumn(scrub.target) - w / 2))
            Curses.put(label, row: layout.rows - 3, column: column, style: palette[.status], width: w)
            return CellRect(column: column, row: layout.rows - 3, width: w, height: 1)
        }
        let rect = CellRect(column: spot.label.column, row: spot.label.row, width: spot.label.width,
                            height: layout.rows - 2 - spot.label.row)
        Curses.fill(row: spot.label.row, column: rect.column, width: rect.width, style: palette[.status])
        Curses.put(label, row: spot.label.row, column: rect.column, style: palette[.status], width: rect.width)
        return rect
    }

    /// The filmstrip's labels (time; the chosen one highlighted) and the cells its thumbnails
    /// cover. Nil when it is closed.
    private func drawFilmstrip() -> CellRect? {
        guard let strip = view.filmstrip else { return nil }
        let items = filmstripPlacements(strip)
        let left = strip.column(of: 0, screenColumns: layout.columns)
        let top = items.map(\.label.row).min() ?? (layout.rows - 3)
        for (slot, time) in strip.times.enumerated() {
            let column = strip.column(of: slot, screenColumns: layout.columns)
            guard column + strip.width <= layout.columns else { break }
            let role: ThemeRole = slot == strip.selection ? .menuSelected : .status
            let text = (slot == strip.selection ? "▶ " : "  ") + TimeFormat.clock(strip.shown[slot] ?? time)
            Curses.fill(row: top, column: column, width: strip.width, style: palette[role])
            Curses.put(text, row: top, column: column, style: palette[role], width: strip.width)
        }
        return CellRect(column: left, row: top, width: min(strip.totalWidth, layout.columns - left), height: layout.rows - 2 - top)
    }

    /// Cells the preview covered and no longer does, outside the video's picture: nothing else
    /// repaints them (the video repaints its own cells), and ncurses believes them blank, so
    /// they are erased (ECH; xterm drops the sixel picture there too).
    private func erasePreviewLeftovers(now current: CellRect?) {
        defer { view.previewRect = current }
        guard let old = view.previewRect, old != current else { return }
        var keep = CellMask(columns: layout.columns, rows: layout.rows)
        if let current { keep.cover(current) }
        let bytes = ByteBuffer(capacity: 1024)
        bytes.appendErase(old, sparing: keep)
        guard emitErase(bytes) else { return }
        // ncurses rewrites those rows from scratch (the chrome under the old preview).
        for row in old.row..<old.endRow { wtouchln(aether_stdscr(), Int32(row), 1, 1) }
        output.repaint(full: false)
    }

    private func drawTransport() {
        var surface = CursesSurface(palette: palette)
        transportBar().render(into: &surface)
    }

    /// The transport rows' state, from the player and the view.
    func transportBar() -> TransportBar {
        let duration = player.duration ?? 0
        let now = player.currentTime
        // Live: the bar spans the kept window, its right end the live edge.
        let live = player.isLive ? player.liveWindow : nil
        let origin = live?.lowerBound ?? 0
        let span = live.map { $0.upperBound - $0.lowerBound } ?? duration
        // A source with a demuxer cache shows how far it has read; others what is queued.
        let buffered = live != nil ? now : min(duration, player.cachedUntil ?? (now + lastTelemetry.bufferedSeconds))
        let chapters = duration > 0 ? (player.mediaInfo?.chapters ?? []).dropFirst().map(\.start) : []
        let state: TransportBar.State = player.state == .paused ? .paused : player.state == .seeking ? .seeking
            : player.isBuffering ? .buffering : .playing
        var timeText: String
        if let scrub = view.scrub {
            timeText = "\(TimeFormat.clock(scrub.target)) / \(TimeFormat.clock(duration))  scrub: Enter seeks, Esc leaves"
        } else if let latency = player.liveLatency {
            // As close as playback joined the stream is live; further back says how far.
            let baseline = min(view.liveBaseline ?? latency, latency)
            view.liveBaseline = baseline
            let behind = latency - baseline
            timeText = "\(TimeFormat.clock(now))  LIVE" + (behind >= 2.5 ? " -\(TimeFormat.clock(behind))" : "")
        } else if view.showRemaining {
            timeText = "\(TimeFormat.clock(now)) / -\(TimeFormat.clock(max(0, duration - now)))"
        } else {
            timeText = "\(TimeFormat.clock(now)) / \(TimeFormat.clock(duration))"
        }
        if let network = networkText() { timeText += "  " + network }
        var badges: [TransportBar.Badge] = []
        badges.append(.init(text: player.isMuted ? "muted" : "vol \(Int(player.volume.rounded()))%", role: .status))
        badges.append(.init(text: String(format: "%.2f×", player.rate), role: .status))
        if player.hasVideo, let v = player.mediaInfo?.primaryVideo {
            badges.append(.init(text: v.format.rawValue, role: v.format == .sdr ? .badge : .badgeHDR))
            badges.append(.init(text: "\(v.width)×\(v.height)", role: .badge))
        }
        if let k = player.activeAudioTrack, let a = player.mediaInfo?.audio[safe: k] {
            badges.append(.init(text: a.layoutShort + (a.isAtmos ? " Atmos" : ""), role: .badge))
        }
        badges.append(.init(text: driver.name, role: .badge))
        return TransportBar(state: state, origin: origin, span: span, position: now, buffered: buffered,
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

    /// Draws the placed subtitle lines; returns the cells they cover. Caller holds `tty`.
    private func drawSubtitles(_ lines: [SubtitleCellLayout.Line]) -> [CellRect] {
        guard !lines.isEmpty else { return [] }
        var surface = CursesSurface(palette: palette)
        return SubtitleCellLayout.render(lines, into: &surface)
    }

    func statsLines() -> [String] {
        let info = player.mediaInfo
        let t = lastTelemetry
        var lines: [String] = []
        let position = controller.playlist.count > 1 ? "  (\((controller.playlist.position ?? 0) + 1)/\(controller.playlist.count))" : ""
        lines.append("File       \(controller.playlist.current?.displayName ?? URL(fileURLWithPath: currentSource).lastPathComponent)\(position)")
        if let info { lines.append("Container  \(info.containerLongName)") }
        if let v = info?.primaryVideo {
            lines.append("Video      \(v.codec)\(v.profile.map { " (\($0))" } ?? "")  decoder \(t.videoDecoder)")
            lines.append("           \(v.width)×\(v.height)  \(v.pixelFormat ?? "?")  \(v.frameRate.map { String(format: "%.3f fps", $0) } ?? "")  \(v.format.rawValue)\(t.deinterlacing ? "  deinterlaced" : "")\(t.loopFilterSkip.map { "  loop filter skipped: \($0)" } ?? "")\(t.toneMapping ? "  tone-mapped" : "")")
        }
        if let k = player.activeAudioTrack, let a = info?.audio[safe: k] {
            lines.append("Audio      #\(k + 1) \(a.codec)  \(a.layoutShort)  \(a.tags.language ?? "und")\(a.tags.title.map { "  \"\($0)\"" } ?? "")")
        } else {
            lines.append("Audio      none")
        }
        lines.append("Output     \(t.audioDevice)  \(t.audioFormat)\(player.audioDelay != 0 ? String(format: "  audio delay %+.1f s", player.audioDelay) : "")")
        lines.append("Clock      \(t.clockSource)  A/V \(String(format: "%+.1f ms (p95 %.1f)", t.avGapLastMs, t.avGapP95Ms))")
        lines.append("Frames     \(t.framesPresented) shown, \(t.framesDropped) dropped (\(t.framesDroppedLate) late, \(t.framesDroppedEarly) early), \(t.framesSuperseded) superseded")
        lines.append(String(format: "Speed      %.2f×   fps %.1f   decode %.2f ms/frame", t.rate, t.observedFPS, t.decodeMsPerFrame))
        let cell = capabilities.cellSize.map { "\($0.width)×\($0.height) px" } ?? "unknown"
        lines.append("Video out  \(outputDescription)  \(layout.video.width)×\(layout.video.height) cells of \(layout.columns)×\(layout.rows)  picture \(layout.renderSize.width)×\(layout.renderSize.height) px  cell \(cell)")
        if let adaptive = player.adaptive {
            lines.append("Variant    \(adaptive.variant.summary) (\(adaptive.variantIndex + 1) of \(player.variants.count))  auto")
            let estimate = adaptive.estimate.map { String(format: "%.2f Mb/s", $0 / 1e6) } ?? "not measured"
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
            lines.append(String(format: "Network    %@  %.1f MB received  %.0f kB/s  %d retries", phase,
                                Double(net.bytes) / 1e6, net.throughput / 1000, net.retries))
            if let until = player.cachedUntil {
                lines.append(String(format: "Cache      %.1f s ahead  %d rebuffers", max(0, until - player.currentTime), t.rebuffers))
            }
        }
        if let track = player.activeSubtitleTrack, let s = player.subtitleTracks.first(where: { $0.id == track }) {
            lines.append("Subtitles  \(s.label)\(player.subtitleDelay != 0 ? String(format: "  delay %+.1f s", player.subtitleDelay) : "")")
        }
        return lines.map { TextSanitizer.clean($0) }
    }

    private func drawStats() -> CellRect {
        box(title: "Stats", lines: statsLines(), at: (layout.videoArea.column + 1, layout.videoArea.row), style: .stats, border: .statsBorder)
    }

    private func drawHelp() -> CellRect {
        let rows = KeyMap.helpRows.map { row in DisplayWidth.clip(row.keys, to: 16).padding(toLength: 16, withPad: " ", startingAt: 0) + " " + row.description }
        let width = (rows.map(DisplayWidth.of).max() ?? 20) + 4
        let column = max(0, (layout.columns - width) / 2)
        return box(title: "Keys", lines: rows + ["", "mouse: hover the bar for a preview, click or drag and release to seek; wheel ±5 s"], at: (column, layout.videoArea.row), style: .help, border: .menuBorder)
    }

    private func drawMenu() -> CellRect {
        guard var menu = view.menu else { return CellRect(column: 0, row: 0, width: 0, height: 0) }
        let maxItems = max(1, layout.videoArea.height - 3)
        if menu.selection < menu.scroll { menu.scroll = menu.selection }
        if menu.selection >= menu.scroll + maxItems { menu.scroll = menu.selection - maxItems + 1 }
        view.menu = menu
        let visible = Array(menu.items.enumerated()).dropFirst(menu.scroll).prefix(maxItems)
        let lines = visible.map { ($0.element.current ? "● " : "  ") + $0.element.label }
        let width = min(layout.columns - 2, max(DisplayWidth.of(menu.title) + 4, (lines.map(DisplayWidth.of).max() ?? 10) + 4))
        let height = lines.count + 2
        let column = max(0, layout.columns - width - 2)
        let row = max(layout.videoArea.row, layout.rows - 2 - height)
        let rect = box(title: menu.title, lines: lines, at: (column, row), style: .menu, border: .menuBorder, width: width)
        if let selectedRow = visible.firstIndex(where: { $0.offset == menu.selection }).map({ $0 - visible.startIndex }) {
            Curses.put(" " + DisplayWidth.clip(lines[selectedRow], to: width - 3).padding(toLength: width - 3, withPad: " ", startingAt: 0),
                       row: row + 1 + selectedRow, column: column + 1, style: palette[.menuSelected], width: width - 2)
        }
        return rect
    }

    /// The message line: the top row of the video area, or the first row below the boxes open
    /// there (a message never covers a box's border or text).
    private func drawOSD(_ text: String, avoiding boxes: [CellRect]) -> CellRect {
        var surface = CursesSurface(palette: palette)
        return MessageView(text: text).render(in: layout.videoArea, avoiding: boxes, into: &surface)
    }


    private func drawTelemetry(in pane: CellRect) {
        let t = lastTelemetry
        let h = telemetryHistory
        let spark = pane.width - 14
        var lines: [(String, String)] = [
            (String(format: "bitrate %5.2f Mb/s", t.instantBitrate / 1e6), TelemetryHistory.sparkline(h.bitrate, width: spark)),
            (String(format: "A/V gap %+5.1f ms", t.avGapLastMs), TelemetryHistory.sparkline(h.gap, width: spark)),
            (String(format: "fps     %5.1f", t.observedFPS), TelemetryHistory.sparkline(h.fps, width: spark)),
            (String(format: "tty     %5.0f kB/s", (h.terminalBytes.last ?? 0) / 1000), TelemetryHistory.sparkline(h.terminalBytes, width: spark)),
        ]
        lines.append((String(format: "buffer  %5.1f s, %d frames", t.bufferedSeconds, t.bufferedFrames), ""))
        if let bytes = t.networkBytes {
            lines.append((String(format: "net     %5.0f kB/s, %.1f MB, %d retries, %d rebuffers",
                                 (t.networkBytesPerSecond ?? 0) / 1000, Double(bytes) / 1e6, t.networkRetries ?? 0, t.rebuffers), ""))
        }
        if let rate = t.hlsBitrate {
            var line = String(format: "variant %d  %.2f Mb/s", t.variantNumber ?? 0, Double(rate) / 1e6)
            if let estimate = t.estimatedThroughput { line += String(format: "  est %.2f", estimate / 1e6) }
            if let switches = t.variantSwitches { line += "  \(switches) sw" }
            lines.append((line, ""))
        }
        lines.append(("frames  \(t.framesPresented) shown \(t.framesDropped) dropped", ""))
        lines.append((String(format: "decode  %5.2f ms/frame", t.decodeMsPerFrame), ""))
        // The pipeline stage by stage (ms per packet for read, per frame for the rest).
        lines.append((String(format: "read %.2f filter %.2f scale %.2f", t.readMsPerPacket, t.filterMsPerFrame, t.scaleMsPerFrame), ""))
        lines.append((String(format: "render %.2f write %.2f ms", t.renderMsPerFrame, t.writeMsPerFrame), ""))
        lines.append(("clock   \(t.clockSource)", ""))
        lines.append(("audio   \(t.audioDevice)", ""))
        var row = pane.row
        Curses.put(" Telemetry", row: row, column: pane.column, style: palette[.statsBorder], width: pane.width)
        row += 1
        for (label, sparkline) in lines where row < pane.endRow {
            Curses.put(" " + label, row: row, column: pane.column, style: palette[.telemetry], width: pane.width)
            row += 1
            if !sparkline.isEmpty, row < pane.endRow {
                Curses.put("  " + sparkline, row: row, column: pane.column, style: palette[.sparkline], width: pane.width)
                row += 1
            }
        }
    }

    /// A bordered box of `lines`; returns the cells it covers.
    @discardableResult
    private func box(title: String, lines: [String], at origin: (Int, Int), style: ThemeRole, border: ThemeRole, width: Int? = nil) -> CellRect {
        var surface = CursesSurface(palette: palette)
        return BoxView(title: title, lines: lines, style: style, border: border, width: width)
            .render(at: (origin.0, origin.1), into: &surface)
    }

}

enum TimeFormat {
    /// `m:ss`, or `h:mm:ss` from an hour on.
    static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(saturating: seconds.isFinite ? min(seconds, 3.6e9) : 0))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                         : String(format: "%02d:%02d", s / 60, s % 60)
    }
}
