import AetherTransport
import AetherControl
import AetherEngine
import AetherScreen
import AetherTUI
import AetherThemes
import AetherInput
import Foundation
import TerminalGraphics

/// libFuzzer targets over the code that reads untrusted bytes, chosen by `AETHER_FUZZ_TARGET`:
/// - `media`: demux (from memory, through a custom AVIOContext), probe (the music and loudness
///   tags too: every ReplayGain mode gives a finite gain; the encoder gap of each stream,
///   ``EncoderGap``: finite and in order), and decode with the
///   playback decoders, filters, scaler, resampler and subtitle decoders;
/// - `subtitle`: one packet into a subtitle decoder (first byte picks the codec) and the cue
///   clean-up (ASS stripping, sanitising, the bitmap palette walk), and the same bytes as a
///   WebVTT cue's settings (``CuePlacementCheck``);
/// - `ass`: an ASS header and events through the cell outputs' parser and placement
///   (``ASSCellCheck``: lines inside the picture, nothing unsanitised, no override block) and
///   through libass into the pixel outputs' overlay (``ASSOverlayCheck``: inside the picture);
/// - `theme`: the theme parser;
/// - `equalizer`: an equalizer profile (``EqualizerProfile``): within its budgets, every filter
///   kept finite and in its ranges, its curve's response finite at every point it is read at,
///   and `--equalizer`'s value (``EqualizerChoice``) from the same bytes;
/// - `hls`: the HLS master/media/image playlist parsers, the variant choice and the bit-rate
///   switching ladder and rule;
/// - `dash`: the DASH manifest pre-check (the rule libxml2's copy passes), XML reader, foreign
///   reference scan, thumbnail track, and the inspector's view of it (``ManifestStructureParser``:
///   periods, sets, representations and events within their budget);
/// - `download`: the offline download's readers (``DownloadCheck``): its state journal, the
///   WebVTT segment join, and the HLS planner over a master and media playlists;
/// - `mpd`: the MPD parser DASH playback reads segments from (timelines, templates, lists,
///   `sidx`), its joined tracks and the HLS playlists it is translated into;
/// - `inputconf`, `config` (with its profiles expanded), `playlist` (.m3u/.m3u8 and .pls text,
///   local and as a station list fetched from a server),
///   `watchlater` (one entry), `ipc` (a client's stream through an IPC session): the readers
///   of the other doors (DoorFuzz below);
/// - `ytdl`: the page reader: whether a body is a web page (``YtdlRunner/looksLikeHTML(_:)``),
///   yt-dlp's `-J` answer (``PageAnswer/parse(_:)``: one video's media or a page's playlist),
///   and the `--ytdl-raw-options` and `--ytdl-format` checks;
/// - `bmff`, `mpegts`: the inspector's container tab, ISO BMFF boxes and MPEG-TS packets
///   (``StructureFuzz``: every node opened, each inside its parent unless damaged);
/// - `replies`: a terminal's answers to the capability probe (CSI, APC and DCS replies:
///   XTVERSION, XTGETTCAP, DECRQSS, kitty's) through ``CapabilityProbe`` (ReplyFuzz below);
/// - `ebml`: the inspector's Matroska/WebM structure parser over the bytes in memory, every
///   container expanded (``StructureTreeCheck``), and the same bytes as a DASH WebM segment
///   whose clusters are served with unknown sizes (each grows by at most 7 bytes);
/// - `wvtt`: WebVTT in MP4 as a DASH text set segments it, an init section and a segment
///   (``WVTTCheck``: cue times, text a WebVTT document can carry, the cue budget);
/// - `lrc`: LRC lyrics (``Lyrics``: lines in time order within the budgets, sanitised text,
///   the line sung at any time, the WebVTT track made from them), and the same bytes as an ID3
///   tag's `SYLT` frames (``ID3SyncedLyrics``) made into lyrics;
/// - `terminals`: `terminals.json`, the figures `--vo=auto` remembers per terminal
///   (``TerminalsCheck``);
/// - `exif`: a JPEG's EXIF orientation (``EXIFOrientation``);
/// - `icy`: a radio station's `icy-*` headers and in-band title blocks (``StationMetadata``):
///   every value cleaned and within its budget, whichever half of the bytes is which;
/// - `httphead`: an HTTP response (``HTTPResponseHead``, then ``HTTPBody`` as the head codes
///   it, a station's blocks asked for, and ``RangeAnswer`` for three requests): within their
///   budgets, each verdict one the head's status allows, and the same head,
///   payload and station blocks however the bytes are cut into reads.
/// - `iso9660`, `udf`, `ifo`, `mpls`, `clpi`: a disc image's file systems, a DVD's IFO files and
///   a Blu-ray's playlists and clip information (``DiscCheck``).
///
/// Built with `-sanitize=fuzzer,address -DFUZZING` it is a libFuzzer binary (see
/// Tests/Scripts/fuzz.sh). Built normally it replays files: `aether-fuzz TARGET FILE…` runs each
/// through the same entry point, so crashes kept as regression files are re-checked.
enum FuzzTarget: String, CaseIterable {
    case media, subtitle, ass, theme, equalizer, hls, dash, mpd, download, inputconf, config, playlist, watchlater, ipc, replies, ytdl, ebml, bmff, mpegts, wvtt, lrc, terminals, exif, icy, httphead, iso9660, ifo, udf, mpls, clpi

