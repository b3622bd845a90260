import AetherLoopback
import AetherEngine
import ArgumentParser
import Foundation

/// `aether-bench subtitles`: what libass costs the pixel outputs.
///
/// 1. Cost per frame at the render size (1280×768: 160×48 cells of 8×16 pixels): the overlay's
///    update (libass's render, the composite when `detect_change` says it changed) and its
///    blend into the picture, frame after frame at 24 fps, for a typical dialogue script (two
///    lines every 2 s) and heavy typesetting (200 moving, rotating karaoke signs on screen at
///    once); p50 and p95 in ms.
/// 2. Playback with and without them: the player draws a 10 s 1280×720 clip with each script
///    muxed in as `--vo=sixel` into a pseudo-terminal that answers as xterm `-ti vt340` does,
///    once with `--sid=1` and once with `--sid=no`; frames painted and dropped, and CPU.
struct SubtitlesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subtitles",
        abstract: "libass in the pixel outputs: ms per frame (typical and heavy scripts) and playback frames dropped with and without subtitles.")

    @Option(help: "Frames measured per script for the cost.") var frames = 240
    @Option(help: "Render width and height for the cost.") var width = 1280
    @Option(help: "Render height for the cost.") var height = 768
    @Option(help: "Seconds of playback per run.") var playSeconds = 10
    @Option(help: ArgumentHelp("Parts to run, comma-separated.", valueName: "cost,playback")) var parts = "cost,playback"
    @Option(help: "The aether-tui binary (default: next to aether-bench).") var player: String?
    @Option(help: "Scratch directory (scripts and clips are made here).") var workDir = "/tmp/aether-bench-subtitles"

    static let header = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 1280
        PlayResY: 720
        WrapStyle: 0

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,40,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,20,20,30,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """

    /// (start, end, text) of each event.
    typealias Event = (start: Double, end: Double, text: String)

    static func typical(seconds: Int) -> [Event] {
        (0..<max(1, seconds / 2)).map { i in
            (Double(i) * 2, Double(i) * 2 + 2, "Line \(i) of the dialogue, long enough to be a real subtitle\\Nand a second line")
        }
    }

    static func heavy(seconds: Int) -> [Event] {
        (0..<max(1, seconds / 4) * 200).map { i in
            let s = Double(i / 200) * 4
            return (s, s + 4, "{\\move(\((i * 37) % 1280),\((i * 53) % 720),\((i * 41) % 1280),\((i * 29) % 720))\\frz\(i % 90)\\fs24\\k20}Sign {\\k30}\(i)")
        }
    }

    static func time(_ t: Double) -> String {
        let cs = Int((t * 100).rounded())
        return String(format: "%d:%02d:%02d.%02d", cs / 360_000, cs / 6000 % 60, cs / 100 % 60, cs % 100)
    }

    func run() async throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let list = parts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        print("aether-bench subtitles: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(EngineBenchmark.loadAverage())")
        let scripts = [("typical (2 dialogue lines)", Self.typical(seconds: max(playSeconds, frames / 24 + 2))),
                       ("heavy (200 moving signs)", Self.heavy(seconds: max(playSeconds, frames / 24 + 4)))]
        if list.contains("cost") {
            print("\n== libass overlay per frame at \(width)x\(height), \(frames) frames at 24 fps; ms ==")
            let header = ASSHeader(bytes: Array(Self.header.utf8), isNative: true)
            for (name, events) in scripts {
                let cues = events.enumerated().map { n, e in
                    SubtitleCue(start: e.start, end: e.end, content: .text(e.text), styled: nil,
                                ass: ASSSource(header: header, event: "\(n),0,Default,,0,0,0,,\(e.text)"))
                }
                let renderer = ASSOverlayRenderer()
                var picture = [UInt8](repeating: 60, count: width * height * 3)
                var times: [Double] = []
                for n in 0..<frames {
                    let t = 1 + Double(n) / 24
                    let showing = cues.filter { $0.start <= t && t < $0.end }
                    let t0 = MonotonicTime.now()
                    renderer.update(cues: showing, atSeconds: t, width: width, height: height)
                    renderer.overlay?.blend(into: &picture, width: width, height: height)
                    times.append((MonotonicTime.now() - t0) * 1000)
                }
                let p50 = Stats.percentile(times, 50), p95 = Stats.percentile(times, 95)
                print(name.padding(toLength: 30, withPad: " ", startingAt: 0) + "p50 \(Stats.fmt(p50, 2))   p95 \(Stats.fmt(p95, 2))")
            }
            print("target: typical <= 3 ms a frame")
        }
        if list.contains("playback") {
            let binary = player ?? URL(fileURLWithPath: EngineBenchmark.executablePath()).deletingLastPathComponent().appendingPathComponent("aether-tui").path
            print("\n== playback, \(playSeconds) s of 1280x720 24 fps, --vo=sixel in a 160x48 pseudo-terminal (xterm -ti vt340's answers) ==")
            let pty = PtyTerminal(columns: 160, rows: 48, answers: true)
            for (index, (name, events)) in scripts.enumerated() {
                let clip = try makeClip(index: index, events: events)
                for sid in ["1", "no"] {
                    let stats = "\(workDir)/stats.jsonl"
                    try? FileManager.default.removeItem(atPath: stats)
                    let r = try pty.run([binary, clip, "--vo=sixel", "--ao=null", "--sid=\(sid)", "--stats-file=\(stats)"])
                    guard r.status == 0, let s = HeadlessPlaybackCost.summary(stats) else {
                        print("\(name), --sid=\(sid): the player failed (status \(r.status))")
                        continue
                    }
                    let label = "\(name), " + (sid == "no" ? "no subtitles" : "subtitles")
                    print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
                          + "painted \(s.framesPainted.map(String.init) ?? "-")   dropped \(s.framesDropped)   CPU \(Stats.fmt(r.cpuSeconds / max(0.001, s.mediaSeconds), 3)) s/media-s")
                }
            }
            print("target: no frames dropped added by subtitles (compare each pair)")
        }
    }

    /// A 1280×720 24 fps clip of `playSeconds` with the script muxed in as its ASS track (made once).
    private func makeClip(index: Int, events: [Event]) throws -> String {
        let script = "\(workDir)/script-\(index)-\(playSeconds).ass"
        let clip = "\(workDir)/clip-\(index)-\(playSeconds).mkv"
        if FileManager.default.fileExists(atPath: clip) { return clip }
        let body = events.filter { $0.start < Double(playSeconds) }.map {
            "Dialogue: 0,\(Self.time($0.start)),\(Self.time($0.end)),Default,,0,0,0,,\($0.text)"
        }.joined(separator: "\n")
        try (Self.header + body + "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let argv = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=24:d=\(playSeconds)", "-i", script,
                    "-map", "0:v", "-map", "1:s", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "48",
                    "-c:s", "ass", clip + ".part.mkv"]
        let made = Spawn.run(argv)
        guard made.status == 0 else { throw ValidationError("ffmpeg could not make \(clip)") }
        try FileManager.default.moveItem(atPath: clip + ".part.mkv", toPath: clip)
        return clip
    }
}
