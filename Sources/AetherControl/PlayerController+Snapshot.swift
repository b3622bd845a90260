import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// State: the snapshot remote front ends read (made by ``SnapshotSource``) and the titles.
extension PlayerController {
    /// mpv's `media-title`: the item's title (``title(of:)``), else its name; cleaned. The one
    /// home of the title: the title bar, the terminal's title, MPRIS and IPC read it.
    public var mediaTitle: String? {
        guard let item = playlist.current else { return nil }
        return title(of: item) ?? TextSanitizer.clean(item.displayName)
    }

    /// The title of `item`: the container's, else its tags', else the song a radio station
    /// says it plays (`icy-title`, as mpv), else the playlist's; nil when none says one.
    func title(of item: PlaylistItem) -> String? {
        return TextSanitizer.cleanOrNil(player.mediaInfo?.title) ?? TextSanitizer.cleanOrNil(player.tags.title) ?? station?.title ?? TextSanitizer.cleanOrNil(item.title)
    }

    /// What each playlist item is called (``PlaylistTitles``).
    public var playlistTitles: PlaylistTitles {
        var titles = PlaylistTitles()
        titles.items = playlist.items
        titles.position = playlist.position
        titles.seen = remote.titlesSeen
        titles.current = playlist.current.flatMap { title(of: $0) }
        return titles
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
