import AetherEngine
import Foundation

/// `--vo=null`: plays with no picture, writes 1 Hz telemetry and a final summary as JSON lines
/// (`--stats-file`), stops cleanly on SIGINT/SIGTERM.
struct HeadlessPlayback {
    let options: PlaybackOptions

    func run() throws -> Int32 {
        let player = Player()
        let info: MediaInfo
        do {
            info = try MediaProbe.probe(url: options.source)
        } catch {
            throw fail("cannot open '\(options.source)': \(error.message)")
        }
        let playerOptions = options.playerOptions(duration: info.duration)
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

        let stop = SignalFlag(signals: [SIGINT, SIGTERM, SIGHUP])
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

/// Raised by SIGINT/SIGTERM/SIGHUP, handled off the signal context through Dispatch.
final class SignalFlag: @unchecked Sendable {  // `raised` is only touched on `queue`
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "aether.signals")
    private var raised = false

    init(signals: [Int32]) {
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { [unowned self] in raised = true }
            source.resume()
            sources.append(source)
        }
    }

    var isRaised: Bool { queue.sync { raised } }
}
