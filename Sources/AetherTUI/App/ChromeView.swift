import AetherControl
import AetherMedia
import AetherPlayback
import AetherInput
import AetherScreen
import AetherBase
import FoundationEssentials
import TerminalGraphics

/// The screen's views as functions of what they read: the model, the player as read for this
/// pass (``PlayerReading``), the display's layout and driver (``DisplayReading``), the telemetry
/// shown, the music view. Made for each draw; it changes nothing.
struct ChromeView {
    let model: ViewState
    let player: PlayerReading
    let display: DisplayReading
    let telemetry: TelemetrySampler
    let music: MusicView?
    /// The keys as bound: the help overlay lists them.
    let bindings: InputBindings
    /// The loop's clock as the draw began.
    let now: Double

    /// Every view of the screen rendered, bottom to top, into one frame. It reads the model, the
    /// reading and the display, and changes none of them.
    func compose(subtitles: [SubtitleCellLayout.Line]) -> ScreenFrame {
        var frame = ScreenFrame(cells: CellGrid(columns: display.layout.columns, rows: display.layout.rows))
        music?.pane(player).render(into: &frame.cells)
        if display.chromeVisible {
            titleBar().render(into: &frame.cells)
            transportBar().render(into: &frame.cells)
        }
        if let pane = display.layout.telemetryPane {
            TelemetryPane(telemetry: telemetry.latest, history: telemetry.history).render(in: pane, into: &frame.cells)
        }
        if !subtitles.isEmpty { frame.overlays += SubtitleCellLayout.render(subtitles, into: &frame.cells) }
        if model.overlays.statsShown {
            frame.overlays.append(BoxView(title: "Stats", lines: statsLines(), style: .stats, border: .statsBorder)
                .render(at: (display.layout.videoArea.column + 1, display.layout.videoArea.row), into: &frame.cells))
        }
        if model.overlays.help { frame.overlays.append(helpBox(into: &frame.cells)) }
        if let inspector = model.inspector {
            let drawn = InspectorView(inspector: inspector, telemetry: player.mediaInfo == nil ? nil : telemetry.latest)
                .render(in: inspector.rect(in: display.layout.videoArea), into: &frame.cells)
            frame.overlays.append(drawn.covered)
            frame.inspectorPicture = drawn.picture
        }
        let pictureRowsBelow = display.driver.drawsAboveText ? display.driver.rowsBelowPicture : nil
        if let panel = model.equalizer,
           let drawn = EqualizerPanelView(panel: panel).render(in: display.layout.videoArea, pictureRowsBelow: pictureRowsBelow, into: &frame.cells) {
            frame.overlays.append(drawn.box)
            if display.driver.drawsAboveText { frame.equalizerPicture = drawn.plot }
        }
        if let menu = model.menu {
            let rect = TrackMenuView(menu: menu).render(in: display.layout.videoArea, into: &frame.cells)
            frame.overlays.append(rect)
            frame.menu = rect
        }
        if let osd = model.message.current {
            frame.overlays.append(MessageView(text: osd.text).render(in: display.layout.videoArea, avoiding: frame.overlays, into: &frame.cells))
        }
        frame.stills = scrubLabel()?.render(into: &frame.cells) ?? filmstripLabels()?.render(into: &frame.cells)
        if let stills = frame.stills { frame.overlays.append(stills) }
        return frame
    }

    /// The title line: the media's title (``PlayerController/mediaTitle``), a disc's title playing
    /// (`· title 2 of 3`: `--edition=N` plays another) and the chapter playing.
    func titleBar() -> TitleBar {
        var name = player.mediaTitle ?? URL(fileURLWithPath: player.source).lastPathComponent
        if let titles = player.mediaInfo?.titles, let playing = titles.first(where: \.playing) {
            name += " · title \(playing.number) of \(titles.count)"
        }
        return TitleBar(title: name, chapter: player.chapter(at: player.position).map { $0.title ?? "chapter" })
    }

    /// The scrub marker's column on the progress bar for `time`.
    func markerColumn(_ time: Double) -> Int {
        player.barAxis.markerColumn(time, width: display.layout.columns)
    }

    /// Scrub mode's label, over its preview picture when there is one (nil: not scrubbing).
    private func scrubLabel() -> ScrubLabel? {
        guard let scrub = model.scrub else { return nil }
        let chapter = player.chapter(at: scrub.target)
        let marker = markerColumn(scrub.target)
        let spot = model.preview.flatMap { display.stillLayout.preview($0.picture, marker: marker) }
        return ScrubLabel(target: scrub.target, chapter: chapter.map { $0.title ?? "chapter" }, marker: marker, pictureLabel: spot?.label)
    }

