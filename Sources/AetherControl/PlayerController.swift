import AetherBase
import AetherCommands
import AetherPlayback
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The one place player commands are carried out. Keys (through the bindings), the mouse, the
/// IPC socket and MPRIS all reach the player through ``execute(_:)``; it loads each item the
/// walk through the playlist comes to, saves and restores positions, and publishes the state
/// remote front ends observe. Runs on the host's thread (call ``tick()`` from its loop).
///
/// This file holds its state and the host's loop; loading an item (on the open thread, and the
/// walk's search waiting on it) is +Loading; the commands are in extensions by
/// family: +Commands (the dispatch, with seeks and the properties through the
/// ``PropertyTable``), +Playlist, +Tracks, and +Snapshot (what remote front ends read). Its parts: ``PlaylistWalk`` (the playlist, where to go next, and the ``WalkTally``),
/// ``ItemFacts`` (the item loaded), ``OpenPlan`` (how an item opens), ``LeaveGate`` (a quit
/// that cancels an open) and ``SnapshotSource`` (the snapshot, the titles and the cover).
public final class PlayerController: PlaylistWalkOwner {
    public let player: Player
    public let hub: RemoteHub
    public internal(set) var settings: ControllerSettings
    public weak var host: PlayerHost?
    /// Raise it from a signal handler to cancel a load in progress (a stalled network open).
    public let interrupter: LoadInterrupter
    /// The host's one clock: the image hold, a quit's grace and every load's
    /// ``PlayerOptions/time`` read it (a manual one in tests).
    public let clock: TimeSource

    /// The playlist, the way through it and its tally.
    let walk: PlaylistWalk
    /// What is known of the item loaded.
    var item = ItemFacts()
    /// What remote front ends read.
    let remote: SnapshotSource
    /// Text subtitles are drawn (mpv's `sub-visibility`).
    public internal(set) var subtitlesVisible = true
    /// `--sub-delay` as set for the session (kept across items).
    var subtitleDelaySetting = 0.0
    /// A quit announced from any thread cancels the open in progress.
    let gate: LeaveGate
    /// The item opening on its thread (nil: none).
    var opening: OpenJob?
    /// The thread items open on.
    let openThread = OpenThread()
    /// Commands given while an item opened, run once one loaded (``execute(_:)``).
    var waitingForTheItem: [PlayerCommand] = []
    /// Remote commands' replies, sent when no item opens (``tick()``).
    private var repliesAfterOpen: [(reply: @Sendable (CommandResult) -> Void, result: CommandResult)] = []

    public init(player: Player, playlist: Playlist, settings: ControllerSettings, hub: RemoteHub = RemoteHub(),
                clock: TimeSource) {
        self.player = player
        self.clock = clock
        self.settings = settings
        self.hub = hub
        let interrupter = LoadInterrupter(clock: clock)
        self.interrupter = interrupter
        var playlist = playlist
        if settings.shuffle {
            playlist.shuffle(seed: settings.shuffleSeed ?? UInt64.random(in: 0...UInt64.max))
        }
        walk = PlaylistWalk(playlist: playlist, loops: settings.loopPlaylist, interrupter: interrupter)
        let gate = LeaveGate(interrupter: interrupter, clock: clock)
        self.gate = gate
        remote = SnapshotSource(coverDirectory: settings.coverDirectory)
        walk.owner = self
        // A quit queued from any thread cancels an open in progress at once; the quit itself
        // runs on the next tick.
        hub.onLeave { gate.leaveAnnounced() }
    }

    deinit { openThread.stop() }

    /// The playlist, as the walk has it.
    public internal(set) var playlist: Playlist {
        get { walk.playlist }
        set { walk.playlist = newValue }
    }

    /// One line per item that could not be played, the first ``WalkTally/keptLines`` (printed after the screen is gone).
    public var errors: [String] {
        walk.tally.errors
    }

    /// ``errors`` as printed when the player leaves: the first `limit`, then how many more
    /// (a playlist of 100 000 missing files is not 100 000 lines on the terminal).
    public func reportedErrors(limit: Int = 20) -> [String] { walk.tally.reportedErrors(limit: limit) }

    /// Where the current item started (for its summary).
    public var itemStartPosition: Double {
        item.startPosition
    }

