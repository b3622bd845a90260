import AetherEngine
import Foundation

/// Cancels the blocking open or read of whichever item is loading when the host wants out (a
/// quit signal); every load gets a fresh token (a stopped session cancels its own). Thread-safe.
public final class LoadInterrupter: Sendable {
    private let state = Guarded<(token: InterruptToken?, raised: Bool)>((nil, false))
    public init() {}

    /// A token for the next load, already cancelled once ``raise()`` was called.
    func fresh() -> InterruptToken {
        let token = InterruptToken()
        let raised = state.withLock { s in
            s.token = token
            return s.raised
        }
        if raised { token.cancel() }
        return token
    }

    /// Cancels the current load and every later one.
    public func raise() {
        let token = state.withLock { s in
            s.raised = true
            return s.token
        }
        token?.cancel()
    }

    public var isRaised: Bool { state.withLock { $0.raised } }
}

/// What a host (the TUI, the headless player) does for the controller: things only it can
/// do or show.
public protocol PlayerHost: AnyObject {
    /// The current item is about to be unloaded (`reason`: eof, stop, quit, error): the last
    /// moment to read its figures (the stats summary).
    func controllerWillUnloadItem(_ controller: PlayerController, reason: String)
    /// A new item is loaded (paused at its start position unless playback runs): attach the
    /// output, lay out.
    func controllerDidLoadItem(_ controller: PlayerController)
    /// Feedback for a command (mpv's OSD message), or an error with an item.
    func controller(_ controller: PlayerController, show message: String)
    /// A command only an interactive host has (``PlayerCommand/ui(_:)``).
    func controller(_ controller: PlayerController, perform ui: String) -> CommandResult
    func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult
    /// An item starts opening: the host's thread is blocked in it until ``controllerDidOpen(_:)``
    /// (up to the open deadline on a stalled server). A host with keys keeps its quit keys
    /// answering meanwhile, by submitting them to the hub from another thread.
    func controllerWillOpen(_ controller: PlayerController)
    func controllerDidOpen(_ controller: PlayerController)
}

public extension PlayerHost {
    func controllerWillOpen(_ controller: PlayerController) {}
    func controllerDidOpen(_ controller: PlayerController) {}
}

/// How many more times an item or the playlist repeats (mpv's `--loop-file`, `--loop-playlist`).
public enum LoopCount: Sendable, Equatable {
    case no, times(Int), infinite

    /// `no`, `inf`, `yes` (= inf), or a count.
    public init?(option: String) {
        switch option {
        case "no": self = .no
        case "inf", "yes", "": self = .infinite
        default:
            guard let n = Int(option), n >= 0 else { return nil }
            self = n == 0 ? .no : .times(n)
        }
    }

    public var isOn: Bool { self != .no }
}

/// Everything about playlist playback the command line and config decide.
public struct ControllerSettings: Sendable {
    /// Options every item is loaded with (its start position, tracks, volume …).
    public var player = PlayerOptions()
    /// `--start` was given: it wins over a saved position.
    public var startGiven = false
    /// `--playlist-start` (0-based).
    public var playlistStart = 0
    public var loopFile = LoopCount.no
    public var loopPlaylist = LoopCount.no
    /// `--shuffle`, and the seed that makes its order reproducible (nil: random).
    public var shuffle = false
    public var shuffleSeed: UInt64?
    /// `--keep-open`: stay on the last frame at the end instead of leaving.
    public var keepOpen = false
    /// `--resume-playback` (default) and `--save-position-on-quit`.
    public var resume = true
    public var savePositionOnQuit = false
    public var watchLater = WatchLater(directory: WatchLater.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    /// Look for subtitle files next to each item (`movie.srt`, `movie.en.ass`).
    public var subtitleAutoload = true
    public init() {}
}

/// The one place player commands are carried out. Keys (through the bindings), the mouse, the
/// IPC socket and MPRIS all reach the player through ``execute(_:)``; it owns the playlist,
/// moves through it at each item's end, saves and restores positions, and publishes the state
/// remote front ends observe. Runs on the host's thread (call ``tick()`` from its loop).
public final class PlayerController {
    public let player: Player
    public let hub: RemoteHub
    public private(set) var playlist: Playlist
    public private(set) var settings: ControllerSettings
    public weak var host: PlayerHost?
    /// Raise it from a signal handler to cancel a load in progress (a stalled network open).
    public let interrupter = LoadInterrupter()

