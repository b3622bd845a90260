
/// Hooks a host runs on each of the engine's own threads as it starts.
public enum EngineThreads {
    private static let hook = Guarded<(@Sendable () -> Void)?>(nil)

    /// Runs `body` first thing on every engine thread started from now on (the TUI installs an
    /// alternate signal stack there, so a stack overflow on any thread can still restore the
    /// terminal). Set it once, before loading.
    public static func setStartHook(_ body: (@Sendable () -> Void)?) { hook.withLock { $0 = body } }

    package static var startHook: (@Sendable () -> Void)? { hook.current }
}
