import AetherPlayback

/// What a watch-later entry takes from the player and gives back to the options of the next
/// open of its item.
extension WatchLater.Entry {
    /// Where `player` stands with its item, and its settings: the tracks (1-based), volume,
    /// mute, speed and delays.
    init(of player: Player) {
        self.init(start: max(0, player.currentTime))
        audioTrack = .some(player.activeAudioTrack.map { $0 + 1 })
        subtitleTrack = .some(player.activeSubtitleTrack.flatMap { id in player.subtitleTracks.firstIndex { $0.id == id } }.map { $0 + 1 })
        volume = player.volume
        muted = player.isMuted
        speed = player.rate
        subtitleDelay = player.subtitleDelay
        audioDelay = player.audioDelay
    }

    /// `options` to resume here: the start, and what was recorded of the volume, mute, speed,
    /// audio delay and audio track (the subtitle track and delay are set once the item is open).
    func apply(to options: inout PlayerOptions) {
        options.start = start
        if let volume { options.playing.volume = volume }
        if let muted { options.playing.muted = muted }
        if let speed { options.playing.rate = speed }
        if let audioDelay { options.playing.audioDelay = audioDelay }
        if let audioTrack {
            if let n = audioTrack {
                options.audio.track = n - 1
                options.audio.enabled = true
            } else {
                options.audio.enabled = false
            }
        }
    }
}