    nonisolated(unsafe) static var current: FuzzTarget =
        ProcessInfo.processInfo.environment["AETHER_FUZZ_TARGET"].flatMap(FuzzTarget.init) ?? .media

    func run(_ bytes: [UInt8]) {
        switch self {
        case .media:
            _ = DecodeCheck.media(bytes, maxPackets: 300)
        case .subtitle:
            _ = DecodeCheck.subtitle(bytes)
            CuePlacementCheck.run(bytes)
        case .ass:
            ASSCellCheck.run(bytes)
            ASSOverlayCheck.run(bytes)
        case .theme:
            _ = try? ThemeLoader.parse(String(decoding: bytes, as: UTF8.self), name: "fuzz", file: "fuzz.theme")
        case .equalizer:
            let profile = EqualizerProfile.parse(bytes, name: "fuzz.txt")
            let curve = profile.curve
            precondition(curve.filters.count <= EqualizerProfile.maxFilters && profile.refused.count <= EqualizerProfile.namedRefusals + 3)
            precondition(EqualizerProfile.preamps.contains(curve.preamp), "preamp \(curve.preamp)")
            for f in curve.filters {
                precondition(EqualizerProfile.frequencies.contains(f.frequency) && EqualizerProfile.gains.contains(f.gain)
                             && EqualizerProfile.qs.contains(f.q), "filter \(f)")
            }
            for rate in [44_100.0, 48_000] {
                let runnable = curve.runnable(sampleRate: rate).curve
                precondition(runnable.safe(sampleRate: rate).peakGain(sampleRate: rate).isFinite, "response not finite")
            }
            _ = try? EqualizerChoice(parsing: String(decoding: bytes.prefix(4096), as: UTF8.self))
        case .hls:
            ManifestCheck.hls(bytes)
        case .dash:
            ManifestCheck.dash(bytes)
        case .download:
            DownloadCheck.run(bytes)
        case .mpd:
            ManifestCheck.mpd(bytes)
        case .inputconf, .config, .playlist, .watchlater, .ipc:
            DoorFuzz.run(self, bytes)
        case .replies:
            ReplyFuzz.run(bytes)
        case .ebml:
            // The default bounds, smaller: the same limits are hit with a fraction of the work.
            var budget = StructureBudget()
            budget.maxChildren = 256
            budget.maxScanSteps = 4096
            budget.maxDepth = 24
            StructureTreeCheck.run(MatroskaParser(source: MemoryByteSource(bytes), budget: budget), length: Int64(bytes.count), budget: budget)
            let served = SegmentTransmuxer.unknownSizeClusters(bytes)
            precondition(served.count >= bytes.count && served.count - bytes.count <= 7 * (bytes.count / 5), "clusters grew past their headers")
        case .bmff, .mpegts:
            StructureFuzz.run(self, bytes)
        case .wvtt:
            WVTTCheck.run(bytes)
        case .terminals:
            TerminalsCheck.run(bytes)
        case .exif:
            // A JPEG's EXIF orientation (EXIFOrientation): 1–8 or none, within its budgets.
            if let o = EXIFOrientation.read(bytes) { precondition((1...8).contains(o), "orientation \(o)") }
        case .iso9660:
            DiscCheck.iso9660(bytes)
        case .ifo:
            DiscCheck.ifo(bytes)
        case .udf:
            DiscCheck.udf(bytes)
        case .mpls:
            DiscCheck.mpls(bytes)
        case .clpi:
            DiscCheck.clpi(bytes)
        case .icy:
            // The first byte splits the bytes into headers and blocks (a station sends both).
            let cut = min(bytes.count, Int(bytes.first ?? 0) * bytes.count / 256)
            var station = StationMetadata()
            station.take(headers: bytes[..<cut])
            for block in bytes[cut...].split(separator: 0xFF, omittingEmptySubsequences: false).prefix(64) {
                station.take(packet: block, reconnected: block.count & 1 == 0)
            }
            for value in station.tags.values {
                precondition(value.count <= StationMetadata.maxValueCharacters, "\(value.count) characters")
                precondition(!value.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" || $0 == "\u{2066}" })
            }
            precondition(station.titleChanges <= 64)
        case .httphead:
            // The same bytes whole, and cut into reads of 1–64 bytes (the first byte says).
            var whole = HTTPResponseHead(), cut = HTTPResponseHead()
            let one = bytes.withUnsafeBytes { whole.feed($0) }
            let step = Int(bytes.first ?? 0) % 64 + 1
            var outcome = HTTPResponseHead.Outcome.incomplete
            for start in stride(from: 0, to: bytes.count, by: step) where outcome == .incomplete {
                outcome = bytes[start..<min(bytes.count, start + step)].withUnsafeBytes { cut.feed($0) }
            }
            precondition(one == outcome, "\(one) whole, \(outcome) in reads of \(step)")
            precondition(whole.fields.count < HTTPResponseHead.maxLines && whole.status == cut.status)
            if case .complete(let offset) = one {
                precondition(offset <= min(bytes.count, HTTPResponseHead.maxBytes))
                HTTPBodyCheck.run(head: whole, body: Array(bytes[offset...]), step: step)
                // The range check, for a request from no byte, the first and a later one.
                for asked in [nil, 0, Int64(step) * 1000] as [Int64?] {
                    let range = RangeAnswer(whole, asked: asked)
                    switch range.start {
                    case .asked: break
                    case .resourceStart: precondition(whole.status == 200 && (asked ?? 0) > 0)
                    case .otherByte(let first): precondition(whole.status == 206 && first >= 0 && first != (asked ?? 0))
                    }
                    precondition((range.total ?? 0) >= 0 && (whole.status != 206 || range.servesRanges))
                }
            }
        case .lrc:
            let entries = ID3SyncedLyrics.entries(bytes)
            precondition(entries.count <= ID3SyncedLyrics.maxEntries)
            for lyrics in [Lyrics.parse(bytes, duration: bytes.first.map { Double($0) * 10 }), Lyrics.synced(entries)].compactMap({ $0 }) {
                precondition(lyrics.lines.count <= Lyrics.maxLines && !lyrics.lines.isEmpty)
                for (k, line) in lyrics.lines.enumerated() {
                    precondition(line.start >= 0 && line.end >= line.start && line.end <= Lyrics.maxSeconds * 2 && line.words.count <= Lyrics.maxWordsPerLine)
                    precondition(k == 0 || lyrics.lines[k - 1].start <= line.start, "lines out of order")
                    precondition(!line.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
                    precondition(lyrics.lineIndex(at: line.start).map { lyrics.lines[$0].start == line.start } == true)
                }
                let vtt = lyrics.webVTT
                precondition(vtt.hasPrefix("WEBVTT\n\n") && !vtt.contains("\u{1B}"))
            }
        case .ytdl:
            // The page reader: whether a body is a web page (only one goes to yt-dlp), then yt-dlp's
            // answer. What it lets through is bounded and names nothing but http(s), with no control
            // character or white space (a line break to a line reader: U+0085, U+2028).
            _ = YtdlRunner.looksLikeHTML(bytes)
            func check(url: String) {
                precondition(url.lowercased().hasPrefix("http") && url.utf8.count <= 16 << 10, "an unbounded or foreign URL")
                precondition(url.unicodeScalars.allSatisfy { $0.value > 0x20 && !(0x7F...0x9F).contains($0.value) && !$0.properties.isWhitespace },
                             "a control character or a space in a URL")
            }
            func check(title: String?) { precondition(title.map { !$0.contains("\u{1B}") && $0.count <= 1024 } ?? true) }
            if case .playlist(let list)? = try? PageAnswer.parse(bytes) {
                precondition(!list.entries.isEmpty && list.entries.count <= PagePlaylist.maxEntries, "\(list.entries.count) entries")
                for entry in list.entries {
                    check(url: entry.url)
                    check(title: entry.title)
                }
                check(title: list.title)
            }
            if let page = try? PageMedia.parse(bytes) {
                for url in [page.url] + (page.audioURL.map { [$0] } ?? []) { check(url: url) }
                precondition(page.headers.count <= 32 && page.headers.allSatisfy { !$0.value.contains("\r") && !$0.value.contains("\n") })
                precondition(page.chapters.count <= 1000 && page.chapters.allSatisfy { $0.start.isFinite && $0.end >= $0.start })
                check(title: page.title)
            }
            let text = String(decoding: bytes.prefix(8192), as: UTF8.self)
            if let options = try? YtdlSettings.parseRawOptions(text) {
                precondition(options.count <= 32 && options.allSatisfy { option in !option.key.hasPrefix("-") && !YtdlSettings.refusedKeys.contains { $0.hasPrefix(option.key) } })
            }
            _ = try? YtdlSettings.checkFormat(text)
        }
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    try? AppLog.configure(path: nil)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.current.run(bytes)
    return 0
}

#if FUZZING
/// libFuzzer's driver, run from the entry point SwiftPM gives an executable target
/// (`aether_fuzz_main`, which it links as `main`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@_cdecl("aether_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var vector = argv
    _ = fuzzInitialize(nil, nil)
    return LLVMFuzzerRunDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
}
#else
@main
struct Replay {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            StandardStream.error("usage: aether-fuzz media|subtitle|ass|theme|equalizer|hls|dash|mpd|download|inputconf|config|playlist|watchlater|ipc|replies|ytdl|ebml|bmff|mpegts|wvtt|lrc|terminals|exif FILE…\n")
            exit(2)
        }
        try? AppLog.configure(path: nil)
        var count = 0
        for path in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                StandardStream.error("aether-fuzz: cannot read \(path)\n")
                exit(1)
            }
            target.run([UInt8](data))
            count += 1
        }
        print("aether-fuzz \(target.rawValue): \(count) input(s) replayed without a crash")
    }
}
#endif

