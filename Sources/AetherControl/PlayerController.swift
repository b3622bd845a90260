import AetherBase
import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The one place player commands are carried out. Keys (through the bindings), the mouse, the
/// IPC socket and MPRIS all reach the player through ``execute(_:)``; it owns the playlist,
/// moves through it at each item's end, saves and restores positions, and publishes the state
/// remote front ends observe. Runs on the host's thread (call ``tick()`` from its loop).
///
/// This file holds its state, loading and the host's loop; the commands are in extensions by
/// family: +Commands (the dispatch), +Transport (seeks, chapters), +Playlist, +Properties
/// (`set`/`add`/`cycle`), +Tracks, and +Snapshot (what remote front ends read).
public final class PlayerController {
    public let player: Player
    public let hub: RemoteHub
    public internal(set) var playlist: Playlist
    public internal(set) var settings: ControllerSettings
    public weak var host: PlayerHost?
    /// Raise it from a signal handler to cancel a load in progress (a stalled network open).
    public let interrupter = LoadInterrupter()

    /// Text subtitles are drawn (mpv's `sub-visibility`).
    public internal(set) var subtitlesVisible = true
    /// One line per item that could not be played (printed after the screen is gone).
    public internal(set) var errors: [String] = []
    /// ``errors`` as printed when the player leaves: the first `limit`, then how many more
    /// (a playlist of 100 000 missing files is not 100 000 lines on the terminal).
    public func reportedErrors(limit: Int = 20) -> [String] {
        guard errors.count > limit else { return errors }
        return Array(errors.prefix(limit)) + ["… and \(errors.count - limit) more items that could not be played"]
    }
    /// A resume note for the item just loaded (`resumed at 00:07`), for the host to show.
    public internal(set) var resumedAt: Double?

    // Internal, not private, where the command families (PlayerController+*.swift) use them.
    var loopsLeft = LoopCount.no
    var playlistLoopsLeft = LoopCount.no
    private var played = 0
    private var failed = 0
    private var endedEarly = false
    var quitCode: Int32?
    /// The current item reached its end and `--keep-open` holds it.
    var heldAtEnd = false
    /// When the image item loaded reached its end (nil: it has not, or it is no image): it stays
    /// `settings.imageDuration` from then (``holdsImage()``).
    var imageShownAt: Double?
    /// The host's one clock: the image hold, a quit's grace and every load's
    /// ``PlayerOptions/time`` read it (a manual one in tests).
    public let clock: TimeSource
    /// The cover file of the item loaded (``CoverFile``), written off the loop: the load it is
    /// for (a later load's thread wins, whichever ends first) and its URL.
    let cover = Guarded<(load: Int, url: String?)>((0, nil))
    /// ``servicesStarted(mpris:)`` was called: until then no cover is written.
    var servicesKnown = false
    /// The playlist position whose next item was weighed for gapless playback (once per item).
    var gaplessWeighed: Int?
    /// The current item's size in bytes (local files).
    var itemFileSize: Int?
    /// Where the current item started (for its summary).
    public internal(set) var itemStartPosition = 0.0
    /// Items loaded since the last one that played (stops a loop over a list of broken files).
    private var consecutiveFailures = 0

    public init(player: Player, playlist: Playlist, settings: ControllerSettings, hub: RemoteHub = RemoteHub(),
                clock: TimeSource = .monotonic) {
        self.player = player
        self.clock = clock
        self.playlist = playlist
        self.settings = settings
        self.hub = hub
        if settings.shuffle {
            self.playlist.shuffle(seed: settings.shuffleSeed ?? UInt64.random(in: 0...UInt64.max))
        }
        playlistLoopsLeft = settings.loopPlaylist
        // A quit queued from any thread cancels an open in progress at once; the quit itself
        // runs on the next tick.
        hub.onLeave { [interrupter, openState, clock] in
            let opening = openState.withLock { s in
                s.leave = s.leave ?? clock.seconds
                return s.opening
            }
            if opening { interrupter.raise() }
        }
    }

    /// An open is in progress, and when a command that leaves was announced (from any thread).
    private let openState = Guarded<(opening: Bool, leave: Double?)>((false, nil))
    /// How long an announced quit (seen behind a slow IPC command) is waited for before the
    /// item's state counts again.
    static let leaveGrace = 2.0

    /// `--sub-delay` as set for the session (kept across items).
    lazy var subtitleDelaySetting = 0.0
    public func setSubtitleDelaySetting(_ seconds: Double) { subtitleDelaySetting = seconds }