    /// Text subtitles are drawn (mpv's `sub-visibility`).
    public private(set) var subtitlesVisible = true
    /// One line per item that could not be played (printed after the screen is gone).
    public private(set) var errors: [String] = []
    /// ``errors`` as printed when the player leaves: the first `limit`, then how many more
    /// (a playlist of 100 000 missing files is not 100 000 lines on the terminal).
    public func reportedErrors(limit: Int = 20) -> [String] {
        guard errors.count > limit else { return errors }
        return Array(errors.prefix(limit)) + ["… and \(errors.count - limit) more items that could not be played"]
    }
    /// A resume note for the item just loaded (`resumed at 00:07`), for the host to show.
    public private(set) var resumedAt: Double?

    private var loopsLeft = LoopCount.no
    private var playlistLoopsLeft = LoopCount.no
    private var played = 0
    private var failed = 0
    private var endedEarly = false
    private var quitCode: Int32?
    /// The current item reached its end and `--keep-open` holds it.
    private var heldAtEnd = false
    /// The current item's size in bytes (local files).
    private var itemFileSize: Int?
    /// Where the current item started (for its summary).
    public private(set) var itemStartPosition = 0.0
    /// Items loaded since the last one that played (stops a loop over a list of broken files).
    private var consecutiveFailures = 0

