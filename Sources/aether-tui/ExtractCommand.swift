import AetherControl
import AetherEngine
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `aether-tui extract`: one still of a file as PNG, through the engine's FrameExtractor.
struct Extract: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save a thumbnail or the exact frame at a time as PNG.",
        discussion: """
            Without --snapshot: the keyframe at or before TIME, decoded alone (fast), at most \
            --width pixels wide (default 320). With --snapshot: the exact frame shown at TIME, \
            at the display size unless --width is given. Either way the picture is upright (the \
            stream's rotation applied), has the display aspect ratio (anamorphic pixels \
            stretched), and PQ/HLG video is tone-mapped to SDR as in playback. A TIME past the \
            end takes the last frame. Prints the path written.

            --loops N takes N stills at positions cycling over the whole file (the cache cleared \
            each time, so every one is decoded), writes the last, and prints the peak RSS after \
            the first 10% of the loops and at the end, and the extractor's counters: for leak checks.
            """)

    @Argument(help: ArgumentHelp("A media file or a URL libavformat can open.", valueName: "file|url"), completion: .file())
    var source: String

    @Option(help: ArgumentHelp("Where: seconds, [[hh:]mm:]ss[.ms], -time before the end, or N% of the duration.", valueName: "time"))
    var at: String

    @Flag(help: "The exact frame shown at the time (decoded forward from the keyframe), not the keyframe thumbnail.")
    var snapshot = false

    @Option(help: ArgumentHelp("Largest width in pixels (thumbnails: default 320; snapshots: default the display width). Never enlarged.", valueName: "pixels"))
    var width: Int?

    @Option(name: .shortAndLong, help: ArgumentHelp("The PNG file to write (default: aether-tui-<name>-<time>.png in the current directory).", valueName: "path"), completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("Take this many stills at positions cycling over the file, then report memory and counters.", valueName: "n"))
    var loops: Int = 1

    @Option(name: .customLong("http-header-fields"), help: ArgumentHelp("Extra HTTP headers for network sources, comma-separated 'Field: value' pairs (a comma not followed by a new 'Field:' stays in the value).", valueName: "fields"))
    var httpHeaderFields: String?

    @OptionGroup var common: CommonOptions

    func validate() throws(ValidationError) {
        guard let time = TimeArgument(at) else { throw ValidationError("--at: cannot parse '\(at)' as a time") }
        if case .chapter = time { throw ValidationError("--at takes a time, -time from the end or N%, not a chapter") }
        if let width, width < 1 || width > 16384 { throw ValidationError("--width must be from 1 to 16384") }
        guard loops >= 1 else { throw ValidationError("--loops must be at least 1") }
    }

    func run() async throws(CommandFailure) {
        try common.configureLogging()
        var headers: [String: String] = [:]
        for field in SourceOptions.splitFields(httpHeaderFields ?? "") { headers[field.name] = field.value }
        let extractor = FrameExtractor(url: source, headers: headers, idleTimeout: 60, decoderThreads: 2, clock: .monotonic)
        let image: StillImage
        do { image = try await take(extractor) } catch {
            await extractor.shutdown()
            throw .failed("cannot extract a picture from '\(source)': \(Self.describe(error))")
        }
        let path = output ?? StillFileName.make(source: source, seconds: image.seconds)
        do { try PNGWriter.write(image, to: path) } catch {
            await extractor.shutdown()
            throw .failed("cannot write '\(path)': \(Self.describe(error))")
        }
        if loops > 1 { report(await extractor.statistics) }
        await extractor.shutdown()
        print(TextSanitizer.clean(path))
    }

    /// The still asked for, after `loops − 1` others at positions cycling over the file.
    private func take(_ extractor: FrameExtractor) async throws -> StillImage {
        await extractor.prewarm()
        let duration = await extractor.duration
        let target = TimeArgument(at)?.resolve(duration: duration) ?? 0
        var last: StillImage?
        for n in 0..<loops {
            // The golden ratio's fractional part spreads the positions evenly over the file.
            let position = n == loops - 1 ? target : (Double(n) * 0.618_033_988_75).truncatingRemainder(dividingBy: 1) * (duration ?? 10)
            await extractor.clearCache()
            last = snapshot ? try await extractor.snapshot(at: position, maxWidth: width)
                            : try await extractor.thumbnail(at: position, maxWidth: width ?? 320)
            if loops > 1, n + 1 == max(1, loops / 10) {
                print("peak RSS after \(n + 1) loops: \(PeakMemory.residentKiB()) KiB")
            }
        }
        guard let last else { throw FrameExtractorError.noFrame(target) }
        return last
    }

    private func report(_ s: FrameExtractorStatistics) {
        print("peak RSS after \(loops) loops: \(PeakMemory.residentKiB()) KiB")
        print("extractor: opens \(s.opens), decodes \(s.decodes), cache hits \(s.cacheHits), superseded \(s.superseded), cached \(s.thumbnailsCached) thumbnails + \(s.snapshotsCached) snapshots (\(s.cacheBytes) bytes)")
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case let e as FFmpegError: e.message.isEmpty ? e.description : "\(e.message) (\(e.function))"
        case let e as FrameExtractorError: e.description
        default: error.systemReason
        }
    }
}
