import AetherMedia
import AetherStreaming
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The container tab for formats our own parsers do not read (AVI, Ogg, FLV, network sources):
/// what libavformat reports, as a shallow tree: the format, each stream, the chapters, the tags.
/// Read once at open (libavformat's own budgets and our open deadline bound it).
public final class LavfStructureParser: StructureParser {
    public let format = ContainerFormat.other
    private let nodes: [StructureNode]
    private let childrenByTag: [UInt64: [StructureNode]]

    public init(url: String, network: NetworkSettings, timeout: Double = 15, interrupt: InterruptToken) throws(InspectionError) {
        let info: MediaInfo
        do { info = try MediaProbe.probe(url: url, network: network, timeout: timeout, interrupt: interrupt) } catch {
            throw InspectionError("cannot open '\(url)': \(error.message)")
        }
        func node(_ name: String, _ tag: UInt64, summary: String? = nil, fields: [StructureField] = [], container: Bool = false, depth: Int = 0) -> StructureNode {
            StructureNode(name: name, offset: 0, headerSize: 0, size: nil, summary: summary, fields: fields,
                          isContainer: container, depth: depth, tag: tag)
        }
        var top: [StructureNode] = []
        var children: [UInt64: [StructureNode]] = [:]
        top.append(node("format", 1, summary: info.containerLongName, fields: [
            StructureField("name", info.container),
            StructureField("long name", info.containerLongName),
            StructureField("start", String(cFormat: "%.6f s", info.startTime)),
            StructureField("duration", info.duration.map { String(cFormat: "%.6f s", $0) } ?? "unknown"),
            StructureField("bit rate", info.bitRate.map { "\($0) b/s" } ?? "unknown"),
        ]))
        var streams: [StructureNode] = []
        for v in info.video {
            streams.append(node("stream \(v.index)", 0, summary: "video \(v.codec) \(v.width)×\(v.height)", fields: [
                StructureField("codec", v.codecLongName), StructureField("profile", v.profile ?? "-"),
                StructureField("pixel format", v.colour.pixelFormat ?? "-"),
                StructureField("frame rate", v.frameRate.map { String(cFormat: "%.3f", $0) } ?? "-"),
                StructureField("field order", v.fieldOrder),
                StructureField("primaries", v.colour.primaries ?? "-"), StructureField("transfer", v.colour.transfer ?? "-"),
                StructureField("matrix", v.colour.matrix ?? "-"), StructureField("dynamic range", v.format.rawValue),
                StructureField("language", v.tags.language ?? "und"),
            ], depth: 1))
        }
        for a in info.audio {
            streams.append(node("stream \(a.index)", 0, summary: "audio \(a.codec) \(a.layoutShort)", fields: [
                StructureField("codec", a.codecLongName), StructureField("channels", a.layoutShort),
                StructureField("language", a.tags.language ?? "und"), StructureField("title", a.tags.title ?? "-"),
            ], depth: 1))
        }
        for s in info.subtitles {
            streams.append(node("stream \(s.index)", 0, summary: "subtitle \(s.codec)", fields: [
                StructureField("codec", s.codecLongName), StructureField("language", s.tags.language ?? "und"),
            ], depth: 1))
        }
        for a in info.attachments {
            streams.append(node("stream \(a.index)", 0, summary: "attachment \(a.kind)", fields: [
                StructureField("file name", a.filename ?? "-"), StructureField("type", a.mimeType ?? "-"),
                StructureField("size", "\(a.size)"),
            ], depth: 1))
        }
        streams.sort { $0.name.count != $1.name.count ? $0.name.count < $1.name.count : $0.name < $1.name }
        top.append(node("streams", 2, summary: "\(streams.count)", container: true))
        children[2] = streams
        if !info.chapters.isEmpty {
            top.append(node("chapters", 3, summary: "\(info.chapters.count)", container: true))
            children[3] = info.chapters.enumerated().map { i, c in
                node("chapter \(i + 1)", 0, summary: c.title, fields: [
                    StructureField("start", String(cFormat: "%.3f s", c.start)), StructureField("end", String(cFormat: "%.3f s", c.end)),
                ], depth: 1)
            }
        }
        let tags = Mirror(reflecting: info.tags).children.compactMap { child -> StructureField? in
            guard let label = child.label else { return nil }
            if let value = child.value as? String { return StructureField(label, value) }
            if let value = child.value as? String?, let v = value { return StructureField(label, v) }
            return nil
        }
        if !tags.isEmpty { top.append(node("tags", 4, summary: "\(tags.count)", fields: tags)) }
        nodes = top
        childrenByTag = children
    }

    public func top() -> (nodes: [StructureNode], omitted: Int) { (nodes, 0) }

    public func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int) {
        (node.depth == 0 ? childrenByTag[node.tag] ?? [] : [], 0)
    }
}