    public func setSubtitleDelaySetting(_ seconds: Double) { subtitleDelaySetting = seconds }

    // MARK: the host's loop

    public enum TickResult: Equatable { case running, finished(RunEnd) }

    /// How long one tick follows opens that end at once, and how long it waits for each.
    static let chainedOpens = 0.05
    static let quickOpen = 0.005

    /// Runs queued remote commands, moves on at an item's end, and publishes the state. Call
    /// from the host's loop: when ``RemoteHub/onRequest(_:)`` says a command is queued, and every
    /// 20–30 ms while the player moves.
    public func tick() -> TickResult {
        // Replies go out after the state they produced is published, so a client that asks for
        // a property right after its command's reply reads the new value.
        // A command answered while an item opens (one it started, or one given meanwhile) is
        // answered once the open ended: a reply means done, as when opens blocked the host.
        let requests = hub.takeRequests()
        let results = requests.map { execute($0.command) }
        if !requests.isEmpty { publish() }
        for (request, result) in zip(requests, results) { repliesAfterOpen.append((request.reply, result)) }
        if opening == nil { sendReplies(published: !requests.isEmpty) }
        defer { if opening == nil { sendReplies(published: false) } }
        if let end = walk.tally.end {
            cancelOpen()
            return .finished(end)
        }
        // The item opening ended: its load is finished, or the walk goes on to the next. Opens
        // the walk goes on to that end at once (a playlist of missing files) are followed in
        // this tick, for up to ``chainedOpens`` seconds: not a loop pass (a draw, a publish) each.
        let chainStart = clock.seconds
        var first = true
        while let job = opening {
            let ended = first || clock.seconds - chainStart >= Self.chainedOpens ? job.finished : job.wait(timeout: Self.quickOpen)
            guard let outcome = ended else { break }
            first = false
            if finishOpen(job, outcome) == false, !gate.leaving, !interrupter.isRaised {
                waitingForTheItem = []
                return finished()   // none opened
            }
        }
        // A quit is on its way (it cancelled the open that just failed): the failed item is
        // not an error to report, the quit decides how this ends.
        if gate.leaving { return .running }
        if opening != nil {
            publish()
            return .running
        }
        switch player.state {
        case .ended where !item.heldAtEnd:
            if holdsImage() { break }
            if let message = player.endedEarlyMessage {
                walk.tally.endedEarly("'\(TextSanitizer.clean(playlist.current?.source ?? ""))': \(message)", network: player.networkGaveUp)
            } else if let source = playlist.current?.source {
                // Played to the end: nothing to resume.
                settings.watchLater.remove(for: source)
            }
            if advanceAtEnd() { break }
            if settings.keepOpen, player.mediaInfo != nil {
                item.heldAtEnd = true
                break
            }
            host?.controllerWillUnloadItem(self, reason: "eof")
            hub.emit(.endFile(reason: "eof"))
            return finished()
        case .error:
            walk.tally.failedPlaying("'\(TextSanitizer.clean(playlist.current?.source ?? ""))': \(player.failure?.description ?? "playback failed")", network: player.networkGaveUp)
            host?.controllerWillUnloadItem(self, reason: "error")
            hub.emit(.endFile(reason: "error"))
            if !advanceAtEnd() { return finished() }
        case .idle:
            // Every item failed to load after a `loadfile` or a skip.
            if !advanceAtEnd() { return finished() }
        case .playing:
            prepareNextItem()
            reopenIfWedged()
            followABLoop()
        default: item.lastSeenPlaying = nil
        }
        publish()
        return .running
    }

    /// The replies held go out after the state they produced (`published`: it is already).
    private func sendReplies(published: Bool) {
        guard !repliesAfterOpen.isEmpty else { return }
        let replies = repliesAfterOpen
        repliesAfterOpen = []
        if !published { publish() }
        for (reply, result) in replies { reply(result) }
    }

    /// The walk is over: it ends with the tally's status.
    private func finished() -> TickResult {
        let end = RunEnd.status(status())
        walk.tally.end = end
        return .finished(end)
    }

