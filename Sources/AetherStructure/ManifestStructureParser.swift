import AetherMedia
import AetherStreaming
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A DASH manifest in the Container tab (issue 33, item 2): what our reader makes of it, as a
/// tree — the MPD, each period with its adaptation sets and representations (what our reader
/// left out named), and its events: every `EventStream`'s `Event` with its time on the
/// presentation timeline, duration, scheme, value, id and message, in time order. The manifest
/// is read within the manifest budget (a local file or http(s) through ``SmallFetch``); events
/// within ``maxEvents`` (the rest counted). Scheme identifiers are names: nothing in an event is
/// fetched, and an event that cannot be read is left out with its reason, never fatal.
public final class ManifestStructureParser: BuiltStructure {
    public let format = ContainerFormat.dash
    public let nodes: [StructureNode]
    public let childrenByTag: [UInt64: [StructureNode]]

    /// Events listed at most (the rest are counted on the Events node).
    public static let maxEvents = 10_000
    /// Characters of an event's message shown.
    static let messageLength = 200

    /// The manifest at `path`, fetched within `timeout` seconds of `clock`.
    public convenience init(path: String, network: NetworkSettings, timeout: Double = 15, interrupt: InterruptToken) throws(InspectionError) {
        let bytes: [UInt8]
        do {
            bytes = try SmallFetch.bytes(path, options: [:], settings: network, interrupt: interrupt,
                                         timeout: timeout, limit: Int(NetworkSession.manifestBudget))
        } catch {
            throw InspectionError("cannot read the manifest '\(TextSanitizer.clean(path))': \(error.message)")
        }
        try self.init(bytes: bytes, base: path.contains("://") ? path : URL(fileURLWithPath: path).absoluteString)
    }

