import AetherCommands
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Commands: the one entry (``execute(_:)``) and the dispatch to each family.
extension PlayerController {
    /// Carries out `command` and says how it went (the IPC's reply, an OSD message on failure).
    ///
    /// While an item opens, a command that acts on the item (a seek, a property: the speed, the
    /// volume) waits for it and runs once an item loaded, as mpv applies them to the file it
    /// loads; its result now is `.ok`. Moves through the playlist, quits and the screen's own
    /// commands run at once.
    @discardableResult
    public func execute(_ command: PlayerCommand) -> CommandResult {
        if opening != nil, command.waitsForTheItem {
            waitingForTheItem.append(command)
            return .ok
        }
        let result = run(command)
        if case .failure(let why) = result { host?.controller(self, show: why) }
        return result
    }

    func show(_ text: String) { host?.controller(self, show: text) }

    func run(_ command: PlayerCommand) -> CommandResult {
        switch command {
        case .seek(let requested, let reference, let precision): return PropertyTable.seek(self, requested, reference, precision)
        case .set(let name, let value): return PropertyTable.set(self, name, value)
        case .add(let name, let delta): return PropertyTable.add(self, name, delta)
        case .multiply(let name, let factor): return PropertyTable.multiply(self, name, factor)
        case .cycle(let name, let up): return PropertyTable.cycle(self, name, up: up)
        case .frameStep:
            player.step()
            return .ok
        case .frameBackStep:
            player.stepBack()
            return .ok
        case .abLoop:
            show(settings.abLoop.press(at: player.currentTime))
            return .ok
        case .playlistNext: return walk.next(loop: settings.loopPlaylist.isOn, paused: staysPaused)
        case .playlistPrevious: return walk.previous(loop: settings.loopPlaylist.isOn, paused: staysPaused)
        case .playlistPlay(let i): return walk.play(i, loop: settings.loopPlaylist.isOn, paused: staysPaused)
        case .loadfile(let source, let mode):
            let stopped = opening == nil && (item.heldAtEnd || player.state == .idle || player.state == .ended)
            return walk.loadfile(source, mode: mode, loop: settings.loopPlaylist.isOn, paused: staysPaused, stopped: stopped)
        case .quit(let code, let watchLater):
            if watchLater || settings.savePositionOnQuit { saveWatchLater() }
            if watchLater { show("position saved") }
            host?.controllerWillUnloadItem(self, reason: "quit")
            walk.tally.end = .asked(code)
            return .ok
        case .stop:
            host?.controllerWillUnloadItem(self, reason: "stop")
            walk.tally.end = .status(status())
            return .ok
        case .screenshot(let subtitles):
            return host?.controller(self, screenshot: subtitles) ?? .failure("screenshots need the terminal player")
        case .showText(let text, let expand):
            show(expand ? snapshot().expanding(text) : text)
            return .ok
        case .ui(let action):
            return host?.controller(self, perform: action) ?? .failure("'\(action.rawValue)' needs the terminal player")
        case .ignore:
            return .ok
        case .keypress(let key):
            return host?.controller(self, press: key) ?? .failure("'keypress' needs a player with keys")
        }
    }
}

extension PlayerCommand {
    /// It acts on the item loaded: while one opens, it waits for it (``PlayerController/execute(_:)``).
    var waitsForTheItem: Bool {
        switch self {
        case .seek, .add, .multiply, .cycle, .frameStep, .frameBackStep, .abLoop: return true
        case .set(let name, _): return !name.hasPrefix("playlist")
        default: return false
        }
    }
}
