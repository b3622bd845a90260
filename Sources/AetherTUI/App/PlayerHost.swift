import AetherControl
import AetherBase
import AetherCommands
import AetherInput
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The controller's callbacks: what only the screen can do.
extension TUIApp: PlayerHost {
    /// An item opens on its thread while the loop goes on: the last item's picture goes, and
    /// the transport row names what opens once it takes longer than a moment (``ChromeView``).
    public func controllerWillOpen(_ controller: PlayerController) {
        guard display.isUp else { return }
        runtime.relayout()
    }

    public func controllerWillUnloadItem(_ controller: PlayerController, reason: String) {
        writeSummary(interrupted: false)
    }

    public func controllerDidLoadItem(_ controller: PlayerController) {
        // A new item: its previews, menus and scrub state belonged to the last one.
        runtime.itemChanged()
        guard display.isUp else { return }
        attachItem()
        // (A paused item's first picture came before the output was its sink.)
        if player.isPaused { player.redisplay() }
    }

    public func controller(_ controller: PlayerController, show message: String) {
        runtime.osd(message, seconds: message.hasPrefix("resuming") || message.hasPrefix("cannot") ? 4 : 1.5)
    }

    public func controller(_ controller: PlayerController, perform ui: UIAction) -> CommandResult {
        runtime.perform(ui: ui)
    }

    public func controller(_ controller: PlayerController, press name: String) -> CommandResult {
        guard let key = Key(mpvName: name) else { return .failure("'keypress': '\(TextSanitizer.clean(name))' is not a key") }
        display.screen.dirty = true
        runtime.press(key)
        return .ok
    }

    public func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult {
        runtime.takeScreenshot(subtitles: subtitles)
        return .ok
    }
}
