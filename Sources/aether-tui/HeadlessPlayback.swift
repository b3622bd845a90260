import AetherCommands
import AetherControl
import AetherEngine
import AetherInput
import AetherTUI
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `--vo=null`: plays the playlist with no picture, writes 1 Hz telemetry and one summary per
/// item as JSON lines (`--stats-file`), answers the IPC socket and MPRIS, stops cleanly on
/// SIGINT/SIGTERM.
struct HeadlessPlayback {
    let options: PlaybackOptions
    /// What the loop's wake-ups, the summaries' wall time and the player read.
    let clock: TimeSource

    func run() throws(CommandFailure) -> RunEnd {
        let setup = try PlaybackSetup(options, environment: ProcessInfo.processInfo.environment, clock: clock, warn: { warn($0) })
        let stop = QuitSignals()

        var stats: StatsFile? = nil
        if let path = options.statsFile {
            do { stats = try StatsFile(path: path) } catch { throw .failed(error.message) }
        }
        let controller = PlayerController(player: Player(), playlist: setup.playlist, settings: setup.controller, clock: clock)
        controller.setSubtitleDelaySetting(options.subDelay)
        let host = Host(stats: stats, bindings: setup.bindings, clock: clock)
        controller.host = host
        // The loop waits for work: a remote command or a quit signal wakes it at once.
        // Wakes not yet waited for: a wait takes them all, as the tick after it sees every change
        // they told of (an open that ended wakes it once per item, and one tick follows several).
        let wakes = GuardedCondition(0)
        let wake: @Sendable () -> Void = { wakes.update { $0 += 1 } }
        controller.hub.onRequest { wake() }
        // The engine says when what a host shows changes (a state, the end, a failure).
        controller.player.changes.set { wake() }
        defer { controller.player.changes.set(nil) }
        // Quit signals work from the first moment: one during an open cancels it.
        stop.onRaise { [interrupter = controller.interrupter] in
            interrupter.raise()
            wake()
        }
        let services = RemoteServices(hub: controller.hub, clock: clock)
        for w in controller.start(services, setup.remote) { warn(w) }
        defer { services.stop() }

        guard controller.start(paused: options.pause) else {
            if stop.isRaised { return .status(.interrupted) }
            controller.reportedErrors().forEach(StandardStream.say)
            controller.finish(interrupted: false)
            return .status(controller.status())
        }
        var end = RunEnd.status(.ok)
        var nextTick = clock.seconds + 1
        var lastWake = clock.seconds
        while true {
            if stop.isRaised {
                host.itemEnded(controller, interrupted: true)
                end = .status(.interrupted)
                break
            }
            if case .finished(let ended) = controller.tick() { end = ended; break }
            let now = clock.seconds
            if now >= nextTick {
                stats?.record(controller.player.telemetry(advance: true), player: controller.player)
                host.reportWarnings(controller.player)
                nextTick += 1
            }
            // Settled (paused, idle, held at the end, failed) and no command for a while: nothing
            // changes until a command, a quit signal, an engine change or the next telemetry line.
            // Otherwise the position moves: published at `publishInterval` for whoever follows it
            // (an IPC client, MPRIS), and with nobody following only at `quietInterval` (the end
            // of an item and every other change wake the loop through `changes`). The 50 Hz
            // snapshots cost headless playback 4 % of its CPU in lock traffic for no reader.
            let settled = Self.settledStates.contains(controller.player.state)
                && clock.seconds - lastWake >= Self.settleSeconds
            let untilTelemetry = min(max(0, nextTick - clock.seconds), controller.nextDue ?? .infinity)
            let wait = settled ? untilTelemetry
                : min(untilTelemetry, controller.hub.hasObservers ? Self.publishInterval : Self.quietInterval)
            let woken = wakes.withLock(when: { $0 > 0 }, timeout: wait) { pending, woken in
                if woken { pending = 0 }
                return woken
            }
            if woken { lastWake = clock.seconds }
        }
        host.reportWarnings(controller.player)
        controller.finish(interrupted: end.interrupted)
        controller.player.stop()
        stats = nil
        controller.reportedErrors().forEach(StandardStream.say)
        return end
    }

    /// How often the state is published while the player moves (remote front ends read the
    /// position from it; mpv's observers see `time-pos` change as often).
    static let publishInterval = 0.02
    /// The same with nobody following.
    static let quietInterval = 0.25
    /// After a command the state is published at that rate for this long: what the command
    /// started (a seek, a step, a reload) lands after its reply.
    static let settleSeconds = 1.0
    /// States in which only a command changes anything.
    static let settledStates: Set<PlayerState> = [.paused, .idle, .ended, .error]

    /// Stats summaries per item and warnings, for the controller.
    final class Host: PlayerHost {
        let stats: StatsFile?
        let bindings: InputBindings
        var warned = 0
        let clock: TimeSource
        var wallStart: Double
        var summaryWritten = false

        init(stats: StatsFile?, bindings: InputBindings, clock: TimeSource) {
            self.stats = stats
            self.bindings = bindings
            self.clock = clock
            wallStart = clock.seconds
        }

        func reportWarnings(_ player: Player) {
            let all = player.warnings
            for warning in all.dropFirst(warned) { warn(warning) }
            warned = all.count
        }

        func itemEnded(_ controller: PlayerController, interrupted: Bool) {
            guard !summaryWritten else { return }
            summaryWritten = true
            guard let stats, controller.player.mediaInfo != nil else { return }
            var summary = PlaybackSummary(player: controller.player, startPosition: controller.itemStartPosition,
                                          wallSeconds: clock.seconds - wallStart, interrupted: interrupted)
            summary.item.source = controller.playlist.current.map { TextSanitizer.clean($0.source) }
            summary.item.playlistPosition = controller.playlist.position
            stats.writeSummary(summary, player: controller.player)
        }

        func controllerWillUnloadItem(_ controller: PlayerController, reason: String) {
            reportWarnings(controller.player)
            itemEnded(controller, interrupted: false)
        }

        func controllerDidLoadItem(_ controller: PlayerController) {
            warned = 0
            summaryWritten = false
            wallStart = clock.seconds
            reportWarnings(controller.player)
        }

        func controller(_ controller: PlayerController, show message: String) {}

        func controller(_ controller: PlayerController, perform ui: UIAction) -> CommandResult {
            .failure("'\(ui.rawValue)' needs the terminal player")
        }

        func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult {
            .failure("screenshots need the terminal player")
        }

        /// Headless, a key is what the bindings make of it (no menus or panels to take it).
        func controller(_ controller: PlayerController, press name: String) -> CommandResult {
            guard let key = Key(mpvName: name) else { return .failure("'keypress': '\(TextSanitizer.clean(name))' is not a key") }
            guard let command = bindings.command(for: key) else { return .ok }
            return controller.execute(command)
        }
    }
}
