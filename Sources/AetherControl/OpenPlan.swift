import AetherMedia
import AetherPlayback
import AetherSubtitles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How one item is opened: the player's options for it (the session's, with where a reload of
/// the item stood or what watch-later saved of it) and, once it is open, its subtitles: the
/// sidecars found next to the file, the track shown first and the delay.
struct OpenPlan {
    var options: PlayerOptions
    /// The watch-later entry it resumes from (nil: none, or a reload).
    let saved: WatchLater.Entry?

    /// What a reload of the current item keeps: where it stood and its tracks.
    struct Reload {
        var position: Double
        var audioTrack: Int?
        var subtitleTrack: Int?
    }

    /// The options to open `source` with: the session's `settings`, then the `reload`'s, else
    /// (with `--resume-playback` and no `--start`) what watch-later saved of it.
    init(_ source: String, settings: ControllerSettings, reload: Reload?) {
        var options = settings.player
        var saved: WatchLater.Entry?
        if let reload {
            options.start = reload.position
            if let a = reload.audioTrack {
                options.audio.track = a
                options.audio.enabled = true
            } else {
                options.audio.enabled = false
            }
            options.subtitles.track = reload.subtitleTrack
            options.subtitles.enabled = reload.subtitleTrack != nil
        } else if settings.resume, !settings.startGiven, let entry = settings.watchLater.load(for: source) {
            saved = entry
            entry.apply(to: &options)
        }
        self.options = options
        self.saved = saved
    }

    /// Where watch-later resumes the item (nil: it starts as asked).
    var resumesAt: Double? {
        saved?.start
    }

    /// Subtitle files next to `source` (a local file), added to `player` unless named already;
    /// returns the paths added.
    func addSidecars(of source: String, to player: Player) -> [String] {
        guard !PlaylistLoader.isURL(source) else { return [] }
        var added: [String] = []
        for path in SubtitleStore.sidecarCandidates(for: source) where !options.subtitles.files.contains(path) {
            player.addSubtitleFile(path)
            added.append(path)
        }
        return added
    }

    /// The subtitles the open item starts with, and their delay (the saved one, else `delay`).
    /// `besides`: the subtitle files found next to the item (``addSidecars(of:to:)``).
    func chooseSubtitles(on player: Player, delay: Double, besides: [String]) {
        chooseInitialSubtitles(on: player, besides: besides)
        player.setSubtitleDelay(saved?.subtitleDelay ?? delay)
    }

    /// The saved track, else `--sid`, else as mpv chooses (its `compare_track`): a subtitle file
    /// (`--sub-file`, then one found next to the item) over the container's own tracks, whatever
    /// their language or flags; among files, `--slang`'s first match, else the first. With no
    /// file, the engine's choice at the open stands (`--slang`'s match, else a default or forced
    /// track).
    /// Files are `--sub-file`'s and `besides`; other tracks read from their own documents (a
    /// DASH manifest's text sets, a song's synced lyrics) are the item's own.
    private func chooseInitialSubtitles(on player: Player, besides: [String]) {
        if let s = saved?.subtitleTrack {
            player.selectSubtitleTrack(s.map { $0 - 1 })
            return
        }
        guard options.subtitles.enabled else { return }
        if let wanted = options.subtitles.track {
            // The open chose it already unless it names a file added after it.
            if player.activeSubtitleTrack != wanted, player.subtitleTracks.indices.contains(wanted) { player.selectSubtitleTrack(wanted) }
            return
        }
        let files = player.subtitleTracks.compactMap { t -> (track: SubtitleTrackInfo, given: Bool)? in
            guard case .sidecar(let path) = t.source, options.subtitles.files.contains(path) || besides.contains(path) else { return nil }
            return (t, options.subtitles.files.contains(path))
        }
        let ranked = files.filter(\.given) + files.filter { !$0.given }
        if !ranked.isEmpty {
            let match = LanguagePreference.first(of: options.subtitles.languages, in: ranked.map(\.track.language))
            player.selectSubtitleTrack(ranked[match ?? 0].track.id)
            return
        }
        guard player.activeSubtitleTrack == nil,
              let match = LanguagePreference.first(of: options.subtitles.languages, in: player.subtitleTracks.map(\.language)) else { return }
        player.selectSubtitleTrack(player.subtitleTracks[match].id)
    }
}
