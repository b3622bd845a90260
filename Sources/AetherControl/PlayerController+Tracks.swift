import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Tracks: choosing video, audio and subtitle tracks, and their labels.
extension PlayerController {
    func setAudioTrack(_ value: PropertyValue) -> CommandResult {
        let count = player.mediaInfo?.audio.count ?? 0
        if value.bool == false || value == .string("no") {
            player.selectAudioTrack(nil)
            show("audio: off")
        } else if let n = track(value, count: count), count > 0 {
            player.selectAudioTrack(n - 1)
            show("audio: \(audioLabel(n - 1))")
        } else { return .failure("no audio track \(value)") }
        return .ok
    }

    func setVideoTrack(_ value: PropertyValue) -> CommandResult {
        let count = player.mediaInfo?.video.count ?? 0
        let choice: Int?
        if value.bool == false || value == .string("no") { choice = nil } else if let n = track(value, count: count) {
            choice = n - 1
        } else { return .failure("no video track \(value)") }
        guard choice != player.activeVideoTrack else { return .ok }
        // Kept for the next items (mpv's --vid); the item reopens where it stood.
        settings.player.videoEnabled = choice != nil
        settings.player.videoTrack = choice
        guard let index = playlist.position else { return .ok }
        let paused = player.isPaused
        let keep = Reload(position: player.currentTime, audioTrack: player.activeAudioTrack,
                          subtitleTrack: player.activeSubtitleTrack.flatMap { id in player.subtitleTracks.firstIndex { $0.id == id } })
        guard load(index: index, paused: paused, reload: keep) else { return .failure("cannot reopen with that video track") }
        show("video: \(choice.map { videoLabel($0) } ?? "off")")
        return .ok
    }

    func setSubtitleTrack(_ value: PropertyValue) -> CommandResult {
        let tracks = player.subtitleTracks
        if value.bool == false || value == .string("no") {
            selectSubtitle(nil)
        } else if let n = track(value, count: tracks.count) {
            selectSubtitle(tracks[n - 1].id)
        } else { return .failure("no subtitle track \(value)") }
        return .ok
    }

    func cycleVideoTrack(up: Bool) -> CommandResult {
        // Order: 1, 2, …, off (mpv's _ cycles through "no" too).
        let count = player.mediaInfo?.video.count ?? 0
        guard count > 0 else { return .failure("no video tracks") }
        let current = player.activeVideoTrack.map { $0 + 1 } ?? 0
        let next = (current + (up ? 1 : count)) % (count + 1)
        return set("vid", next == 0 ? .bool(false) : .number(Double(next)))
    }

    func cycleAudioTrack(up: Bool) -> CommandResult {
        let count = player.mediaInfo?.audio.count ?? 0
        guard count > 0 else { return .failure("no audio tracks") }
        let current = player.activeAudioTrack ?? -1
        let next = ((current + (up ? 1 : -1)) % count + count) % count
        return set("aid", .number(Double(next + 1)))
    }

    func cycleSubtitleTrack(up: Bool) -> CommandResult {
        let tracks = player.subtitleTracks
        guard !tracks.isEmpty else { return .failure("no subtitle tracks") }
        // Order: off, 1, 2, … (mpv's j cycles through "no" too).
        let current = player.activeSubtitleTrack.flatMap { id in tracks.firstIndex { $0.id == id } }.map { $0 + 1 } ?? 0
        let next = (current + (up ? 1 : tracks.count)) % (tracks.count + 1)
        selectSubtitle(next == 0 ? nil : tracks[next - 1].id)
        return .ok
    }

    public func selectSubtitle(_ id: Int?) {
        player.selectSubtitleTrack(id)
        subtitlesVisible = true
        let label = id.flatMap { i in player.subtitleTracks.first { $0.id == i }?.label } ?? "off"
        show("subtitles: \(label)")
    }

    public func selectAudio(_ index: Int?) {
        player.selectAudioTrack(index)
        show("audio: \(index.map(audioLabel) ?? "off")")
    }

    public func videoLabel(_ index: Int) -> String {
        guard let v = player.mediaInfo?.video, v.indices.contains(index) else { return "off" }
        let t = v[index]
        return ["#\(index + 1)", t.tags.language, t.tags.title.map { "\"\(TextSanitizer.clean($0))\"" }, t.codec, "\(t.width)×\(t.height)"]
            .compactMap { $0 }.joined(separator: " · ")
    }

    public func audioLabel(_ index: Int) -> String {
        guard let a = player.mediaInfo?.audio, a.indices.contains(index) else { return "off" }
        let t = a[index]
        return [t.tags.language, t.tags.title.map { "\"\($0)\"" }, t.codec, t.layoutShort].compactMap { $0 }.joined(separator: " · ")
    }

    /// Sidecars found next to the file count after the embedded tracks: `--sid=N` may name one,
    /// and with no choice and no default embedded track the first sidecar is shown (the user
    /// put it there to be seen).
    func chooseInitialSubtitles(options: PlayerOptions, saved: WatchLater.Entry?) {
        if let s = saved?.subtitleTrack {
            player.selectSubtitleTrack(s.map { $0 - 1 })
            return
        }
        guard options.subtitlesEnabled, player.activeSubtitleTrack == nil else { return }
        if let wanted = options.subtitleTrack, player.subtitleTracks.indices.contains(wanted) {
            player.selectSubtitleTrack(wanted)
        } else if options.subtitleTrack == nil,
                  let match = LanguagePreference.first(of: options.subtitleLanguages, in: player.subtitleTracks.map(\.language)) {
            player.selectSubtitleTrack(player.subtitleTracks[match].id)
        } else if options.subtitleTrack == nil, options.subtitleLanguages.isEmpty,
                  let first = player.subtitleTracks.first(where: { if case .sidecar = $0.source { return true }; return false }) {
            player.selectSubtitleTrack(first.id)
        }
    }
}
