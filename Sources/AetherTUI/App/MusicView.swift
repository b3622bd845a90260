import AetherEngine
import Foundation
import TerminalGraphics

/// Where the music view puts its parts inside the picture area. Pure, so it is unit-tested.
///
/// Wide enough: the cover on the left (square in pixels, at most two fifths of the width), the
/// tags to its right, the spectrum under them down to the area's foot. Narrow: the cover on top
/// when there is height to spare, then the tags, then the spectrum. When the spectrum would be
/// too small to read, a one-row level meter takes its place; when even that has no row, the
/// tags give up their last lines for it.
struct MusicLayout: Equatable {
    /// Where the cover (or its placeholder) goes; empty: no cover.
    var cover: CellRect
    /// The tag lines.
    var text: CellRect
    /// The spectrum's bars, or the level meter's row.
    var bars: CellRect
    /// The bars area is a one-row level meter.
    var meter: Bool

    /// Smallest spectrum worth drawing; below it the level meter.
    static let minimumBars = (columns: 16, rows: 3)

    /// - Parameter textLines: how many tag lines there are to show.
    init(area: CellRect, cellSize: CellSize, textLines: Int) {
        let empty = CellRect(column: area.column, row: area.row, width: 0, height: 0)
        cover = empty
        text = empty
        bars = empty
        meter = false
        // One blank row above and below, two columns either side.
        let inner = CellRect(column: area.column + 2, row: area.row + 1, width: max(0, area.width - 4), height: max(0, area.height - 2))
        guard inner.width >= 8, inner.height >= 1 else { return }
        let cellAspect = Double(max(1, cellSize.height)) / Double(max(1, cellSize.width))
        var below = inner   // what the tags and the bars share
        if inner.width >= 50, inner.height >= 8 {
            var rows = inner.height
            var columns = Int((Double(rows) * cellAspect).rounded())
            if columns > inner.width * 2 / 5 {
                columns = inner.width * 2 / 5
                rows = min(inner.height, max(1, Int((Double(columns) / cellAspect).rounded())))
            }
            cover = CellRect(column: inner.column, row: inner.row, width: columns, height: rows)
            let left = cover.endColumn + 3
            below = CellRect(column: left, row: inner.row, width: inner.endColumn - left, height: inner.height)
        } else if inner.height >= 14, inner.width >= 12 {
            let rows = min(inner.height - 8, max(1, Int((Double(inner.width) / cellAspect).rounded())))
            cover = CellRect(column: inner.column, row: inner.row, width: inner.width, height: rows)
            below = CellRect(column: inner.column, row: cover.endRow + 1, width: inner.width, height: inner.endRow - cover.endRow - 1)
        }
        var textRows = min(max(0, textLines), below.height)
        if below.height - textRows < 2, below.height >= 3 { textRows = below.height - 2 }
        text = CellRect(column: below.column, row: below.row, width: below.width, height: textRows)
        let top = text.endRow + 1
        let barRows = below.endRow - top
        guard barRows >= 1 else { return }
        bars = CellRect(column: below.column, row: top, width: below.width, height: barRows)
        if barRows < Self.minimumBars.rows || below.width < Self.minimumBars.columns {
            meter = true
            bars = CellRect(column: below.column, row: below.endRow - 1, width: below.width, height: 1)
        }
    }

    /// Bands for a spectrum `width` columns wide: a bar of `barWidth` columns and a column of gap each.
    static func bands(width: Int) -> (count: Int, barWidth: Int) {
        let count = min(48, max(1, width / 3))
        return (count, max(1, width / count - 1))
    }

    /// The glyphs of a bar `rows` tall at `level` (0…1), bottom row first: full blocks and one
    /// partial block (▁…▇) on top, in eighths of a cell.
    static func barGlyphs(level: Float, rows: Int) -> [Character] {
        let eighths = Int((Double(min(1, max(0, level))) * Double(rows * 8)).rounded())
        return (0..<rows).map { row in blocks[min(8, max(0, eighths - row * 8))] }
    }

    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    /// Left-aligned partial blocks for the level meter, in eighths.
    static let meterBlocks: [Character] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"]

    /// A one-row meter `width` columns wide at `level` (0…1).
    static func meterGlyphs(level: Float, width: Int) -> String {
        let eighths = Int((Double(min(1, max(0, level))) * Double(width * 8)).rounded())
        return String((0..<width).map { meterBlocks[min(8, max(0, eighths - $0 * 8))] })
    }
}

