import AetherControl
import AetherEngine
import AetherStreaming
import ArgumentParser
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a file or URL contains (like ffprobe, for humans first).",
        discussion: """
            Without --packets or --frames: a report of the container, chapters and streams.

            --packets lists every demuxed packet (stream, type, pts, dts, duration in the \
            stream's time base and in seconds, size, byte position, flags K key, D discard, \
            C corrupt); --frames decodes the audio and video and lists every frame (picture \
            type, pts and best-effort pts in seconds, size, format, field order, key frame, the \
            decoder's error flags) and every decode error with the packet it happened on, \
            carrying on past damaged data to the end. Both stop after --count rows (1000 unless \
            given; --count all for no limit) and take --streams, --start and --length. With \
            --json they print JSON lines: {"streams": [...]} first, then one {"packet": {...}} \
            (or {"frame": ...}, {"error": ...}, {"skipped": ...}) object per line, and \
            {"end": {...}} last, saying why the listing stopped.

            Exit status 2: a read error or --read-timeout stopped --packets or --frames before \
            the end.
            """)

    @Argument(help: ArgumentHelp("A media file or a URL libavformat can open.", valueName: "file|url"), completion: .file())
    var source: String

    @Flag(help: "Print JSON for scripts instead of the human report (JSON lines with --packets and --frames).")
    var json = false

    @Flag(help: "List the demuxed packets instead of the report.")
    var packets = false

    @Flag(help: "Decode audio and video and list the frames and decode errors instead of the report.")
    var frames = false

    @Option(help: ArgumentHelp("With --packets/--frames: streams to list, comma-separated: indices (0,2), kinds (v, a, s, d, t), or the Nth of a kind from 0 (a:1). Default: every stream (--frames: every audio and video stream).", valueName: "list"))
    var streams: String?

    @Option(help: ArgumentHelp("With --packets/--frames: start at the keyframe before this time from the start of the file: seconds, [[hh:]mm:]ss[.ms], or N% of the duration.", valueName: "time"))
    var start: TimeArgument?

    @Option(help: ArgumentHelp("With --packets/--frames: stop at the first packet this long after the start position.", valueName: "time"))
    var length: TimeArgument?

    @Option(help: ArgumentHelp("With --packets/--frames: list at most this many packets, or frames and errors (default 1000; all for no limit).", valueName: "n|all"))
    var count: String?

    @Option(name: .customLong("read-timeout"), help: ArgumentHelp("Give up when opening the source or one read blocks longer than this many seconds.", valueName: "seconds"))
    var readTimeout: Double = 15

    @Option(name: .customLong("http-header"), help: ArgumentHelp("Extra HTTP header for network sources (repeatable).", valueName: "field: value"))
    var httpHeaders: [String] = []

    @OptionGroup var tls: TLSOptions

    @OptionGroup var common: CommonOptions

    func validate() throws(ValidationError) {
        if packets && frames { throw ValidationError("--packets and --frames cannot be used together") }
        for (name, given) in [("--start", start), ("--length", length)] {
            switch given {
            case .fromEnd?, .chapter?: throw ValidationError("\(name) with --packets or --frames takes seconds or N%")
            default: break
            }
        }
        if !packets && !frames {
            for (name, given) in [("--streams", streams != nil), ("--start", start != nil), ("--length", length != nil), ("--count", count != nil)] where given {
                throw ValidationError("\(name) needs --packets or --frames")
            }
        }
        if let streams, StreamSelection(streams) == nil {
            throw ValidationError("--streams: cannot parse '\(streams)' (indices such as 0,1, or v, a, s, d, t, or a:1)")
        }
        if let count, count != "all", (Int(count) ?? 0) < 1 { throw ValidationError("--count must be a number of at least 1, or all") }
        guard readTimeout.isFinite, readTimeout > 0, readTimeout <= 3600 else {
            throw ValidationError("--read-timeout must be more than 0 and at most 3600 seconds")
        }
    }

    /// The packet or frame listing `inspect --json` prints, as `probe` with `arguments`.
    static func listing(_ arguments: String...) throws(CommandFailure) -> Probe {
        do { return try parse(arguments) } catch { throw .usage(fullMessage(for: error)) }
    }

    func run() throws(CommandFailure) {
        try common.configureLogging()
        // The probe's composition root: the one clock its opens and reads are timed by.
        let clock = TimeSource.monotonic
        // Every header is checked (an HTTP token for a name, no CR/LF in either part), and the
        // source gets the same protocol whitelist as playback.
        var fields: [String: String] = [:]
        for header in httpHeaders {
            guard let colon = header.firstIndex(of: ":") else { throw .usage("invalid HTTP header '\(header)': expected 'Field: value'") }
            fields[header[..<colon].trimmingWhitespace()] = header[header.index(after: colon)...].trimmingWhitespace()
        }
        var network = NetworkSettings()
        network.headers = fields
        network.tls = tls.policy
        let options: [String: String]
        do { options = try SourceOptions.make(network: network) } catch { throw .usage(error.description) }
        if packets { return try listPackets(options, network: network, clock: clock) }
        if frames { return try listFrames(options, network: network, clock: clock) }
        let info: MediaInfo
        do {
            info = try MediaProbe.probe(url: source, options: options, network: network, timeout: readTimeout, clock: clock)
        } catch {
            // A web page (as playback finds it): what yt-dlp names on it is probed instead.
            guard NetworkSettings.isNetwork(source),
                  case .media(let page)?? = try? YtdlRunner.media(onPage: source, network: network, settings: YtdlSettings(),
                                                                  interrupt: InterruptToken(clock: clock), timeout: readTimeout),
                  let pageOptions = try? SourceOptions.make(network: page.network(over: network)),
                  let media = try? MediaProbe.probe(url: page.url, options: pageOptions, network: page.network(over: network),
                                                    timeout: readTimeout, clock: clock) else {
                throw .failed("cannot open '\(source)': \(error.message)")
            }
            AppLog.write("ytdl", "probe: the page names \(TextSanitizer.clean(page.url))")
            info = media
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            do { print(String(decoding: try encoder.encode(info), as: UTF8.self)) } catch {
                throw .failed("cannot write the probe as JSON: \(error.systemReason)")
            }
        } else {
            print(ProbeReport.render(info), terminator: "")
        }
    }

    // MARK: --packets / --frames

    private var limits: InspectionLimits {
        func time(_ given: TimeArgument?) -> InspectionTime? {
            switch given {
            case .seconds(let s)?: return .seconds(s)
            case .percent(let p)?: return .percent(p)
            case .fromEnd?, .chapter?, nil: return nil   // refused by validate()
            }
        }
        return InspectionLimits(
            streams: streams.flatMap(StreamSelection.init) ?? .all, start: time(start), length: time(length),
            count: count == "all" ? nil : (count.flatMap { Int($0) } ?? InspectionLimits.defaultCount),
            readTimeout: readTimeout)
    }

    private func listPackets(_ options: [String: String], network: NetworkSettings, clock: TimeSource) throws(CommandFailure) {
        let inspector: PacketInspector
        do { inspector = try PacketInspector(url: source, options: options, network: network, limits: limits, clock: clock) } catch { throw failure(error) }
        let output = InspectionOutput(json: json)
        output.streams(inspector.streams, columns: InspectionTable.packetColumns)
        while let event = inspector.next() {
            switch event {
            case .packet(let p): output.line(json ? InspectionOutput.object("packet", p) : InspectionTable.row(p))
            case .end(let end): try finish(end, output, noun: "packet")
            }
        }
    }

    private func listFrames(_ options: [String: String], network: NetworkSettings, clock: TimeSource) throws(CommandFailure) {
        let inspector: FrameInspector
        do { inspector = try FrameInspector(url: source, options: options, network: network, limits: limits, clock: clock) } catch { throw failure(error) }
        let output = InspectionOutput(json: json)
        output.streams(inspector.streams, columns: InspectionTable.frameColumns)
        while let event = inspector.next() {
            switch event {
            case .frame(let f): output.line(json ? InspectionOutput.object("frame", f) : InspectionTable.row(f))
            case .decodeError(let e): output.line(json ? InspectionOutput.object("error", e) : InspectionTable.row(e))
            case .skipped(let s): output.line(json ? InspectionOutput.object("skipped", s) : InspectionTable.row(s))
            case .end(let end): try finish(end, output, noun: "frame")
            }
        }
    }

    private func failure(_ error: InspectionError) -> CommandFailure {
        if case .cannotOpen(let e) = error { return .failed("cannot open '\(source)': \(e.message)") }
        return .failed("\(source): \(error.description)")
    }

    /// The closing line; a read error or time-out also goes to stderr and exits 2.
    private func finish(_ end: InspectionEnd, _ output: InspectionOutput, noun: String) throws(CommandFailure) {
        output.line(json ? InspectionOutput.object("end", end) : InspectionTable.summary(end, noun: noun))
        output.flush()
        if end.isFailure {
            let what = end.reason == .timedOut ? "read timed out" : "read error"
            throw .incomplete("\(what) in '\(source)' after \(end.packets) packets: \(end.error ?? "unknown error")")
        }
    }
}

/// Writes the inspection listing: table lines or JSON lines, buffered, to stdout.
final class InspectionOutput {
    private let json: Bool
    private var buffer = ""

    init(json: Bool) { self.json = json }

    deinit { flush() }

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// `{"key": value}` on one line.
    static func object(_ key: String, _ value: some Encodable) -> String {
        guard let data = try? encoder.encode([key: value]) else { return "{\"\(key)\":null}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The selected streams (a `{"streams": …}` line, or `#` lines and the column header).
    func streams(_ streams: [InspectedStream], columns: String) {
        if json {
            line(InspectionOutput.object("streams", streams))
        } else {
            for line in InspectionTable.streamLines(streams) { self.line(line) }
            line(columns)
        }
    }

    func line(_ text: String) {
        buffer += text
        buffer += "\n"
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    /// write(2): a closed pipe (`| head`) must not become a Swift trap.
    func flush() {
        guard !buffer.isEmpty else { return }
        StandardStream.write(buffer)
        buffer = ""
    }
}
