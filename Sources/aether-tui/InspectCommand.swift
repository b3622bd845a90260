import AetherControl
import AetherBase
import AetherEngine
import AetherTUI
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The pipeline inspector: a file's container structure, packets, decoded frames and live queues, browsable.",
        discussion: """
            aether-tui inspect FILE opens the player's screen on the inspector, paused, with four \
            tabs (Tab or 1-4 switch, Esc closes the inspector and shows the player, q quits):

            1 Container: the file's structure as a tree, read by our own parsers (ISO BMFF boxes, \
            Matroska/WebM EBML elements, MPEG-TS programs and PIDs, a DASH manifest's periods, sets, \
            representations and events in time order, a DVD's titles, title sets, program chains and cells, a Blu-ray's titles, playlists, play items and clips; libavformat's view for other formats and URLs), \
            with offsets and sizes; the chosen node's decoded fields and a hex \
            view of its bytes. ↑↓ move, → or Enter opens, ← closes or goes to the parent, [ ] page \
            the hex view. Damaged nodes are marked ⚠ and say where and why.

            2 Packets: every packet (index, stream, dts, pts, duration, size, byte position, flags \
            K key D discard C corrupt, group of pictures), GOP starts marked ┌▶, a bit-rate \
            sparkline per stream. s cycles the stream filter, K keyframes only, g jumps to a time, \
            Enter shows the packet's frame.

            3 Frames: the chosen frame drawn by the video output in use, with its picture type, \
            timestamps, colour properties, side data (HDR10+, Dolby Vision RPU, captions, motion \
            vectors) and decode time; . and , step forward and back; decode errors show where \
            they happen.

            4 Live: the queues' fill, the cache, the clock and A/V gap, frames decoded, dropped and \
            superseded, and each stage's milliseconds, as graphs, while the file plays (space). \
            In the player, ` opens the inspector over the picture.

            With --json it prints a tab's data instead: the container tree (or the subtree at \
            NODE, a path such as moov/trak[1]/mdia/minf/stbl/stsd, 1-based indices among \
            siblings of that name), or with --tab packets|frames the probe's JSON lines \
            (probe --packets/--frames --json, every packet; the first 1000 video frames).
            """)

    @Flag(help: "Print the tab's data as JSON for scripts instead of opening the inspector.")
    var json = false

    @Option(help: ArgumentHelp("The tab to open or print: container, packets, frames or live.", valueName: "tab"))
    var tab: InspectorTab = .container

    @OptionGroup var playback: PlaybackOptions
    @OptionGroup var common: CommonOptions

    func validate() throws(ValidationError) {
        guard let first = playback.sources.first, !first.isEmpty else { throw ValidationError("inspect needs a file") }
        if playback.sources.count > 2 { throw ValidationError("inspect takes one file and, optionally, a node path") }
        if playback.sources.count == 2, tab != .container {
            throw ValidationError("a node path belongs to the container tab")
        }
    }

    func run() throws(CommandFailure) {
        try common.configureLogging()
        let source = playback.sources[0]
        let node = playback.sources.count > 1 ? playback.sources[1] : nil
        if json { return try printJSON(source: source, node: node) }
        ALSASink.silenceLibraryErrors()
        var tuiPlayback = playback
        tuiPlayback.sources = [source]
        tuiPlayback.pause = true
        let tab = self.tab
        try Play.runTUI(tuiPlayback) { options in
            options.inspector = InspectorStart(tab: tab, node: node)
            // The live tab is for watching the pipeline: it plays from the start.
            options.startPaused = tab != .live
        }
    }

    private func printJSON(source: String, node: String?) throws(CommandFailure) {
        switch tab {
        case .container:
            let document: StructureDocument
            do { document = try StructureDocument.open(path: source, network: NetworkSettings(), interrupt: InterruptToken(clock: .monotonic)) } catch { throw .failed(error.message) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            struct Whole: Encodable {
                let format: String
                let size: Int64
                let nodes: [StructureTree]
            }
            var chain: [StructureNode]?
            if let node {
                do { chain = try document.resolve(node) } catch { throw .failed(error.message) }
            }
            let data: Data
            do {
                if let chain {
                    data = try encoder.encode(document.subtree(chain[chain.count - 1]))
                } else {
                    data = try encoder.encode(Whole(format: document.parser.format.rawValue, size: document.source.length,
                                                    nodes: document.wholeTree()))
                }
            } catch {
                throw .failed("cannot write the tree as JSON: \(error.systemReason)")
            }
            FileBytes.writeAll([UInt8](data) + [UInt8(ascii: "\n")], to: STDOUT_FILENO)
        case .packets:
            try Probe.listing(source, "--packets", "--json", "--count", "all").run()
        case .frames:
            try Probe.listing(source, "--frames", "--json", "--streams", "v").run()
        case .live:
            throw .failed("the live tab has no JSON form: --stats-file writes the same figures while playing")
        }
    }
}

/// `inspect --tab`: a tab by its name, in any case.
extension InspectorTab: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public var defaultValueDescription: String { name }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}
