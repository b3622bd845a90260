import AetherEngine
import Foundation

/// CPU per media second and the A/V gap of real-time headless playback: the real binary,
/// `aether-tui FILE --vo=null --ao=null --stats-file=…`, measured with `wait4`, alternating with
/// the floor `ffmpeg -i FILE -f null -` (audio and video decoded as fast as possible) on the same file.
///
/// With `baseline`, a second build of the player (an earlier commit) runs in the same loop,
/// alternating with ours, so a change is judged against its baseline on the same noisy machine.
/// With `videoOutput` other than `null`, each player runs in a pseudo-terminal of `ttySize` cells
/// of 8×16 pixels (``PtyTerminal``), painting into a reader that takes bytes as fast as it can
/// and answers the capability probe as xterm -ti vt340 does (`silentTerminal`: it does not).
struct HeadlessPlaybackCost {
    let player: String
    let audioOutput: String
    let repeats: Int
    let workDir: String
    var baseline: String? = nil
    var videoOutput = "null"
    var ttySize = "160x48"
    var silentTerminal = false
    /// Extra options for our player and for the baseline (e.g. `--vo-kitty-use-shm=yes` against
    /// `=no` with the same binary).
    var playerArguments: [String] = []
    /// The child sees `SSH_CONNECTION` (a terminal over SSH).
    var remoteTerminal = false
    var baselineArguments: [String] = []

    /// The command line for `binary` (the TUI runs it in a ``PtyTerminal``).
    func command(_ binary: String, file: String, stats: String, extra: [String] = []) -> [String] {
        [binary, file, "--vo=\(videoOutput)", "--ao=\(audioOutput)", "--stats-file=\(stats)"] + extra
    }

    var terminal: PtyTerminal {
        let wh = ttySize.split(separator: "x").compactMap { Int($0) }
        var t = PtyTerminal(columns: wh.first ?? 160, rows: wh.last ?? 48, answers: !silentTerminal)
        // With --vo=kitty the pseudo-terminal answers kitty's queries and takes shared memory
        // frames as kitty does.
        t.kitty = videoOutput == "kitty"
        if remoteTerminal { t.environment["SSH_CONNECTION"] = "192.0.2.1 50000 192.0.2.2 22" }
        return t
    }

    /// The fields of aether-tui's `--stats-file` summary line that are used here.
    struct Summary: Decodable {
        var mediaSeconds: Double
        var wallSeconds: Double
        var framesPresented: Int
        var framesDropped: Int
        var avGapMeanMs: Double
        var avGapP95Ms: Double
        var avGapMaxMs: Double
        var cpuSeconds: Double
        var clockSource: String
        var peakRSSKiB: Int?
        var framesSuperseded: Int?
        var framesPainted: Int?
        var terminalBytes: Int?
    }

    struct Run: Codable {
        var cpuSeconds: Double
        var wallSeconds: Double
        var mediaSeconds: Double
        var framesPresented: Int
        var framesDropped: Int
        var avGapMeanMs: Double
        var avGapP95Ms: Double
        var avGapMaxMs: Double
        var clockSource: String
        var peakRSSMB: Double = 0
        var framesSuperseded: Int = 0
        var framesPainted: Int?
        var terminalBytes: Int = 0
        var firstPictureSeconds: Double?
        var cpuPerMediaSecond: Double { cpuSeconds / max(0.001, mediaSeconds) }
    }

    struct Result: Codable {
        var file: String
        var command: String
        var ffmpegCommand: String
        var fileSeconds: Double
        /// Medians over the runs.
        var cpuPerMediaSecond: Double
        var wallSeconds: Double
        var mediaSeconds: Double
        var framesPresented: Double
        var framesDropped: Double
        var avGapMeanMs: Double
        var avGapP95Ms: Double
        var avGapMaxMs: Double
        /// The largest gap in any run.
        var avGapWorstMs: Double
        var clockSource: String
        var ffmpegCPUSeconds: Double
        var ffmpegCPUPerMediaSecond: Double
        var ffmpegWallSeconds: Double
        /// Ours ÷ ffmpeg, CPU per media second.
        var cpuRatio: Double
        var runs: [Run]
        var output: Output
        var baselineOutput: Output?
        var videoOutput: String = "null"
        /// The baseline build's medians from the same loop, and ours ÷ baseline.
        var baselineCommand: String?
        var baselineCPUPerMediaSecond: Double?
        var baselineAvGapP95Ms: Double?
        var baselineFramesPresented: Double?
        var baselineFramesDropped: Double?
        var cpuRatioToBaseline: Double?
        var baselineRuns: [Run]?
    }

    /// The terminal side of a set of runs (medians).
    struct Output: Codable {
        var peakRSSMB: Double
        var framesPainted: Double?
        var framesSuperseded: Double
        var megabytesPerMediaSecond: Double
        var firstPictureSeconds: Double?

        init(_ runs: [Run]) {
            peakRSSMB = Stats.median(runs.map(\.peakRSSMB))
            let painted = runs.compactMap(\.framesPainted)
            framesPainted = painted.isEmpty ? nil : Stats.median(painted.map(Double.init))
            framesSuperseded = Stats.median(runs.map { Double($0.framesSuperseded) })
            megabytesPerMediaSecond = Stats.median(runs.map { Double($0.terminalBytes) / 1e6 / max(0.001, $0.mediaSeconds) })
            let first = runs.compactMap(\.firstPictureSeconds)
            firstPictureSeconds = first.isEmpty ? nil : Stats.median(first)
        }

