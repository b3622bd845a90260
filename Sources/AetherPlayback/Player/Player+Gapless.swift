import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Gapless playback (`--gapless-audio`, mpv's): the next playlist item is opened while this one
/// plays, its sound decoded ahead; when this one's last sample is written, the next one's are
/// written right after them on the same device, which never drains. The host moves on when the
/// boundary is heard: this item then reads `ended`, and ``load(url:options:)`` of the prepared
/// item takes the session that already plays instead of opening it again.
extension Player {
    /// The next item: opening (`session` nil), or open and held (``PlaybackSession/startHeld()``).
    struct Upcoming {
        let url: String
        let token: InterruptToken
        var session: PlaybackSession?
    }

    /// Opens `url` ahead on a thread of its own to follow the playing item on its device: only
    /// after an item of sound alone (no video), with `options.gapless` not `.no`, and only when
    /// the next item has sound alone too and (`.weak`) the same rate and channels. Anything else
    /// is left to the ordinary switch, with one log line. Calling it again for the same URL does
    /// nothing; for another URL it replaces what was prepared.
    public func prepareNext(url: String, options given: PlayerOptions) {
        guard given.gapless != .no, let s = current, s.sink != nil, s.videoDecoder == nil, !s.reading.isLive,
              s.control.read({ !$0.handoff.handedOver && $0.state != .ended && $0.state != .error }) else { return }
        if upcoming.withLock({ $0?.url }) == url { return }
        dropPrepared()
        // The ordinary switch's start and length (mpv applies `--start` and `--length` to every
        // item); the speed, volume and mute of the item playing.
        var options = given.checkedTimes
        let (rate, volume, muted) = s.control.read { ($0.settings.rate, $0.settings.volume, $0.settings.muted) }
        options.speed = rate
        options.volume = volume
        options.muted = muted
        let token = InterruptToken()
        options.interrupt = token
        upcoming.withLock { $0 = Upcoming(url: url, token: token, session: nil) }
        let delay = subtitleDelayStore, divisor = frameDivisorStore
        let opening = options
        OSThread.start(name: "aether.prepare") { [weak self] in
            let next: PlaybackSession
            do {
                let opened = try SourceOpener.open(url: url, options: opening, continuing: s.sink)
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
    public var preparedNext: String? { upcoming.withLock { $0?.url } }

    /// Whether loading `url` now takes the prepared item that already plays on from this one.
    public func continues(to url: String) -> Bool {
        guard let s = current, let next = s.handedTo else { return false }
        return upcoming.withLock { $0?.url == url && $0?.session === next }
    }

    /// Stops what was prepared (opening or held); the playing item keeps its device.
    func dropPrepared() {
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
    func promote(url: String) -> Bool {
        guard continues(to: url), let old = current, let next = old.handedTo else { return false }
        upcoming.withLock { $0 = nil }
        replace(old, with: next)
        old.stop()
        return true
    }
}