/// The music view's state (UI thread): the cover, the spectrum analyser and its smoothed bars.
final class MusicView {
    var layout: MusicLayout
    /// The cover as the output draws it, and where (nil: none, or no room).
    let cover: VideoOutput.StillPicture?
    let coverStamp: Int
    var coverPlacement: Placement?
    /// Nil when libavutil could not make the transform (then the level meter is drawn).
    let analyzer: SpectrumAnalyzer?
    var samples = [Float](repeating: 0, count: 2048)
    var bands: [Float] = []
    var smoother = SpectrumSmoother()
    var lastUpdate = 0.0
    /// What was last drawn (a redraw is asked for only when it changes).
    var drawnLevels: [Float] = []

    /// Spectrum updates per second, at most.
    static let rate = 30.0

    init(cover: StillImage?, stamp: Int, layout: MusicLayout) {
        self.layout = layout
        self.cover = cover.map { VideoOutput.StillPicture(width: $0.width, height: $0.height, pixels: $0.pixels) }
        coverStamp = stamp
        do { analyzer = try SpectrumAnalyzer(size: 2048) } catch {
            FFmpegLog.write("tui", "no spectrum (\(error)); level meter instead")
            analyzer = nil
        }
    }

    /// Takes the samples playing now into the bars (or the meter); true when what is drawn changes.
    func update(player: Player, now: Double) -> Bool {
        let elapsed = lastUpdate == 0 ? 0 : now - lastUpdate
        lastUpdate = now
        let rate = player.audioWindow(into: &samples)
        if layout.meter || analyzer == nil {
            let (rms, peak) = samples.withUnsafeBufferPointer { LevelMeter.measure($0) }
            bands = rate == nil ? [0, 0] : [LevelMeter.fraction(rms), LevelMeter.fraction(peak)]
        } else if let analyzer {
            let count = MusicLayout.bands(width: layout.bars.width).count
            if let rate {
                samples.withUnsafeBufferPointer { analyzer.levels(of: $0, sampleRate: rate, bands: count, into: &bands) }
            } else {
                bands = [Float](repeating: 0, count: count)
            }
        }
        smoother.update(bands, elapsed: elapsed)
        let levels = smoother.levels + smoother.peaks
        guard levels != drawnLevels else { return false }
        drawnLevels = levels
        return true
    }
}

extension TUIApp {
    /// Relayout: the music view comes when no video stream plays (an audio file, `--vid=no`,
    /// a video stream left out as undecodable) and goes when one does.
    func layoutMusicView() {
        guard !player.hasVideo else { music = nil; return }
        let musicLayout = MusicLayout(area: layout.videoArea, cellSize: layout.geometry.cellSize,
                                      textLines: musicTagLines().count)
        if music == nil {
            view.previewStamp += 1
            music = MusicView(cover: player.coverArt, stamp: view.previewStamp, layout: musicLayout)
        }
        guard let music else { return }
        music.layout = musicLayout
        music.drawnLevels = []
        music.coverPlacement = music.cover.flatMap { picture in
            let placement = driver.placement(for: musicLayout.cover, displayAspect: Double(picture.width) / Double(picture.height),
                                             geometry: layout.geometry, scale: 1)
            return placement.isEmpty ? nil : placement
        }
    }

    /// UI loop: whether the music view wants drawing now (its bars moved), ~30 times a second
    /// while playing. Also notices the video stream going (or coming) and lays out again.
    func musicViewNeedsDrawing(now: Double) -> Bool {
        if (music != nil) == player.hasVideo {
            relayout()
            return true
        }
        guard let music, now - music.lastUpdate >= 1 / MusicView.rate * 0.9 else { return false }
        return music.update(player: player, now: now)
    }

    /// The cover as a still of the active output, kept out of the cells `mask` covers (overlays).
    func musicCoverStill(mask: CellMask) -> VideoOutput.Still? {
        guard let music, let picture = music.cover, let placement = music.coverPlacement else { return nil }
        return VideoOutput.Still(placement: placement, stamp: music.coverStamp, picture: picture, mask: mask)
    }

    /// The cells the cover's picture covers (an overlay opening over them erases them first).
    var musicPictureRect: CellRect? { music?.coverPlacement?.rect }

    /// Draws the tags, the placeholder for a missing cover, and the spectrum or level meter.
    /// Inside `terminal.withScreen`, after `erase()` and before the overlays.
    func drawMusicView() {
        guard let music else { return }
        let l = music.layout
        if music.coverPlacement == nil, !l.cover.isEmpty { drawCoverPlaceholder(l.cover) }
        drawTags(in: l.text)
        if l.meter || music.analyzer == nil {
            drawMeter(music, in: l.meter ? l.bars : CellRect(column: l.bars.column, row: l.bars.endRow - 1, width: l.bars.width, height: min(1, l.bars.height)))
        } else {
            drawSpectrum(music, in: l.bars)
        }
    }

