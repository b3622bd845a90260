import AetherMedia
import AetherPlayback
import AetherStills
import AetherSubtitles
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The host's background work on stills: the thumbnail fetcher of scrub, the filmstrip and
/// screenshots (made on first use for each item, waking the loop when a thumbnail arrives), and
/// the screenshots taken in the background, whose messages wait here for the loop.
final class StillJobs {
    /// The thumbnail fetcher (nil until first used, and for a source that cannot be opened twice).
    private(set) var previews: ThumbnailFetcher?
    /// Messages from screenshots taken in the background.
    let results = MessageBox()
    let network: NetworkSettings
    let clock: TimeSource
    let wake: WakeUp

    init(network: NetworkSettings, clock: TimeSource, wake: WakeUp) {
        (self.network, self.clock, self.wake) = (network, clock, wake)
        results.wakes(wake)
    }

    /// The thumbnail fetcher for `source`, made on first use when it can be opened a second time.
    func fetcher(for source: String) -> ThumbnailFetcher? {
        if previews == nil, SourceOptions.isReopenable(source) {
            previews = ThumbnailFetcher(url: source, network: network, clock: clock, delivered: { [wake] in wake.signal() })
        }
        return previews
    }

    /// A new item: the last one's fetcher goes (its FFmpeg work ends in the background).
    func itemChanged() {
        guard let previews else { return }
        Task.detached { await previews.shutdown() }
        self.previews = nil
    }

    /// The screen goes: the extractor's FFmpeg work ends before the process does (2 s at most).
    func shutdown() {
        guard let previews else { return }
        let done = GuardedCondition(false)
        Task.detached { await previews.shutdown(); done.update { $0 = true } }
        done.wait(until: { $0 }, timeout: 2)
    }

    /// Saves the frame at `time` as PNG at `path` in the background, decoded again from
    /// `variantSource` (the playing variant's playlist) or by the thumbnails' extractor, with
    /// `cues` burnt in at `cueTime`; false when there is nothing to decode it from.
    func screenshot(at time: Double, variantSource: String?, cues: [SubtitleCue], style: ASSStyleOptions, cueTime: Double,
                    path: String) -> Bool {
        guard let extractor = variantSource.map({ FrameExtractor(url: $0, network: network, clock: clock) }) ?? previews?.extractor else {
            return false
        }
        let results = results
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
        return true
    }
}

extension HostRuntime {
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
        let path = Self.screenshotPath(directory: options.screenshotDirectory, source: currentSource, time: time,
                                       environment: ProcessInfo.processInfo.environment)
        if let duration = player.duration, duration > 0 { _ = stills.fetcher(for: currentSource) }
        // The playing variant's own playlist when the source is a master (the frame at the size
        // it plays; a master reopened would give whichever variant libavformat starts with).
        guard stills.screenshot(at: time, variantSource: playingVariantSource, cues: cues, style: options.subtitleStyle,
                                cueTime: cueTime, path: path) else {
            osd("no screenshot: the file has no duration")
            return
        }
        osd("screenshot…")
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
        for message in stills.results.take() { osd(message, seconds: 4) }
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