    public init(bytes: [UInt8], base: String) throws(InspectionError) {
        if let why = ManifestXML.refusal(bytes) { throw InspectionError(why) }
        guard let root = ManifestXML.parse(String(decoding: bytes, as: UTF8.self)) else { throw InspectionError("the manifest is not well-formed XML") }
        func node(_ name: String, _ tag: UInt64, summary: String? = nil, fields: [StructureField] = [], damage: String? = nil,
                  container: Bool = false, depth: Int = 0) -> StructureNode {
            StructureNode(name: name, offset: 0, headerSize: 0, size: nil, summary: summary, fields: fields, damage: damage,
                          isContainer: container, depth: depth, tag: tag)
        }
        func seconds(_ s: Double) -> String { String(cFormat: "%.3f s", s) }
        var top: [StructureNode] = []
        var children: [UInt64: [StructureNode]] = [:]
        var nextTag: UInt64 = 1
        func newTag() -> UInt64 { defer { nextTag += 1 }; return nextTag }

        // What our reader makes of it (its refusal, when it refuses, is the MPD node's damage).
        var manifest: DASHManifest?
        var refusal: String?
        do { manifest = try DASHManifest.parse(String(decoding: bytes, as: UTF8.self), base: base) } catch { refusal = error.message }
        let mpdFields = ["type", "profiles", "mediaPresentationDuration", "minBufferTime", "availabilityStartTime", "minimumUpdatePeriod"]
            .compactMap { name in root[name].map { StructureField(name, String($0.prefix(200))) } }
        let periodCount = root.children("Period").count
        top.append(node("MPD", 0, summary: "\(root["type"] ?? "static"), \(manifest?.presentationLength.map(seconds) ?? "length unknown"), \(periodCount) period\(periodCount == 1 ? "" : "s")",
                        fields: mpdFields, damage: refusal.map { "our reader refuses it: \($0)" }))
        if let manifest {
            for (k, period) in manifest.periods.enumerated() {
                let tag = newTag()
                var sets: [StructureNode] = []
                for set in period.adaptationSets {
                    let setTag = newTag()
                    sets.append(node("AdaptationSet \(set.contentType.rawValue)\(set.language.map { " \($0)" } ?? "")", setTag,
                                     summary: "\(set.representations.count) representation\(set.representations.count == 1 ? "" : "s")",
                                     fields: [StructureField("id", set.id ?? "-"), StructureField("contentType", set.contentType.rawValue),
                                              StructureField("lang", set.language ?? "-")],
                                     container: !set.representations.isEmpty, depth: 1))
                    children[setTag] = set.representations.map { rep in
                        let size = rep.width.flatMap { w in rep.height.map { "\(w)×\($0) " } } ?? ""
                        return node("Representation \(rep.id)", 0,
                                    summary: "\(size)\(rep.bandwidthKnown ? "\((rep.bandwidth + 500) / 1000) kb/s" : "rate unknown") \(rep.codecs ?? "") \(rep.segments.count) segments",
                                    fields: [StructureField("id", rep.id), StructureField("bandwidth", rep.bandwidthKnown ? String(rep.bandwidth) : "unknown"),
                                             StructureField("codecs", rep.codecs ?? "-"), StructureField("mimeType", rep.mimeType ?? "-"),
                                             StructureField("segments", String(rep.segments.count))],
                                    depth: 2)
                    }
                }
                top.append(node("Period \(period.id ?? String(k + 1))", tag,
                                summary: "from \(seconds(period.start))\(period.duration.map { ", \(seconds($0))" } ?? "")",
                                fields: [StructureField("id", period.id ?? "-"), StructureField("start", seconds(period.start)),
                                         StructureField("duration", period.duration.map(seconds) ?? "-")],
                                container: !sets.isEmpty))
                children[tag] = sets
            }
            if !manifest.leftOut.isEmpty {
                let tag = newTag()
                top.append(node("Left out", tag, summary: "\(manifest.leftOut.count) by our reader", container: true))
                children[tag] = manifest.leftOut.prefix(1000).map { node($0, 0, depth: 1) }
            }
        }
        // Events: each period's EventStreams, on the presentation timeline.
        var events: [(time: Double, node: StructureNode)] = []
        var unread: [String] = []
        var total = 0
        for (k, periodElement) in root.children("Period").enumerated() {
            let periodStart = manifest.flatMap { k < $0.periods.count ? $0.periods[k].start : nil } ?? 0
            for stream in periodElement.children("EventStream") {
                let scheme = stream["schemeIdUri"] ?? "-"
                let value = stream["value"] ?? "-"
                let timescale = stream["timescale"].flatMap { try? OutsideValue.integer($0, in: 1...Int(1 << 40), name: "EventStream@timescale") } ?? 1
                let offset = stream["presentationTimeOffset"].flatMap { try? OutsideValue.integer($0, in: 0...Int(1 << 53), name: "presentationTimeOffset") } ?? 0
                for event in stream.children("Event") {
                    total += 1
                    guard events.count < Self.maxEvents else { continue }
                    guard let t = (try? OutsideValue.integer(event["presentationTime"] ?? "0", in: 0...Int(1 << 53), name: "Event@presentationTime")) else {
                        if unread.count < 100 { unread.append("an event of '\(String(scheme.prefix(80)))' has an unusable presentationTime") }
                        continue
                    }
                    let time = periodStart + Double(t - offset) / Double(timescale)
                    let duration = event["duration"].flatMap { try? OutsideValue.integer($0, in: 0...Int(1 << 53), name: "Event@duration") }
                        .map { seconds(Double($0) / Double(timescale)) } ?? "-"
                    let message = String((event["messageData"] ?? event.text).trimmingWhitespaceAndNewlines().prefix(Self.messageLength))
                    events.append((time, node("Event \(String((event["id"] ?? "-").prefix(40)))", 0,
                                              summary: "\(seconds(time))  \(String(scheme.prefix(80)))  \(String(value.prefix(40)))",
                                              fields: [StructureField("time", seconds(time)), StructureField("duration", duration),
                                                       StructureField("scheme", String(scheme.prefix(200))), StructureField("value", String(value.prefix(200))),
                                                       StructureField("id", String((event["id"] ?? "-").prefix(40))),
                                                       StructureField("period", String(k + 1)), StructureField("message", message.isEmpty ? "-" : message)],
                                              depth: 1)))
                }
            }
        }
        if total > 0 {
            let tag = newTag()
            let more = total - events.count - unread.count
            top.append(node("Events", tag, summary: "\(total) event\(total == 1 ? "" : "s")\(more > 0 ? ", \(more) past \(Self.maxEvents) not listed" : "")",
                            damage: unread.first.map { "\($0)\(unread.count > 1 ? " (and \(unread.count - 1) more)" : "")" }, container: !events.isEmpty))
            children[tag] = events.sorted { $0.time < $1.time }.map(\.node)
        }
        nodes = top
        childrenByTag = children
    }

    public func refined(_ node: StructureNode) -> StructureNode { node }
}