    /// The current item's track list, chapters and metadata as the snapshot shows them (text
    /// sanitised), built once per item: dropped when an item loads, rebuilt when the subtitle
    /// track list changes (``PlayerController+Snapshot``).
    var mediaCache: MediaCache?
    /// The titles of items that played, by source (``PlaylistTitles``), at most one per item.
    var titlesSeen: [String: String] = [:]
    /// Pages whose playlist took their place (each once: a page that lists itself ends there).
    var pagesExpanded = Set<String>()

    // MARK: loading

    /// Loads the first item that opens, from `--playlist-start` on. False when none did (the
    /// reasons are in ``errors``).
    public func start(paused: Bool = false) -> Bool {
        let first = min(max(0, settings.playlistStart), max(0, playlist.count - 1))
        guard playlist.count > 0 else { errors.append("nothing to play"); return false }
        var index: Int? = first
        while let i = index, !interrupter.isRaised {
            if load(index: i, paused: paused) { return true }
            index = i + 1 < playlist.count ? i + 1 : nil
        }
        return false
    }

    /// Loads item `index`; on failure records why and returns false (the player is idle).
    @discardableResult
    public func load(index: Int, paused: Bool = false) -> Bool {
        load(index: index, paused: paused, reload: nil)
    }

    /// What a reload of the current item keeps: where it stood and its tracks.
    struct Reload {
        var position: Double
        var audioTrack: Int?
        var subtitleTrack: Int?
    }

    func load(index: Int, paused: Bool, reload: Reload?) -> Bool {
        guard playlist.items.indices.contains(index) else { return false }
        // A station list named by URL: its stations take its place, and the first is played.
        if reload == nil, PlaylistLoader.isRemoteList(playlist.items[index].source) {
            switch openRemoteList(at: index) {
            case .failure(let why): return notPlayed(why.line)
            case .success(true): return load(index: index, paused: paused, reload: nil)
            case .success(false): break
            }
        }
        if player.state != .idle, player.mediaInfo != nil {
            host?.controllerWillUnloadItem(self, reason: heldAtEnd || player.state == .ended ? "eof" : "stop")
        }
        // Gapless: the prepared item already plays on from this one's last sample; keep it.
        if !player.continues(to: playlist.items[index].source) { player.stop() }
        heldAtEnd = false
        imageShownAt = nil
        gaplessWeighed = nil
        mediaCache = nil
        playlist.position = index
        let item = playlist.items[index]
        var options = settings.player
        options.interrupt = interrupter.fresh()
        options.time = clock
        resumedAt = nil
        var saved: WatchLater.Entry?
        if let reload {
            options.start = reload.position
            if let a = reload.audioTrack { options.audioTrack = a; options.audioEnabled = true } else { options.audioEnabled = false }
            options.subtitleTrack = reload.subtitleTrack
            options.subtitlesEnabled = reload.subtitleTrack != nil
        } else if settings.resume, !settings.startGiven, let entry = settings.watchLater.load(for: item.source) {
            saved = entry
            options.start = entry.start
            resumedAt = entry.start
            if let v = entry.volume { options.volume = v }
            if let m = entry.muted { options.muted = m }
            if let s = entry.speed { options.speed = s }
            if let d = entry.audioDelay { options.audioDelay = d }
            if let a = entry.audioTrack {
                if let n = a { options.audioTrack = n - 1; options.audioEnabled = true } else { options.audioEnabled = false }
            }
        }
        host?.controllerWillOpen(self)
        let leaving = openState.withLock { s in
            s.opening = true
            return s.leave != nil
        }
        if leaving { interrupter.raise() }
        defer {
            openState.withLock { $0.opening = false }
            host?.controllerDidOpen(self)
        }
        do {
            try player.load(url: item.source, options: options)
        } catch {
            if reload == nil, let list = error.playlistPage {
                // A page of several videos: its entries take its place (each page expanded once).
                guard pagesExpanded.insert(item.source).inserted else {
                    return notPlayed("'\(TextSanitizer.clean(item.displayName))': the page's playlist was played already (a page that lists itself?)")
                }
                let entries = list.entries.filter { $0.url != item.source }.map { PlaylistItem(source: $0.url, title: $0.title) }
                guard !entries.isEmpty else { return notPlayed("'\(TextSanitizer.clean(item.displayName))': the page's playlist lists only itself") }
                playlist.expand(at: index, with: entries)
                AppLog.write("ytdl", "'\(TextSanitizer.clean(item.source))': \(entries.count) entries\(list.leftOut > 0 ? ", \(list.leftOut) without a URL left out" : "")")
                return load(index: index, paused: paused, reload: nil)
            }
            if interrupter.isRaised { return false }
            return notPlayed(TextSanitizer.clean(error.description))
        }
        // `--start` past the item's end: nothing of it would play (mpv says so and counts it
        // as not played).
        if reload == nil, settings.startGiven, options.start > 0, let duration = player.duration, duration > 0,
           options.start >= duration {
            player.stop()
            return notPlayed("'\(TextSanitizer.clean(item.displayName))': --start \(Self.clock(options.start)) is past its end (\(Self.clock(duration)))")
        }
        consecutiveFailures = 0
        played += 1
        itemFileSize = PlaylistLoader.isURL(item.source) ? nil
            : FileBytes.size(path: item.source)
        itemStartPosition = player.startPosition ?? options.start
        loopsLeft = settings.loopFile
        if settings.subtitleAutoload, !PlaylistLoader.isURL(item.source) {
            for path in SubtitleStore.sidecarCandidates(for: item.source) where !options.subtitleFiles.contains(path) {
                player.addSubtitleFile(path)
            }
        }
        if let title = title(of: item), titlesSeen.count < playlist.count || titlesSeen[item.source] != nil {
            titlesSeen[item.source] = title
        }
        // (`--stream-record` began with the open; a gapless item already playing starts it here.)
        if player.recordingPath != settings.player.streamRecord { startRecording() }
        writeCover()
        chooseInitialSubtitles(options: options, saved: saved)
        player.setSubtitleDelay(saved?.subtitleDelay ?? subtitleDelaySetting)
        if !paused { player.play() }
        host?.controllerDidLoadItem(self)
        hub.emit(.fileLoaded)
        hub.emit(.seeked(position: options.start))
        if let at = resumedAt { host?.controller(self, show: "resuming at \(Self.clock(at))") }
        publish()
        return true
    }

