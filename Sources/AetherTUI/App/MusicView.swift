import AetherEngine
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
        let lyricsNow = layout.lyrics.isEmpty ? [] : player.lyrics?.progress(at: player.currentTime) ?? []
        guard levels != drawnLevels || lyricsNow != drawnLyrics else { return false }
        drawnLevels = levels
        drawnLyrics = lyricsNow
        return true
    }
}

extension TUIApp {
    /// Relayout: the music view comes when no video stream plays (an audio file, `--vid=no`,
    /// a video stream left out as undecodable) and goes when one does.
    func layoutMusicView() {
        guard !player.hasVideo else { music = nil; return }
        let musicLayout = MusicLayout(area: layout.videoArea, cellSize: layout.geometry.cellSize,
                                      textLines: musicTagLines().count, lyrics: player.lyrics != nil)
        if music == nil {
            view.previewStamp += 1
            music = MusicView(cover: player.coverArt, stamp: view.previewStamp, layout: musicLayout)
        }
        guard let music else { return }
        music.layout = musicLayout
        music.laidOutForLyrics = player.lyrics != nil
        music.drawnLevels = []
        music.drawnLyrics = []
        music.coverPlacement = music.cover.flatMap { picture in
            let placement = driver.placement(for: musicLayout.cover, displayAspect: Double(picture.width) / Double(picture.height),
                                             geometry: layout.geometry, scale: 1)
            return placement.isEmpty ? nil : placement
        }
    }

    /// UI loop: whether the music view wants drawing now (its bars moved), ~30 times a second
    /// while playing. Also notices the video stream going (or coming) and lays out again.
    func musicViewNeedsDrawing(now: Double) -> Bool {
        // The video stream went or came, or lyrics came (a sidecar loads after the file opens).
        if (music != nil) == player.hasVideo || music.map({ $0.laidOutForLyrics != (player.lyrics != nil) }) == true {
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

    /// The music view's cells as they stand (nil: no music view).
    func musicPane() -> MusicPane? {
        guard let music else { return nil }
        return MusicPane(layout: music.layout, tags: musicTagLines(), coverPlaceholder: music.coverPlacement == nil,
                         meter: music.layout.meter || music.analyzer == nil,
                         levels: music.smoother.levels, peaks: music.smoother.peaks,
                         lyrics: player.lyrics, time: player.currentTime)
    }

    /// The tag lines: title (the file name when untagged), artist, album, track · year · genre,
    /// and the audio format. Every value is sanitised (again when drawn).
    func musicTagLines() -> [MusicPane.TagLine] {
        let tags = player.tags
        let name = controller.mediaTitle ?? URL(fileURLWithPath: currentSource).lastPathComponent
        var lines: [MusicPane.TagLine] = [.init(text: name, role: .title)]
        if let artist = tags.artist ?? tags.albumArtist { lines.append(.init(text: artist, role: .time)) }
        if let album = tags.album { lines.append(.init(text: album, role: .status)) }
        // A radio station: its name and genre under the song it plays.
        if let station = controller.station {
            let about = [station.name, station.genre].compactMap { $0 }
            if !about.isEmpty { lines.append(.init(text: about.joined(separator: " · "), role: .time)) }
        }
        let details = [tags.track.map { "Track \($0)" }, tags.year, tags.genre].compactMap { $0 }
        if !details.isEmpty { lines.append(.init(text: details.joined(separator: " · "), role: .status)) }
        if let k = player.activeAudioTrack, let a = player.mediaInfo?.audio[safe: k] {
            let khz = Double(a.sampleRate) / 1000
            let rate = khz == khz.rounded() ? String(cFormat: "%.0f kHz", khz) : String(cFormat: "%.1f kHz", khz)
            lines.append(.init(text: [a.codec, rate, a.layoutShort].joined(separator: " · "), role: .telemetry))
        }
        return lines.map { .init(text: TextSanitizer.clean($0.text), role: $0.role) }
    }
}
