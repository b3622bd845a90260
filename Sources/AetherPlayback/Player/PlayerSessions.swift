import AetherBase
import AetherMedia
import FoundationEssentials

/// The sessions a ``Player`` holds: the one loaded (or why the last load failed), and the next
/// playlist item opened ahead for gapless playback (`--gapless-audio`, mpv's). While an item of
/// sound alone plays, the next one is opened and its sound decoded ahead; when this one's last
/// sample is written, the next one's are written right after them on the same device, which
/// never drains. The host moves on when the boundary is heard: this item then reads `ended`,
/// and ``load(url:options:)`` of the prepared item takes the session that already plays instead
/// of opening it again. It also holds what every session it loads shares with the player: the
/// change notifier, the subtitle delay and the frame divisor.
///
/// Thread-safe: the host's thread loads, stops and prepares; the prepare thread hands in what
/// it opened.
final class PlayerSessions: Sendable {
    /// Told whenever what a host shows changes in any item loaded (``Player/changes``).
    let changes: ChangeNotifier
    /// Shared with every session loaded (its presenter applies it to the cues).
    let subtitleDelay = Guarded(0.0)
    /// Every how many frames the host paints (``Player/setFrameDivisor(_:)``), shared with every session.
    let frameDivisor = Guarded(1)
    /// The session loaded, or why the last load failed.
    private let loaded = Guarded<(session: PlaybackSession?, loadError: PlayerError?)>((nil, nil))
    /// The next playlist item, opened ahead to continue the device (``prepareNext(url:options:)``).
    private let upcoming = Guarded<Upcoming?>(nil)

    /// The next item: opening (`session` nil), or open and held (``PlaybackSession/startHeld()``).
    struct Upcoming {
        let url: String
        let token: InterruptToken
        var session: PlaybackSession?
    }

    init(changes: ChangeNotifier) {
        self.changes = changes
    }

    /// The session playing now.
    var current: PlaybackSession? { loaded.withLock { $0.session } }

    /// Why the last load failed (nil: it did not, or nothing was loaded).
    var loadError: PlayerError? { loaded.withLock { $0.loadError } }

    /// Opens `url` as the session loaded (see ``Player/load(url:options:)``); the prepared item
    /// when it is `url` and already plays on from the one before.
    func load(url: String, options given: PlayerOptions) throws(PlayerError) -> Player.LoadOutcome {
        // Gapless: the prepared item already plays on from the one before.
        if promote(url: url) { return .playing }
        stop()
        let options = given.checkedTimes
        do {
            let opened: OpenedSource
            switch try SourceOpener.open(url: url, options: options) {
            case .media(let media): opened = media
            case .pagePlaylist(let list): return .pagePlaylist(list)
            }
            let s = PlaybackSession(opened: opened, options: options, subtitleDelay: subtitleDelay,
                                        frameDivisor: frameDivisor, changes: changes)
            loaded.withLock { $0 = (s, nil) }
            // Before the demux thread: the packets the open read ahead are recorded too.
            if let path = options.streamRecord { s.startRecording(to: path) }
            s.start()
            return .playing
        } catch {
            loaded.withLock { $0.loadError = error }
            throw error
        }
    }

    /// `next` becomes the session loaded, if `old` still is.
    private func replace(_ old: PlaybackSession, with next: PlaybackSession) {
        loaded.withLock { if $0.session === old { $0 = (next, nil) } }
    }

    /// Stops the session loaded (threads joined, C resources freed) and what was prepared.
    func stop() {
        let s = loaded.withLock { l -> PlaybackSession? in
            defer { l.session = nil }
            return l.session
        }
        s?.stop()
        dropPrepared()
    }

    /// The player goes: the session loaded stops (still the current one while what was prepared
    /// is dropped), then what was prepared.
    func close() {
        current?.stop()
        dropPrepared()
    }

    // MARK: gapless

