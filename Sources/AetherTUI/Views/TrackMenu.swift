import AetherControl
import AetherBase
import AetherPlayback

/// The audio or subtitle dropdown: a list with the current track marked.
struct TrackMenu: Equatable {
    enum Kind { case audio, subtitles, playlist }
    struct Item: Equatable {
        var label: String
        /// Track index (audio: position in MediaInfo.audio; subtitles: track id); nil = off.
        var value: Int?
        var current: Bool
    }

    var kind: Kind
    var items: [Item]
    var selection: Int
    var scroll = 0

    var title: String {
        switch kind {
        case .audio: "Audio tracks"
        case .subtitles: "Subtitle tracks"
        case .playlist: "Playlist"
        }
    }

    mutating func move(_ delta: Int) {
        guard !items.isEmpty else { return }
        selection = (selection + delta + items.count) % items.count
    }

    static func audio(player: PlayerReading) -> TrackMenu {
        let active = player.activeAudioTrack
        var items = (player.mediaInfo?.audio ?? []).enumerated().map { n, a in
            Item(label: TextSanitizer.clean("\(n + 1). " + a.label), value: n, current: n == active)
        }
        items.append(Item(label: "off", value: nil, current: active == nil))
        return TrackMenu(kind: .audio, items: items, selection: items.firstIndex { $0.current } ?? 0)
    }

    static func subtitles(player: PlayerReading, selected: Int?) -> TrackMenu {
        var items = [Item(label: "off", value: nil, current: selected == nil)]
        for t in player.subtitleTracks {
            // A sidecar's label is its file name: sanitised like anything else from outside.
            items.append(Item(label: TextSanitizer.clean("\(t.id + 1). " + t.label), value: t.id, current: t.id == selected))
        }
        return TrackMenu(kind: .subtitles, items: items, selection: items.firstIndex { $0.current } ?? 0)
    }

    /// The playlist dropdown (F8): every item by title or file name (``PlaylistTitles``), the
    /// playing one marked.
    static func playlist(_ playlist: PlaylistTitles) -> TrackMenu {
        let items = playlist.items.indices.map { n in
            Item(label: "\(n + 1). \(playlist.label(at: n))", value: n, current: n == playlist.position)
        }
        return TrackMenu(kind: .playlist, items: items, selection: items.firstIndex { $0.current } ?? 0)
    }
}

extension TrackMenu {
    /// Scrolls so the selection is among the `visibleRows` items shown (input and relayout
    /// call it; drawing only reads the scroll).
    mutating func scrollToSelection(visibleRows: Int) {
        let rows = max(1, visibleRows)
        if selection < scroll { scroll = selection }
        if selection >= scroll + rows { scroll = selection - rows + 1 }
    }
}