/// The text doors, each with the budgets it has in the player and a check of what they promise
/// (a violated one traps, which the fuzzer reports as a crash).
enum DoorFuzz {
    static func run(_ target: FuzzTarget, _ bytes: [UInt8]) {
        switch target {
        case .inputconf:
            let (bindings, warnings) = InputBindings.load(bytes: bytes, truncated: false)
            precondition(bindings.table.count <= KeyMap.defaults.count + bytes.count / 2 + 1)
            for w in warnings { precondition(w.utf8.count < 1024, "a warning too long") }
        case .config:
            let (file, warnings) = ConfigFile.parse(bytes: bytes, truncated: false)
            for w in warnings { precondition(w.utf8.count < 1024, "a warning too long") }
            let total = file.defaults.count + file.profiles.values.reduce(0) { $0 + $1.count }
            // Each profile once per expansion: never more lines out than the file holds.
            let (lines, unknown) = file.lines(profiles: Array(file.profiles.keys.sorted().prefix(8)) + ["missing"])
            precondition(lines.count <= total, "profiles fanned out: \(lines.count) > \(total)")
            precondition(unknown.count <= 100)
            // A value may be a `--title` template: the whole file as one too.
            for template in lines.compactMap(\.value) + [String(decoding: bytes, as: UTF8.self)] {
                let out = PropertyExpansion.expand(template) { $0.count % 3 == 0 ? nil : String(repeating: $0, count: 3) }
                precondition(out.count <= PropertyExpansion.maxLength, "expansion past its budget")
            }
        case .playlist:
            for path in ["/fuzz/list.m3u", "/fuzz/list.pls"] {
                guard let parsed = PlaylistLoader.parse(bytes: bytes, path: path, maxEntries: 1000) else { continue }
                precondition(parsed.items.count <= 1000, "past the entry budget")
            }
            // A station list fetched from a server: its entries resolved against its URL, none local.
            if let remote = PlaylistLoader.parseRemote(bytes: bytes, url: "http://fuzz.invalid/radio/list.pls", maxEntries: 1000) {
                precondition(remote.items.count <= 1000, "past the entry budget")
                // Never a local file, directly or through a wrapper's nested URL (`subfile:/etc/passwd`).
                let local: Set<Substring> = ["file", "pipe", "fd", "subfile", "crypto", "hls", "data", "concat", "async", "cache", "tee"]
                for item in remote.items {
                    let scheme = NetworkSettings.scheme(of: item.source) ?? "file"
                    precondition(!scheme.split(separator: "+").contains { local.contains($0) }, "a remote list's entry that can reach a local file")
                }
            }
        case .watchlater:
            if let e = WatchLater.parse(bytes) {
                precondition(e.start.isFinite && (0...WatchLater.maxStart).contains(e.start))
                if let v = e.volume { precondition((0...130).contains(v)) }
                if let s = e.speed { precondition((0.25...4).contains(s)) }
                for t in [e.audioTrack, e.subtitleTrack] { if case .some(.some(let n)) = t { precondition((1...999).contains(n)) } }
                for d in [e.subtitleDelay, e.audioDelay] { if let d { precondition(d.isFinite) } }
            }
        case .ipc:
            IPCFuzz.run(bytes, lineBytes: 1 << 16)
        default:
            break
        }
    }
}