        var line: String {
            var parts = ["peak RSS \(Stats.fmt(peakRSSMB, 1)) MB"]
            if let framesPainted { parts.append("painted \(Int(framesPainted))") }
            parts.append("superseded \(Int(framesSuperseded))")
            parts.append("\(Stats.fmt(megabytesPerMediaSecond, 2)) MB/media s")
            if let firstPictureSeconds { parts.append("first picture byte \(Stats.fmt(firstPictureSeconds, 3)) s") }
            return parts.joined(separator: "   ")
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case player(String), ffmpeg(String), probe(String)
        var description: String {
            switch self {
            case .player(let s): "headless playback failed: \(s)"
            case .ffmpeg(let s): "ffmpeg failed: \(s)"
            case .probe(let s): "cannot probe: \(s)"
            }
        }
    }

    func measure(file: String) throws -> Result {
        guard let duration = (try? MediaProbe.probe(url: file, network: NetworkSettings(), clock: .monotonic))?.duration, duration > 0 else { throw Failure.probe(file) }
        let stats = "\(workDir)/headless-stats.jsonl"
        let ours = command(player, file: file, stats: stats, extra: playerArguments)
        let theirs = baseline.map { command($0, file: file, stats: stats, extra: baselineArguments) }
        let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-i", file, "-f", "null", "-"]
        var runs: [Run] = [], baselineRuns: [Run] = [], floor: [Measured] = []
        func once(_ argv: [String]) throws -> Run {
            try? FileManager.default.removeItem(atPath: stats)
            var m = Measured(status: -1, cpuSeconds: 0, wallSeconds: 0)
            var pty: PtyTerminal.Result?
            if videoOutput == "null" {
                m = Spawn.run(argv)
            } else {
                let r = try terminal.run(argv)
                m = Measured(status: r.status, cpuSeconds: r.cpuSeconds, wallSeconds: r.wallSeconds)
                pty = r
            }
            guard m.status == 0, let summary = Self.summary(stats) else { throw Failure.player(argv.joined(separator: " ")) }
            var run = Run(cpuSeconds: m.cpuSeconds, wallSeconds: m.wallSeconds, mediaSeconds: summary.mediaSeconds,
                          framesPresented: summary.framesPresented, framesDropped: summary.framesDropped,
                          avGapMeanMs: summary.avGapMeanMs, avGapP95Ms: summary.avGapP95Ms, avGapMaxMs: summary.avGapMaxMs,
                          clockSource: summary.clockSource)
            run.peakRSSMB = Double(pty?.maxRSSKiB ?? summary.peakRSSKiB ?? 0) / 1024
            run.framesSuperseded = summary.framesSuperseded ?? 0
            run.framesPainted = summary.framesPainted
            run.terminalBytes = pty?.bytes ?? summary.terminalBytes ?? 0
            run.firstPictureSeconds = pty?.firstPictureSeconds
            return run
        }
        for _ in 0..<repeats {
            runs.append(try once(ours))
            if let theirs { baselineRuns.append(try once(theirs)) }
            let f = Spawn.run(ffmpeg)
            guard f.status == 0 else { throw Failure.ffmpeg(ffmpeg.joined(separator: " ")) }
            floor.append(f)
        }
        let cpuPerMediaSecond = Stats.median(runs.map(\.cpuPerMediaSecond))
        let ffmpegCPU = Stats.median(floor.map(\.cpuSeconds))
        var result = Result(
            file: file, command: ours.joined(separator: " "), ffmpegCommand: ffmpeg.joined(separator: " "),
            fileSeconds: duration,
            cpuPerMediaSecond: cpuPerMediaSecond,
            wallSeconds: Stats.median(runs.map(\.wallSeconds)), mediaSeconds: Stats.median(runs.map(\.mediaSeconds)),
            framesPresented: Stats.median(runs.map { Double($0.framesPresented) }),
            framesDropped: Stats.median(runs.map { Double($0.framesDropped) }),
            avGapMeanMs: Stats.median(runs.map(\.avGapMeanMs)), avGapP95Ms: Stats.median(runs.map(\.avGapP95Ms)),
            avGapMaxMs: Stats.median(runs.map(\.avGapMaxMs)), avGapWorstMs: runs.map(\.avGapMaxMs).max() ?? 0,
            clockSource: runs.first?.clockSource ?? "",
            ffmpegCPUSeconds: ffmpegCPU, ffmpegCPUPerMediaSecond: ffmpegCPU / duration,
            ffmpegWallSeconds: Stats.median(floor.map(\.wallSeconds)),
            cpuRatio: cpuPerMediaSecond / (ffmpegCPU / duration), runs: runs, output: Output(runs))
        result.videoOutput = videoOutput
        if let theirs, !baselineRuns.isEmpty {
            let base = Stats.median(baselineRuns.map(\.cpuPerMediaSecond))
            result.baselineCommand = theirs.joined(separator: " ")
            result.baselineCPUPerMediaSecond = base
            result.baselineAvGapP95Ms = Stats.median(baselineRuns.map(\.avGapP95Ms))
            result.baselineFramesPresented = Stats.median(baselineRuns.map { Double($0.framesPresented) })
            result.baselineFramesDropped = Stats.median(baselineRuns.map { Double($0.framesDropped) })
            result.cpuRatioToBaseline = cpuPerMediaSecond / max(0.000_001, base)
            result.baselineRuns = baselineRuns
            result.baselineOutput = Output(baselineRuns)
        }
        return result
    }

    /// The last `{"summary": …}` line of a stats file.
    static func summary(_ path: String) -> Summary? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n").reversed() where line.hasPrefix("{\"summary\"") {
            return (try? JSONDecoder().decode([String: Summary].self, from: Data(line.utf8)))?["summary"]
        }
        return nil
    }
}
