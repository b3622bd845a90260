import AetherControl
import AetherEngine
import ArgumentParser
import Dispatch
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `aether-tui download`: one variant of an HLS or DASH source with its chosen renditions, into one file.
struct Download: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download an HLS or DASH stream (one video variant, chosen audio and subtitle renditions) into one MKV or MP4 file.",
        discussion: """
            Fetches exactly one video variant of an HLS master playlist (--hls-bitrate, \
            --video-range; default: the highest bit rate) and the audio and subtitle renditions \
            (EXT-X-MEDIA) of that variant's groups chosen by --alang and --slang, AES-128 \
            segments decrypted, through the player's network reader (a dropped connection is \
            resumed at the byte, transient failures retried). The tracks are remuxed, not \
            re-encoded, into one Matroska file (MP4 when -o ends in .mp4, WebVTT subtitles then \
            converted to MP4's mov_text), with each rendition's LANGUAGE, NAME and DEFAULT=YES as language \
            tag, title and default flag.

            A static DASH manifest (MPD) is downloaded the same way: one video representation \
            (--hls-bitrate, --video-range), the audio adaptation sets chosen by --alang (each \
            set's representation: the lowest with --hls-bitrate=min, else the highest) and the \
            WebVTT text sets chosen by --slang (default: none), each with its init section and \
            segments (SegmentTemplate, SegmentTimeline, SegmentList, SegmentBase with sidx; \
            fragmented MP4 or WebM); \
            the adaptation set's lang is the language tag. A live (dynamic) MPD is refused; \
            TTML and stpp subtitles are left out (a note says so when --slang asked for \
            them). A manifest of sound only gives its audio.

            Segments are kept in PATH.part/ next to the output with a journal of what is done: \
            after Ctrl-C (status 4, as for a signal in play) or a failure, the same command continues where it \
            stopped. A journal or segment that does not check out is fetched again. The \
            directory is removed when the output is written. An existing output is refused at the \
            start, and the finished file is linked into place (renamed where the file system \
            has no hard links).

            A remote playlist or manifest naming anything but http(s) (file://, a local path) is \
            refused; nothing named by a playlist or manifest becomes a file name. Byte-range segments and init \
            sections (EXT-X-BYTERANGE, EXT-X-MAP BYTERANGE) are fetched by range; live \
            playlists are not supported. Progress goes to standard output: a bar on a terminal, \
            plain lines otherwise.
            """)

    @Argument(help: ArgumentHelp("An http(s) URL of an HLS master or media playlist, or of a DASH manifest (MPD).", valueName: "url"))
    var url: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write: Matroska, or MP4 when it ends in .mp4 (default: the playlist's or manifest's name with .mkv, in the current directory).", valueName: "path"), completion: .file())
    var output: String?

    @Option(name: .customLong("hls-bitrate"), help: ArgumentHelp("The video variant or representation: min, max, or the highest at or under a peak bit rate in bits/s (700k, 1.5M; else the lowest).", valueName: "min|max|rate"))
    var hlsBitrate: VariantPreference = .max

    @Option(name: .customLong("video-range"), help: ArgumentHelp("Prefer SDR or HDR variants; auto prefers SDR.", valueName: "auto|sdr|hdr"))
    var videoRange: VideoRangePreference = .auto

    @Option(help: ArgumentHelp("Audio renditions (DASH: adaptation sets) to keep, by language (e.g. fra,eng), or all (default: the DEFAULT=YES one, else the first).", valueName: "list"))
    var alang: String?

    @Option(help: ArgumentHelp("Subtitle renditions (DASH: WebVTT text sets) to keep, by language (e.g. eng), all, or no (default: those marked DEFAULT=YES).", valueName: "list"))
    var slang: String?

    @Flag(help: "Print what would be downloaded (each track with its segments and length) and what is left out and why, then exit without fetching a segment.")
    var list = false

    @OptionGroup var network: NetworkOptions

    @OptionGroup var common: CommonOptions

    func validate() throws(ValidationError) {
        guard hlsBitrate != .auto else { throw ValidationError("--hls-bitrate must be min, max or a bit rate (e.g. 700k)") }
    }

    func run() throws(CommandFailure) {
        try common.configureLogging()
        var settings = NetworkSettings()
        self.network.apply(to: &settings)
        let options: [String: String]
        do { options = try SourceOptions.make(network: settings) } catch { throw .usage(error.description) }

        var request = DownloadRequest()
        request.preference = hlsBitrate
        request.range = videoRange
        request.audioLanguages = alang.map(PlaybackSetup.languageList) ?? []
        request.subtitleLanguages = slang.map(PlaybackSetup.languageList) ?? []
        let path = output ?? Self.defaultOutput(for: url)

        // The download's composition root: its one clock.
        let clock = TimeSource.monotonic
        let interrupt = InterruptToken(clock: clock)
        let signals = Self.cancelOnSignals(interrupt)
        defer { signals.forEach { $0.cancel() } }
        let downloader = Downloader(output: path, network: settings, options: options, interrupt: interrupt)
        let bar = ProgressPrinter(terminal: isatty(STDOUT_FILENO) == 1, clock: clock)
        do {
            let plan = try downloader.plan(url: url, request: request)
            if list {
                for line in Self.listing(plan) { print(line) }
                return
            }
            for note in plan.notes { warn(note, kind: "note") }
            let summary = try downloader.run(plan) { bar.show($0) }
            bar.finish()
            if let why = summary.discarded { warn("the earlier run's state was not used (\(why)); started over", kind: "note") }
            for note in summary.notes { warn(note, kind: "note") }
            if summary.damaged > 0 { warn("\(summary.damaged) segment(s) on disk did not check out and were fetched again", kind: "note") }
            print("wrote \(TextSanitizer.clean(path)): \(summary.streams) streams, \(ProgressPrinter.size(summary.bytes)), "
                  + "\(summary.fetched) segments fetched, \(summary.kept) kept from an earlier run, \(summary.retries) retries, "
                  + String(cFormat: "%.1f s", summary.seconds))
        } catch {
            bar.finish()
            if interrupt.isCancelled {
                throw .interrupted("interrupted: what was fetched is kept in '\(path).part'; run the same command again to continue")
            }
            throw .failed("cannot download '\(url)': \(error.message)")
        }
    }

    /// `download --list`: one line per track the plan writes (kind, language, name, rate,
    /// segments, length, its first segment's URL; `then` before a part that goes on in the
    /// track above it, a later DASH period with an init section of its own) and one per part
    /// left out, with why. Everything from the playlist or manifest is sanitised.
    static func listing(_ plan: DownloadPlan) -> [String] {
        var lines: [String] = []
        for track in plan.tracks {
            var words = (track.continues ? ["then"] : []) + [track.kind.rawValue]
            if let language = track.language { words.append(TextSanitizer.clean(String(language.prefix(35)))) }
            if let name = track.name { words.append("\"\(TextSanitizer.clean(String(name.prefix(60))))\"") }
            if track.kind != .subtitle, track.bitrate > 0 { words.append("\(track.bitrate / 1000) kb/s") }
            let seconds = track.segments.reduce(0) { $0 + $1.duration }
            words.append("\(track.segments.count) segment\(track.segments.count == 1 ? "" : "s")")
            words.append(String(cFormat: "%.1f s", seconds))
            if let first = track.segments.first { words.append(TextSanitizer.clean(String(first.uri.prefix(200)))) }
            lines.append(words.joined(separator: "  "))
        }
        for note in plan.notes { lines.append("left out: " + TextSanitizer.clean(note)) }
        return lines
    }

    /// `master.m3u8` → `master.mkv` in the current directory (letters, digits, `._-` only).
    static func defaultOutput(for url: String) -> String {
        let path = URLComponents(string: url)?.path ?? ""
        let stem = Paths.deletingPathExtension(Paths.lastComponent(path))
        let safe = String(stem.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
            .map(Character.init)).trimming(while: { $0 == "." })
        return (safe.isEmpty ? "download" : safe) + ".mkv"
    }

    /// SIGINT and SIGTERM cancel the download (the segment in flight is dropped, the rest kept).
    static func cancelOnSignals(_ interrupt: InterruptToken) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupt.cancel() }
            source.resume()
            return source
        }
    }
}

