import AetherCommands

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
    func controller(_ controller: PlayerController, perform ui: UIAction) -> CommandResult
    func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult
    /// IPC `keypress`: act as if `key` (a key name as input.conf writes it) were pressed.
    func controller(_ controller: PlayerController, press key: String) -> CommandResult
    /// An item starts opening, on a thread of its own (``PlayerController/openingItem`` says
    /// which and since when); the host's loop goes on, and its ``PlayerController/tick()``
    /// finishes the load when the open ended (``controllerDidLoadItem(_:)`` when it opened).
    func controllerWillOpen(_ controller: PlayerController)
}

public extension PlayerHost {
    func controller(_ controller: PlayerController, press key: String) -> CommandResult {
        .failure("'keypress' needs a player with keys")
    }
    func controllerWillOpen(_ controller: PlayerController) {}
}
