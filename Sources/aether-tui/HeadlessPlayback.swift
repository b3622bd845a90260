import AetherEngine
import AetherTUI
import Foundation

/// `--vo=null`: plays with no picture, writes 1 Hz telemetry and a final summary as JSON lines
/// (`--stats-file`), stops cleanly on SIGINT/SIGTERM.
struct HeadlessPlayback {
    let options: PlaybackOptions

    func run() throws -> Int32 {
        let player = Player()
        let playerOptions = try options.resolvedPlayerOptions()
        do {
            try player.load(url: options.source, options: playerOptions)
        } catch {
            throw fail("\(error)")
        }
        for warning in player.warnings { _ = fail("warning: \(warning)", code: 0) }

        var stats: StatsFile? = nil
        if let path = options.statsFile {
            do { stats = try StatsFile(path: path) } catch { throw fail("\(error)") }
        }

        let stop = QuitSignals()
        let wallStart = MonotonicClock.seconds()
        player.play()
        var nextTick = wallStart + 1
        while !stop.isRaised {
            let state = player.state
            if state == .ended || state == .error { break }
            let now = MonotonicClock.seconds()
            if now >= nextTick {
                stats?.write("telemetry", player.telemetry(advance: true))
                nextTick += 1
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let summary = PlaybackSummary(player: player, startPosition: playerOptions.start,
                                      wallSeconds: MonotonicClock.seconds() - wallStart, interrupted: stop.isRaised)
        stats?.write("summary", summary)
        stats = nil
        let early = player.endedEarlyMessage
        player.stop()
        if stop.isRaised { return 4 }
        if let early {
            _ = fail("'\(options.source)': \(early)")
            return 2
        }
        return 0
    }
}
