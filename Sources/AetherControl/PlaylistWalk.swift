import AetherBase
import AetherEngine
import FoundationEssentials

/// What the walk asks of the one who plays its items (the controller).
protocol PlaylistWalkOwner: AnyObject {
    /// Loads item `index` (paused or not): true when it plays; when not, it was counted in the
    /// walk's tally and said.
    func load(index: Int, paused: Bool) -> Bool
    /// Says `text` on the screen (the OSD).
    func show(_ text: String)
    /// Publishes the state for remote front ends.
    func publish()
}

/// The walk through the playlist, as mpv's: from `--playlist-start` to the first item that
/// opens; at an item's end on to the next that opens, round again while passes of the playlist
/// are left; on `playlist-next`, `playlist-prev`, `playlist-play-index` and `loadfile` to the
/// item asked for, or past it in the direction of travel to the first that opens. Each item is
/// tried through the ``owner`` (the controller's load), each at most once per pass over the
/// list, and none after a quit raised the interrupter (a playlist of 100 000 missing files).
/// Station lists named by URL and web pages that list videos take the place of the item that
/// named them. It holds the playlist and the walk's ``WalkTally``.
final class PlaylistWalk {
    var playlist: Playlist
    var tally = WalkTally()
    /// Loads the items (the controller, which owns the walk).
    weak var owner: PlaylistWalkOwner?
    private let interrupter: LoadInterrupter
    /// Pages whose playlist took their place (each once: a page that lists itself ends there).
    private var pagesExpanded = Set<String>()

    /// Station lists fetched from the network are at most this large.
    static let remoteListLimit = 1 << 20

    init(playlist: Playlist, loops: LoopCount, interrupter: LoadInterrupter) {
        self.playlist = playlist
        self.interrupter = interrupter
        tally.playlistLoopsLeft = loops
    }

    /// Tries the items from `first` on until one opens; false when none did (the reasons are
    /// in the tally).
    func start(from first: Int, paused: Bool) -> Bool {
        guard playlist.count > 0 else {
            tally.say("nothing to play")
            return false
        }
        var index: Int? = first
        while let i = index, !interrupter.isRaised {
            if load(i, paused: paused) { return true }
            index = i + 1 < playlist.count ? i + 1 : nil
        }
        return false
    }

    /// After the item at the position: the next that opens, past the last the first again
    /// while the playlist loops (``WalkTally/takePlaylistLoop()``). False when none did.
    func advance() -> Bool {
        var candidate = playlist.index(after: playlist.position, loop: false)
        var tries = 0
        while tries < playlist.count, !interrupter.isRaised {
            if candidate == nil {
                guard tally.takePlaylistLoop() else { return false }
                candidate = 0
            }
            guard let i = candidate else { return false }
            if load(i, paused: false) { return true }
            candidate = playlist.index(after: i, loop: false)
            tries += 1
        }
        return false
    }

    /// The item ``advance()`` would try first (nil: none, the list does not loop).
    var following: Int? {
        playlist.index(after: playlist.position, loop: false) ?? (tally.playlistLoopsLeft.isOn ? 0 : nil)
    }

    private func load(_ index: Int, paused: Bool) -> Bool {
        owner?.load(index: index, paused: paused) ?? false
    }

    /// `playlist-next`: round to the first when `loop`; `paused`: the next stays paused.
    func next(loop: Bool, paused: Bool) -> CommandResult {
        guard let i = playlist.index(after: playlist.position, loop: loop) else { return .failure("no next item") }
        return skip(to: i, forward: true, loop: loop, paused: paused)
    }

    /// `playlist-prev`: round to the last when `loop`.
    func previous(loop: Bool, paused: Bool) -> CommandResult {
        guard let i = playlist.index(before: playlist.position, loop: loop) else { return .failure("no previous item") }
        return skip(to: i, forward: false, loop: loop, paused: paused)
    }

    /// `playlist-play-index` (0-based).
    func play(_ i: Int, loop: Bool, paused: Bool) -> CommandResult {
        guard playlist.items.indices.contains(i) else { return .failure("no playlist item \(i)") }
        return skip(to: i, forward: true, loop: loop, paused: paused)
    }

