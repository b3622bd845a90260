import AetherEngine
import AetherTUI
import Foundation

/// `--vo=null`: plays with no picture, writes 1 Hz telemetry and a final summary as JSON lines
/// (`--stats-file`), stops cleanly on SIGINT/SIGTERM.
struct HeadlessPlayback {
    let options: PlaybackOptions

    func run() throws -> Int32 {
        let player = Player()
        var playerOptions = try options.resolvedPlayerOptions()
        // Quit signals work from the first moment: one during the open cancels it.
        let stop = QuitSignals()
        let interrupt = InterruptToken()
        playerOptions.interrupt = interrupt
        stop.onRaise { interrupt.cancel() }
        do {
            try player.load(url: options.source, options: playerOptions)
        } catch {
            if stop.isRaised { return 4 }
            throw fail("\(error)")
        }
        var warned = 0
        func reportWarnings() {
            let all = player.warnings
            for warning in all.dropFirst(warned) { _ = fail("warning: \(warning)", code: 0) }
            warned = all.count
        }
        reportWarnings()

        var stats: StatsFile? = nil
        if let path = options.statsFile {
            do { stats = try StatsFile(path: path) } catch { throw fail("\(error)") }
        }

        let wallStart = MonotonicClock.seconds()
        player.play()
        var nextTick = wallStart + 1
        while !stop.isRaised {
            let state = player.state
            if state == .ended || state == .error { break }
            let now = MonotonicClock.seconds()
            if now >= nextTick {
                stats?.write("telemetry", player.telemetry(advance: true))
                reportWarnings()
                nextTick += 1
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let summary = PlaybackSummary(player: player, startPosition: playerOptions.start,
                                      wallSeconds: MonotonicClock.seconds() - wallStart, interrupted: stop.isRaised)
        stats?.write("summary", summary)
        stats = nil
        let early = player.endedEarlyMessage
        let failure = player.state == .error ? player.failureMessage : nil
        reportWarnings()
        player.stop()
        if stop.isRaised { return 4 }
        if let failure {
            _ = fail("'\(TextSanitizer.clean(options.source))': \(failure)")
            return 1
        }
        if let early {
            _ = fail("'\(options.source)': \(early)")
            return 2
        }
        return 0
    }
}