    // MARK: the host's loop

    public enum TickResult: Equatable { case running, finished(code: Int32) }

    /// Runs queued remote commands, moves on at an item's end, and publishes the state. Call
    /// from the host's loop: when ``RemoteHub/onRequest(_:)`` says a command is queued, and every
    /// 20–30 ms while the player moves.
    public func tick() -> TickResult {
        // Replies go out after the state they produced is published, so a client that asks for
        // a property right after its command's reply reads the new value.
        let requests = hub.takeRequests()
        let results = requests.map { execute($0.command) }
        if !requests.isEmpty { publish() }
        for (request, result) in zip(requests, results) { request.reply(result) }
        if let code = quitCode { return .finished(code: code) }
        // A quit is on its way (it cancelled the open that just failed): the failed item is
        // not an error to report, the quit decides how this ends.
        if let announced = openState.withLock({ $0.leave }), clock.seconds - announced < Self.leaveGrace {
            return .running
        }
        switch player.state {
        case .ended where !heldAtEnd:
            if holdsImage() { break }
            if let message = player.endedEarlyMessage {
                endedEarly = true
                let line = "'\(TextSanitizer.clean(playlist.current?.source ?? ""))': \(message)"
                errors.append(line)
            } else if let source = playlist.current?.source {
                // Played to the end: nothing to resume.
                settings.watchLater.remove(for: source)
            }
            if advanceAtEnd() { break }
            if settings.keepOpen, player.mediaInfo != nil {
                heldAtEnd = true
                break
            }
            host?.controllerWillUnloadItem(self, reason: "eof")
            hub.emit(.endFile(reason: "eof"))
            quitCode = exitCode()
            return .finished(code: quitCode!)
        case .error:
            let line = "'\(TextSanitizer.clean(playlist.current?.source ?? ""))': \(player.failure?.description ?? "playback failed")"
            errors.append(line)
            failed += 1
            played -= 1
            host?.controllerWillUnloadItem(self, reason: "error")
            hub.emit(.endFile(reason: "error"))
            if !advanceAtEnd() {
                quitCode = exitCode()
                return .finished(code: quitCode!)
            }
        case .idle:
            // Every item failed to load after a `loadfile` or a skip.
            if !advanceAtEnd() {
                quitCode = exitCode()
                return .finished(code: quitCode!)
            }
        case .playing: prepareNextItem()
        default: break
        }
        publish()
        return .running
    }

    /// An item that could not be played: counted, said (`line`, cleaned), and false for ``load``.
    func notPlayed(_ line: String) -> Bool {
        failed += 1
        consecutiveFailures += 1
        errors.append(line)
        host?.controller(self, show: line)
        return false
    }

    /// Starts the host's remote front ends (`services`) as `options` ask, and from then on writes
    /// covers only if MPRIS runs (nothing reads them otherwise). Their warnings, a line each.
    public func start(_ services: RemoteServices, _ options: RemoteServices.Options) -> [String] {
        let warnings = services.start(options)
        servicesStarted(mpris: services.mprisIsRunning)
        return warnings
    }

