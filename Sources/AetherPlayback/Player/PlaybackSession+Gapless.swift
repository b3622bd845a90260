import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Which session may stop an audio device: the one that opened it, until its sound is all
/// written and it hands the device to the next playlist item (gapless, `--gapless-audio`).
/// Only the owner's `stop()` interrupts the device; a prepared item that never took it over,
/// and an item that gave it away, leave it playing.
final class SinkOwner: Sendable {
    private let owner = Guarded<ObjectIdentifier?>(nil)

    func claim(_ session: ObjectIdentifier) { owner.withLock { $0 = session } }

    /// `from` gives the device to `to`; false when `from` no longer holds it (it is stopping).
    func transfer(from: ObjectIdentifier, to: ObjectIdentifier) -> Bool {
        owner.withLock { o in
            guard o == from else { return false }
            o = to
            return true
        }
    }

    /// `session` stops: true when it held the device (it is nobody's from now on).
    func release(_ session: ObjectIdentifier) -> Bool {
        owner.withLock { o in
            guard o == session else { return false }
            o = nil
            return true
        }
    }

    func isOwned(by session: ObjectIdentifier) -> Bool { owner.withLock { $0 == session } }
}

extension PlaybackSession {
    /// The prepared next item starts its threads: it demuxes and decodes ahead, and its sound
    /// waits, unwritten, until this item's predecessor hands it the device (``handOverSink()``).
    func startHeld() {
        control.withLock { c in
            c.handoff.held = true
            c.userPaused = false
            c.paused = false
            c.apply(.pauseChanged)
        }
        clock.setPaused(false)
        start()
    }

    /// The audio thread, after the last samples of this item are written: gives the device to
    /// the prepared successor (same device, same speed) and lets its sound be written right
    /// after them. Returns the seconds the device still holds of this item (the boundary is
    /// heard then), or nil when there is no successor to take it (the device drains as usual).
    func handOverSink() -> Double? {
        guard let next = successor.withLock({ $0 }), let sink, let nextSink = next.sink, nextSink === sink else { return nil }
        let (volume, muted, rate, equalizer) = control.read { ($0.settings.volume, $0.settings.muted, $0.settings.rate, $0.settings.equalizer) }
        guard next.control.read({ $0.settings.rate }) == rate else {
            AppLog.write("gapless", "the next item plays at another speed: the ordinary switch")
            return nil
        }
        guard sinkOwner.transfer(from: ObjectIdentifier(self), to: ObjectIdentifier(next)) else { return nil }
        let left = Double(sink.delayFrames()) / Double(max(1, sink.format.sampleRate))
        control.withLock { $0.handoff.handedOver = true }
        // The equalizer's filters carry on into the next item's first samples (no click at the
        // joint): handed over before it may write.
        next.audio?.inheritEqualizer(audio?.releaseEqualizer())
        next.control.withLock { c in
            c.settings.volume = volume
            c.settings.muted = muted
            c.settings.equalizer = equalizer
            c.handoff.held = false
        }
        AppLog.write("gapless", String(cFormat: "the next item continues the device; this one's last sample is heard in %.3f s", left))
        return left
    }

    /// The item that continues this one's device, once this one handed it over.
    var handedTo: PlaybackSession? {
        control.read { $0.handoff.handedOver } ? successor.withLock { $0 } : nil
    }
}
