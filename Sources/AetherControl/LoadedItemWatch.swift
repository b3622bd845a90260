import AetherBase
import AetherEngine

/// Process-wide: hears of each item a controller loads, with what the player found in it. The
/// crash report keeps what is playing this way (aether-tui's `CrashReporting`): a crash handler
/// cannot ask the controller, so the item is copied out as it loads.
public enum LoadedItemWatch {
    public typealias Handler = @Sendable (PlaylistItem, MediaInfo?) -> Void
    private static let handler = Guarded<Handler?>(nil)

    /// Sets who hears (nil: nobody).
    public static func watch(_ newHandler: Handler?) { handler.withLock { $0 = newHandler } }

    /// `item` is loaded; the player found `info` in it.
    static func loaded(_ item: PlaylistItem, info: MediaInfo?) {
        handler.withLock { $0 }?(item, info)
    }
}
