import AetherPlayback
import AetherSubtitles
import AetherScreen
import AetherThemes
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The music view's text cells (shown while no video stream plays): the tag lines, a frame with
/// a note where a cover would be when there is no picture of one, and the spectrum's bars or the
/// level meter. The cover's picture itself is a still of the output.
struct MusicPane {
    struct TagLine: Equatable {
        var text: String
        var role: ThemeRole
    }

    var layout: MusicLayout
    /// Title (the file name when untagged), artist, album, track · year · genre, the audio format.
    var tags: [TagLine]
    /// The cover has room but no picture: draw the placeholder.
    var coverPlaceholder: Bool
    /// The level meter instead of the spectrum (the layout's choice, or no analyser).
    var meter: Bool
    /// The smoother's levels and held peaks (0…1): one per band, or rms and peak for the meter.
    var levels: [Float]
    var peaks: [Float]
    /// Synced lyrics and the time they are drawn at (the song's position).
    var lyrics: Lyrics? = nil
    var time = 0.0

    func render(into surface: inout some TextSurface) {
        let l = layout
        if coverPlaceholder, !l.cover.isEmpty { renderCoverPlaceholder(l.cover, into: &surface) }
        for (i, line) in tags.prefix(l.text.height).enumerated() {
            surface.put(TextSanitizer.clean(line.text), row: l.text.row + i, column: l.text.column, role: line.role, width: l.text.width)
        }
        if let lyrics, !l.lyrics.isEmpty { renderLyrics(lyrics, in: l.lyrics, into: &surface) }
        if meter {
            renderMeter(in: l.meter ? l.bars : CellRect(column: l.bars.column, row: l.bars.endRow - 1, width: l.bars.width, height: min(1, l.bars.height)),
                        into: &surface)
        } else {
            renderSpectrum(in: l.bars, into: &surface)
        }
    }

    /// The lyrics around the line sung now (``Lyrics/window(rows:at:)``): other lines dim, the
    /// one sung now in the title's style with its sung words in the selection's.
    private func renderLyrics(_ lyrics: Lyrics, in rect: CellRect, into surface: inout some TextSurface) {
        for (row, pieces) in lyrics.window(rows: rect.height, at: time).enumerated() {
            var column = rect.column
            for (text, emphasis) in pieces where column < rect.endColumn {
                let role: ThemeRole = emphasis == .sung ? .menuSelected : emphasis == .now ? .title : .status
                surface.put(TextSanitizer.clean(text), row: rect.row + row, column: column, role: role, width: rect.endColumn - column)
                column += DisplayWidth.of(text)
            }
        }
    }

    /// A frame with a note in it where the cover would be.
    private func renderCoverPlaceholder(_ rect: CellRect, into surface: inout some TextSurface) {
        guard rect.width >= 3, rect.height >= 3 else { return }
        surface.put("┌" + String(repeating: "─", count: rect.width - 2) + "┐", row: rect.row, column: rect.column, role: .menuBorder)
        for row in (rect.row + 1)..<(rect.endRow - 1) {
            surface.put("│", row: row, column: rect.column, role: .menuBorder)
            surface.put("│", row: row, column: rect.endColumn - 1, role: .menuBorder)
        }
        surface.put("└" + String(repeating: "─", count: rect.width - 2) + "┘", row: rect.endRow - 1, column: rect.column, role: .menuBorder)
        let label = rect.width >= 12 ? "♪ no cover" : "♪"
        surface.put(label, row: rect.row + rect.height / 2, column: rect.column + max(1, (rect.width - DisplayWidth.of(label)) / 2),
                    role: .status, width: rect.width - 2)
    }

    private func renderSpectrum(in rect: CellRect, into surface: inout some TextSurface) {
        let (count, barWidth) = MusicLayout.bands(width: rect.width)
        guard levels.count == count, peaks.count == count, rect.height > 0 else { return }
        let left = rect.column + (rect.width - count * (barWidth + 1) + 1) / 2
        for band in 0..<count {
            let column = left + band * (barWidth + 1)
            let glyphs = MusicLayout.barGlyphs(level: levels[band], rows: rect.height)
            for (k, glyph) in glyphs.enumerated() where glyph != " " {
                surface.put(String(repeating: glyph, count: barWidth), row: rect.endRow - 1 - k, column: column, role: .sparkline)
            }
            // The peak mark floats above the bar while it holds.
            let peakRow = min(rect.height - 1, Int(Double(peaks[band]) * Double(rect.height * 8)) / 8)
            if peaks[band] > 0.02, glyphs[peakRow] == " " {
                surface.put(String(repeating: "▁", count: barWidth), row: rect.endRow - 1 - peakRow, column: column, role: .progressChapter)
            }
        }
    }

    private func renderMeter(in rect: CellRect, into surface: inout some TextSurface) {
        guard rect.height > 0, rect.width >= 6 else { return }
        let rms = levels.first ?? 0, peak = peaks.last ?? 0
        let db = rms > 0 ? String(cFormat: " %3.0f dB", Double(rms - 1) * Double(-SpectrumAnalyzer.floorDB)) : "   -∞ dB"
        let width = max(1, rect.width - DisplayWidth.of(db))
        surface.put(MusicLayout.meterGlyphs(level: rms, width: width), row: rect.row, column: rect.column, role: .sparkline)
        let peakColumn = min(width - 1, Int(Double(peak) * Double(width)))
        if peak > 0.02, Double(peakColumn) >= Double(rms) * Double(width) {
            surface.put("▕", row: rect.row, column: rect.column + peakColumn, role: .progressChapter)
        }
        surface.put(db, row: rect.row, column: rect.column + width, role: .telemetry)
    }
}
