import ArgumentParser
import Foundation
import TerminalGraphics

/// `aether-bench graphics`: render-only throughput and bytes per frame of the half-block
/// renderer (160×48 cells) and the sixel encoder (1280×768 px) on moving and static 1080p
/// sequences, with the peers that are installed measured in the same invocation.
struct GraphicsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graphics",
        abstract: "Half-block and sixel render throughput vs mpv (tct/sixel), timg and libsixel.")

    @Option(help: "Frames per sequence.") var frames = 48
    @Option(help: "Timed runs per configuration (the median run is reported).") var repeats = 5
    @Option(help: "Seconds of 1080p24 video for the player peers (mpv, timg).") var mediaSeconds = 5
    @Option(help: "Sixel palette size.") var colors = 256
    @Option(help: "Scratch directory for frames and peer output.") var workDir = "/tmp/aether-bench-graphics"
    @Flag(help: "Skip mpv, timg and libsixel.") var noPeers = false

    static let fps = 24.0

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        print("aether-bench graphics: \(frames) frames/sequence, \(repeats) runs, testsrc2 1080p24 scaled by ffmpeg (area)")
        let hbMoving = try FrameSet.generate(moving: true, width: 160, height: 96, count: frames, directory: workDir)
        let hbStatic = try FrameSet.generate(moving: false, width: 160, height: 96, count: frames, directory: workDir)
        let sxMoving = try FrameSet.generate(moving: true, width: 1280, height: 768, count: frames, directory: workDir)
        let sxStatic = try FrameSet.generate(moving: false, width: 1280, height: 768, count: frames, directory: workDir)

        print("\n== half-block, 160x48 cells (160x96 px) ==")
        var hb: [String: RunResult] = [:]
        for mode in HalfBlockColorMode.allCases {
            for set in [hbMoving, hbStatic] {
                let r = try halfBlock(set, mode: mode)
                hb["\(mode.rawValue)/\(set.name)"] = r
                print(r.line(label: "ours \(mode.rawValue) \(set.name)"))
            }
        }

        print("\n== sixel, 1280x768 px, \(colors) colours ==")
        var sx: [String: RunResult] = [:]
        for dither in SixelDither.allCases {
            for set in [sxMoving, sxStatic] {
                let r = try sixel(set, dither: dither)
                sx["\(dither.rawValue)/\(set.name)"] = r
                print(r.line(label: "ours \(dither.rawValue) \(set.name)"))
            }
        }

        guard !noPeers else { return }
        let peers = Peers(workDir: workDir, colors: colors, mediaSeconds: mediaSeconds)
        print("\n== libsixel (same frames, same palette size; compiled from Tests/Scripts/libsixel-bench.c) ==")
        var lib: [String: RunResult] = [:]
        for (diffuse, policy) in [("none", "perframe"), ("fs", "perframe"), ("none", "reuse")] {
            for set in [sxMoving, sxStatic] {
                if let r = try peers.libsixel(set, diffuse: diffuse, palette: policy) {
                    lib["\(diffuse)/\(policy)/\(set.name)"] = r
                    print(r.line(label: "libsixel \(diffuse) \(policy) \(set.name)"))
                }
            }
        }
        print("\n== players on a \(mediaSeconds) s 1080p24 H.264 clip (CPU includes decoding) ==")
        let players = peers.players()
        for p in players { print(p.line) }

        print("\n== ratios (this run) ==")
        if let ours = sx["none/moving"], let theirs = lib["none/perframe/moving"] {
            print("sixel none moving: ours/libsixel fps \(Stats.fmt(ours.fps / theirs.fps))x, PSNR \(Stats.fmt(ours.psnr ?? 0)) vs \(Stats.fmt(theirs.psnr ?? 0)) dB")
        }
        if let ours = sx["fs/moving"], let theirs = lib["fs/perframe/moving"] {
            print("sixel fs moving: ours/libsixel fps \(Stats.fmt(ours.fps / theirs.fps))x, PSNR \(Stats.fmt(ours.psnr ?? 0)) vs \(Stats.fmt(theirs.psnr ?? 0)) dB")
        }
        if let ours = sx["ordered/moving"], let theirs = lib["none/perframe/moving"] {
            print("sixel ordered (our default) vs libsixel none: fps \(Stats.fmt(ours.fps / theirs.fps))x, PSNR \(Stats.fmt(ours.psnr ?? 0)) vs \(Stats.fmt(theirs.psnr ?? 0)) dB")
        }
        if let tct = players.first(where: { $0.name == "mpv --vo=tct" }), let ours = hb["truecolor/moving"] {
            let null = players.first(where: { $0.name == "mpv --vo=null" })
            print("half-block truecolor moving vs mpv tct: CPU \(Stats.fmt(ours.cpuPerMediaSecond / tct.cpuPerMediaSecond, 3))x (vs tct total)"
                + (null.map { ", \(Stats.fmt(ours.cpuPerMediaSecond / max(0.001, tct.cpuPerMediaSecond - $0.cpuPerMediaSecond), 3))x (vs tct minus decode)" } ?? "")
                + ", bytes/s \(Stats.fmt(ours.bytesPerSecond / max(1, tct.bytesPerSecond), 3))x")
        }
    }

    /// Times `render` of every frame, `repeats` times; reports the median run.
    func halfBlock(_ set: FrameSet, mode: HalfBlockColorMode) throws -> RunResult {
        let rect = CellRect(column: 0, row: 0, width: set.width, height: set.height / 2)
        let images = try (0..<set.count).map(set.image)
        let out = ByteBuffer(capacity: 1 << 20)
        var runs: [RunResult] = []
        for _ in 0..<repeats {
            let renderer = HalfBlockRenderer(colorMode: mode)
            var times: [Double] = [], bytes = 0
            for image in images {
                out.removeAll()
                let t0 = DispatchTime.now().uptimeNanoseconds
                try renderer.render(image, into: rect, output: out)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                bytes += out.count
            }
            runs.append(RunResult(frameMilliseconds: times, bytes: bytes))
        }
        return RunResult.medianRun(runs)
    }

    func sixel(_ set: FrameSet, dither: SixelDither) throws -> RunResult {
        let images = try (0..<set.count).map(set.image)
        let out = ByteBuffer(capacity: 4 << 20)
        var runs: [RunResult] = []
        for _ in 0..<repeats {
            let encoder = SixelEncoder(options: .init(colors: colors, dither: dither))
            var times: [Double] = [], bytes = 0
            for image in images {
                out.removeAll()
                let t0 = DispatchTime.now().uptimeNanoseconds
                try encoder.encode(image, into: out)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                bytes += out.count
            }
            runs.append(RunResult(frameMilliseconds: times, bytes: bytes))
        }
        var result = RunResult.medianRun(runs)
        // Quality, outside the timing: decode every 6th frame and compare with its source.
        let encoder = SixelEncoder(options: .init(colors: colors, dither: dither))
        var psnrs: [Double] = []
        for (i, image) in images.enumerated() {
            out.removeAll()
            try encoder.encode(image, into: out, repeatIdentical: true)
            guard i % 6 == 0, let decoded = SixelStreamDecoder.images(in: out.bytes).first.flatMap(SixelStreamDecoder.decode) else { continue }
            psnrs.append(SixelStreamDecoder.psnr(decoded.pixels, set.frames[i]))
        }
        result.psnr = psnrs.isEmpty ? nil : psnrs.reduce(0, +) / Double(psnrs.count)
        return result
    }
}

