import AetherBase
import AetherPlayback
import FoundationEssentials

/// Loading an item: the walk's start, the load begun on the host's thread and finished there
/// once the item opened on the open thread (``OpenJob``), an open cancelled, and what a search
/// through the playlist came to.
extension PlayerController {
    /// Begins with the first item that opens, from `--playlist-start` on. False when none can
    /// (an empty playlist: the reason is in ``errors``); otherwise the host's ``tick()`` goes on
    /// with the walk, and ends it with the tally's exit code when no item opened.
    public func start(paused: Bool = false) -> Bool {
        let first = min(max(0, settings.playlistStart), max(0, playlist.count - 1))
        return walked(walk.start(from: first, paused: paused)) != false
    }

    /// Loads item `index` (``load(index:paused:reload:listChecked:)``).
    func load(index: Int, paused: Bool) -> LoadProgress {
        load(index: index, paused: paused, reload: nil)
    }

    /// Begins loading item `index`: the item before goes, and the item opens on a thread of
    /// its own (``OpenJob``) while the host's loop goes on; ``tick()`` finishes the load when it
    /// has opened. An open in progress is cancelled first (a newer move through the list wins).
    /// A station list named by URL is fetched first (`listChecked`: it was, and is no list).
    func load(index: Int, paused: Bool, reload: OpenPlan.Reload?, listChecked: Bool = false) -> LoadProgress {
        guard playlist.items.indices.contains(index) else { return .failed }
        cancelOpen()
        if player.state != .idle, player.mediaInfo != nil {
            host?.controllerWillUnloadItem(self, reason: item.heldAtEnd || player.state == .ended ? "eof" : "stop")
        }
        let entry = playlist.items[index]
        // Gapless: the prepared item already plays on from this one's last sample; keep it.
        if !player.continues(to: entry.source) { player.stop() }
        item.willLoad()
        remote.itemWillLoad()
        playlist.position = index
        CurrentItemWatch.current(entry, info: nil)
        var plan = OpenPlan(entry.source, settings: settings, reload: reload)
        let token = interrupter.fresh()
        plan.options.opening.interrupt = token
        plan.options.time = clock
        item.resumedAt = plan.resumesAt
        gate.openBegins()
        opening = OpenJob(index: index, source: entry.source, paused: paused, plan: plan,
                          fetchesList: reload == nil && !listChecked && PlaylistLoader.isRemoteList(entry.source), reload: reload,
                          token: token, player: player, began: clock.seconds, on: openThread)
        host?.controllerWillOpen(self)
        return .opening
    }

    /// What opens now, and since when on the controller's clock (nil: nothing does): a host
    /// names it on screen while it takes its time.
    public var openingItem: (source: String, since: Double)? {
        opening.map { ($0.source, $0.began) }
    }

    /// The item opening plays once it opened (`paused` false), or stays paused.
    public func setOpeningPaused(_ paused: Bool) { opening?.paused = paused }

    /// An item is on its way to playing: opening or set up after its open, and not to stay
    /// paused (what the remote front ends read says playing meanwhile, as mpv's `pause` does).
    var startsPlaying: Bool { item.startsPlaying || opening.map { !$0.paused } ?? false }

    /// The open in progress (if any) is cancelled and waited for: its interrupt ends a blocked
    /// read at once. What it opened regardless is stopped; the walk waiting on it is dropped.
    public func cancelOpen() {
        guard let job = opening else { return }
        opening = nil
        job.token.cancel()
        if case .opened = job.wait() { player.stop() }
        gate.openEnded()
        walk.dropSearch()
        AppLog.write("ctl", "open of '\(TextSanitizer.clean(job.source))' cancelled after \(Int((clock.seconds - job.began) * 1000)) ms")
    }

    /// Waits until no item opens any more (the open in progress, and each the walk goes on to
    /// after one that failed, ends within its own network deadline), ticking as a host's loop
    /// would: for a host or a test with nothing else to do meanwhile. The tick's result once the
    /// walk is over (nil: it goes on, an item plays).
    @discardableResult
    public func waitForOpen() -> TickResult? {
        while let job = opening {
            _ = job.wait()
            if case .finished(let end) = tick() { return .finished(end) }
        }
        return nil
    }