    /// The filmstrip's labels, on the row above its placed thumbnails (nil: closed).
    private func filmstripLabels() -> FilmstripLabels? {
        guard let strip = model.filmstrip else { return nil }
        return FilmstripLabels(strip: strip, row: display.stillLayout.filmstrip(strip).map(\.label.row).min())
    }

    /// The transport rows' state, from the player and the view (reads them only).
    func transportBar() -> TransportBar {
        let duration = player.duration ?? 0
        let now = player.position
        let axis = player.barAxis
        // A source with a demuxer cache shows how far it has read; others what is queued.
        let buffered = axis.live ? now : min(duration, player.cachedUntil ?? (now + telemetry.latest.buffer.seconds))
        let chapters = duration > 0 ? (player.mediaInfo?.chapters ?? []).dropFirst().map(\.start) : []
        let state: TransportBar.State = player.state == .paused ? .paused : player.state == .seeking ? .seeking
            : player.isBuffering ? .buffering : .playing
        var timeText: String
        if let scrub = model.scrub {
            timeText = "\(TimeFormat.clock(scrub.target)) / \(TimeFormat.clock(duration))  scrub: Enter seeks, Esc leaves"
        } else if let latency = player.liveLatency {
            // As close as playback joined the stream is live; further back says how far.
            // (The update's tick keeps the baseline: ``HostEvent/tick(now:)``.)
            let behind = latency - min(model.liveBaseline ?? latency, latency)
            timeText = "\(TimeFormat.clock(now))  LIVE" + (behind >= 2.5 ? " -\(TimeFormat.clock(behind))" : "")
        } else if model.chrome.showRemaining {
            timeText = "\(TimeFormat.clock(now)) / -\(TimeFormat.clock(max(0, duration - now)))"
        } else {
            timeText = "\(TimeFormat.clock(now)) / \(TimeFormat.clock(duration))"
        }
        if let network = player.networkText { timeText += "  " + network }
        if let opening = Self.openingText(player.opening, now: self.now) { timeText = opening }
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
        badges.append(.init(text: display.driver.name, role: .badge))
        return TransportBar(state: state, origin: axis.origin, span: axis.span, position: now, buffered: buffered,
                            chapterStarts: chapters, scrubMarker: model.scrub?.target, timeText: timeText, badges: badges)
    }

    /// An open that takes longer than a moment (``TUIApp/openMoment``), named on the transport row
    /// with its time so far: `opening radio.example/stream · 3 s · q to quit` (a URL without its
    /// scheme, a file by its name).
    static func openingText(_ opening: (source: String, since: Double)?, now: Double) -> String? {
        guard let opening, now - opening.since >= TUIApp.openMoment else { return nil }
        let source = opening.source
        let name = source.firstRange(of: "://").map { String(source[$0.upperBound...]) }
            ?? URL(fileURLWithPath: source).lastPathComponent
        return "opening \(TextSanitizer.clean(name)) · \(Int(now - opening.since)) s · q to quit"
    }

    /// Seconds until ``openingText(_:now:)`` next changes (nil: nothing opens).
    static func openingDue(_ opening: (source: String, since: Double)?, now: Double) -> Double? {
        guard let opening else { return nil }
        let elapsed = now - opening.since
        return (elapsed < TUIApp.openMoment ? TUIApp.openMoment : elapsed.rounded(.down) + 1) - elapsed
    }

    /// A reconnect's count and the seconds left before the source gives up: `reconnecting (3, 1.8 s left)`.
    static func reconnecting(_ attempt: Int, _ secondsLeft: Double?) -> String {
        "reconnecting (\(attempt)" + (secondsLeft.map { String(cFormat: ", %.1f s left", $0) } ?? "") + ")"
    }