/// The capability probe against a terminal that answers with the input: the first byte picks
/// how the answer is split across reads (1–16 bytes, or all at once) and whether the probe runs
/// as if inside tmux (the outer terminal's replies through passthrough); the rest is the answer.
/// Checks what the probe promises: bounded names and lists, believable sizes.
enum ReplyFuzz {
    struct Terminal: ProbeTransport {
        var reply: [UInt8]
        var chunk: Int
        var offset = 0
        mutating func send(_ bytes: [UInt8]) throws(SystemCallError) {}
        mutating func receive(timeout: Duration) throws(SystemCallError) -> [UInt8] {
            let end = offset + min(reply.count - offset, chunk)
            defer { offset = end }
            return Array(reply[offset..<end])
        }
    }

    static func run(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let chunk = first & 0x0F == 0 ? Int.max : Int(first & 0x0F)
        let inTmux = first & 0x10 != 0
        var terminal = Terminal(reply: Array(bytes.dropFirst()), chunk: chunk)
        let environment = inTmux ? TerminalEnvironment(term: "tmux-256color", tmux: "/tmp/fuzz,1,0", tmuxPane: "%1")
                                 : TerminalEnvironment(term: "xterm")
        let pane = TmuxPane(passthrough: first & 0x20 != 0)
        let report = CapabilityProbe.probe(transport: &terminal, environment: environment, budget: .milliseconds(2),
                                            tmuxPane: { _ in inTmux ? pane : nil }, time: .monotonic)
        let caps = report.capabilities
        precondition((caps.terminal.version?.utf8.count ?? 0) <= ReplyLimits.terminalVersionBytes, "a name past its bound")
        precondition(caps.terminal.deviceAttributes.count <= 64 && caps.tmux.outerDeviceAttributes.count <= 64)
        if let cell = caps.window.cellSize { precondition(ReplyLimits.accepts(cell), "an unbelievable cell \(cell)") }
        if let g = caps.sixel.maxGeometry { precondition(g.width <= 4096 && g.height <= 4096) }
        precondition(caps.sixel.effectiveColors <= 256)
        precondition(report.strayInput.count <= bytes.count, "stray input larger than the input")
    }
}