/// One configuration's timings.
struct RunResult {
    var frameMilliseconds: [Double]
    var bytes: Int
    var psnr: Double?
    /// For peers that report only aggregates.
    var medianOverride: Double?

    var frames: Int { frameMilliseconds.count }
    var medianMs: Double { medianOverride ?? Stats.median(frameMilliseconds) }
    var meanMs: Double { frameMilliseconds.isEmpty ? medianMs : frameMilliseconds.reduce(0, +) / Double(frames) }
    var fps: Double { 1000 / max(0.0001, meanMs) }
    var bytesPerFrame: Double { Double(bytes) / Double(max(1, frames)) }
    /// Render CPU per second of 24 fps media (single-threaded, so wall time = CPU time).
    var cpuPerMediaSecond: Double { meanMs * GraphicsBenchmark.fps / 1000 }
    var bytesPerSecond: Double { bytesPerFrame * GraphicsBenchmark.fps }
    /// Frames that took longer than one 24 fps frame interval.
    var late: Int { frameMilliseconds.filter { $0 > 1000 / GraphicsBenchmark.fps }.count }

    static func medianRun(_ runs: [RunResult]) -> RunResult {
        let sorted = runs.sorted { $0.meanMs < $1.meanMs }
        return sorted[sorted.count / 2]
    }

    func line(label: String) -> String {
        var s = label.padding(toLength: 34, withPad: " ", startingAt: 0)
        s += " median \(Stats.fmt(medianMs, 3)) ms  mean \(Stats.fmt(meanMs, 3)) ms  \(Stats.fmt(fps, 1)) fps"
        s += "  \(Int(bytesPerFrame)) B/frame  CPU \(Stats.fmt(cpuPerMediaSecond, 3)) s/media-s  \(Stats.fmt(bytesPerSecond / 1e6, 2)) MB/s"
        if !frameMilliseconds.isEmpty { s += "  max \(Stats.fmt(frameMilliseconds.max() ?? 0, 1)) ms  late \(late)/\(frames)" }
        if let psnr { s += "  PSNR \(Stats.fmt(psnr)) dB" }
        return s
    }
}