/// The download's progress on standard output: on a terminal one line redrawn in place (a bar,
/// bytes, rate, ETA, the track); otherwise plain lines, at most one a second and the last.
final class ProgressPrinter {
    private let terminal: Bool
    private var lastLine = -1.0
    private var drawn = false
    private var last: DownloadProgress?
    /// What the redraw rate is timed by.
    private let clock: TimeSource

    init(terminal: Bool, clock: TimeSource) {
        self.terminal = terminal
        self.clock = clock
    }

    func show(_ p: DownloadProgress) {
        last = p
        let now = clock.seconds
        let complete = p.segmentsDone == p.segmentsTotal
        if terminal {
            guard now - lastLine >= 0.1 || complete else { return }
            lastLine = now
            let width = 24
            let filled = Int((p.fraction * Double(width)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            // Never wider than the terminal: a wrapped line would not be redrawn in place.
            write("\r" + String("[\(bar)] \(Self.line(p))".prefix(Self.columns() - 1)) + "\u{1B}[K")
            drawn = true
        } else {
            guard lastLine < 0 || now - lastLine >= 1 || complete else { return }
            lastLine = now
            write("download: \(Self.line(p))\n")
        }
    }

    func finish() {
        if terminal, drawn { write("\n") }
        drawn = false
    }

    /// The terminal's width (`TIOCGWINSZ`; a size from the tty is bounded like any outside value).
    static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return min(1000, max(20, Int(size.ws_col)))
    }

    static func line(_ p: DownloadProgress) -> String {
        var parts = [String(cFormat: "%3d%%", Int((p.fraction * 100).rounded(.down))), size(p.bytes),
                     "\(size(Int64(p.rate)))/s", "ETA " + (p.eta.map(clock) ?? "--:--"),
                     "\(p.segmentsDone)/\(p.segmentsTotal) segments"]
        if p.retries > 0 { parts.append("\(p.retries) retries") }
        parts.append(TextSanitizer.clean(p.track))
        return parts.joined(separator: "  ")
    }

    static func size(_ bytes: Int64) -> String {
        let b = Double(bytes)
        if b >= 1_073_741_824 { return String(cFormat: "%.2f GiB", b / Double(1 << 30)) }
        if b >= 1_048_576 { return String(cFormat: "%.1f MiB", b / Double(1 << 20)) }
        return String(cFormat: "%.0f KiB", b / 1024)
    }

    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        return TimeFormat.clock(min(seconds, 359_999), rounding: .toNearestOrAwayFromZero, padMinutes: false)
    }

    private func write(_ text: String) {
        StandardStream.write(text)
    }
}