    /// Opens `url` ahead on a thread of its own (``Player/prepareNext(url:options:)``).
    func prepareNext(url: String, options given: PlayerOptions) {
        guard given.audio.gapless != .no, let s = current, s.sink != nil, s.videoDecoder == nil, !s.reading.isLive,
              s.control.read({ !$0.handoff.handedOver && $0.state != .ended && $0.state != .error }) else { return }
        if upcoming.withLock({ $0?.url }) == url { return }
        dropPrepared()
        // The ordinary switch's start and length (mpv applies `--start` and `--length` to every
        // item); the speed, volume and mute of the item playing.
        var options = given.checkedTimes
        let (rate, volume, muted, equalizer) = s.control.read { ($0.settings.rate, $0.settings.volume, $0.settings.muted, $0.settings.equalizer) }
        options.playing.rate = rate
        options.playing.volume = volume
        options.playing.muted = muted
        options.playing.equalizer = equalizer
        let token = InterruptToken(clock: options.time)
        options.opening.interrupt = token
        upcoming.withLock { $0 = Upcoming(url: url, token: token, session: nil) }
        let delay = subtitleDelay, divisor = frameDivisor
        let opening = options
        OSThread.start(name: "aether.prepare") { [weak self] in
            let next: PlaybackSession
            do {
                guard case .media(let opened) = try SourceOpener.open(url: url, options: opening, continuing: s.sink) else {
                    AppLog.write("gapless", "'\(TextSanitizer.clean(url))' is a page of several videos: the ordinary switch")
                    self?.upcoming.withLock { u in if u?.token === token { u = nil } }
                    return
                }
                next = PlaybackSession(opened: opened, options: opening, subtitleDelay: delay, frameDivisor: divisor,
                                       changes: self?.changes ?? ChangeNotifier(),
                                       continuing: s)
            } catch {
                AppLog.write("gapless", "'\(TextSanitizer.clean(url))' not prepared (the ordinary switch): \(error)")
                self?.upcoming.withLock { u in if u?.token === token { u = nil } }
                return
            }
            guard next.sink != nil, next.videoDecoder == nil, next.sinkOwner === s.sinkOwner else {
                AppLog.write("gapless", "'\(TextSanitizer.clean(url))' has pictures or no sound: the ordinary switch")
                next.stop()
                self?.upcoming.withLock { u in if u?.token === token { u = nil } }
                return
            }
            let kept = self?.upcoming.withLock { u -> Bool in
                guard u?.token === token else { return false }
                u?.session = next
                return true
            } ?? false
            guard kept, self?.current === s else {
                next.stop()
                return
            }
            next.startHeld()
            s.successor.withLock { $0 = next }
            AppLog.write("gapless", "'\(TextSanitizer.clean(url))' prepared: its sound waits for this item's last sample")
        }
    }

    /// The URL prepared or being prepared (nil: none).
    var preparedNext: String? { upcoming.withLock { $0?.url } }

    /// Whether loading `url` now takes the prepared item that already plays on from this one.
    func continues(to url: String) -> Bool {
        guard let s = current, let next = s.handedTo else { return false }
        return upcoming.withLock { $0?.url == url && $0?.session === next }
    }

    /// Stops what was prepared (opening or held); the playing item keeps its device.
    private func dropPrepared() {
        guard let u = upcoming.withLock({ u -> Upcoming? in
            defer { u = nil }
            return u
        }) else { return }
        u.token.cancel()
        current?.successor.withLock { s in if s === u.session { s = nil } }
        u.session?.stop()
    }

    /// `url` is the prepared item that plays on from the current one: it becomes the current
    /// session, and the one before (whose sound is all written) stops without the device.
    private func promote(url: String) -> Bool {
        guard continues(to: url), let old = current, let next = old.handedTo else { return false }
        upcoming.withLock { $0 = nil }
        replace(old, with: next)
        old.stop()
        return true
    }
}