    /// The tag lines: title (the file name when untagged), artist, album, track · year · genre,
    /// and the audio format. Every value is sanitised (again in `Curses.put`).
    func musicTagLines() -> [(String, ThemeRole)] {
        let tags = player.tags
        let name = controller.playlist.current?.displayName ?? URL(fileURLWithPath: currentSource).lastPathComponent
        var lines: [(String, ThemeRole)] = [(tags.title ?? player.mediaInfo?.title ?? name, .title)]
        if let artist = tags.artist ?? tags.albumArtist { lines.append((artist, .time)) }
        if let album = tags.album { lines.append((album, .status)) }
        let details = [tags.track.map { "Track \($0)" }, tags.year, tags.genre].compactMap { $0 }
        if !details.isEmpty { lines.append((details.joined(separator: " · "), .status)) }
        if let k = player.activeAudioTrack, let a = player.mediaInfo?.audio[safe: k] {
            let khz = Double(a.sampleRate) / 1000
            let rate = khz == khz.rounded() ? String(format: "%.0f kHz", khz) : String(format: "%.1f kHz", khz)
            lines.append(([a.codec, rate, a.layoutShort].joined(separator: " · "), .telemetry))
        }
        return lines.map { (TextSanitizer.clean($0.0), $0.1) }
    }

    private func drawTags(in rect: CellRect) {
        for (i, line) in musicTagLines().prefix(rect.height).enumerated() {
            Curses.put(line.0, row: rect.row + i, column: rect.column, style: palette[line.1], width: rect.width)
        }
    }

    /// A frame with a note in it where the cover would be.
    private func drawCoverPlaceholder(_ rect: CellRect) {
        guard rect.width >= 3, rect.height >= 3 else { return }
        let style = palette[.menuBorder]
        Curses.put("┌" + String(repeating: "─", count: rect.width - 2) + "┐", row: rect.row, column: rect.column, style: style)
        for row in (rect.row + 1)..<(rect.endRow - 1) {
            Curses.put("│", row: row, column: rect.column, style: style)
            Curses.put("│", row: row, column: rect.endColumn - 1, style: style)
        }
        Curses.put("└" + String(repeating: "─", count: rect.width - 2) + "┘", row: rect.endRow - 1, column: rect.column, style: style)
        let label = rect.width >= 12 ? "♪ no cover" : "♪"
        Curses.put(label, row: rect.row + rect.height / 2, column: rect.column + max(1, (rect.width - DisplayWidth.of(label)) / 2),
                   style: palette[.status], width: rect.width - 2)
    }

    private func drawSpectrum(_ music: MusicView, in rect: CellRect) {
        let levels = music.smoother.levels, peaks = music.smoother.peaks
        let (count, barWidth) = MusicLayout.bands(width: rect.width)
        guard levels.count == count, rect.height > 0 else { return }
        let left = rect.column + (rect.width - count * (barWidth + 1) + 1) / 2
        for band in 0..<count {
            let column = left + band * (barWidth + 1)
            let glyphs = MusicLayout.barGlyphs(level: levels[band], rows: rect.height)
            for (k, glyph) in glyphs.enumerated() where glyph != " " {
                Curses.put(String(repeating: glyph, count: barWidth), row: rect.endRow - 1 - k, column: column, style: palette[.sparkline])
            }
            // The peak mark floats above the bar while it holds.
            let peakRow = min(rect.height - 1, Int(Double(peaks[band]) * Double(rect.height * 8)) / 8)
            if peaks[band] > 0.02, glyphs[peakRow] == " " {
                Curses.put(String(repeating: "▁", count: barWidth), row: rect.endRow - 1 - peakRow, column: column, style: palette[.progressChapter])
            }
        }
    }

    private func drawMeter(_ music: MusicView, in rect: CellRect) {
        guard rect.height > 0, rect.width >= 6 else { return }
        let levels = music.smoother.levels
        let rms = levels.first ?? 0, peak = music.smoother.peaks.last ?? 0
        let db = rms > 0 ? String(format: " %3.0f dB", Double(rms - 1) * Double(-SpectrumAnalyzer.floorDB)) : "   -∞ dB"
        let width = max(1, rect.width - DisplayWidth.of(db))
        Curses.put(MusicLayout.meterGlyphs(level: rms, width: width), row: rect.row, column: rect.column, style: palette[.sparkline])
        let peakColumn = min(width - 1, Int(Double(peak) * Double(width)))
        if peak > 0.02, Double(peakColumn) >= Double(rms) * Double(width) {
            Curses.put("▕", row: rect.row, column: rect.column + peakColumn, style: palette[.progressChapter])
        }
        Curses.put(db, row: rect.row, column: rect.column + width, style: palette[.telemetry])
    }
}
