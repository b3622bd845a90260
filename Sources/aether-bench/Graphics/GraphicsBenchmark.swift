import AetherBase
import ArgumentParser
import Foundation
import TerminalGraphics

/// `aether-bench graphics`: render-only throughput and bytes per frame of the half-block
/// renderer (160×48 cells), the kitty encoder and the sixel encoder (1280×768 px) on testsrc2 (moving and still)
/// and a grainy real-picture sequence, with the peers that are installed measured in the same
/// invocation. Sixel quality is the PSNR of what a terminal would show (every image painted
/// over the previous ones) against the source frame, averaged over all frames.
struct GraphicsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graphics",
        abstract: "Cell outputs' quality (and players), half-block, kitty and sixel render throughput vs mpv (tct/sixel), timg and libsixel.")

    @Option(help: "Frames per sequence.") var frames = 48
    @Option(help: "Timed runs per configuration (the median run is reported).") var repeats = 5
    @Option(help: "Seconds of 1080p24 video for the player peers (mpv, timg).") var mediaSeconds = 5
    @Option(help: "Sixel palette size.") var colors = 256
    @Option(help: "Scratch directory for frames and peer output.") var workDir = "/tmp/aether-bench-graphics"
    @Option(help: "Sixel sequences, comma-separated: testsrc2, still, grainy.") var sequences = "testsrc2,still,grainy"
    @Option(help: "Sixel dithers to measure, comma-separated: none, ordered, fs.") var dithers = "none,ordered,fs"
    @Option(help: "The sixel encoder's noise threshold (default: the encoder's own).") var noiseThreshold: Int?
    @Option(help: "What each sixel frame paints: changed or full (--vo-sixel-repaint).") var repaint = "changed"
    @Flag(help: "Skip mpv, timg and libsixel.") var noPeers = false
    @Flag(help: "Only the sixel encoder and libsixel (no half-block, no players).") var sixelOnly = false
    @Flag(help: "Skip the cell outputs' quality and player runs (`aether-bench cells`).") var noCells = false

    static let fps = 24.0
    /// The targets on the grainy sequence.
    static let targetMedianMs = 10.0
    static let targetPSNR = 32.0

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        print("aether-bench graphics: \(frames) frames/sequence, \(repeats) runs, one thread, "
              + "sixel noise threshold \(sixelOptions(.none).noiseThreshold), repaint \(sixelOptions(.none).repaint.rawValue); "
              + "1080p sources scaled by ffmpeg (testsrc2: area, grainy: bilinear as playback)")

        if !sixelOnly && !noCells {
            // The cell outputs judged by what they show (see `aether-bench cells`): a grainy
            // still, the grainy clip moving with the players beside it, and a film-like clip.
            for arguments in [["--clip", "grainy", "--still", "--tolerances", "0"],
                              ["--clip", "grainy", "--colors", "truecolor,256"] + (noPeers ? [] : ["--players"]),
                              ["--clip", "film", "--colors", "truecolor"]] {
                print("")
                var cells = try CellsBenchmark.parse(arguments + ["--work-dir", workDir])
                try cells.run()
            }
        }
        if !sixelOnly {
            let hbMoving = try FrameSet.generate(.testsrc2, width: 160, height: 96, count: frames, directory: workDir)
            let hbStatic = try FrameSet.generate(.still, width: 160, height: 96, count: frames, directory: workDir)
            print("\n== half-block, 160x48 cells (160x96 px) ==")
            var hb: [String: RunResult] = [:]
            for mode in CellColorMode.allCases {
                for set in [hbMoving, hbStatic] {
                    let r = try halfBlock(set, mode: mode)
                    hb["\(mode.rawValue)/\(set.name)"] = r
                    print(r.line(label: "ours \(mode.rawValue) \(set.name)"))
                }
            }
            if !noPeers {
                let peers = Peers(workDir: workDir, colors: colors, mediaSeconds: mediaSeconds)
                print("\n== players on a \(mediaSeconds) s 1080p24 H.264 clip (CPU includes decoding) ==")
                let players = peers.players()
                for p in players { print(p.line) }
                if let tct = players.first(where: { $0.name == "mpv --vo=tct" }), let ours = hb["truecolor/testsrc2"] {
                    let null = players.first(where: { $0.name == "mpv --vo=null" })
                    print("half-block truecolor moving vs mpv tct: CPU \(Stats.fmt(ours.cpuPerMediaSecond / tct.cpuPerMediaSecond, 3))x (vs tct total)"
                        + (null.map { ", \(Stats.fmt(ours.cpuPerMediaSecond / max(0.001, tct.cpuPerMediaSecond - $0.cpuPerMediaSecond), 3))x (vs tct minus decode)" } ?? "")
                        + ", bytes/s \(Stats.fmt(ours.bytesPerSecond / max(1, tct.bytesPerSecond), 3))x")
                }
            }
        }

        if !sixelOnly {
            for source in [FrameSet.Source.testsrc2, .still] {
                let set = try FrameSet.generate(source, width: 1280, height: 768, count: frames, directory: workDir)
                print("\n== kitty \(set.name), 1280x768 px (raw RGB, base64) ==")
                print(try kitty(set).line(label: "ours kitty \(set.name)"))
            }
        }

        let sources = sequences.split(separator: ",").compactMap { FrameSet.Source(rawValue: String($0)) }
        let ditherList = dithers.split(separator: ",").compactMap { SixelDither(option: String($0)) }
        let peers = Peers(workDir: workDir, colors: colors, mediaSeconds: mediaSeconds)
        let driver = noPeers ? nil : peers.libsixelDriver()
        for source in sources {
            let set = try FrameSet.generate(source, width: 1280, height: 768, count: frames, directory: workDir)
            print("\n== sixel \(set.name), 1280x768 px, \(colors) colours, \(set.count) frames ==")
            var ours: [SixelDither: RunResult] = [:]
            for dither in ditherList {
                let r = try sixel(set, dither: dither)
                ours[dither] = r
                print(r.line(label: "ours \(dither.rawValue)" + (dither == SixelEncoder.Options().dither ? " (default)" : "")))
            }
            var theirs: [String: RunResult] = [:]
            if let driver {
                for (diffuse, policy) in [("none", "perframe"), ("fs", "perframe"), ("none", "reuse")] {
                    if let r = try peers.libsixel(set, driver: driver, diffuse: diffuse, palette: policy) {
                        theirs["libsixel \(diffuse)/\(policy)"] = r
                        print(r.line(label: "libsixel \(diffuse) \(policy)"))
                    } else {
                        print("libsixel \(diffuse) \(policy): the driver failed")
                    }
                }
            }
            if !noPeers {
                if Spawn.which("chafa") == nil {
                    print("chafa: MISSING: run `bash Tests/Scripts/install-deps.sh --bench`")
                }
                for dither in ["none", "diffusion"] {
                    guard let r = try peers.chafa(set, dither: dither) else {
                        if Spawn.which("chafa") != nil { print("chafa \(dither): failed") }
                        continue
                    }
                    theirs["chafa \(dither)"] = r
                    print(r.line(label: "chafa \(dither) (CPU incl. start)"))
                }
            }
            for (dither, r) in ours.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                for (key, l) in theirs.sorted(by: { $0.key < $1.key }) {
                    print("  ours \(dither.rawValue) / \(key): time \(Stats.fmt(r.medianMs / max(0.001, l.medianMs)))x, "
                          + "bytes \(Stats.fmt(r.bytesPerFrame / max(1, l.bytesPerFrame)))x, "
                          + "PSNR \(Stats.fmt(r.psnr ?? 0)) vs \(Stats.fmt(l.psnr ?? 0)) dB")
                }
            }
            if source == .grainy, let r = ours[SixelEncoder.Options().dither] {
                let fast = r.medianMs <= Self.targetMedianMs && (r.psnr ?? 0) >= Self.targetPSNR
                // Bytes compared at the same picture quality: ours at each libsixel run's PSNR,
                // from one sweep of the noise threshold down to the lowest of those PSNRs.
                let lowest = theirs.values.compactMap(\.psnr).min() ?? 0
                let curve = theirs.isEmpty ? [] : try rateCurve(set, dither: SixelEncoder.Options().dither, downTo: lowest)
                var lean = true
                for (key, l) in theirs.sorted(by: { $0.key < $1.key }) {
                    guard let target = l.psnr, let equal = Self.bytes(atPSNR: target, on: curve) else {
                        lean = false
                        continue
                    }
                    lean = lean && equal.bytes <= 0.8 * l.bytesPerFrame
                    print("  at \(key)'s \(Stats.fmt(target)) dB: ours \(Int(equal.bytes)) B/frame "
                          + "(noise threshold ≈ \(Stats.fmt(equal.threshold, 1))) = \(Stats.fmt(equal.bytes / max(1, l.bytesPerFrame)))x its bytes")
                }
                print("  target (default dither): median ≤ \(Stats.fmt(Self.targetMedianMs, 0)) ms at ≥ \(Stats.fmt(Self.targetPSNR, 0)) dB: "
                      + (fast ? "met" : "NOT met") + "; bytes ≤ 0.8× each peer's at its PSNR: "
                      + (theirs.isEmpty ? "peers missing" : (lean ? "met" : "NOT met")))
            }
        }
    }

    /// Times `render` of every frame, `repeats` times; reports the median run.
    func halfBlock(_ set: FrameSet, mode: CellColorMode) throws -> RunResult {
        let rect = CellRect(column: 0, row: 0, width: set.width, height: set.height / 2)
        let images = try (0..<set.count).map(set.image)
        let out = ByteBuffer(capacity: 1 << 20)
        var runs: [RunResult] = []
        for _ in 0..<repeats {
            let renderer = CellRenderer(colorMode: mode)
            var times: [Double] = [], bytes = 0
            for image in images {
                out.removeAll()
                let t0 = Stopwatch(clock: .monotonic)
                try renderer.render(image, into: rect, output: out)
                times.append(Double(t0.nanoseconds) / 1e6)
                bytes += out.count
            }
            runs.append(RunResult(frameMilliseconds: times, bytes: bytes))
        }
        return RunResult.medianRun(runs)
    }

    /// Times `encode` of every frame (packing, the unchanged-frame check, base64 and chunking),
    /// `repeats` times.
    func kitty(_ set: FrameSet) throws -> RunResult {
        let images = try (0..<set.count).map(set.image)
        let out = ByteBuffer(capacity: 4 << 20)
        var runs: [RunResult] = []
        for _ in 0..<repeats {
            let encoder = KittyEncoder(clock: .monotonic)
            var times: [Double] = [], bytes = 0, unchanged = 0
            for image in images {
                out.removeAll()
                let t0 = Stopwatch(clock: .monotonic)
                let report = encoder.encode(image, columns: 128, rows: 38, into: out)
                times.append(Double(t0.nanoseconds) / 1e6)
                bytes += out.count
                if report.outcome == .identical { unchanged += 1 }
            }
            var run = RunResult(frameMilliseconds: times, bytes: bytes)
            run.note = "unchanged \(unchanged)"
            runs.append(run)
        }
        return RunResult.medianRun(runs)
    }

    func sixelOptions(_ dither: SixelDither) -> SixelEncoder.Options {
        var o = SixelEncoder.Options(colors: colors, dither: dither)
        if let noiseThreshold { o.noiseThreshold = noiseThreshold }
        o.repaint = SixelRepaint(rawValue: repaint) ?? .changed
        return o
    }

    /// Times `encode` of every frame, `repeats` times (a fresh encoder each run); then, untimed,
    /// paints every frame's output over the previous ones as a terminal would and measures PSNR.
    func sixel(_ set: FrameSet, dither: SixelDither) throws -> RunResult {
        let images = try (0..<set.count).map(set.image)
        let out = ByteBuffer(capacity: 4 << 20)
        var runs: [RunResult] = []
        for _ in 0..<repeats {
            let encoder = SixelEncoder(options: sixelOptions(dither))
            encoder.stageClock = .monotonic
            var times: [Double] = [], bytes = 0
            var analyse: [Double] = [], map: [Double] = [], emit: [Double] = []
            for image in images {
                out.removeAll()
                let t0 = Stopwatch(clock: .monotonic)
                let report = try encoder.encode(image, into: out)
                times.append(Double(t0.nanoseconds) / 1e6)
                bytes += out.count
                analyse.append(Double(report.analyseNanoseconds) / 1e6)
                map.append(Double(report.mapNanoseconds) / 1e6)
                emit.append(Double(report.emitNanoseconds) / 1e6)
            }
            var run = RunResult(frameMilliseconds: times, bytes: bytes)
            run.note = "palettes \(encoder.statistics.paletteRebuilds), unchanged \(encoder.statistics.framesIdentical); "
                + "median ms analyse \(Stats.fmt(Stats.median(analyse))) (max \(Stats.fmt(analyse.max() ?? 0))) map \(Stats.fmt(Stats.median(map))) emit \(Stats.fmt(Stats.median(emit)))"
            runs.append(run)
        }
        var result = RunResult.medianRun(runs)
        result.setPSNR(try shownPSNR(set, images: images, options: sixelOptions(dither)).psnrs)
        return result
    }

    /// Untimed: encodes every frame with `options`, paints each image over the last as a
    /// terminal does, and returns the PSNR of what is shown per frame and the bytes per frame.
    func shownPSNR(_ set: FrameSet, images: [PixelImage], options: SixelEncoder.Options) throws
        -> (psnrs: [Double], bytesPerFrame: Double) {
        let encoder = SixelEncoder(options: options)
        let out = ByteBuffer(capacity: 4 << 20)
        var screen = [UInt8](repeating: 0, count: set.width * set.height * 3)
        var psnrs: [Double] = [], bytes = 0
        for (i, image) in images.enumerated() {
            out.removeAll()
            try encoder.encode(image, into: out)
            bytes += out.count
            for img in SixelStreamDecoder.images(in: out.bytes) {
                SixelStreamDecoder.paint(img, onto: &screen, width: set.width, height: set.height)
            }
            psnrs.append(SixelStreamDecoder.psnr(screen, set.frames[i]))
        }
        return (psnrs, Double(bytes) / Double(max(1, images.count)))
    }

    /// One point of our bytes-for-PSNR curve: the noise threshold trades bytes for PSNR.
    typealias RatePoint = (threshold: Int, bytes: Double, psnr: Double)

    /// Our bytes per frame and mean PSNR at rising noise thresholds, until the PSNR falls
    /// below `lowest` (dB).
    func rateCurve(_ set: FrameSet, dither: SixelDither, downTo lowest: Double) throws -> [RatePoint] {
        let images = try (0..<set.count).map(set.image)
        var points: [RatePoint] = []
        for threshold in [0, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48] {
            var o = sixelOptions(dither)
            o.noiseThreshold = threshold
            let r = try shownPSNR(set, images: images, options: o)
            points.append((threshold, r.bytesPerFrame, r.psnrs.reduce(0, +) / Double(max(1, r.psnrs.count))))
            if let last = points.last, last.psnr < lowest, points.count > 1 { break }
        }
        return points
    }

    /// Our bytes per frame at `psnr` (mean dB), interpolated linearly between the two points of
    /// `curve` on either side of it; nil when no two points bracket it.
    static func bytes(atPSNR psnr: Double, on points: [RatePoint]) -> (bytes: Double, threshold: Double)? {
        for (a, b) in zip(points, points.dropFirst()) where a.psnr >= psnr && b.psnr <= psnr && a.psnr > b.psnr {
            let t = (a.psnr - psnr) / (a.psnr - b.psnr)
            return (a.bytes + t * (b.bytes - a.bytes), Double(a.threshold) + t * Double(b.threshold - a.threshold))
        }
        return nil
    }
}

