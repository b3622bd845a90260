import AetherBase
import AetherMedia
import AetherStructure
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One packet as the packets tab keeps it (compact: a film has millions).
struct PacketRow: Equatable, Sendable {
    var stream: Int32
    var size: Int32
    var pts: Int64?
    var dts: Int64?
    var duration: Int64?
    var position: Int64?
    var isKey: Bool
    var isDiscard: Bool
    var isCorrupt: Bool
    /// 1-based group of pictures within the stream (a keyframe starts the next).
    var gop: Int32

    /// Whether the row starts a group of pictures (a video keyframe; never sound or text).
    var startsGOP: Bool { isKey && gop > 0 }
    var flags: String { (isKey ? "K" : "_") + (isDiscard ? "D" : "_") + (isCorrupt ? "C" : "_") }
}

/// Reads every packet of a source on a thread of its own (`PacketInspector`, its own demuxer),
/// up to ``PacketLoader/maxRows``; the UI takes what has arrived each pass. Cancelled when the
/// inspector closes or the process quits.
final class PacketLoader: Sendable {
    /// Packets kept (about 50 MB); the tab says when a file has more.
    static let maxRows = 1_000_000
    private struct Loaded {
        var rows: [PacketRow] = []
        var streamList: [InspectedStream] = []
        var finished = false
        var endNote: String?
        var cancelled = false
    }
    private let loaded = Guarded(Loaded())
    private let onProgress: @Sendable () -> Void
    /// What the rows' batching (a signal at least every 0.2 s) is timed by.
    private let clock: TimeSource

    init(url: String, network: NetworkSettings, clock: TimeSource, onProgress: @escaping @Sendable () -> Void) {
        self.onProgress = onProgress
        self.clock = clock
        OSThread.start(name: "aether.inspect.packets") { [self] in load(url, network: network) }
    }

    func cancel() { loaded.withLock { $0.cancelled = true } }

    /// Rows from `index` on that arrived since, the streams, and whether reading ended (and how).
    func take(from index: Int) -> (rows: ArraySlice<PacketRow>, streams: [InspectedStream], finished: Bool, note: String?) {
        loaded.withLock { l in (l.rows[min(index, l.rows.count)...], l.streamList, l.finished, l.endNote) }
    }

    private func load(_ url: String, network: NetworkSettings) {
        var limits = InspectionLimits()
        limits.count = Self.maxRows
        let inspector: PacketInspector
        do { inspector = try PacketInspector(url: url, network: network, limits: limits, clock: clock) } catch {
            loaded.withLock { $0.finished = true; $0.endNote = "cannot read packets: \(error)" }
            onProgress()
            return
        }
        loaded.withLock { $0.streamList = inspector.streams }
        // Groups of pictures are a video stream's: in sound and subtitles every packet is a
        // keyframe, and no packet starts a GOP (gop 0, shown as "-").
        let video = Set(inspector.streams.filter { $0.kind == .video }.map(\.index))
        var gops: [Int: Int32] = [:]
        var batch: [PacketRow] = []
        var lastSignal = clock.seconds
        func flush() {
            loaded.withLock { $0.rows += batch }
            batch.removeAll(keepingCapacity: true)
            onProgress()
        }
        while let event = inspector.next() {
            if loaded.withLock({ $0.cancelled }) { return }
            switch event {
            case .packet(let p):
                let isVideo = video.contains(p.stream)
                if isVideo, p.isKey || gops[p.stream] == nil { gops[p.stream, default: 0] += 1 }
                batch.append(PacketRow(stream: Int32(clamping: p.stream), size: Int32(clamping: p.size), pts: p.pts, dts: p.dts,
                                       duration: p.duration, position: p.position, isKey: p.isKey, isDiscard: p.isDiscard,
                                       isCorrupt: p.isCorrupt, gop: isVideo ? gops[p.stream] ?? 1 : 0))
                let now = clock.seconds
                if batch.count >= 4096 || now - lastSignal > 0.2 { flush(); lastSignal = now }
            case .end(let end):
                flush()
                let note: String?
                switch end.reason {
                case .countLimit: note = "stopped at \(Self.maxRows) packets"
                default: note = end.error.map { "reading stopped: \(TextSanitizer.clean($0))" }
                }
                loaded.withLock { $0.finished = true; $0.endNote = note }
                onProgress()
                return
            }
        }
    }
}