    /// The open in progress ended (`outcome`): the rest of the load, then the walk goes on.
    /// False when the walk is over with nothing that opened.
    func finishOpen(_ job: OpenJob, _ outcome: OpenJob.Outcome) -> Bool? {
        opening = nil
        gate.openEnded()
        let progress = loaded(job, outcome)
        if progress == .opening { return nil }
        return walk.openEnded(opened: progress == .opened).flatMap(walked)
    }

    /// What a search came to: nil while it goes on or an item plays; false when none opened
    /// (a move through the list says so; the walk's start or advance is over).
    func walked(_ progress: PlaylistWalk.Progress) -> Bool? {
        guard case .none(let purpose) = progress else { return nil }
        switch purpose {
        case .start, .advance: return false
        case .skip:
            show(PlaylistWalk.noPlayableItem)
            return nil
        }
    }

    /// The rest of item `job`'s load once its open ended.
    private func loaded(_ job: OpenJob, _ outcome: OpenJob.Outcome) -> LoadProgress {
        let index = job.index
        guard playlist.items.indices.contains(index) else { return .failed }
        let entry = playlist.items[index]
        switch outcome {
        case .list(.failure(let why)):
            return notPlayed(why.line, network: why.network)
        case .list(.success(let bytes)):
            // A station list: its stations take its place, and the first is played.
            switch walk.expandRemoteList(at: index, bytes: bytes) {
            case .failure(let why): return notPlayed(why.line, network: why.network)
            case .success(let expanded): return load(index: index, paused: job.paused, reload: nil, listChecked: !expanded)
            }
        case .pagePlaylist(let list):
            // A page of several videos: its entries take its place (each page expanded once). A
            // reload of the item (a new track) finds the page again: not played then.
            guard job.reload == nil else { return notPlayed("the page lists \(list.entries.count) videos") }
            if case .failure(let why) = walk.expandPage(at: index, list) { return notPlayed(why.line) }
            return load(index: index, paused: job.paused, reload: nil)
        case .failed(let error):
            if interrupter.isRaised { return .failed }
            return notPlayed(TextSanitizer.clean(error.description), network: error.network?.cause.isTransport == true)
        case .opened:
            break
        }
        let plan = job.plan
        // `--start` past the item's end: nothing of it would play (mpv says so and counts it
        // as not played).
        let start = plan.options.start
        if job.reload == nil, settings.startGiven, start > 0, let duration = player.duration, duration > 0, start >= duration {
            player.stop()
            return notPlayed("'\(TextSanitizer.clean(entry.displayName))': --start \(TimeFormat.clock(start)) is past its end (\(TimeFormat.clock(duration)))")
        }
        item.startsPlaying = !job.paused
        walk.tally.opened(loops: settings.loopFile)
        item.opened(fileSize: PlaylistLoader.isURL(entry.source) ? nil : FileBytes.size(path: entry.source),
                    startPosition: player.startPosition ?? start)
        CurrentItemWatch.current(entry, info: player.mediaInfo)
        let besides = settings.subtitleAutoload ? plan.addSidecars(of: entry.source, to: player) : []
        remote.saw(remote.title(of: entry, player: player), for: entry.source, items: playlist.count)
        // (`--stream-record` began with the open; a gapless item already playing starts it here.)
        if player.recordingPath != settings.player.streamRecord { startRecording() }
        remote.writeCover(of: player)
        plan.chooseSubtitles(on: player, delay: subtitleDelaySetting, besides: besides)
        if !job.paused { player.play() }
        item.startsPlaying = false
        host?.controllerDidLoadItem(self)
        hub.emit(.fileLoaded)
        hub.emit(.seeked(position: start))
        if let at = item.resumedAt { host?.controller(self, show: "resuming at \(TimeFormat.clock(at))") }
        let waiting = waitingForTheItem
        waitingForTheItem = []
        for command in waiting { execute(command) }
        publish()
        return .opened
    }

    /// An item that could not be played: counted, said (`line`, cleaned), and `.failed`.
    func notPlayed(_ line: String, network: Bool = false) -> LoadProgress {
        walk.tally.notPlayed(line, network: network)
        host?.controller(self, show: line)
        return .failed
    }
}