/// One configuration's timings.
struct RunResult {
    var frameMilliseconds: [Double]
    var bytes: Int
    /// Mean PSNR over the frames, and the worst frame's.
    var psnr: Double?
    var minPSNR: Double?
    /// Shown at the end of the line.
    var note = ""

    var frames: Int { frameMilliseconds.count }
    var medianMs: Double { Stats.median(frameMilliseconds) }
    var p95Ms: Double { Stats.percentile(frameMilliseconds, 95) }
    var meanMs: Double { frameMilliseconds.isEmpty ? 0 : frameMilliseconds.reduce(0, +) / Double(frames) }
    var fps: Double { 1000 / max(0.0001, meanMs) }
    var bytesPerFrame: Double { Double(bytes) / Double(max(1, frames)) }
    /// Render CPU per second of 24 fps media (single-threaded, so wall time = CPU time).
    var cpuPerMediaSecond: Double { meanMs * GraphicsBenchmark.fps / 1000 }
    var bytesPerSecond: Double { bytesPerFrame * GraphicsBenchmark.fps }
    /// Frames that took longer than one 24 fps frame interval.
    var late: Int { frameMilliseconds.filter { $0 > 1000 / GraphicsBenchmark.fps }.count }

    mutating func setPSNR(_ values: [Double]) {
        psnr = values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        minPSNR = values.min()
    }

    static func medianRun(_ runs: [RunResult]) -> RunResult {
        let sorted = runs.sorted { $0.meanMs < $1.meanMs }
        return sorted[sorted.count / 2]
    }

    func line(label: String) -> String {
        var s = label.padding(toLength: 34, withPad: " ", startingAt: 0)
        s += " median \(Stats.fmt(medianMs, 3)) ms  p95 \(Stats.fmt(p95Ms, 3)) ms  mean \(Stats.fmt(meanMs, 3)) ms  \(Stats.fmt(fps, 1)) fps"
        s += "  \(Int(bytesPerFrame)) B/frame  CPU \(Stats.fmt(cpuPerMediaSecond, 3)) s/media-s  \(Stats.fmt(bytesPerSecond / 1e6, 2)) MB/s"
        if !frameMilliseconds.isEmpty { s += "  max \(Stats.fmt(frameMilliseconds.max() ?? 0, 1)) ms  late \(late)/\(frames)" }
        if let psnr { s += "  PSNR \(Stats.fmt(psnr)) dB (min \(Stats.fmt(minPSNR ?? psnr)))" }
        if !note.isEmpty { s += "  \(note)" }
        return s
    }
}
