import AetherBase
import AetherEngine
import ArgumentParser
import Foundation
import TerminalGraphics
import TerminalPictures

/// `aether-bench cells`: what the cell outputs show, measured. Frames of a clip are decoded and
/// scaled exactly as playback does (`DecodePass.pictures`), drawn by the cell renderer in each
/// mode, and the bytes decoded back into the screen a terminal would show
/// (`CellStreamDecoder`); that screen is compared with the source frame area-averaged onto the
/// same sub-cell grid. Beside each mode: the ideals computable from the source alone, and the
/// bytes and render time per frame.
struct CellsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cells",
        abstract: "Cell outputs (half, quadrant, sextant, octant): reconstruction PSNR, bytes and time per frame.")

    @Option(help: "The clip: grainy (a zooming Mandelbrot set with film grain), film (soft drifting colour fields, a moving edge, fine grain), or a path; the first two are made once.")
    var clip = "grainy"
    @Option(help: "Cells across and down.") var columns = 160
    @Option(help: "Cells down.") var rows = 48
    @Option(help: "Frames measured.") var frames = 48
    @Option(help: "Frames skipped first.") var skip = 120
    @Option(help: "Modes, comma-separated.") var modes = "half,quadrant,sextant,octant"
    @Option(help: "Colour modes, comma-separated: truecolor, 256.") var colors = "truecolor,256"
    @Option(help: "Tolerances to measure, comma-separated (levels; see --vo-cells-tolerance).") var tolerances = "0,8"
    @Flag(help: "Repeat the first measured frame (a still picture).") var still = false
    @Option(help: "Scratch directory.") var workDir = "/tmp/aether-bench-graphics"
    @Flag(help: "Also play a cut of the clip in real time: aether-tui in each cell mode beside timg -ph/-pq and mpv --vo=tct, all in the same 160x48 pseudo-terminal in 24-bit colour (timg -ph also into a file), and headless beside the ffmpeg decode floor.")
    var players = false
    @Option(help: "Seconds of the clip the players play.") var playerSeconds = 10
    @Option(help: "Runs per player (medians).") var repeats = 3
    @Option(help: "Only the players whose names contain one of these words, comma-separated (e.g. halfblock,timg).") var only: String?
    @Flag(help: "Skip the quality table (players only).") var noTable = false
    @Option(help: ArgumentHelp("The aether-tui binary (default: next to aether-bench).", valueName: "path")) var player: String?
    @Option(help: ArgumentHelp("Another aether-tui binary (an earlier build) to play half blocks beside this one.", valueName: "path")) var baselinePlayer: String?

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let path = try FrameSet.clip(named: clip, directory: workDir)
        let symbolList = modes.split(separator: ",").compactMap { CellSymbols(option: String($0)) }
        let colorList = colors.split(separator: ",").compactMap { CellColorMode(rawValue: String($0)) }
        let toleranceList = tolerances.split(separator: ",").compactMap { Double($0) }
        let rect = CellRect(column: 0, row: 0, width: columns, height: rows)
        if noTable {
            if players { try playerRuns(clip: path) }
            return
        }
        print("aether-bench cells: \(path), \(columns)x\(rows) cells, \(frames) frames after \(skip)\(still ? " (one frame repeated)" : ""); "
              + "PSNR against the source area-averaged to 2x4 (and 2x12) sub-cells per cell")

        // The source frames and the reference grids, decoded once.
        var sources: [(source: [UInt8], width: Int, height: Int)] = []
        try DecodePass.pictures(url: path, size: PixelSize(width: 2, height: 2), reference: true, first: skip, every: 1, clock: .monotonic) { p in
            if let s = p.source { sources.append((s, p.sourceWidth, p.sourceHeight)) }
            return sources.count < (still ? 1 : frames)
        }
        guard !sources.isEmpty else { throw ValidationError("no frames decoded from \(path)") }
        let references4 = sources.map { PictureQuality.areaAverage($0.source, width: $0.width, height: $0.height, toWidth: columns * 2, toHeight: rows * 4) }
        let references12 = sources.map { PictureQuality.areaAverage($0.source, width: $0.width, height: $0.height, toWidth: columns * 2, toHeight: rows * 12) }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(max(1, v.count)) }
        let idealHalf = mean(references4.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 4, symbols: .half)) })
        let idealOctant = mean(references4.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 4, symbols: .octant)) })
        let idealSextant12 = mean(references12.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 12, symbols: .sextant)) })
        let idealOctant12 = mean(references12.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 12, symbols: .octant)) })
        let idealHalf12 = mean(references12.map { PictureQuality.psnr(PictureQuality.idealMSE($0, cellColumns: columns, cellRows: rows, gridRows: 12, symbols: .half)) })
        print("ideal half-block   PSNR 2x4 \(Stats.fmt(idealHalf)) dB   2x12 \(Stats.fmt(idealHalf12)) dB")
        print("ideal sextant                       2x12 \(Stats.fmt(idealSextant12)) dB")
        print("ideal octant       PSNR 2x4 \(Stats.fmt(idealOctant)) dB   2x12 \(Stats.fmt(idealOctant12)) dB")

        if players { try playerRuns(clip: path) }
        for symbols in symbolList {
            let size = PixelSize(width: columns * symbols.columns, height: rows * symbols.rows)
            var scaled: [[UInt8]] = []
            try DecodePass.pictures(url: path, size: size, first: skip, clock: .monotonic) { p in
                scaled.append(p.scaled)
                return scaled.count < (still ? 1 : frames)
            }
            for colorMode in colorList {
                for tolerance in toleranceList {
                    let renderer = CellRenderer(symbols: symbols, colorMode: colorMode)
                    renderer.tolerance = tolerance
                    var decoder = CellStreamDecoder(columns: columns, rows: rows)
                    let out = ByteBuffer(capacity: 1 << 20)
                    var psnr4: [Double] = [], psnr12: [Double] = [], ms: [Double] = []
                    var bytes = 0
                    for i in 0..<frames {
                        let k = still ? 0 : min(i, scaled.count - 1)
                        let image = try PixelImage(width: size.width, height: size.height, pixels: scaled[k])
                        out.removeAll()
                        let start = Stopwatch(clock: .monotonic)
                        try renderer.render(image, into: rect, output: out)
                        ms.append(Double(start.nanoseconds) / 1e6)
                        bytes += out.count
                        decoder.feed(out.bytes)
                        let r = still ? 0 : min(i, references4.count - 1)
                        psnr4.append(PictureQuality.psnr(decoder.pixels(of: rect, gridRows: 4), references4[r]))
                        psnr12.append(PictureQuality.psnr(decoder.pixels(of: rect, gridRows: 12), references12[r]))
                    }
                    let label = "\(symbols) \(colorMode.rawValue)\(tolerance > 0 ? " tol \(Stats.fmt(tolerance, 1))" : "")"
                    print(label.padding(toLength: 26, withPad: " ", startingAt: 0)
                          + " PSNR 2x4 \(Stats.fmt(mean(psnr4))) dB   2x12 \(Stats.fmt(mean(psnr12))) dB"
                          + "   \(Stats.fmt(Double(bytes) / Double(frames) / 1024, 1)) KiB/frame"
                          + "   render median \(Stats.fmt(Stats.median(ms), 2)) ms")
                }
            }
        }
    }

    /// One player run's figures.
    struct PlayerRun {
        var cpu: Double
        var bytes: Int
        var media: Double
        var dropped: Int?
        var painted: Int?
    }

    /// Real-time playback of a cut of `clip` (video only, as the peers get it) by every player,
    /// alternating, `repeats` times; medians of CPU and bytes per media second.
    func playerRuns(clip: String) throws {
        let cut = "\(workDir)/cells-players-\(playerSeconds)s.mkv"
        if !FileManager.default.fileExists(atPath: cut) {
            let argv = ["ffmpeg", "-v", "error", "-ss", "\(skip / 24)", "-i", clip, "-t", "\(playerSeconds)", "-an", "-c", "copy", "-y", cut]
            guard Spawn.run(argv).status == 0 else { throw ValidationError("ffmpeg could not cut \(clip)") }
        }
        let binary = player ?? URL(fileURLWithPath: EngineBenchmark.executablePath()).deletingLastPathComponent().appendingPathComponent("aether-tui").path
        let stats = "\(workDir)/cells-players-stats.jsonl"
        // A stream copy cuts at keyframes, so the cut is longer than asked (11.17 s for 10 on
        // the grainy clip): the peers' figures are per second of what they really played.
        let probe = "\(workDir)/cells-players-duration.txt"
        _ = Spawn.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", cut], stdoutPath: probe)
        let probed = (try? String(contentsOfFile: probe, encoding: .utf8)).flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard let media = probed, media.isFinite, media > 0 else { throw ValidationError("ffprobe could not tell the length of \(cut)") }
        print("players: \(cut), \(Stats.fmt(media, 3)) s")
        let pty = PtyTerminal(columns: columns, rows: rows, answers: true)
        typealias Job = (name: String, run: () throws -> PlayerRun?)
        func ours(_ extra: [String], inTerminal: Bool = true, binary: String = binary) -> () throws -> PlayerRun? {
            {
                try? FileManager.default.removeItem(atPath: stats)
                let argv = [binary, cut, "--ao=null", "--stats-file=\(stats)"] + extra
                var cpu = 0.0, bytes = 0, status: Int32 = -1
                if inTerminal {
                    let r = try pty.run(argv)
                    (cpu, bytes, status) = (r.cpuSeconds, r.bytes, r.status)
                } else {
                    let m = Spawn.run(argv)
                    (cpu, status) = (m.cpuSeconds, m.status)
                }
                guard status == 0, let summary = HeadlessPlaybackCost.summary(stats) else { return nil }
                return PlayerRun(cpu: cpu, bytes: bytes, media: summary.mediaSeconds, dropped: summary.framesDropped,
                                 painted: summary.framesPainted)
            }
        }
        // The peers draw into the same pseudo-terminal as aether-tui (like for like: a tty's
        // writes cost the writer CPU a file's do not); timg also into a file, as earlier runs
        // measured it.
        func peer(_ argv: [String], inTerminal: Bool = true) -> () throws -> PlayerRun? {
            {
                if inTerminal {
                    let r = try pty.run(argv)
                    return r.status == 0 ? PlayerRun(cpu: r.cpuSeconds, bytes: r.bytes, media: media) : nil
                }
                let out = "\(workDir)/cells-peer.out"
                let m = Spawn.run(argv, stdoutPath: out)
                let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
                return m.status == 0 ? PlayerRun(cpu: m.cpuSeconds, bytes: bytes, media: media) : nil
            }
        }
        var jobs: [Job] = [
            ("aether-tui halfblock, exact", ours(["--vo=halfblock", "--vo-cells-tolerance=0"])),
            ("aether-tui halfblock", ours(["--vo=halfblock"])),
            // timg decodes on one thread (libavcodec's default thread count).
            ("aether-tui halfblock, 1 decoder thread", ours(["--vo=halfblock", "--vd-lavc-threads=1"])),
            ("aether-tui cells quadrant", ours(["--vo=cells", "--vo-cells=quadrant"])),
            ("aether-tui cells sextant", ours(["--vo=cells", "--vo-cells=sextant"])),
            ("aether-tui cells octant", ours(["--vo=cells", "--vo-cells=octant"])),
            ("aether-tui --vo=null (headless)", ours(["--vo=null"], inTerminal: false)),
            ("ffmpeg -f null (decode floor)", peer(["ffmpeg", "-nostdin", "-v", "error", "-i", cut, "-f", "null", "-"], inTerminal: false)),
        ]
        if let baselinePlayer {
            jobs.insert(("aether-tui halfblock, baseline build", ours(["--vo=halfblock"], binary: baselinePlayer)), at: 3)
        }
        if Spawn.which("timg") != nil {
            jobs.append(("timg -ph (half blocks)", peer(["timg", "-g\(columns)x\(rows)", "-ph", "-V", "--threads=1", cut])))
            jobs.append(("timg -pq (quarter blocks)", peer(["timg", "-g\(columns)x\(rows)", "-pq", "-V", "--threads=1", cut])))
            jobs.append(("timg -ph into a file", peer(["timg", "-g\(columns)x\(rows)", "-ph", "-V", "--threads=1", cut], inTerminal: false)))
        } else {
            print("timg: not installed (apt-get install timg)")
        }
        if Spawn.which("mpv") != nil {
            jobs.append(("mpv --vo=tct", peer(["mpv", "--no-config", "--really-quiet", "--no-audio", "--untimed", "--framedrop=no",
                                               "--no-input-terminal", "--hwdec=no", "--vo=tct", "--vo-tct-width=\(columns)",
                                               "--vo-tct-height=\(rows)", cut])))
        } else {
            print("mpv: not installed (apt-get install mpv)")
        }
        if let only {
            let words = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            jobs = jobs.filter { job in words.contains { job.name.contains($0) } }
        }
        var results: [String: [PlayerRun]] = [:]
        for _ in 0..<repeats {
            for job in jobs {
                if let r = try job.run() { results[job.name, default: []].append(r) } else { print("\(job.name): failed") }
            }
        }
        print("\n== players, \(playerSeconds) s of the clip, \(columns)x\(rows), 24-bit colour, \(repeats) runs (medians) ==")
        var cpu: [String: Double] = [:], rate: [String: Double] = [:]
        for job in jobs {
            guard let runs = results[job.name], !runs.isEmpty else { continue }
            cpu[job.name] = Stats.median(runs.map { $0.cpu / max(0.001, $0.media) })
            rate[job.name] = Stats.median(runs.map { Double($0.bytes) / max(0.001, $0.media) })
            var line = job.name.padding(toLength: 40, withPad: " ", startingAt: 0)
                + " CPU \(Stats.fmt(cpu[job.name]!, 3)) s/media-s   \(Stats.fmt(rate[job.name]! / 1e6, 2)) MB/media-s"
            if let d = runs.last?.dropped { line += "   dropped \(d)" }
            if let p = runs.last?.painted { line += "   painted \(p)" }
            print(line)
        }
        func ratio(_ a: String, _ b: String, _ table: [String: Double]) -> String {
            guard let x = table[a], let y = table[b], y > 0 else { return "-" }
            return Stats.fmt(x / y, 2) + "x"
        }
        let hb = "aether-tui halfblock", oct = "aether-tui cells octant"
        print("halfblock vs mpv tct: bytes \(ratio(hb, "mpv --vo=tct", rate)); vs timg -ph: bytes \(ratio(hb, "timg -ph (half blocks)", rate)), CPU \(ratio(hb, "timg -ph (half blocks)", cpu))")
        print("halfblock vs timg -ph into a file: CPU \(ratio(hb, "timg -ph into a file", cpu))")
        print("halfblock on 1 decoder thread vs timg -ph: CPU \(ratio("aether-tui halfblock, 1 decoder thread", "timg -ph (half blocks)", cpu)); into a file: \(ratio("aether-tui halfblock, 1 decoder thread", "timg -ph into a file", cpu))")
        print("halfblock exact vs mpv tct: bytes \(ratio("aether-tui halfblock, exact", "mpv --vo=tct", rate))")
        print("octant vs halfblock: bytes \(ratio(oct, hb, rate)), CPU \(ratio(oct, hb, cpu)); octant vs timg -pq: bytes \(ratio(oct, "timg -pq (quarter blocks)", rate)), CPU \(ratio(oct, "timg -pq (quarter blocks)", cpu))")
        print("headless vs ffmpeg decode floor: CPU \(ratio("aether-tui --vo=null (headless)", "ffmpeg -f null (decode floor)", cpu))")
    }
}