    func statsLines() -> [String] {
        let info = player.mediaInfo
        let t = telemetry.latest
        var lines: [String] = []
        let position = player.playlistCount > 1 ? "  (\((player.playlistPosition ?? 0) + 1)/\(player.playlistCount))" : ""
        lines.append("File       \(player.itemName ?? URL(fileURLWithPath: player.source).lastPathComponent)\(position)")
        if let info { lines.append("Container  \(info.containerLongName)") }
        if let v = player.playingVideo {
            lines.append("Video      \(v.codec)\(v.profile.map { " (\($0))" } ?? "")  decoder \(t.video.decoder)")
            lines.append("           \(v.width)×\(v.height)  \(v.colour.pixelFormat ?? "?")  \(v.frameRate.map { String(cFormat: "%.3f fps", $0) } ?? "")  \(v.format.rawValue)\(t.video.deinterlacing ? "  deinterlaced" : "")\(t.video.loopFilterSkip.map { "  loop filter skipped: \($0)" } ?? "")\(t.video.toneMapping ? "  tone-mapped" : "")")
        }
        if let k = player.activeAudioTrack, let a = info?.audio[safe: k] {
            lines.append("Audio      #\(k + 1) \(a.label)")
        } else {
            lines.append("Audio      none")
        }
        lines.append("Output     \(t.audio.device)  \(t.audio.format)\(player.audioDelay != 0 ? String(cFormat: "  audio delay %+.1f s", player.audioDelay) : "")")
        if let equalizer = t.audio.equalizer { lines.append("Equalizer  \(TextSanitizer.clean(equalizer))") }
        if let chain = t.audio.filters { lines.append("Filters    \(chain)") }
        if let gain = t.audio.replayGain { lines.append("ReplayGain \(gain)") }
        // The music view plays no picture: its stats are the sound's alone.
        if music == nil {
            lines.append("Clock      \(t.sync.clockSource)  A/V \(String(cFormat: "%+.1f ms (p95 %.1f)", t.sync.gapLastMs, t.sync.gapP95Ms))")
            lines.append("Frames     \(t.frames.presented) shown, \(t.frames.dropped) dropped (\(t.frames.droppedLate) late, \(t.frames.droppedEarly) early), \(t.frames.superseded) superseded"
                         + (t.frames.skipped > 0 ? ", \(t.frames.skipped) skipped" : ""))
            lines.append(String(cFormat: "Speed      %.2f×   fps %.1f   decode %.2f ms/frame", t.rate, t.observedFPS, t.stages.decodeMsPerFrame))
            let cell = display.cellSize.map { "\($0.width)×\($0.height) px" } ?? "unknown"
            lines.append("Video out  \(display.outputDescription)  \(display.layout.video.width)×\(display.layout.video.height) cells of \(display.layout.columns)×\(display.layout.rows)  picture \(display.layout.renderSize.width)×\(display.layout.renderSize.height) px  cell \(cell)"
                         + (display.picturesLostInTmux.map { $0 > 0 ? "  \($0) lost in tmux, sent again" : "" } ?? ""))
        } else {
            lines.append("Clock      \(t.sync.clockSource)")
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
            case .reconnecting(let attempt, let left): phase = Self.reconnecting(attempt, left)
            case .failed(let why): phase = "failed: \(why.cause.name)"
            }
            lines.append("Network    \(phase)" + String(cFormat: "  %.1f MB received  %.0f kB/s  %d retries",
                                Double(net.bytes) / 1e6, net.throughput / 1000, net.retries)
                         + (net.discontinuities > 0 ? "  \(net.discontinuities) discontinuities" : ""))
            if let until = player.cachedUntil {
                lines.append(String(cFormat: "Cache      %.1f s ahead  %d rebuffers", max(0, until - player.position), t.network.rebuffers))
            }
        }
        if let track = player.activeSubtitleTrack, let s = player.subtitleTracks.first(where: { $0.id == track }) {
            lines.append("Subtitles  \(s.label)\(player.subtitleDelay != 0 ? String(cFormat: "  delay %+.1f s", player.subtitleDelay) : "")")
        }
        return lines.map { TextSanitizer.clean($0) }
    }

    /// The key help, centred at the top of the video area; returns the cells it covers.
    private func helpBox(into surface: inout CellGrid) -> CellRect {
        let rows = bindings.helpRows.map { row in DisplayWidth.clip(row.keys, to: 16).paddedOrCut(to: 16) + " " + row.description }
        let width = (rows.map(DisplayWidth.of).max() ?? 20) + 4
        let column = max(0, (display.layout.columns - width) / 2)
        return BoxView(title: "Keys", lines: rows + ["", "mouse: hover the bar for a preview, click or drag and release to seek; wheel ±5 s"],
                       style: .help, border: .menuBorder).render(at: (column, display.layout.videoArea.row), into: &surface)
    }
}
