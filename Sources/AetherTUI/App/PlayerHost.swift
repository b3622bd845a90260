import AetherControl
import AetherEngine
import AetherInput
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The controller's callbacks: what only the screen can do.
extension TUIApp: PlayerHost {
    public func controllerWillOpen(_ controller: PlayerController) {
        // One watch for a run of opens (items that fail are skipped in one go): it ends when
        // the loop reads keys again (``endOpenWatch()``).
        guard openWatch == nil else { return }
        let probe = display.isUp ? nil : probeThread
        let bindings = options.bindings
        openWatch = OpenWatch(input: STDIN_FILENO, takeModes: !display.isUp, before: { _ = probe?.wait() }) { [hub = controller.hub] byte in
            // The user's bindings decide what quits (q, Q and Ctrl-C by default).
            let key: Key = byte == 0x03 ? .control("c") : .character(Character(UnicodeScalar(byte)))
            if let command = bindings.command(for: key), command.leavesThePlayer {
                AppLog.write("tui", "\(command) while a source opens: cancelling the open")
                hub.submit(command)
            }
        }
    }

    public func controllerDidOpen(_ controller: PlayerController) {}

    /// The loop is back: keys go to ncurses again.
    func endOpenWatch() {
        openWatch?.stop()
        openWatch = nil
    }

    public func controllerWillUnloadItem(_ controller: PlayerController, reason: String) {
        writeSummary(interrupted: false)
    }

    public func controllerDidLoadItem(_ controller: PlayerController) {
        // A new item: its previews, menus and scrub state belonged to the last one.
        runtime.itemChanged()
        guard display.isUp else { return }
        attachItem()
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
