import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The playlist: moving through it, adding to it.
extension PlayerController {
    /// Seconds before an item's end at which the next one is opened for gapless playback.
    static let gaplessPrepareAhead = 10.0

    /// `--gapless-audio`: within ``gaplessPrepareAhead`` of the end of an item of sound alone,
    /// the next one (as ``advanceAtEnd()`` would pick it) is opened ahead to follow it on the
    /// device (``Player/prepareNext(url:options:)``). Not when the item loops, nor when the
    /// next would resume elsewhere (watch-later): those take the ordinary switch.
    func prepareNextItem() {
        guard settings.player.gapless != .no, gaplessWeighed != playlist.position, !loopsLeft.isOn, !player.hasVideo,
              let duration = player.duration, duration - player.currentTime <= Self.gaplessPrepareAhead else { return }
        gaplessWeighed = playlist.position
        guard let i = playlist.index(after: playlist.position, loop: false) ?? (playlistLoopsLeft.isOn ? 0 : nil),
              i != playlist.position else { return }
        let source = playlist.items[i].source
        if settings.resume, !settings.startGiven, settings.watchLater.load(for: source) != nil { return }
        player.prepareNext(url: source, options: settings.player)
    }

    func playlistNext() -> CommandResult {
        guard let i = playlist.index(after: playlist.position, loop: settings.loopPlaylist.isOn) else {
            return .failure("no next item")
        }
        return skip(to: i, forward: true)
    }

    func playlistPrevious() -> CommandResult {
        guard let i = playlist.index(before: playlist.position, loop: settings.loopPlaylist.isOn) else {
            return .failure("no previous item")
        }
        return skip(to: i, forward: false)
    }

    func playlistPlay(_ i: Int) -> CommandResult {
        guard playlist.items.indices.contains(i) else { return .failure("no playlist item \(i)") }
        return skip(to: i, forward: true)
    }

    /// `loadfile <source> replace|append|append-play` (a playlist file is expanded).
    func loadfile(_ source: String, mode: PlayerCommand.LoadMode) -> CommandResult {
        let expanded = PlaylistLoader.expand([source])
        guard !expanded.items.isEmpty else { return .failure(expanded.warnings.first ?? "nothing to load") }
        switch mode {
        case .replace:
            playlist.replace(with: expanded.items[0])
            for item in expanded.items.dropFirst() { playlist.append(item) }
            return skip(to: 0, forward: true)
        case .append, .appendPlay:
            let first = playlist.count
            for item in expanded.items { playlist.append(item) }
            show("added \(expanded.items.count) to the playlist")
            if mode == .appendPlay, heldAtEnd || player.state == .idle || player.state == .ended {
                return skip(to: first, forward: true)
            }
            publish()
            return .ok
        }
    }

    /// Goes to item `index`; an item that will not open is skipped in the direction of travel.
    func skip(to index: Int, forward: Bool) -> CommandResult {
        var i: Int? = index
        var tries = 0
        // Like mpv, moving through the playlist keeps playback paused when it was.
        let paused = player.isPaused && player.state != .ended && player.mediaInfo != nil
        while let k = i, tries < playlist.count, !interrupter.isRaised {
            if load(index: k, paused: paused) {
                show("\(k + 1)/\(playlist.count) \(playlist.items[k].displayName)")
                return .ok
            }
            i = forward ? playlist.index(after: k, loop: settings.loopPlaylist.isOn)
                        : playlist.index(before: k, loop: settings.loopPlaylist.isOn)
            tries += 1
        }
        return .failure("no playable item")
    }
}