    /// The remote services started: the item already loaded gets its cover now, with MPRIS.
    func servicesStarted(mpris: Bool) {
        servicesKnown = true
        guard settings.coverDirectory != nil else { return }
        if !mpris { settings.coverDirectory = nil; return }
        if player.mediaInfo != nil, cover.withLock({ $0.url == nil }) { writeCover() }
    }

    /// The item's cover written as a file for MPRIS (`settings.coverDirectory`), on a thread of
    /// its own (decoding and encoding a cover takes tens of ms); the snapshot names it once written
    /// (the host's loop publishes one at least once a second).
    func writeCover() {
        let load = cover.withLock { c in c = (c.load + 1, nil); return c.load }
        guard let directory = settings.coverDirectory, servicesKnown else { return }
        let player = self.player, cover = self.cover
        OSThread.start(name: "aether.cover") {
            guard let image = player.coverArt, let url = CoverFile.url(for: image, in: directory) else { return }
            cover.withLock { c in if c.load == load { c.url = url } }
        }
    }

    /// An image item at its end stays `--image-display-duration` (mpv's; from the moment it
    /// ended, when its one picture is up), then the playlist moves on; `inf` keeps it until the
    /// user moves on. True while it stays.
    func holdsImage() -> Bool {
        guard player.mediaInfo?.isStillImage == true, player.endedEarlyMessage == nil, !loopsLeft.isOn else { return false }
        let now = clock.seconds
        let shown = imageShownAt ?? now
        imageShownAt = shown
        guard let until = settings.imageDuration.until(shownAt: shown) else { return true }
        return now < until
    }

    /// Seconds from now until the controller has something to do without an event (an image's
    /// time is up); nil when nothing is due. The host's loop wakes for it.
    public var nextDue: Double? {
        guard let shown = imageShownAt, let until = settings.imageDuration.until(shownAt: shown), player.state == .ended
        else { return nil }
        return max(0, until - clock.seconds)
    }

    /// The item ended: loop it, or go to the next one that opens. False when there is none.
    private func advanceAtEnd() -> Bool {
        if player.state == .ended, player.mediaInfo != nil, loopsLeft.isOn {
            // The same item again (one summary covers every pass).
            if case .times(let n) = loopsLeft { loopsLeft = n > 1 ? .times(n - 1) : .no }
            player.seek(to: 0, mode: .exact)
            player.play()
            hub.emit(.seeked(position: 0))
            return true
        }
        if player.state == .ended { hub.emit(.endFile(reason: "eof")) }
        var candidate = playlist.index(after: playlist.position, loop: false)
        var tries = 0
        // A quit cancels the chain too (a playlist of 100 000 missing files).
        while tries < playlist.count, !interrupter.isRaised {
            if candidate == nil {
                guard playlistLoopsLeft.isOn, played > 0 else { return false }
                if case .times(let n) = playlistLoopsLeft { playlistLoopsLeft = n > 1 ? .times(n - 1) : .no }
                candidate = 0
            }
            guard let i = candidate else { return false }
            if load(index: i) { return true }
            candidate = playlist.index(after: i, loop: false)
            tries += 1
        }
        return false
    }

    /// mpv's exit codes: 0 when everything played, 1 when the one item could not be played,
    /// 2 when none of several could, 3 when some could and some could not; 2 also when a file
    /// ended early (truncated, read error).
    public func exitCode() -> Int32 {
        ExitStatus.of(played: played, failed: failed, items: playlist.count, endedEarly: endedEarly).rawValue
    }

    /// The host is leaving for its own reason (a signal): save the position if asked to.
    public func finish(interrupted: Bool) {
        if settings.savePositionOnQuit { saveWatchLater() }
        hub.emit(.endFile(reason: "quit"))
        hub.close()
    }

    // MARK: resume

    /// Saves the current item's position and settings for the next start.
    public func saveWatchLater() {
        guard let item = playlist.current, player.mediaInfo != nil else { return }
        var entry = WatchLater.Entry(start: max(0, player.currentTime))
        entry.audioTrack = .some(player.activeAudioTrack.map { $0 + 1 })
        entry.subtitleTrack = .some(player.activeSubtitleTrack.flatMap { id in player.subtitleTracks.firstIndex { $0.id == id } }.map { $0 + 1 })
        entry.volume = player.volume
        entry.muted = player.isMuted
        entry.speed = player.rate
        entry.subtitleDelay = player.subtitleDelay
        entry.audioDelay = player.audioDelay
        do { try settings.watchLater.save(entry, for: item.source) } catch {
            errors.append("cannot save the position: \(error.systemReason)")
        }
    }

    static func clock(_ seconds: Double) -> String { TimeFormat.clock(seconds) }
}
