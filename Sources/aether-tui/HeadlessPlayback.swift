import AetherEngine
import Foundation

/// `--vo=null`: plays with no picture, writes 1 Hz telemetry and a final summary as JSON lines
/// (`--stats-file`), stops cleanly on SIGINT/SIGTERM.
struct HeadlessPlayback {
    let options: PlaybackOptions

    struct Summary: Codable {
        var mediaSeconds: Double
        var wallSeconds: Double
        /// From the first audible/presented moment to the end (excludes open and device start-up).
        var playingWallSeconds: Double
        var framesDecoded: Int
        var framesPresented: Int
        var framesDropped: Int
        var framesDroppedLate: Int
        var framesDroppedEarly: Int
        var avGapMeanMs: Double
        var avGapP95Ms: Double
        var avGapMaxMs: Double
        var cpuSeconds: Double
        var peakRSSKiB: Int
        var clockSource: String
        var audioDevice: String
        var endedEarly: String?
        var interrupted: Bool
    }

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

        var stats: FileHandle? = nil
        if let path = options.statsFile {
            guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
                throw fail("cannot write stats file '\(path)'")
            }
            stats = h
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func emit<T: Encodable>(_ key: String, _ value: T) {
            guard let stats, let data = try? encoder.encode([key: value]) else { return }
            stats.write(data + Data("\n".utf8))
        }

        let stop = SignalFlag(signals: [SIGINT, SIGTERM, SIGHUP])
        let wallStart = MonotonicClock.seconds()
        let startPosition = playerOptions.start
        player.play()
        var nextTick = wallStart + 1
        while !stop.isRaised {
            let state = player.state
            if state == .ended || state == .error { break }
            let now = MonotonicClock.seconds()
            if now >= nextTick {
                emit("telemetry", player.telemetry(advance: true))
                nextTick += 1
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let final = player.telemetry(advance: true)
        let wall = MonotonicClock.seconds() - wallStart
        let gaps = player.gapStatistics
        let usage = ResourceUsage.current()
        let summary = Summary(
            mediaSeconds: max(0, player.currentTime - startPosition), wallSeconds: wall,
            playingWallSeconds: player.playingWallSeconds ?? 0,
            framesDecoded: final.framesDecoded, framesPresented: final.framesPresented,
            framesDropped: final.framesDropped, framesDroppedLate: final.framesDroppedLate,
            framesDroppedEarly: final.framesDroppedEarly,
            avGapMeanMs: gaps.mean * 1000, avGapP95Ms: gaps.p95 * 1000, avGapMaxMs: gaps.max * 1000,
            cpuSeconds: usage.cpuSeconds, peakRSSKiB: usage.peakRSSKiB,
            clockSource: final.clockSource, audioDevice: final.audioDevice,
            endedEarly: player.endedEarlyMessage, interrupted: stop.isRaised)
        emit("summary", summary)
        try? stats?.close()
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

/// CPU time and peak memory of this process (`getrusage`).
struct ResourceUsage {
    var cpuSeconds: Double
    var peakRSSKiB: Int

    static func current() -> ResourceUsage {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        let cpu = Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
        return ResourceUsage(cpuSeconds: cpu, peakRSSKiB: Int(u.ru_maxrss))
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
