import AetherEngine
import ArgumentParser
import Foundation

/// `aether-bench engine`: the playback engine's figures, each against ffmpeg on the same file in
/// the same invocation (the machine is shared and noisy: compare ratios, not absolute numbers).
///
/// 1. Decode fps per codec at 1080p: `DecodePass` (the playback decoder, nothing converted) vs
///    `ffmpeg -threads N -c:v DECODER -i F -map 0:v -f null -`, both as child processes.
/// 2. CPU seconds per media second of headless 1080p24 H.264 playback (`aether-tui --vo=null`)
///    vs the floor `ffmpeg -i F -f null -`.
/// 3. The A/V gap distribution of that playback (from its `--stats-file` summary).
/// 4. Seek latency, `.keyframe` and `.exact`, in process.
/// 5. The equalizer's cost (``EqualizerCost``): CPU ms per second of 48 kHz stereo audio through
///    the audio decoder with the equalizer off, a ten-band preset and a ten-filter profile, in
///    process (no ffmpeg peer: the equalizer off is the baseline).
struct EngineBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Decode fps per codec, headless playback CPU and A/V gap, seek latency; vs ffmpeg. The equalizer's CPU cost.",
        discussion: """
            Parts (--parts): decode (decode fps per codec against ffmpeg), playback (CPU per media second \
            and the A/V gap of headless playback against ffmpeg's floor), seek (seek latency in process), \
            equalizer (CPU ms per second of 48 kHz stereo audio through the audio decoder with the equalizer \
            off, a ten-band preset and a ten-filter profile, and each ÷ off; a 60 s pink-noise FLAC made in \
            --work-dir).
            """)

    @Option(help: "Timed runs per measurement (medians are reported).") var repeats = 5
    @Option(help: "Decoder threads for the engine and ffmpeg (0 = as many as cores).") var threads = 0
    @Option(help: "Seconds per 1080p24 decode clip.") var clipSeconds = 6
    @Option(help: ArgumentHelp("Decode clips, comma-separated.", valueName: "h264,hevc,hevc-main10,vp9,av1,vp8,mpeg2,mpeg4"))
    var codecs = CodecClip.all.map(\.name).joined(separator: ",")
    @Option(help: ArgumentHelp("Parts to run, comma-separated.", valueName: "decode,playback,seek,equalizer"))
    var parts = "decode,playback,seek,equalizer"
    @Option(help: ArgumentHelp("1080p24 H.264+AAC file for playback and seeks (default: \(PlaybackClip.fixture), else generated).", valueName: "path"))
    var playbackFile: String?
    @Option(help: ArgumentHelp("The aether-tui binary (default: next to aether-bench).", valueName: "path"))
    var player: String?
    @Option(help: ArgumentHelp("--ao for headless playback.", valueName: "null|alsa")) var ao = "null"
    @Option(help: ArgumentHelp("An earlier build of aether-tui to run alternately with ours in the playback part (ours ÷ baseline is reported).", valueName: "path"))
    var baselinePlayer: String?
    @Option(help: ArgumentHelp("--vo for the playback part; any but null runs in a pseudo-terminal.", valueName: "null|halfblock|sixel|kitty|auto"))
    var vo = "null"
    /// The pseudo-terminal a pixel or cell output plays in.
    @OptionGroup var terminal: PseudoTerminalOptions
    @Option(name: .customLong("player-arg"), help: ArgumentHelp("An extra option for our player in the playback part (repeatable), e.g. --player-arg=--vo-kitty-use-shm=yes.", valueName: "option"))
    var playerArguments: [String] = []
    @Option(name: .customLong("baseline-arg"), help: ArgumentHelp("An extra option for the baseline player (repeatable); with --baseline-player the same binary, it compares two settings.", valueName: "option"))
    var baselineArguments: [String] = []
    @Option(help: ArgumentHelp("Size seek frames are delivered at, or none (timing only).", valueName: "WxH|none"))
    var seekRenderSize = "1280x720"
    @Option(help: "Scratch directory (decode clips are cached here).") var workDir = "/tmp/aether-bench-engine"
    @Flag(help: "Print the figures as JSON instead of tables.") var json = false

    struct Report: Codable {
        var cores: Int
        var loadAverageBefore: String
        var loadAverageAfter: String
        var ffmpeg: String
        var repeats: Int
        var threads: Int
        var decode: [DecodeThroughput.Row] = []
        var decodeSkipped: [String] = []
        var playback: HeadlessPlaybackCost.Result?
        var seek: SeekLatency.Result?
        var equalizer: EqualizerCost.Result?
    }

    func validate() throws {
        guard repeats >= 1 else { throw ValidationError("--repeats must be at least 1") }
        guard clipSeconds >= 1 else { throw ValidationError("--clip-seconds must be at least 1") }
        let known = Set(CodecClip.all.map(\.name))
        for c in codecList where !known.contains(c) { throw ValidationError("unknown codec '\(c)'") }
        for p in partList where !["decode", "playback", "seek", "equalizer"].contains(p) { throw ValidationError("unknown part '\(p)'") }
        guard seekRenderSize == "none" || parseSize(seekRenderSize) != nil else { throw ValidationError("--seek-render-size must be WxH or none") }
    }

    var codecList: [String] { codecs.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
    var partList: [String] { parts.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }

    func parseSize(_ s: String) -> PixelSize? {
        let wh = s.split(separator: "x").compactMap { Int($0) }
        return wh.count == 2 && wh[0] > 0 && wh[1] > 0 ? PixelSize(width: wh[0], height: wh[1]) : nil
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        guard Spawn.which("ffmpeg") != nil else { throw ValidationError("ffmpeg is needed (clips and the baseline)") }
        let selfPath = Self.executablePath()
        var report = Report(cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageBefore: Self.loadAverage(),
                            loadAverageAfter: "", ffmpeg: Self.ffmpegVersion(), repeats: repeats, threads: threads)
        progress("aether-bench engine: \(repeats) runs, \(report.cores) cores, load \(report.loadAverageBefore), \(report.ffmpeg)")

        if partList.contains("decode") {
            let bench = DecodeThroughput(selfPath: selfPath, threads: threads, repeats: repeats, workDir: workDir)
            for clip in CodecClip.all where codecList.contains(clip.name) {
                let (path, problem) = clip.ensure(seconds: clipSeconds, directory: workDir)
                guard let path else {
                    report.decodeSkipped.append("\(clip.name): \(problem ?? "?")")
                    progress("decode \(clip.name): skipped (\(problem ?? "?"))")
                    continue
                }
                let row = try bench.measure(codec: clip.name, file: path, seconds: Double(clipSeconds))
                report.decode.append(row)
                progress("decode \(clip.name): ours \(Stats.fmt(row.oursFPS, 1)) fps, ffmpeg \(Stats.fmt(row.ffmpegFPS, 1)) fps")
            }
        }

        let needsFile = partList.contains("playback") || partList.contains("seek")
        let file = needsFile ? (playbackFile ?? PlaybackClip.ensure(directory: workDir)) : nil
        if needsFile, file == nil { throw ValidationError("no playback file: generate \(PlaybackClip.fixture) or pass --playback-file") }
        if partList.contains("playback"), let file {
            let binary = player ?? ((selfPath as NSString).deletingLastPathComponent + "/aether-tui")
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                throw ValidationError("no aether-tui at \(binary): build it (swift build -c release --product aether-tui) or pass --player")
            }
            var bench = HeadlessPlaybackCost(player: binary, audioOutput: ao, repeats: repeats, workDir: workDir)
            bench.baseline = baselinePlayer
            bench.videoOutput = vo
            bench.ttySize = terminal.ttySize
            bench.silentTerminal = terminal.silentTerminal
            bench.playerArguments = playerArguments
            bench.remoteTerminal = terminal.remoteTerminal
            bench.baselineArguments = baselineArguments
            report.playback = try bench.measure(file: file)
            progress("playback: \(Stats.fmt(report.playback!.cpuPerMediaSecond, 3)) CPU s per media s")
        }
        if partList.contains("seek"), let file {
            let bench = SeekLatency(repeats: repeats, renderSize: parseSize(seekRenderSize))
            report.seek = try bench.measure(file: file)
            progress("seek: done")
        }
        if partList.contains("equalizer") {
            report.equalizer = try EqualizerCost(repeats: repeats, workDir: workDir).measure()
            progress("equalizer: " + (report.equalizer?.rows.map { "\($0.setting) \(Stats.fmt($0.processCPUMsPerSecond, 2)) ms/s" }
                .joined(separator: ", ") ?? ""))
        }
        report.loadAverageAfter = Self.loadAverage()

        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.table(report, clipSeconds: clipSeconds))
        }
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    // MARK: report

    static func table(_ r: Report, clipSeconds: Int) -> String {
        var out: [String] = []
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s.padding(toLength: n, withPad: " ", startingAt: 0) }
        func rpad(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }
        out.append("aether-bench engine: medians of \(r.repeats) runs; \(r.cores) cores; load \(r.loadAverageBefore) → \(r.loadAverageAfter); \(r.ffmpeg)")
        if !r.decode.isEmpty || !r.decodeSkipped.isEmpty {
            out.append("")
            out.append("== decode only, 1920x1080 24 fps testsrc2, \(clipSeconds) s at ~5 Mbit/s, threads \(r.threads == 0 ? "auto" : "\(r.threads)"); child processes, start-up included ==")
            out.append("   ours: aether-bench decode-pass F (DecodePass: VideoDecoder, no conversion)")
            out.append("   ffmpeg: ffmpeg -threads \(r.threads) -c:v DECODER -i F -map 0:v -f null -")
            out.append(pad("codec", 12) + pad("decoder", 12) + pad("pix_fmt", 12) + rpad("kb/s", 6) + rpad("frames", 7)
                       + rpad("ours fps", 10) + rpad("ffmpeg fps", 11) + rpad("fps ratio", 10)
                       + rpad("ours CPU s", 11) + rpad("ffmpeg CPU s", 13) + rpad("CPU ratio", 10))
            for d in r.decode {
                out.append(pad(d.codec, 12) + pad(d.decoder, 12) + pad(d.pixelFormat, 12) + rpad(Stats.fmt(d.kbitPerSecond, 0), 6)
                           + rpad("\(d.frames)", 7) + rpad(Stats.fmt(d.oursFPS, 1), 10) + rpad(Stats.fmt(d.ffmpegFPS, 1), 11)
                           + rpad(Stats.fmt(d.fpsRatio, 2) + "x", 10) + rpad(Stats.fmt(d.oursCPUSeconds, 3), 11)
                           + rpad(Stats.fmt(d.ffmpegCPUSeconds, 3), 13) + rpad(Stats.fmt(d.cpuRatio, 2) + "x", 10))
            }
            for s in r.decodeSkipped { out.append("skipped \(s)") }
            out.append("   fps ratio = ours ÷ ffmpeg (above 1: faster); CPU ratio = ours ÷ ffmpeg (above 1: more CPU)")
        }
        if let p = r.playback {
            out.append("")
            out.append("== playback, --vo=\(p.videoOutput), \(p.file) (\(Stats.fmt(p.fileSeconds)) s) ==")
            out.append("   ours:  \(p.command.replacingOccurrences(of: p.file, with: "F"))")
            out.append("   floor: \(p.ffmpegCommand.replacingOccurrences(of: p.file, with: "F"))")
            out.append(pad("CPU s per media s", 24) + "ours \(Stats.fmt(p.cpuPerMediaSecond, 4))   ffmpeg floor \(Stats.fmt(p.ffmpegCPUPerMediaSecond, 4))   ratio \(Stats.fmt(p.cpuRatio, 2))x")
            out.append(pad("CPU s per run", 24) + "ours \(Stats.fmt(Stats.median(p.runs.map(\.cpuSeconds)), 3)) over \(Stats.fmt(p.mediaSeconds)) media s (wall \(Stats.fmt(p.wallSeconds)) s)   ffmpeg \(Stats.fmt(p.ffmpegCPUSeconds, 3)) (wall \(Stats.fmt(p.ffmpegWallSeconds, 3)) s)")
            out.append(pad("A/V gap ms", 24) + "mean \(Stats.fmt(p.avGapMeanMs)) (signed)   p95 \(Stats.fmt(p.avGapP95Ms))   max \(Stats.fmt(p.avGapMaxMs))   worst run max \(Stats.fmt(p.avGapWorstMs))   clock \(p.clockSource)")
            out.append(pad("frames", 24) + "presented \(Int(p.framesPresented))   dropped \(Int(p.framesDropped))")
            out.append(pad("output", 24) + p.output.line)
            out.append(pad("per run", 24) + p.runs.map { "\(Stats.fmt($0.cpuPerMediaSecond, 4))" }.joined(separator: " ") + " CPU s/media s")
            if let base = p.baselineCPUPerMediaSecond, let ratio = p.cpuRatioToBaseline {
                out.append("   baseline: \((p.baselineCommand ?? "").replacingOccurrences(of: p.file, with: "F"))")
                out.append(pad("baseline (same loop)", 24) + "CPU s per media s \(Stats.fmt(base, 4))   ours ÷ baseline \(Stats.fmt(ratio, 3))x   A/V p95 \(Stats.fmt(p.baselineAvGapP95Ms ?? 0)) ms   presented \(Int(p.baselineFramesPresented ?? 0))   dropped \(Int(p.baselineFramesDropped ?? 0))")
                if let o = p.baselineOutput { out.append(pad("baseline output", 24) + o.line) }
                out.append(pad("baseline per run", 24) + (p.baselineRuns ?? []).map { "\(Stats.fmt($0.cpuPerMediaSecond, 4))" }.joined(separator: " ") + " CPU s/media s")
            }
        }
        if let s = r.seek {
            out.append("")
            out.append("== seek latency: Player (audio .null), paused, \(s.file); seek(to:mode:) → first frame of the new position in the frame handler ==")
            out.append("   frames delivered at \(s.renderSize == "none" ? "no pixels (timing only)" : s.renderSize + " RGB24"); targets \(s.targets.map { Stats.fmt($0, 3) }.joined(separator: ", ")) s")
            out.append(pad("mode", 10) + rpad("samples", 8) + rpad("median ms", 11) + rpad("p95 ms", 9) + rpad("min ms", 9)
                       + rpad("max ms", 9) + rpad("landed behind target (median ms)", 34) + rpad("misplaced", 11))
            for m in s.modes {
                out.append(pad(m.mode, 10) + rpad("\(m.samples)", 8) + rpad(Stats.fmt(m.medianMs, 1), 11) + rpad(Stats.fmt(m.p95Ms, 1), 9)
                           + rpad(Stats.fmt(m.minMs, 1), 9) + rpad(Stats.fmt(m.maxMs, 1), 9)
                           + rpad(Stats.fmt(m.medianLandedBehindMs, 1), 34) + rpad("\(m.misplaced)", 11))
            }
        }
        if let e = r.equalizer {
            out.append("")
            out.append("== equalizer: CPU per second of 48 kHz stereo audio through AudioDecoder (\(e.codec) decode, the equalizer's filter chain, resampler to s16), in process ==")
            out.append("   \(e.file) (\(Stats.fmt(e.mediaSeconds, 1)) s of pink noise), demuxed into memory first; process CPU counts libavfilter's worker threads")
            out.append(pad("setting", 38) + rpad("filters", 8) + rpad("CPU ms/s", 10) + rpad("× off", 8)
                       + rpad("thread ms/s", 12) + rpad("wall ms/s", 10) + "   per run (CPU ms/s)")
            for row in e.rows {
                out.append(pad(row.setting, 38) + rpad("\(row.filters)", 8) + rpad(Stats.fmt(row.processCPUMsPerSecond, 2), 10)
                           + rpad(Stats.fmt(row.timesOff, 2) + "x", 8) + rpad(Stats.fmt(row.threadCPUMsPerSecond, 2), 12)
                           + rpad(Stats.fmt(row.wallMsPerSecond, 2), 10) + "   " + row.runs.map { Stats.fmt($0, 2) }.joined(separator: " "))
            }
            out.append("   filters: libavfilter filters of the equalizer (its preamp and each band or filter); × off = CPU ÷ the equalizer off's")
        }
        return out.joined(separator: "\n")
    }

    // MARK: environment

    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func ffmpegVersion() -> String {
        let first = Spawn.output(["ffmpeg", "-version"])?.split(separator: "\n").first.map(String.init) ?? "ffmpeg ?"
        return first.components(separatedBy: " Copyright").first ?? first
    }
}

/// The pseudo-terminal the playback part runs a pixel or cell output in: its size, and how it
/// answers the capability probe.
struct PseudoTerminalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Pseudo-terminal size for --vo halfblock/sixel/kitty/auto, in cells of 8x16 pixels.", valueName: "COLSxROWS")) var ttySize = "160x48"
    @Flag(help: "The pseudo-terminal does not answer the capability probe (as `script` into /dev/null).") var silentTerminal = false
    @Flag(help: "The pseudo-terminal's child sees SSH_CONNECTION set (a terminal over SSH: kitty deflates frames, no shared memory).")
    var remoteTerminal = false
}
