import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// State: the snapshot remote front ends read and the titles (``SnapshotSource``'s).
extension PlayerController {
    /// mpv's `media-title`: the item's title (``SnapshotSource/title(of:player:)``), else its
    /// name; cleaned. The one home of the title: the title bar, the terminal's title, MPRIS and
    /// IPC read it.
    public var mediaTitle: String? {
        guard let item = playlist.current else { return nil }
        return remote.title(of: item, player: player) ?? TextSanitizer.clean(item.displayName)
    }

    /// What each playlist item is called (``PlaylistTitles``).
    public var playlistTitles: PlaylistTitles {
        remote.playlistTitles(playlist, player: player)
    }

    /// What the playing radio station says about itself (its text is cleaned where it is
    /// read, ``StationMetadata``); nil for any other source.
    public var station: StationMetadata? {
        player.networkStatus?.station
    }

    /// The snapshot remote front ends read; also published by ``tick()``.
    public func snapshot() -> PlayerSnapshot { remote.snapshot(of: self) }

    public func publish() { hub.publish(snapshot()) }
}