/// The packets tab's state: the rows read so far, the filters, the chosen row.
struct PacketTable {
    var rows: [PacketRow] = []
    var streams: [InspectedStream] = []
    var finished = false
    var note: String?
    /// nil: every stream.
    var streamFilter: Int?
    var keyframesOnly = false
    /// Indices into `rows` that pass the filters.
    private(set) var visible: [Int] = []
    var selection = 0
    var scroll = 0
    /// The jump-to-time prompt's text while it is open.
    var prompt: String?

    mutating func append(_ more: ArraySlice<PacketRow>) {
        let start = rows.count
        rows += more
        for i in start..<rows.count where passes(rows[i]) { visible.append(i) }
    }

    private func passes(_ row: PacketRow) -> Bool {
        (streamFilter.map { Int(row.stream) == $0 } ?? true) && (!keyframesOnly || row.isKey)
    }

    /// Re-filters, keeping the chosen packet chosen (or the nearest after it).
    mutating func refilter() {
        let chosen = visible[safe: selection]
        visible = rows.indices.filter { passes(rows[$0]) }
        if let chosen { selection = visible.firstIndex { $0 >= chosen } ?? max(0, visible.count - 1) } else { selection = 0 }
    }

    /// `s`: every stream, then each in turn.
    mutating func cycleStream() {
        let indices = streams.map(\.index)
        if let current = streamFilter, let k = indices.firstIndex(of: current) {
            streamFilter = k + 1 < indices.count ? indices[k + 1] : nil
        } else {
            streamFilter = indices.first
        }
        refilter()
    }

    var selectedRow: PacketRow? { visible[safe: selection].map { rows[$0] } }

    func stream(_ index: Int32) -> InspectedStream? { streams.first { $0.index == Int(index) } }

    /// A row's time: dts, else pts, in seconds.
    func seconds(_ row: PacketRow) -> Double? {
        guard let s = stream(row.stream) else { return nil }
        return s.timeBase.seconds(row.dts ?? row.pts)
    }

    /// Chooses the first visible packet at or after `seconds` (measured from the first packet's time).
    mutating func jump(to seconds: Double) {
        let table = self
        let origin = table.visible.lazy.compactMap { table.seconds(table.rows[$0]) }.first ?? 0
        let target = origin + seconds
        selection = table.visible.firstIndex { (table.seconds(table.rows[$0]) ?? -Double.infinity) >= target } ?? max(0, visible.count - 1)
    }

    mutating func move(_ delta: Int) { selection = min(max(0, selection + delta), max(0, visible.count - 1)) }

    mutating func scrollIntoView(height: Int) {
        guard height > 0 else { return }
        if selection < scroll { scroll = selection }
        if selection >= scroll + height { scroll = selection - height + 1 }
        scroll = max(0, min(scroll, max(0, visible.count - height)))
    }

    /// Bytes per second over the file's span in `buckets` equal slices, for `stream`: the
    /// sparkline under the tab bar.
    func bitrate(stream: Int, buckets: Int) -> [Double] {
        guard buckets > 0, let s = streams.first(where: { $0.index == stream }) else { return [] }
        var first = Double.infinity, last = -Double.infinity
        for row in rows where Int(row.stream) == stream {
            if let t = s.timeBase.seconds(row.dts ?? row.pts) { first = min(first, t); last = max(last, t) }
        }
        guard first.isFinite, last > first else { return [] }
        var sums = [Double](repeating: 0, count: buckets)
        let span = last - first
        for row in rows where Int(row.stream) == stream {
            guard let t = s.timeBase.seconds(row.dts ?? row.pts) else { continue }
            let k = min(buckets - 1, max(0, Int(saturating: (t - first) / span * Double(buckets))))
            sums[k] += Double(row.size)
        }
        let slice = span / Double(buckets)
        return sums.map { $0 * 8 / slice }
    }
}

/// `mm:ss`, `h:mm:ss`, or seconds (`5`, `83.5`), from the jump prompt; nil when it is not a time.
enum InspectTime {
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), text.utf8.count <= 32 else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard !part.contains("/"), let n = try? OutsideValue.number(String(part), name: "time"), n >= 0,
                  let v = try? OutsideValue.clamped(n, to: 0...OutsideValue.maxSeconds, name: "time") else { return nil }
            if i < parts.count - 1, v != v.rounded() { return nil }
            total = total * 60 + v
        }
        return total
    }
}
