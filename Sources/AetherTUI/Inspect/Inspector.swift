import AetherBase
import AetherMedia
import AetherStructure
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The pipeline inspector (`aether-tui inspect FILE`, or `` ` `` in the player): every stage
/// from bytes to pixels in four tabs, drawn over the picture by the player's own screen. This is
/// its state; ``InspectorView`` draws it and `TUIApp+Inspector` feeds it keys and data.
final class Inspector: Equatable {
    /// One inspector is one reader: the same only as itself.
    static func == (a: Inspector, b: Inspector) -> Bool { a === b }

    typealias Tab = InspectorTab

    var tab: Tab
    /// The file or URL inspected (shown sanitised).
    let source: String
    /// How a network source is read again (through the transport, with playback's settings).
    let network: NetworkSettings
    let browser: ContainerBrowser
    /// The browser's document being read (nil once it arrived).
    var reader: DocumentReader?
    /// `inspect --node PATH`: the node to open the tree down to once the document is there.
    var pendingNode: String?
    var packets = PacketTable()
    var loader: PacketLoader?
    var worker: FrameWorker?
    var frame: SteppedFrame?
    var frameError: String?
    /// Changes whenever a new picture arrives (the still's stamp).
    var frameStamp = 0
    var frameRequested = false
    var live = LiveHistory()

    init(source: String, network: NetworkSettings, tab: Tab, browser: ContainerBrowser) {
        self.source = source
        self.network = network
        self.tab = tab
        self.browser = browser
    }

    /// Ends the background readers (the inspector closed, the player quits).
    func close() {
        reader?.stop()
        reader = nil
        loader?.cancel()
        worker?.stop()
        loader = nil
        worker = nil
    }

    deinit { close() }

    /// Takes the container tab's document once it was read; true when it arrived.
    func pollDocument() -> Bool {
        guard let read = reader?.take() else { return false }
        browser.opened(read)
        reader?.stop()
        reader = nil
        return true
    }

    /// Takes what the packet reader found since the last pass; true when anything changed.
    func pollPackets() -> Bool {
        guard let loader else { return false }
        let got = loader.take(from: packets.rows.count)
        let changed = !got.rows.isEmpty || got.finished != packets.finished || packets.streams.count != got.streams.count
        packets.streams = got.streams
        packets.append(got.rows)
        packets.finished = got.finished
        packets.note = got.note
        return changed
    }

    /// Takes decoded frames; true when anything changed.
    func pollFrames() -> Bool {
        guard let worker else { return false }
        let outcomes = worker.take()
        for outcome in outcomes {
            switch outcome {
            case .frame(let f):
                frame = f
                frameError = nil
                frameStamp &+= 1
            case .failed(let message):
                frameError = TextSanitizer.clean(message)
            }
        }
        return !outcomes.isEmpty
    }
}

/// The live tab's graphs: the last two minutes of each figure, one sample a second.
struct LiveHistory {
    static let length = 120
    private(set) var series: [String: [Double]] = [:]

    mutating func add(_ name: String, _ value: Double) {
        var a = series[name, default: []]
        a.append(value.isFinite ? value : 0)
        if a.count > Self.length { a.removeFirst(a.count - Self.length) }
        series[name] = a
    }

    subscript(name: String) -> [Double] { series[name] ?? [] }

    /// One telemetry sample: the queues' fill, the cache ahead, the A/V gap, each stage's cost.
    mutating func record(_ t: TelemetrySnapshot) {
        for q in t.buffer.queues { add("queue " + q.name, q.level * 100) }
        add("buffered", t.buffer.seconds)
        add("gap", t.sync.gapLastMs)
        add("fps", t.observedFPS)
        add("read", t.stages.readMsPerPacket)
        add("decode", t.stages.decodeMsPerFrame)
        add("filter", t.stages.filterMsPerFrame)
        add("scale", t.stages.scaleMsPerFrame)
        add("present", t.stages.presentMsPerFrame)
        add("render", t.stages.renderMsPerFrame)
        add("write", t.stages.writeMsPerFrame)
        add("dropped", Double(t.frames.dropped))
    }
}

/// The inspector's tabs, in their order (keys 1–4), and `inspect --tab`'s values.
public enum InspectorTab: Int, CaseIterable, Sendable {
    case container, packets, frames, live

    var title: String {
        switch self {
        case .container: "Container"
        case .packets: "Packets"
        case .frames: "Frames"
        case .live: "Live"
        }
    }

    /// The tab called `name` (any case).
    public init?(name: String) {
        guard let tab = InspectorTab.allCases.first(where: { $0.title.lowercased() == name.lowercased() }) else { return nil }
        self = tab
    }

    /// Its name on the command line.
    public var name: String { title.lowercased() }
}
