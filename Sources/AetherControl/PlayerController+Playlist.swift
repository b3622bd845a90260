import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The playlist: what plays on from one item to the next (gapless, `--stream-record`); moving
/// through the playlist and adding to it are ``PlaylistWalk``'s.
extension PlayerController {
    /// Seconds before an item's end at which the next one is opened for gapless playback.
    static let gaplessPrepareAhead = 10.0

    /// `--gapless-audio`: within ``gaplessPrepareAhead`` of the end of an item of sound alone,
    /// the next one (as the walk would pick it, ``PlaylistWalk/following``) is opened ahead to
    /// follow it on the device (``Player/prepareNext(url:options:)``). Not when the item loops,
    /// nor when the next would resume elsewhere (watch-later): those take the ordinary switch.
    func prepareNextItem() {
        guard settings.player.audio.gapless != .no, item.gaplessWeighed != playlist.position, !walk.tally.fileLoopsLeft.isOn,
              !player.hasVideo, let duration = player.duration,
              duration - player.currentTime <= Self.gaplessPrepareAhead else { return }
        item.gaplessWeighed = playlist.position
        guard let i = walk.following, i != playlist.position else { return }
        let source = playlist.items[i].source
        if settings.resume, !settings.startGiven, settings.watchLater.load(for: source) != nil { return }
        player.prepareNext(url: source, options: settings.player)
    }

    /// Starts (or stops, when it is nil) ``PlayerOptions/streamRecord`` on the item
    /// playing; the reason when it cannot, also shown.
    @discardableResult
    func startRecording() -> String? {
        guard settings.player.streamRecord != nil || player.recordingPath != nil else { return nil }
        do { try player.record(to: settings.player.streamRecord) } catch {
            host?.controller(self, show: error.message)
            return error.message
        }
        return nil
    }

    /// Like mpv, moving through the playlist keeps playback paused when it was.
    var staysPaused: Bool {
        player.isPaused && player.state != .ended && player.mediaInfo != nil
    }
}