    /// `loadfile <source> replace|append|append-play` (a playlist file is expanded): append-play
    /// plays what it added when nothing plays (`stopped`).
    func loadfile(_ source: String, mode: PlayerCommand.LoadMode, loop: Bool, paused: Bool, stopped: Bool) -> CommandResult {
        let expanded = PlaylistLoader.expand([source])
        guard !expanded.items.isEmpty else { return .failure(expanded.warnings.first ?? "nothing to load") }
        if mode == .replace {
            playlist.replace(with: expanded.items[0])
            for item in expanded.items.dropFirst() { playlist.append(item) }
            return skip(to: 0, forward: true, loop: loop, paused: paused)
        }
        let first = playlist.count
        for item in expanded.items { playlist.append(item) }
        owner?.show("added \(expanded.items.count) to the playlist")
        if mode == .appendPlay, stopped { return skip(to: first, forward: true, loop: loop, paused: paused) }
        owner?.publish()
        return .ok
    }

    /// Goes to item `index`; an item that will not open is passed over in the direction of
    /// travel (round the list when `loop`), each at most once.
    func skip(to index: Int, forward: Bool, loop: Bool, paused: Bool) -> CommandResult {
        var i: Int? = index
        var tries = 0
        while let k = i, tries < playlist.count, !interrupter.isRaised {
            if load(k, paused: paused) {
                owner?.show("\(k + 1)/\(playlist.count) \(playlist.items[k].displayName)")
                return .ok
            }
            i = forward ? playlist.index(after: k, loop: loop) : playlist.index(before: k, loop: loop)
            tries += 1
        }
        return .failure("no playable item")
    }

    /// Item `index` names a station list on the network (``PlaylistLoader/isRemoteList(_:)``):
    /// fetched (the one small fetch, within ``remoteListLimit`` and the read deadline of
    /// `network`; a quit interrupts it) and its entries put in its place, as mpv does. True
    /// when they were; false when it is no list after all (an HLS playlist: opened as a
    /// stream); a failure (cannot be read, or nothing in it to play) says why in one line.
    func openRemoteList(at index: Int, network: NetworkSettings) -> Result<Bool, ListFailure> {
        let item = playlist.items[index]
        let url = item.source
        let name = TextSanitizer.clean(url)
        let bytes: [UInt8]
        do {
            // The headers were checked when the options were read.
            let options = (try? SourceOptions.make(headers: network.headers)) ?? [:]
            bytes = try SmallFetch.bytes(url, options: options, settings: network, interrupt: interrupter.fresh(),
                                         timeout: network.readTimeout, limit: Self.remoteListLimit)
        } catch {
            let why = NetworkSettings.diagnose(error, url: url)
            return .failure(ListFailure(line: "cannot open '\(name)': \(why.line)", network: why.cause.isTransport))
        }
        guard let parsed = PlaylistLoader.parseRemote(bytes: bytes, url: url) else { return .success(false) }
        for w in parsed.warnings { AppLog.write("playlist", "'\(name)': \(w)") }
        guard !parsed.items.isEmpty else { return .failure(ListFailure(line: "'\(name)': the station list names nothing to play")) }
        let entries = parsed.items.map { PlaylistItem(source: $0.source, title: $0.title ?? item.title) }
        playlist.expand(at: index, with: entries)
        AppLog.write("playlist", "'\(name)': \(entries.count) entr\(entries.count == 1 ? "y" : "ies")")
        return .success(true)
    }

    /// Why a station list or a page could not be played (one line).
    struct ListFailure: Error {
        let line: String
        /// The list could not be fetched for a network cause (``NetworkFailure``).
        var network = false
    }

    /// Item `index` is a page of several videos (`list`): its entries take its place, each
    /// page once; a failure when it was expanded already or lists only itself.
    func expandPage(at index: Int, _ list: PagePlaylist) -> Result<Void, ListFailure> {
        let item = playlist.items[index]
        guard pagesExpanded.insert(item.source).inserted else {
            return .failure(ListFailure(line: "'\(TextSanitizer.clean(item.displayName))': the page's playlist was played already (a page that lists itself?)"))
        }
        let entries = list.entries.filter { $0.url != item.source }.map { PlaylistItem(source: $0.url, title: $0.title) }
        guard !entries.isEmpty else {
            return .failure(ListFailure(line: "'\(TextSanitizer.clean(item.displayName))': the page's playlist lists only itself"))
        }
        playlist.expand(at: index, with: entries)
        AppLog.write("ytdl", "'\(TextSanitizer.clean(item.source))': \(entries.count) entries\(list.leftOut > 0 ? ", \(list.leftOut) without a URL left out" : "")")
        return .success(())
    }
}