    public init(player: Player, playlist: Playlist, settings: ControllerSettings, hub: RemoteHub = RemoteHub()) {
        self.player = player
        self.playlist = playlist
        self.settings = settings
        self.hub = hub
        if settings.shuffle {
            self.playlist.shuffle(seed: settings.shuffleSeed ?? UInt64.random(in: 0...UInt64.max))
        }
        playlistLoopsLeft = settings.loopPlaylist
        // A quit queued from any thread cancels an open in progress at once; the quit itself
        // runs on the next tick.
        hub.onLeave { [interrupter, openState] in
            let opening = openState.withLock { s in
                s.leave = s.leave ?? MonotonicClock.seconds()
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
    private struct Reload {
        var position: Double
        var audioTrack: Int?
        var subtitleTrack: Int?
    }

    private func load(index: Int, paused: Bool, reload: Reload?) -> Bool {
        guard playlist.items.indices.contains(index) else { return false }
        if player.state != .idle, player.mediaInfo != nil {
            host?.controllerWillUnloadItem(self, reason: heldAtEnd || player.state == .ended ? "eof" : "stop")
        }
        player.stop()
        heldAtEnd = false
        playlist.position = index
        let item = playlist.items[index]
        var options = settings.player
        options.interrupt = interrupter.fresh()
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
            if interrupter.isRaised { return false }
            failed += 1
            consecutiveFailures += 1
            let line = "\(TextSanitizer.clean("\(error)"))"
            errors.append(line)
            host?.controller(self, show: line)
            return false
        }
        consecutiveFailures = 0
        played += 1
        itemFileSize = PlaylistLoader.isURL(item.source) ? nil
            : (try? FileManager.default.attributesOfItem(atPath: item.source))?[.size] as? Int
        itemStartPosition = options.start
        loopsLeft = settings.loopFile
        if settings.subtitleAutoload, !PlaylistLoader.isURL(item.source) {
            for path in SubtitleStore.sidecarCandidates(for: item.source) where !options.subtitleFiles.contains(path) {
                player.addSubtitleFile(path)
            }
        }
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

    /// `--sub-delay` as set for the session (kept across items).
    private lazy var subtitleDelaySetting = 0.0
    public func setSubtitleDelaySetting(_ seconds: Double) { subtitleDelaySetting = seconds }

    /// Sidecars found next to the file count after the embedded tracks: `--sid=N` may name one,
    /// and with no choice and no default embedded track the first sidecar is shown (the user
    /// put it there to be seen).
    private func chooseInitialSubtitles(options: PlayerOptions, saved: WatchLater.Entry?) {
        if let s = saved?.subtitleTrack {
            player.selectSubtitleTrack(s.map { $0 - 1 })
            return
        }
        guard options.subtitlesEnabled, player.activeSubtitleTrack == nil else { return }
        if let wanted = options.subtitleTrack, player.subtitleTracks.indices.contains(wanted) {
            player.selectSubtitleTrack(wanted)
        } else if options.subtitleTrack == nil,
                  let match = LanguagePreference.first(of: options.subtitleLanguages, in: player.subtitleTracks.map(\.language)) {
            player.selectSubtitleTrack(player.subtitleTracks[match].id)
        } else if options.subtitleTrack == nil, options.subtitleLanguages.isEmpty,
                  let first = player.subtitleTracks.first(where: { if case .sidecar = $0.source { return true }; return false }) {
            player.selectSubtitleTrack(first.id)
        }
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
        if let announced = openState.withLock({ $0.leave }), MonotonicClock.seconds() - announced < Self.leaveGrace {
            return .running
        }
        switch player.state {
        case .ended where !heldAtEnd:
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
            let line = "'\(TextSanitizer.clean(playlist.current?.source ?? ""))': \(player.failureMessage ?? "playback failed")"
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
        default: break
        }
        publish()
        return .running
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
        if failed == 0 { return endedEarly ? 2 : 0 }
        if played <= 0 { return playlist.count <= 1 ? 1 : 2 }
        return 3
    }

    /// The host is leaving for its own reason (a signal): save the position if asked to.
    public func finish(interrupted: Bool) {
        if settings.savePositionOnQuit { saveWatchLater() }
        hub.emit(.endFile(reason: "quit"))
        hub.close()
    }

    // MARK: state

    /// The snapshot remote front ends read; also published by ``tick()``.
    public func snapshot() -> PlayerSnapshot {
        var s = PlayerSnapshot()
        let state = player.state
        switch state {
        case .idle, .error: s.status = .stopped
        case .ended: s.status = heldAtEnd ? .paused : .stopped
        default: s.status = player.isPaused ? .paused : .playing
        }
        s.position = player.currentTime
        s.duration = player.duration
        s.volume = player.volume
        s.muted = player.isMuted
        s.speed = player.rate
        s.audioTrack = player.activeAudioTrack.map { $0 + 1 }
        s.subtitleTrack = player.activeSubtitleTrack.map { $0 + 1 }
        s.subtitleDelay = player.subtitleDelay
        s.audioDelay = player.audioDelay
        s.playlistPosition = playlist.position
        s.playlistCount = playlist.count
        if let item = playlist.current {
            s.path = TextSanitizer.clean(item.source)
            s.filename = TextSanitizer.clean(item.displayName)
            let tags = player.tags
            func clean(_ text: String?) -> String? { text.map { TextSanitizer.clean($0) }.flatMap { $0.isEmpty ? nil : $0 } }
            s.tags.title = clean(player.mediaInfo?.title) ?? clean(tags.title) ?? clean(item.title)
            s.mediaTitle = s.tags.title ?? s.filename
            s.tags.artist = clean(tags.artist)
            s.tags.album = clean(tags.album)
            s.tags.albumArtist = clean(tags.albumArtist)
            s.tags.genre = clean(tags.genre)
            s.tags.year = clean(tags.year)
            // "3/12" → 3
            s.tags.track = tags.track.flatMap { Int($0.split(separator: "/").first.map(String.init) ?? "") }
        }
        let loopAll = settings.loopPlaylist.isOn
        s.canGoNext = playlist.index(after: playlist.position, loop: loopAll) != nil
        s.canGoPrevious = playlist.index(before: playlist.position, loop: loopAll) != nil
        s.loopFile = settings.loopFile.isOn
        s.loopPlaylist = loopAll
        s.shuffle = settings.shuffle
        if let info = player.mediaInfo, state != .idle {
            fillMedia(&s, info: info)
        }
        return s
    }

    /// The track list, chapters, metadata and video parameters (all text sanitised).
    private func fillMedia(_ s: inout PlayerSnapshot, info: MediaInfo) {
        func clean(_ text: String?) -> String? { text.map { TextSanitizer.clean($0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let activeVideo = player.activeVideoTrack
        s.videoTrack = activeVideo.map { $0 + 1 }
        s.chapters = info.chapters.map { .init(title: clean($0.title) ?? "", time: $0.start) }
        let now = player.currentTime
        s.chapter = info.chapters.lastIndex { $0.start <= now + 0.01 }
        var tracks: [PlayerSnapshot.Track] = []
        for (k, v) in info.video.enumerated() {
            var t = PlayerSnapshot.Track(kind: .video, id: k + 1, codec: v.codec)
            t.title = clean(v.tags.title); t.language = clean(v.tags.language)
            t.isDefault = v.tags.isDefault; t.isForced = v.tags.isForced; t.selected = k == activeVideo
            t.width = v.width; t.height = v.height; t.fps = v.frameRate
            tracks.append(t)
        }
        let activeAudio = player.activeAudioTrack
        for (k, a) in info.audio.enumerated() {
            var t = PlayerSnapshot.Track(kind: .audio, id: k + 1, codec: a.codec)
            t.title = clean(a.tags.title); t.language = clean(a.tags.language)
            t.isDefault = a.tags.isDefault; t.isForced = a.tags.isForced; t.selected = k == activeAudio
            t.channels = a.channels; t.sampleRate = a.sampleRate
            tracks.append(t)
        }
        let activeSub = player.activeSubtitleTrack
        for (k, sub) in player.subtitleTracks.enumerated() {
            var t = PlayerSnapshot.Track(kind: .sub, id: k + 1, codec: sub.codec)
            t.title = clean(sub.title); t.language = clean(sub.language)
            t.isDefault = sub.isDefault; t.isForced = sub.isForced; t.selected = sub.id == activeSub
            if case .sidecar(let path) = sub.source { t.externalFilename = clean(path) }
            tracks.append(t)
        }
        s.tracks = tracks
        var metadata: [String: String] = [:]
        let tags = info.tags
        for (key, value) in [("title", info.title ?? tags.title), ("artist", tags.artist), ("album", tags.album),
                             ("album_artist", tags.albumArtist), ("track", tags.track), ("date", tags.date),
                             ("genre", tags.genre)] {
            if let v = clean(value) { metadata[key] = v }
        }
        s.metadata = metadata
        if let v = info.primaryVideo, activeVideo != nil {
            let dw = v.displayAspect > 0 && v.height > 0 ? Int(saturating: (Double(v.height) * v.displayAspect).rounded()) : v.width
            var p = PlayerSnapshot.VideoParams(width: v.width, height: v.height, displayWidth: dw, displayHeight: v.height, codec: v.codec)
            p.pixelFormat = v.pixelFormat; p.primaries = v.colorPrimaries; p.gamma = v.colorTransfer; p.fps = v.frameRate
            s.video = p
        }
        s.fileFormat = info.container
        s.fileSize = itemFileSize
        s.buffering = player.isBuffering
        s.seekable = player.seekableRange != nil
    }

    public func publish() { hub.publish(snapshot()) }

    // MARK: commands

    /// Carries out `command` and says how it went (the IPC's reply, an OSD message on failure).
    @discardableResult
    public func execute(_ command: PlayerCommand) -> CommandResult {
        let result = run(command)
        if case .failure(let why) = result { host?.controller(self, show: why) }
        return result
    }

    private func show(_ text: String) { host?.controller(self, show: text) }

    private func run(_ command: PlayerCommand) -> CommandResult {
        switch command {
        case .seek(let requested, let reference, let exact):
            guard player.mediaInfo != nil else { return .failure("nothing is playing") }
            // Clamped to ±31 years: `seek 1e308` goes to the end, as far as any file reaches.
            let amount: Double
            do { amount = try OutsideValue.seconds(requested, name: "seek") } catch { return .failure(error.message) }
            let mode: SeekMode = exact ? .exact : .keyframe
            let target: Double
            switch reference {
            case .relative:
                target = player.currentTime + amount
                player.seek(by: amount, mode: mode)
                show(String(format: "seek %+.0f s", amount))
            case .absolute:
                // mpv: a negative absolute time counts from the end.
                target = amount < 0 ? max(0, (player.duration ?? 0) + amount) : amount
                player.seek(to: target, mode: exact || amount >= 0 ? .exact : mode)
                show("seek to \(Self.clock(target))")
            case .absolutePercent:
                // Live: percentages of the kept window (100 is the live edge).
                guard let range = player.seekableRange, range.upperBound > range.lowerBound else {
                    return .failure("the length is unknown")
                }
                target = range.lowerBound + min(100, max(0, amount)) / 100 * (range.upperBound - range.lowerBound)
                player.seek(to: target, mode: mode)
                show(player.isLive && amount >= 100 ? "back to live" : "seek to \(Self.clock(target))")
            }
            if heldAtEnd { heldAtEnd = false }
            hub.emit(.seeked(position: max(0, target)))
            return .ok
        case .set(let name, let value): return set(name, value)
        case .add(let name, let delta): return add(name, delta)
        case .multiply(let name, let factor):
            guard name == "speed" || name == "volume" else { return .failure("cannot multiply '\(name)'") }
            let current = name == "speed" ? player.rate : player.volume
            return set(name, .number(name == "speed" ? (current * factor * 100).rounded() / 100 : current * factor))
        case .cycle(let name, let up): return cycle(name, up: up)
        case .frameStep: player.step(); return .ok
        case .frameBackStep: player.stepBack(); return .ok
        case .playlistNext:
            guard let i = playlist.index(after: playlist.position, loop: settings.loopPlaylist.isOn) else {
                return .failure("no next item")
            }
            return skip(to: i, forward: true)
        case .playlistPrevious:
            guard let i = playlist.index(before: playlist.position, loop: settings.loopPlaylist.isOn) else {
                return .failure("no previous item")
            }
            return skip(to: i, forward: false)
        case .playlistPlay(let i):
            guard playlist.items.indices.contains(i) else { return .failure("no playlist item \(i)") }
            return skip(to: i, forward: true)
        case .loadfile(let source, let mode):
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
        case .quit(let code, let watchLater):
            if watchLater || settings.savePositionOnQuit { saveWatchLater() }
            if watchLater { show("position saved") }
            host?.controllerWillUnloadItem(self, reason: "quit")
            quitCode = code
            return .ok
        case .stop:
            host?.controllerWillUnloadItem(self, reason: "stop")
            quitCode = exitCode()
            return .ok
        case .screenshot(let subtitles):
            return host?.controller(self, screenshot: subtitles) ?? .failure("screenshots need the terminal player")
        case .showText(let text):
            show(text)
            return .ok
        case .ui(let name):
            return host?.controller(self, perform: name) ?? .failure("'\(name)' needs the terminal player")
        case .ignore:
            return .ok
        }
    }

    /// Goes to item `index`; an item that will not open is skipped in the direction of travel.
    private func skip(to index: Int, forward: Bool) -> CommandResult {
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

    private func set(_ name: String, _ value: PropertyValue) -> CommandResult {
        switch name {
        case "pause":
            guard let b = value.bool else { return .failure("'pause' takes yes or no") }
            if b { player.pause() } else {
                if heldAtEnd { return .failure("at the end") }
                player.play()
            }
            show(b ? "paused" : "playing")
        case "volume":
            guard let v = value.number else { return .failure("'volume' takes a number") }
            player.setVolume(v)
            // Kept for the next items, as mpv keeps it.
            settings.player.volume = player.volume
            show("volume \(Int(player.volume.rounded())) %")
        case "mute":
            guard let b = value.bool else { return .failure("'mute' takes yes or no") }
            player.setMuted(b)
            settings.player.muted = b
            show(b ? "mute" : "unmute")
        case "speed":
            guard let v = value.number, v > 0 else { return .failure("'speed' takes a number") }
            player.setRate(v)
            settings.player.speed = player.rate
            show(String(format: "speed %.2f×", player.rate))
        case "aid", "audio":
            let count = player.mediaInfo?.audio.count ?? 0
            if value.bool == false || value == .string("no") {
                player.selectAudioTrack(nil)
                show("audio: off")
            } else if let n = track(value, count: count), count > 0 {
                player.selectAudioTrack(n - 1)
                show("audio: \(audioLabel(n - 1))")
            } else { return .failure("no audio track \(value)") }
        case "vid", "video":
            let count = player.mediaInfo?.video.count ?? 0
            let choice: Int?
            if value.bool == false || value == .string("no") { choice = nil } else if let n = track(value, count: count) {
                choice = n - 1
            } else { return .failure("no video track \(value)") }
            guard choice != player.activeVideoTrack else { return .ok }
            // Kept for the next items (mpv's --vid); the item reopens where it stood.
            settings.player.videoEnabled = choice != nil
            settings.player.videoTrack = choice
            guard let index = playlist.position else { return .ok }
            let paused = player.isPaused
            let keep = Reload(position: player.currentTime, audioTrack: player.activeAudioTrack,
                              subtitleTrack: player.activeSubtitleTrack.flatMap { id in player.subtitleTracks.firstIndex { $0.id == id } })
            guard load(index: index, paused: paused, reload: keep) else { return .failure("cannot reopen with that video track") }
            show("video: \(choice.map { videoLabel($0) } ?? "off")")
        case "sid", "sub":
            let tracks = player.subtitleTracks
            if value.bool == false || value == .string("no") {
                selectSubtitle(nil)
            } else if let n = track(value, count: tracks.count) {
                selectSubtitle(tracks[n - 1].id)
            } else { return .failure("no subtitle track \(value)") }
        case "sub-delay":
            guard let v = value.number else { return .failure("'sub-delay' takes seconds") }
            player.setSubtitleDelay(v)
            subtitleDelaySetting = player.subtitleDelay
            show(String(format: "subtitle delay %+.1f s", player.subtitleDelay))
        case "audio-delay":
            guard let v = value.number else { return .failure("'audio-delay' takes seconds") }
            player.setAudioDelay(v)
            settings.player.audioDelay = player.audioDelay
            show(String(format: "audio delay %+.1f s", player.audioDelay))
        case "sub-visibility":
            guard let b = value.bool else { return .failure("'sub-visibility' takes yes or no") }
            subtitlesVisible = b
            show(b ? "subtitles visible" : "subtitles hidden")
        case "time-pos":
            guard let v = value.number else { return .failure("'time-pos' takes seconds") }
            return run(.seek(v, .absolute, exact: true))
        case "percent-pos":
            guard let v = value.number else { return .failure("'percent-pos' takes a percentage") }
            return run(.seek(v, .absolutePercent, exact: true))
        case "chapter":
            let chapters = player.mediaInfo?.chapters ?? []
            guard let v = value.number else { return .failure("'chapter' takes a number") }
            guard let index = try? OutsideValue.integer(v, in: 0...max(0, chapters.count - 1), name: name),
                  chapters.indices.contains(index) else { return .failure("no such chapter") }
            return jumpToChapter(index)
        case "playlist-pos":
            guard let v = value.number else { return .failure("'playlist-pos' takes a number") }
            guard let index = try? OutsideValue.integer(v, in: 0...max(0, playlist.count - 1), name: name),
                  playlist.items.indices.contains(index) else { return .failure("no playlist item \(value)") }
            return run(.playlistPlay(index))
        case "loop-file", "loop-playlist":
            let loop: LoopCount?
            switch value {
            case .bool(let b): loop = b ? .infinite : .no
            case .number(let n): loop = (try? OutsideValue.integer(n, in: 0...Int(Int32.max), name: name)).map { $0 == 0 ? .no : .times($0) }
            case .string(let s): loop = LoopCount(option: s)
            case .none: loop = .no
            case .list, .map: loop = nil
            }
            guard let loop else { return .failure("'\(name)' takes inf, no or a count") }
            if name == "loop-file" { settings.loopFile = loop; loopsLeft = loop } else {
                settings.loopPlaylist = loop; playlistLoopsLeft = loop
            }
            show("\(name): \(loop.isOn ? "on" : "off")")
        default:
            return .failure("unknown property '\(name)'")
        }
        return .ok
    }

    /// A 1-based track number in 1…count from a property value (nil: not one).
    private func track(_ value: PropertyValue, count: Int) -> Int? {
        guard count > 0, let v = value.number else { return nil }
        return try? OutsideValue.integer(v, in: 1...count, name: "track")
    }

    private func add(_ name: String, _ delta: Double) -> CommandResult {
        switch name {
        case "volume": return set(name, .number(player.volume + delta))
        case "speed": return set(name, .number(((player.rate + delta) * 100).rounded() / 100))
        case "sub-delay": return set(name, .number(((player.subtitleDelay + delta) * 1000).rounded() / 1000))
        case "audio-delay": return set(name, .number(((player.audioDelay + delta) * 1000).rounded() / 1000))
        case "chapter":
            // Any step past the first or last chapter is as far as it goes.
            guard let steps = OutsideValue.clampedInteger(delta, to: -100_000...100_000) else { return .failure("'chapter' takes a number") }
            return jumpChapter(steps)
        case "time-pos": return run(.seek(delta, .relative, exact: true))
        case "playlist-pos": return delta >= 0 ? run(.playlistNext) : run(.playlistPrevious)
        default: return .failure("cannot add to '\(name)'")
        }
    }

    private func cycle(_ name: String, up: Bool) -> CommandResult {
        switch name {
        case "pause":
            if heldAtEnd { return .failure("at the end") }
            return set("pause", .bool(!player.isPaused))
        case "mute": return set("mute", .bool(!player.isMuted))
        case "sub-visibility": return set("sub-visibility", .bool(!subtitlesVisible))
        case "loop-file": return set(name, .bool(!settings.loopFile.isOn))
        case "loop-playlist": return set(name, .bool(!settings.loopPlaylist.isOn))
        case "vid", "video":
            // Order: 1, 2, …, off (mpv's _ cycles through "no" too).
            let count = player.mediaInfo?.video.count ?? 0
            guard count > 0 else { return .failure("no video tracks") }
            let current = player.activeVideoTrack.map { $0 + 1 } ?? 0
            let next = (current + (up ? 1 : count)) % (count + 1)
            return set("vid", next == 0 ? .bool(false) : .number(Double(next)))
        case "aid", "audio":
            let count = player.mediaInfo?.audio.count ?? 0
            guard count > 0 else { return .failure("no audio tracks") }
            let current = player.activeAudioTrack ?? -1
            let next = ((current + (up ? 1 : -1)) % count + count) % count
            return set("aid", .number(Double(next + 1)))
        case "sid", "sub":
            let tracks = player.subtitleTracks
            guard !tracks.isEmpty else { return .failure("no subtitle tracks") }
            // Order: off, 1, 2, … (mpv's j cycles through "no" too).
            let current = player.activeSubtitleTrack.flatMap { id in tracks.firstIndex { $0.id == id } }.map { $0 + 1 } ?? 0
            let next = (current + (up ? 1 : tracks.count)) % (tracks.count + 1)
            selectSubtitle(next == 0 ? nil : tracks[next - 1].id)
            return .ok
        default:
            return .failure("cannot cycle '\(name)'")
        }
    }

    public func selectSubtitle(_ id: Int?) {
        player.selectSubtitleTrack(id)
        subtitlesVisible = true
        let label = id.flatMap { i in player.subtitleTracks.first { $0.id == i }?.label } ?? "off"
        show("subtitles: \(label)")
    }

    public func selectAudio(_ index: Int?) {
        player.selectAudioTrack(index)
        show("audio: \(index.map(audioLabel) ?? "off")")
    }

    public func videoLabel(_ index: Int) -> String {
        guard let v = player.mediaInfo?.video, v.indices.contains(index) else { return "off" }
        let t = v[index]
        return ["#\(index + 1)", t.tags.language, t.tags.title.map { "\"\(TextSanitizer.clean($0))\"" }, t.codec, "\(t.width)×\(t.height)"]
            .compactMap { $0 }.joined(separator: " · ")
    }

    public func audioLabel(_ index: Int) -> String {
        guard let a = player.mediaInfo?.audio, a.indices.contains(index) else { return "off" }
        let t = a[index]
        return [t.tags.language, t.tags.title.map { "\"\($0)\"" }, t.codec, t.layoutShort].compactMap { $0 }.joined(separator: " · ")
    }

    private func jumpChapter(_ delta: Int) -> CommandResult {
        guard let chapters = player.mediaInfo?.chapters, !chapters.isEmpty else { return .failure("no chapters") }
        let now = player.currentTime
        let current = chapters.lastIndex { $0.start <= now + 0.01 } ?? -1
        // Like mpv: going back from more than a second into a chapter restarts it.
        var target = current + delta
        if delta < 0, current >= 0, now - chapters[current].start > 1 { target = current }
        guard target >= 0, target < chapters.count else { return .failure("no more chapters") }
        return jumpToChapter(target)
    }

    private func jumpToChapter(_ index: Int) -> CommandResult {
        guard let chapters = player.mediaInfo?.chapters, chapters.indices.contains(index) else { return .failure("no such chapter") }
        player.seek(to: chapters[index].start, mode: .exact)
        hub.emit(.seeked(position: chapters[index].start))
        show("chapter \(index + 1)/\(chapters.count): \(chapters[index].title ?? "")")
        return .ok
    }

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
            errors.append("cannot save the position: \(error.localizedDescription)")
        }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(max(0, seconds))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%02d:%02d", s / 60, s % 60)
    }
}
