import AetherBase
import AetherSubtitles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The player's subtitle tracks, cues, delay and lyrics (of the session playing).
extension Player {
    /// Seconds subtitles are shown later than their timestamps (mpv's `--sub-delay`), clamped to
    /// ±600 s; ``subtitleCues(at:)`` applies it.
    public func setSubtitleDelay(_ seconds: Double) {
        guard seconds.isFinite else { return }
        sessions.subtitleDelay.withLock { $0 = min(600, max(-600, seconds)) }
    }

    public var subtitleDelay: Double { sessions.subtitleDelay.withLock { $0 } }

    /// Selects subtitle track `id` (see `subtitleTracks`), nil = off. An embedded track's recent
    /// cues are fetched in the background (only the selected track's cues are kept).
    public func selectSubtitleTrack(_ id: Int?) {
        guard let s = current else { return }
        let ahead = s.control.read { $0.demuxedUntil }
        s.subtitles.select(id, position: currentTime, readAhead: ahead)
    }

    /// Adds a subtitle file as a track; returns its id, or nil (with a warning) when it cannot
    /// be read: not a regular file, too large, not subtitles.
    @discardableResult
    public func addSubtitleFile(_ path: String) -> Int? {
        guard let s = current else { return nil }
        do { return try s.subtitles.addSidecar(path: path) } catch {
            s.warn("\(error)")
            return nil
        }
    }

    public var subtitleTracks: [SubtitleTrackInfo] { current?.subtitles.tracks ?? [] }
    public var activeSubtitleTrack: Int? { current?.subtitles.selectedTrack }
    /// Cues of the selected subtitle track showing at media time `time` (the subtitle delay
    /// applied).
    public func subtitleCues(at time: Double) -> [SubtitleCue] { current?.subtitles.active(at: time - subtitleDelay) ?? [] }
    public var subtitleStore: SubtitleStore? { current?.subtitles }
    /// Synced lyrics of the playing file (an LRC sidecar or `--sub-file`), nil when none.
    public var lyrics: Lyrics? { current?.subtitles.lyrics }
    /// The subtitle track made from ``lyrics`` (nil: none).
    public var lyricsTrack: Int? { current?.subtitles.lyricsTrack }

    /// When (playback time) the active subtitle cues change next, or nil (``SubtitleStore/nextChange(after:)``).
    public var nextSubtitleChange: Double? {
        let delay = subtitleDelay
        return current?.subtitles.nextChange(after: currentTime - delay).map { $0 + delay }
    }
}
