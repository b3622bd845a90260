import AetherLoopback
import AetherEngine
import ArgumentParser
import Foundation

/// `aether-bench frames`: the FrameExtractor's latency and its cost to playback.
///
/// 1. Thumbnail latency (320 px wide) per clip: cold (a fresh extractor: open + seek + decode),
///    warm (open, cache cleared, a new position) and cached (the same second again), at
///    positions spread over the clip. Clips: 1080p24 H.264 with 2 s GOPs, HEVC Main 10 and AV1
///    (1 s GOPs), encoded by the ffmpeg CLI into the work directory when missing.
/// 2. Playback while scrubbing: the Player plays the 1080p H.264+AAC clip headless (audio
///    .null, frames scaled to 1280x720) for `--play-seconds`, once alone and once while an
///    extractor asks for a thumbnail at a moving position every 50 ms; presented and dropped
///    frames of both runs, side by side.
struct FramesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "FrameExtractor thumbnail latency (cold, warm, cached) and playback frames dropped while scrubbing.")

    @Option(help: "Positions per clip (latencies are over these; medians and p95 reported).") var samples = 20
    @Option(help: "Seconds per generated clip.") var clipSeconds = 20
    @Option(help: "Seconds of playback in each scrubbing run.") var playSeconds = 10.0
    @Option(help: ArgumentHelp("Parts to run, comma-separated.", valueName: "latency,playback")) var parts = "latency,playback"
    @Option(help: ArgumentHelp("1080p24 H.264+AAC file for the playback part (default: \(PlaybackClip.fixture), else generated).", valueName: "path"))
    var playbackFile: String?
    @Option(help: "Scratch directory (clips are cached here).") var workDir = "/tmp/aether-bench-frames"

    struct Latency: Codable {
        var clip: String
        var coldP50Ms = 0.0, coldP95Ms = 0.0, warmP50Ms = 0.0, warmP95Ms = 0.0, cachedP50Ms = 0.0, cachedP95Ms = 0.0
        var size = ""
    }

    struct PlaybackRun: Codable {
        var scrubbing: Bool
        var presented: Int
        var dropped: Int
        var thumbnails: Int
    }

    func run() async throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let list = parts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        print("aether-bench frames: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(EngineBenchmark.loadAverage())")
        if list.contains("latency") {
            print("\n== thumbnail latency, maxWidth 320, \(samples) positions per clip; ms ==")
            print("clip".padding(toLength: 30, withPad: " ", startingAt: 0) + "  size      cold p50/p95    warm p50/p95   cached p50/p95")
            let clips: [(String, Int)] = [("h264", 48), ("hevc-main10", 24), ("av1", 24)]
            for (name, gop) in clips {
                guard let clip = CodecClip.all.first(where: { $0.name == name }) else { continue }
                let (path, problem) = clip.ensure(seconds: clipSeconds, directory: workDir, gop: gop)
                guard let path else { print("\(name): skipped (\(problem ?? "?"))"); continue }
                var row = try await latency(path)
                row.clip = "\(name) 1080p, GOP \(Double(gop) / 24) s"
                func pair(_ a: Double, _ b: Double) -> String { "\(Stats.fmt(a, a < 1 ? 3 : 1))/\(Stats.fmt(b, b < 1 ? 3 : 1))".padding(toLength: 15, withPad: " ", startingAt: 0) }
                print(row.clip.padding(toLength: 30, withPad: " ", startingAt: 0) + "  " + row.size.padding(toLength: 9, withPad: " ", startingAt: 0)
                      + " " + pair(row.coldP50Ms, row.coldP95Ms) + " " + pair(row.warmP50Ms, row.warmP95Ms) + " " + pair(row.cachedP50Ms, row.cachedP95Ms))
            }
            print("targets: cached <= 2 ms, cold p95 <= 60 ms for H.264 1080p")
        }
        if list.contains("playback") {
            guard let file = playbackFile ?? PlaybackClip.ensure(directory: workDir) else {
                throw ValidationError("no playback file: generate \(PlaybackClip.fixture) or pass --playback-file")
            }
            print("\n== playback \(Stats.fmt(playSeconds, 0)) s, \(file), --ao null, frames 1280x720 RGB24 ==")
            for scrubbing in [false, true] {
                let r = try await playback(file, scrubbing: scrubbing)
                print((scrubbing ? "scrubbing (thumbnail every 50 ms)" : "alone").padding(toLength: 36, withPad: " ", startingAt: 0)
                      + "presented \(r.presented)   dropped \(r.dropped)" + (scrubbing ? "   thumbnails delivered \(r.thumbnails)" : ""))
            }
            print("target: 0 playback frames dropped because of scrubbing (compare the two rows)")
        }
    }

    /// Positions spread over the clip (the golden ratio's fractional parts), never in the same second twice in a row.
    private func positions(_ duration: Double) -> [Double] {
        (0..<samples).map { n in (Double(n) * 0.618_033_988_75 + 0.1).truncatingRemainder(dividingBy: 1) * max(1, duration - 1) }
    }

    private func latency(_ path: String) async throws -> Latency {
        var cold: [Double] = [], warm: [Double] = [], cached: [Double] = []
        var result = Latency(clip: "")
        let probe = FrameExtractor(url: path, clock: .monotonic)
        await probe.prewarm()
        let duration = await probe.duration ?? Double(clipSeconds)
        for t in positions(duration) {
            let fresh = FrameExtractor(url: path, clock: .monotonic)
            let t0 = MonotonicTime.now()
            let image = try await fresh.thumbnail(at: t)
            cold.append((MonotonicTime.now() - t0) * 1000)
            await fresh.shutdown()
            if let image { result.size = "\(image.width)x\(image.height)" }

            await probe.clearCache()
            let t1 = MonotonicTime.now()
            _ = try await probe.thumbnail(at: t)
            warm.append((MonotonicTime.now() - t1) * 1000)
            let t2 = MonotonicTime.now()
            _ = try await probe.thumbnail(at: t)
            cached.append((MonotonicTime.now() - t2) * 1000)
        }
        await probe.shutdown()
        result.coldP50Ms = Stats.median(cold)
        result.coldP95Ms = Stats.percentile(cold, 95)
        result.warmP50Ms = Stats.median(warm)
        result.warmP95Ms = Stats.percentile(warm, 95)
        result.cachedP50Ms = Stats.median(cached)
        result.cachedP95Ms = Stats.percentile(cached, 95)
        return result
    }

    private func playback(_ file: String, scrubbing: Bool) async throws -> PlaybackRun {
        let player = Player()
        var options = PlayerOptions(time: .monotonic)
        options.audio.output = .null
        try player.load(url: file, options: options)
        player.setRenderSize(PixelSize(width: 1280, height: 720))
        player.setFrameHandler { _ in }
        player.play()
        let duration = player.duration ?? 10
        let extractor = FrameExtractor(url: file, clock: .monotonic)
        var thumbnails = 0
        let start = MonotonicTime.now()
        var n = 0
        while MonotonicTime.now() - start < playSeconds {
            if scrubbing {
                // A marker sweeping across the file at about 7 s of media per second of scrubbing.
                let t = (Double(n) * 0.35).truncatingRemainder(dividingBy: max(1, duration))
                if try await extractor.thumbnail(at: t) != nil { thumbnails += 1 }
                n += 1
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let telemetry = player.telemetry(advance: false)
        player.stop()
        await extractor.shutdown()
        return PlaybackRun(scrubbing: scrubbing, presented: telemetry.frames.presented, dropped: telemetry.frames.dropped,
                           thumbnails: thumbnails)
    }
}
