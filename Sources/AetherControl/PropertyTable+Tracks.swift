import AetherBase
import AetherCommands
import FoundationEssentials

/// Tracks: `aid`, `vid` and `sid` (1-based as mpv counts them; `no` or false for none) and
/// `sub-visibility`. A video track chosen is kept for the next items and reopens the item where
/// it stood; the audio and subtitle tracks switch in place.
extension PropertyTable {
    static let tracks: [Entry] = [audioTrack, videoTrack, subtitleTrack, subtitleVisibility]

    /// Cycling goes through the tracks round, never off.
    private static let audioTrack = Entry(names: ["aid", "audio"], set: { c, _, value in
        let count = c.player.mediaInfo?.audio.count ?? 0
        if value.bool == false || value == .string("no") {
            c.player.selectAudioTrack(nil)
            c.show("audio: off")
        } else if let n = track(value, count: count), count > 0 {
            c.player.selectAudioTrack(n - 1)
            c.show("audio: \(c.player.mediaInfo?.audioLabel(n - 1) ?? "off")")
        } else { return .failure("no audio track \(value)") }
        return .ok
    }, cycle: { c, _, up in
        let count = c.player.mediaInfo?.audio.count ?? 0
        guard count > 0 else { return .failure("no audio tracks") }
        let current = c.player.activeAudioTrack ?? -1
        let next = ((current + (up ? 1 : -1)) % count + count) % count
        return PropertyTable.set(c, "aid", .number(Double(next + 1)))
    })

    /// Cycling goes 1, 2, …, off (mpv's `_` cycles through "no" too).
    private static let videoTrack = Entry(names: ["vid", "video"], set: { c, _, value in
        let count = c.player.mediaInfo?.video.count ?? 0
        let choice: Int?
        if value.bool == false || value == .string("no") { choice = nil } else if let n = track(value, count: count) {
            choice = n - 1
        } else { return .failure("no video track \(value)") }
        guard choice != c.player.activeVideoTrack else { return .ok }
        // Kept for the next items (mpv's --vid); the item reopens where it stood.
        c.settings.player.video.enabled = choice != nil
        c.settings.player.video.track = choice
        guard let index = c.playlist.position else { return .ok }
        let player = c.player
        let keep = OpenPlan.Reload(
            position: player.currentTime, audioTrack: player.activeAudioTrack,
            subtitleTrack: player.activeSubtitleTrack.flatMap { id in player.subtitleTracks.firstIndex { $0.id == id } })
        // Named before the reopen (the same media): the item reopens on its thread.
        let label = choice.flatMap { player.mediaInfo?.videoLabel($0) } ?? "off"
        guard c.load(index: index, paused: player.isPaused, reload: keep) != .failed else { return .failure("cannot reopen with that video track") }
        c.show("video: \(label)")
        return .ok
    }, cycle: { c, _, up in
        let count = c.player.mediaInfo?.video.count ?? 0
        guard count > 0 else { return .failure("no video tracks") }
        let current = c.player.activeVideoTrack.map { $0 + 1 } ?? 0
        let next = (current + (up ? 1 : count)) % (count + 1)
        return PropertyTable.set(c, "vid", next == 0 ? .bool(false) : .number(Double(next)))
    })

    /// Cycling goes off, 1, 2, … (mpv's `j` cycles through "no" too).
    private static let subtitleTrack = Entry(names: ["sid", "sub"], set: { c, _, value in
        let tracks = c.player.subtitleTracks
        if value.bool == false || value == .string("no") {
            c.selectSubtitle(nil)
        } else if let n = track(value, count: tracks.count) {
            c.selectSubtitle(tracks[n - 1].id)
        } else { return .failure("no subtitle track \(value)") }
        return .ok
    }, cycle: { c, _, up in
        let tracks = c.player.subtitleTracks
        guard !tracks.isEmpty else { return .failure("no subtitle tracks") }
        let current = c.player.activeSubtitleTrack.flatMap { id in tracks.firstIndex { $0.id == id } }.map { $0 + 1 } ?? 0
        let next = (current + (up ? 1 : tracks.count)) % (tracks.count + 1)
        c.selectSubtitle(next == 0 ? nil : tracks[next - 1].id)
        return .ok
    })

    /// Text subtitles are drawn (``PlayerController/subtitlesVisible``).
    private static let subtitleVisibility = Entry(names: ["sub-visibility"], set: { c, _, value in
        guard let b = value.bool else { return .failure("'sub-visibility' takes yes or no") }
        c.subtitlesVisible = b
        c.show(b ? "subtitles visible" : "subtitles hidden")
        return .ok
    }, cycle: { c, _, _ in
        PropertyTable.set(c, "sub-visibility", .bool(!c.subtitlesVisible))
    })

    /// A 1-based track number in 1…count from a property value (nil: not one).
    private static func track(_ value: PropertyValue, count: Int) -> Int? {
        guard count > 0, let v = value.number else { return nil }
        return try? OutsideValue.integer(v, in: 1...count, name: "track")
    }
}
