import AetherControl
import AetherMedia
import AetherPlayback
import AetherScreen
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

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
    /// The lyric line and how many of its words were sung when last drawn.
    var drawnLyrics: [Int] = []
    /// Laid out for lyrics (they come with a sidecar, after the file opens).
    var laidOutForLyrics = false

    /// Spectrum updates per second, at most.
    static let rate = 30.0

    init(cover: StillImage?, stamp: Int, layout: MusicLayout) {
        self.layout = layout
        self.cover = cover.map { VideoOutput.StillPicture(width: $0.width, height: $0.height, pixels: $0.pixels) }
        coverStamp = stamp
        do { analyzer = try SpectrumAnalyzer(size: 2048) } catch {
            AppLog.write("tui", "no spectrum (\(error)); level meter instead")
            analyzer = nil
        }
    }

    /// Takes the samples `player` plays now into the bars (or the meter), and the lyric of
    /// `reading`'s moment; true when what is drawn changes.
    func update(player: Player, reading: PlayerReading, now: Double) -> Bool {
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
        let lyricsNow = layout.lyrics.isEmpty ? [] : reading.lyrics?.progress(at: reading.position) ?? []
        guard levels != drawnLevels || lyricsNow != drawnLyrics else { return false }
        drawnLevels = levels
        drawnLyrics = lyricsNow
        return true
    }
}

/// The music room: laid out in the video area, drawn from the player's tags, lyrics and sound.
extension MusicView {
    /// Lays the view out in `area`, the cover placed as `stills` places pictures: again on every relayout.
    func layOut(area: CellRect, stills: StillLayout, player: PlayerReading, tagLines: Int) {
        layout = MusicLayout(area: area, cellSize: stills.layout.geometry.cellSize, textLines: tagLines, lyrics: player.lyrics != nil)
        laidOutForLyrics = player.lyrics != nil
        drawnLevels = []
        drawnLyrics = []
        coverPlacement = cover.flatMap { stills.fit($0, in: layout.cover) }
    }

    /// Whether the layout no longer fits the player: lyrics came (a sidecar loads after the
    /// file opens) or went.
    func outOfDate(player: PlayerReading) -> Bool { laidOutForLyrics != (player.lyrics != nil) }

    /// Whether the view wants drawing now (its bars moved), ~30 times a second while playing.
    func needsDrawing(player: Player, reading: PlayerReading, now: Double) -> Bool {
        guard now - lastUpdate >= 1 / MusicView.rate * 0.9 else { return false }
        return update(player: player, reading: reading, now: now)
    }

    /// The view's cells as they stand, for `player` as read.
    func pane(_ player: PlayerReading) -> MusicPane {
        MusicPane(layout: layout, tags: Self.tagLines(player),
                  coverPlaceholder: coverPlacement == nil, meter: layout.meter || analyzer == nil,
                  levels: smoother.levels, peaks: smoother.peaks, lyrics: player.lyrics, time: player.position)
    }

    /// The tag lines: title (the file name when untagged), artist, album, track · year · genre,
    /// and the audio format. Every value is sanitised (again when drawn).
    static func tagLines(_ player: PlayerReading) -> [MusicPane.TagLine] {
        let tags = player.tags
        let name = player.mediaTitle ?? URL(fileURLWithPath: player.source).lastPathComponent
        var lines: [MusicPane.TagLine] = [.init(text: name, role: .title)]
        if let artist = tags.artist ?? tags.albumArtist { lines.append(.init(text: artist, role: .time)) }
        if let album = tags.album { lines.append(.init(text: album, role: .status)) }
        // A radio station: its name and genre under the song it plays.
        if let station = player.station {
            let about = [station.name, station.genre].compactMap { $0 }
            if !about.isEmpty { lines.append(.init(text: about.joined(separator: " · "), role: .time)) }
        }
        let details = [tags.track.map { "Track \($0)" }, tags.year, tags.genre].compactMap { $0 }
        if !details.isEmpty { lines.append(.init(text: details.joined(separator: " · "), role: .status)) }
        if let k = player.activeAudioTrack, let a = player.mediaInfo?.audio[safe: k] {
            let khz = Double(a.sampleRate) / 1000
            let rate = khz == khz.rounded() ? String(cFormat: "%.0f kHz", khz) : String(cFormat: "%.1f kHz", khz)
            // The equalizer on the same line (a line of its own would move the layout when it
            // comes and goes).
            let equalizer = player.equalizer, running = player.runningEqualizer
            let eq = equalizer.curve.isFlat ? [] : ["EQ \(equalizer.name) " + String(cFormat: "%+.1f dB", running.preamp)]
            lines.append(.init(text: ([a.codec, rate, a.layoutShort] + eq).joined(separator: " · "), role: .telemetry))
        }
        return lines.map { .init(text: TextSanitizer.clean($0.text), role: $0.role) }
    }
}
