import AetherEngine
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension TUIApp {
    /// `s` / `S`: the frame on screen at source resolution, decoded again by the scrub
    /// previews' extractor (never from the playback pipeline), with the subtitles on screen
    /// burnt in (`s`) or not (`S`), saved as PNG. The chrome says where it went.
    func takeScreenshot(subtitles: Bool) {
        guard player.hasVideo else { osd("no video to take a screenshot of"); return }
        let time = player.currentTime
        // On the cues' timeline (the subtitle delay taken off); libass gets every cue showing.
        let cueTime = time - player.subtitleDelay
        let cues = subtitles && controller.subtitlesVisible && player.activeSubtitleTrack != nil
            ? player.subtitleStore?.active(at: cueTime, limit: PresentedFrame.typesetLimit) ?? [] : []
        let style = options.subtitleStyle
        let path = Self.screenshotPath(directory: options.screenshotDirectory, source: currentSource, time: time,
                                       environment: ProcessInfo.processInfo.environment)
        if let duration = player.duration, duration > 0 { _ = previewFetcher() }
        // The playing variant's own playlist when the source is a master (the frame at the size
        // it plays; a master reopened would give whichever variant libavformat starts with).
        let variantSource = playingVariantSource
        guard let extractor = variantSource.map({ FrameExtractor(url: $0, network: options.player.network, clock: clock) }) ?? previews?.extractor else {
            osd("no screenshot: the file has no duration")
            return
        }
        osd("screenshot…")
        let results = screenshotResults
        Task.detached(priority: .utility) {
            let message: String
            do {
                guard let still = try await extractor.snapshot(at: time) else { return }
                try PNGWriter.write(cues.isEmpty ? still : try still.burning(cues, style: style, at: cueTime), to: path)
                message = "screenshot: \(path)"
            } catch {
                message = "screenshot failed: \(error)"
            }
            if variantSource != nil { await extractor.shutdown() }
            results.post(message)
        }
    }

    /// The HLS variant playing, as a URL to open again, when it is not the source itself (nil
    /// for DASH, whose variants are our reader's translations, and for anything else).
    var playingVariantSource: String? {
        guard player.mediaInfo?.container != "dash", let uri = player.variant?.uri, uri != currentSource,
              ["http", "https"].contains(NetworkSettings.scheme(of: uri) ?? "") else { return nil }
        return uri
    }

    /// UI loop: screenshots that finished.
    func pollScreenshots() {
        for message in screenshotResults.take() { osd(message, seconds: 4) }
    }

    /// `<directory>/aether-tui-<name>-<hh-mm-ss.mmm>.png` (``StillFileName``, as `extract` names
    /// them); the directory is the option, else `$XDG_PICTURES_DIR`, else the current
    /// directory; `-2`, `-3` … are added when that file exists.
    static func screenshotPath(directory: String?, source: String, time: Double, environment: [String: String]) -> String {
        let dir = directory ?? environment["XDG_PICTURES_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.currentDirectoryPath
        let name = StillFileName.make(source: source, seconds: time)
        let stem = Paths.join(dir, Paths.deletingPathExtension(name))
        // A second screenshot of the same moment (`s` then `S`) does not replace the first.
        var path = stem + ".png"
        var n = 2
        while FileManager.default.fileExists(atPath: path), n < 1000 { path = stem + "-\(n).png"; n += 1 }
        return path
    }
}

