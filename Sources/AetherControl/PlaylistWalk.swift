import AetherBase
import AetherCommands
import AetherMedia
import AetherStreaming
import FoundationEssentials

/// What a load came to: the item plays, it could not be played (counted and said), or it opens
/// on a thread of its own and the walk waits (``PlaylistWalk/openEnded(opened:)``).
enum LoadProgress: Equatable { case opened, failed, opening }

/// What the walk asks of the one who plays its items (the controller).
protocol PlaylistWalkOwner: AnyObject {
    /// Loads item `index` (paused or not); when it could not be played, it was counted in the
    /// walk's tally and said.
    func load(index: Int, paused: Bool) -> LoadProgress
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
///
/// An item opens on a thread of its own (a stalled server holds its open for seconds): a load
/// that says ``LoadProgress/opening`` leaves the walk's ``Search`` waiting, and the owner tells
/// it how the open ended with ``openEnded(opened:)``, which goes on to the next candidate.
/// Starting a new search (a key pressed meanwhile) drops the one waiting.
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

    /// A search for the next item that opens, and what it was for.
    struct Search: Equatable {
        enum Purpose: Equatable {
            /// From `--playlist-start` on, when the player starts.
            case start
            /// At an item's end, on to the next (round again while passes are left).
            case advance
            /// A command's move through the list, in its direction, round it when `loop`.
            case skip(forward: Bool, loop: Bool)
        }
        let purpose: Purpose
        let paused: Bool
        /// The item tried (opening while the search waits).
        var candidate = 0
        /// Items tried so far: each at most once.
        var tries = 0
    }

    /// Where a search stands: an item plays, one opens, or none would (the reasons are in the
    /// tally; `purpose` says what the search was for).
    enum Progress: Equatable { case opened, opening, none(Search.Purpose) }

    /// The search waiting on an open (nil: none).
    private(set) var search: Search?

    /// Tries the items from `first` on until one opens.
    func start(from first: Int, paused: Bool) -> Progress {
        guard playlist.count > 0 else {
            tally.say("nothing to play")
            return .none(.start)
        }
        return run(Search(purpose: .start, paused: paused), from: first)
    }

    /// After the item at the position: the next that opens, past the last the first again
    /// while the playlist loops (``WalkTally/takePlaylistLoop()``).
    func advance() -> Progress {
        let search = Search(purpose: .advance, paused: false)
        return run(search, from: playlist.index(after: playlist.position, loop: false) ?? (tally.takePlaylistLoop() ? 0 : nil))
    }

    /// The item ``advance()`` would try first (nil: none, the list does not loop).
    var following: Int? {
        playlist.index(after: playlist.position, loop: false) ?? (tally.playlistLoopsLeft.isOn ? 0 : nil)
    }

    /// The open the search waited on ended: the search is over when it opened, else it goes on
    /// to the next candidate. Nil when no search waited (an item reopened where it stood: when
    /// that fails, the player is idle and the walk goes on from there as from any idle player).
    func openEnded(opened: Bool) -> Progress? {
        guard var s = search else { return nil }
        search = nil
        if opened {
            succeeded(s)
            return .opened
        }
        s.tries += 1
        return run(s, from: following(after: s.candidate, s))
    }

    /// The search waiting is dropped (the host leaves; its open was cancelled).
    func dropSearch() { search = nil }

    /// Tries `first`, then each next candidate of `search`, until one opens or opening; each
    /// item at most once, none after a quit.
    private func run(_ start: Search, from first: Int?) -> Progress {
        var s = start
        var index = first
        search = nil
        while let i = index, s.tries < playlist.count, !interrupter.isRaised {
            s.candidate = i
            switch owner?.load(index: i, paused: s.paused) ?? .failed {
            case .opened:
                succeeded(s)
                return .opened
            case .opening:
                search = s
                return .opening
            case .failed:
                s.tries += 1
                index = following(after: i, s)
            }
        }
        return .none(s.purpose)
    }

    /// The candidate after `index` in `search`'s order.
    private func following(after index: Int, _ search: Search) -> Int? {
        switch search.purpose {
        case .start: return index + 1 < playlist.count ? index + 1 : nil
        case .advance:
            if let next = playlist.index(after: index, loop: false) { return next }
            return tally.takePlaylistLoop() ? 0 : nil
        case .skip(let forward, let loop):
            return forward ? playlist.index(after: index, loop: loop) : playlist.index(before: index, loop: loop)
        }
    }

    /// A command's move says where it went.
    private func succeeded(_ search: Search) {
        guard case .skip = search.purpose, playlist.items.indices.contains(search.candidate) else { return }
        owner?.show("\(search.candidate + 1)/\(playlist.count) \(playlist.items[search.candidate].displayName)")
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
    /// travel (round the list when `loop`), each at most once. `.ok` once an item plays or opens
    /// (an open that fails later goes on from there).
    func skip(to index: Int, forward: Bool, loop: Bool, paused: Bool) -> CommandResult {
        switch run(Search(purpose: .skip(forward: forward, loop: loop), paused: paused), from: index) {
        case .opened, .opening: return .ok
        case .none: return .failure(Self.noPlayableItem)
        }
    }

    static let noPlayableItem = "no playable item"

    /// A station list named by URL (``PlaylistLoader/isRemoteList(_:)``), fetched: the one
    /// small fetch, within ``remoteListLimit`` and the read deadline of `network`; `interrupt`
    /// (a quit, a newer open) cancels it. On the open's thread.
    static func fetchRemoteList(_ url: String, network: NetworkSettings, interrupt: InterruptToken) -> Result<[UInt8], ListFailure> {
        do {
            // The headers were checked when the options were read.
            let options = (try? SourceOptions.make(headers: network.headers)) ?? [:]
            return .success(try SmallFetch.bytes(url, options: options, settings: network, interrupt: interrupt,
                                                 timeout: network.readTimeout, limit: remoteListLimit))
        } catch {
            let why = NetworkSettings.diagnose(error, url: url, clock: interrupt.clock)
            return .failure(ListFailure(line: "cannot open '\(TextSanitizer.clean(url))': \(why.line)", network: why.cause.isTransport))
        }
    }

    /// Item `index`'s station list (`bytes`, ``fetchRemoteList(_:network:interrupt:)``): its
    /// entries put in its place, as mpv does. True when they were; false when it is no list
    /// after all (an HLS playlist: opened as a stream); a failure (nothing in it to play) says
    /// why in one line.
    func expandRemoteList(at index: Int, bytes: [UInt8]) -> Result<Bool, ListFailure> {
        let item = playlist.items[index]
        let url = item.source
        let name = TextSanitizer.clean(url)
        guard let parsed = PlaylistLoader.parseRemote(bytes: bytes, url: url) else { return .success(false) }
        for w in parsed.warnings { AppLog.write("playlist", "'\(name)': \(w)") }
        guard !parsed.items.isEmpty else { return .failure(ListFailure(line: "'\(name)': the station list names nothing to play")) }
        let entries = parsed.items.map { PlaylistItem(source: $0.source, title: $0.title ?? item.title) }
        playlist.expand(at: index, with: entries)
        AppLog.write("playlist", "'\(name)': \(entries.count) entr\(entries.count == 1 ? "y" : "ies")")
        return .success(true)
    }

    /// Why a station list or a page could not be played (one line).
    struct ListFailure: Error, Sendable {
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
