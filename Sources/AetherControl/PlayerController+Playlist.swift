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

    /// Station lists fetched from the network are at most this large.
    static let remoteListLimit = 1 << 20

    /// Item `index` names a station list on the network (``PlaylistLoader/isRemoteList(_:)``):
    /// fetched (the one small fetch, within ``remoteListLimit`` and the read deadline; `q`
    /// interrupts it) and its entries put in its place, as mpv does. True when they were;
    /// false when it is no list after all (an HLS playlist: opened as a stream); a failure
    /// (cannot be read, or nothing in it to play) says why in one line.
    func openRemoteList(at index: Int) -> Result<Bool, ListFailure> {
        let item = playlist.items[index]
        let url = item.source
        let name = TextSanitizer.clean(url)
        let bytes: [UInt8]
        do {
            // The headers were checked when the options were read.
            let options = (try? SourceOptions.make(headers: settings.player.network.headers)) ?? [:]
            bytes = try SmallFetch.bytes(url, options: options,
                                         settings: settings.player.network, interrupt: interrupter.fresh(),
                                         timeout: settings.player.network.readTimeout, limit: Self.remoteListLimit)
        } catch {
            return .failure(ListFailure(line: "cannot open '\(name)': \(NetworkSettings.explain(error, url: url))"))
        }
        guard let parsed = PlaylistLoader.parseRemote(bytes: bytes, url: url) else { return .success(false) }
        for w in parsed.warnings { AppLog.write("playlist", "'\(name)': \(w)") }
        guard !parsed.items.isEmpty else { return .failure(ListFailure(line: "'\(name)': the station list names nothing to play")) }
        let entries = parsed.items.map { PlaylistItem(source: $0.source, title: $0.title ?? item.title) }
        playlist.expand(at: index, with: entries)
        AppLog.write("playlist", "'\(name)': \(entries.count) entr\(entries.count == 1 ? "y" : "ies")")
        return .success(true)
    }

    /// Why a station list could not be played (one line).
    struct ListFailure: Error { let line: String }

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