    /// An image item at its end stays `--image-display-duration` (mpv's; from the moment it
    /// ended, when its one picture is up), then the playlist moves on; `inf` keeps it until the
    /// user moves on. True while it stays.
    func holdsImage() -> Bool {
        guard player.mediaInfo?.isStillImage == true, player.endedEarlyMessage == nil, !walk.tally.fileLoopsLeft.isOn else { return false }
        return item.holdsImage(now: clock.seconds, for: settings.imageDuration)
    }

    /// Seconds from now until the controller has something to do without an event (an image's
    /// time is up, an A-B loop's B is reached); nil when nothing is due. The host's loop wakes
    /// for it.
    public var nextDue: Double? {
        // Playing towards an A-B loop's B: look when it is reached.
        if player.state == .playing { return settings.abLoop.secondsToB(from: player.currentTime, rate: player.rate) }
        guard player.state == .ended else { return nil }
        return item.imageDue(now: clock.seconds, for: settings.imageDuration)
    }

    /// Playback that played through B goes back to A (``ABLoop``).
    private func followABLoop() {
        let now = player.currentTime
        defer { item.lastSeenPlaying = now }
        guard let previous = item.lastSeenPlaying, let target = settings.abLoop.target(from: previous, to: now, rate: player.rate) else { return }
        player.seek(to: target, mode: .exact)
        hub.emit(.seeked(position: target))
    }

    /// The live item, when it delivers bytes but no newer timestamp for
    /// ``StallWatchdog/seconds``, is opened again at its live edge (one log line, shown); a slow
    /// one is left to rebuffer.
    private func reopenIfWedged() {
        guard player.isLive, let index = playlist.position,
              case .wedged(let bytes, let seconds) = item.watchdog.observe(
                  now: clock.seconds, newest: player.liveWindow?.upperBound, bytes: player.networkStatus?.bytes ?? 0) else { return }
        let line = "the stream is wedged (\(ByteSize.describe(bytes)) in \(Int(seconds)) s brought nothing newer): reopened at the live edge"
        AppLog.write("ctl", "'\(TextSanitizer.clean(playlist.items[index].source))': \(line)")
        show(line)
        _ = load(index: index, paused: false, reload: nil)
    }

    /// The ended item plays again from `position`.
    private func playAgain(from position: Double) {
        player.seek(to: position, mode: .exact)
        player.play()
        hub.emit(.seeked(position: position))
    }

    /// The item ended: back to A (an A-B loop without B), loop it, or go to the next one that
    /// opens. False when there is none.
    private func advanceAtEnd() -> Bool {
        if player.state == .ended, player.mediaInfo != nil, let target = settings.abLoop.targetAtEnd() {
            playAgain(from: target)
            return true
        }
        if player.state == .ended, player.mediaInfo != nil, walk.tally.takeFileLoop() {
            // The same item again (one summary covers every pass).
            playAgain(from: 0)
            return true
        }
        if player.state == .ended { hub.emit(.endFile(reason: "eof")) }
        return walked(walk.advance()) != false
    }

    /// mpv's exit codes: 0 when everything played, 1 when the one item could not be played,
    /// 2 when none of several could, 3 when some could and some could not; 2 also when a file
    /// ended early (truncated, read error).
    public func status() -> ExitStatus {
        walk.tally.status(items: playlist.count)
    }

    /// The host is leaving for its own reason (a signal): save the position if asked to.
    public func finish(interrupted: Bool) {
        cancelOpen()
        sendReplies(published: false)
        if settings.savePositionOnQuit { saveWatchLater() }
        hub.emit(.endFile(reason: "quit"))
        hub.close()
    }

    // MARK: remote services and resume

    /// Starts the host's remote front ends (`services`) as `options` ask, and from then on writes
    /// covers only if MPRIS runs (nothing reads them otherwise). Their warnings, a line each.
    public func start(_ services: RemoteServices, _ options: RemoteServices.Options) -> [String] {
        let warnings = services.start(options)
        remote.servicesStarted(mpris: services.mprisIsRunning, player: player)
        return warnings
    }

    /// Saves the current item's position and settings for the next start.
    public func saveWatchLater() {
        guard let entry = playlist.current, player.mediaInfo != nil else { return }
        do { try settings.watchLater.save(WatchLater.Entry(of: player), for: entry.source) } catch {
            walk.tally.say("cannot save the position: \(error.systemReason)")
        }
    }

}
