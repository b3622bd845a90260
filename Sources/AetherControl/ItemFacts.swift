/// What the controller knows of the item it loaded, beyond what the player says: whether it is
/// held at its end, when an image was first seen ended, whether the next item was weighed for
/// gapless playback, its size, where it started and where it resumed. Each load starts it anew
/// (``willLoad()``, then ``opened(fileSize:startPosition:)``).
struct ItemFacts: Equatable {
    /// It reached its end and `--keep-open` holds it.
    var heldAtEnd = false
    /// When the image item reached its end (nil: it has not, or it is no image): it stays
    /// `--image-display-duration` from then (``holdsImage(now:for:)``).
    private(set) var imageShownAt: Double?
    /// The playlist position whose next item was weighed for gapless playback (once per item).
    var gaplessWeighed: Int?
    /// Its size in bytes (local files).
    private(set) var fileSize: Int?
    /// Where it started (for its summary).
    private(set) var startPosition = 0.0
    /// Where watch-later resumed it (nil: from where it starts, or as asked).
    var resumedAt: Double?
    /// A live item's stall watchdog (``StallWatchdog``).
    var watchdog = StallWatchdog()
    /// Where the last look saw it playing (media seconds; nil: not since it loaded or sought):
    /// the A-B loop's "from" (``ABLoop/target(from:to:)``).
    var lastSeenPlaying: Double?
    /// It opened and plays once set up (its sidecars, cover and tracks chosen; not `--pause`)
    /// (``PlayerController/startsPlaying``).
    var startsPlaying = false

    /// A load begins: nothing of the last item holds. Its size and start stay until the new
    /// one opens (a summary after a failed load is the last item's).
    mutating func willLoad() {
        heldAtEnd = false
        imageShownAt = nil
        gaplessWeighed = nil
        resumedAt = nil
        watchdog = StallWatchdog()
        lastSeenPlaying = nil
        startsPlaying = false
    }

    /// The item opened, `fileSize` bytes large (nil: not a local file), from `startPosition`.
    mutating func opened(fileSize: Int?, startPosition: Double) {
        self.fileSize = fileSize
        self.startPosition = startPosition
    }

    /// The image at its end stays `duration` from the first time this is asked (`now`); true
    /// while it stays.
    mutating func holdsImage(now: Double, for duration: ImageDuration) -> Bool {
        let shown = imageShownAt ?? now
        imageShownAt = shown
        guard let until = duration.until(shownAt: shown) else { return true }
        return now < until
    }

    /// Seconds from `now` until the image's `duration` is up; nil when no image is held or it
    /// stays until the user moves on.
    func imageDue(now: Double, for duration: ImageDuration) -> Double? {
        guard let shown = imageShownAt, let until = duration.until(shownAt: shown) else { return nil }
        return max(0, until - now)
    }
}
