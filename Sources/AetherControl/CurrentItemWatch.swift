import AetherBase
import AetherMedia

/// Process-wide: hears of each item a controller starts to open (no media information yet)
/// and has loaded (with what the player found in it). The crash report keeps what is playing
/// this way (aether-tui's `CrashReporting`): a crash handler cannot ask the controller, so the
/// item is copied out as it changes. A crash while a hostile file opens names that file.
public enum CurrentItemWatch {
    public typealias Handler = @Sendable (PlaylistItem, MediaInfo?) -> Void
    private static let handler = Guarded<Handler?>(nil)

    /// Sets who hears (nil: nobody).
    public static func watch(_ newHandler: Handler?) { handler.withLock { $0 = newHandler } }

    /// `item` starts to open (`info` nil), or is loaded and the player found `info` in it.
    static func current(_ item: PlaylistItem, info: MediaInfo?) {
        handler.current?(item, info)
    }
}
