import AetherBase
import AetherMedia
import AetherStreaming
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// The container tab of `aether-tui inspect`: a file's structure (ISO BMFF boxes, EBML elements,
// MPEG-TS programs and PIDs) as a tree of nodes with offsets and sizes, parsed by our own readers.
//
// The files are hostile. Every parser reads through a ``ByteSource`` (never the whole file), and is
// bounded by a ``StructureBudget``: depth, children per node, nodes in all, bytes read for one
// node's fields. A node whose header or fields do not make sense carries `damage` (where and why)
// and the parser goes on with what it can still trust (a box that overruns its parent is clipped
// to it; a size that cannot advance ends that level). Children are read on demand (``StructureParser/children(of:)``),
// so opening a 2 GB file reads a few headers, not the file.

/// Which of our structure parsers reads a file.
public enum ContainerFormat: String, Codable, Sendable, CaseIterable {
    /// ISO base media (MP4, MOV, M4A, fragmented MP4, 3GP).
    case isobmff
    /// EBML: Matroska and WebM.
    case matroska
    /// MPEG transport stream (188-byte packets).
    case mpegts
    /// A DASH manifest: its periods, sets and representations, and its events.
    case dash
    /// A DVD-Video (an image or a folder): its titles, title sets, program chains and cells.
    case dvd
    /// A Blu-ray (an image or a folder): its titles, playlists with their play items, and clips.
    case bluray
    /// Anything else: what libavformat reports, as a flat tree.
    case other
}

/// One decoded field of a node: `name` and its value as text (already sanitised by the parser:
/// names and strings from the file go through ``TextSanitizer``). A count, size, offset or time
/// in a file's units (``init(_:count:)``) is also kept as its number: people read `8,000`, and
/// JSON (`inspect --json`) carries the number itself, `"value":8000`.
public struct StructureField: Codable, Sendable, Equatable {
    public let name: String
    public let value: String
    /// The value as a number, when it is one.
    public let number: Int64?

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = TextSanitizer.clean(value)
        number = nil
    }

    /// A whole number, shown grouped by thousands. One past `Int64`'s range (a file's `UInt64`)
    /// is text only.
    public init<T: BinaryInteger>(_ name: String, count: T) {
        self.name = name
        value = ContainerScan.grouped(count)
        number = Int64(exactly: count)
    }

    enum CodingKeys: String, CodingKey { case name, value }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        if let number { try c.encode(number, forKey: .value) } else { try c.encode(value, forKey: .value) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        if let n = try? c.decode(Int64.self, forKey: .value) {
            number = n
            value = ContainerScan.grouped(n)
        } else {
            value = try c.decode(String.self, forKey: .value)
            number = nil
        }
    }
}

/// One box, element, table or PID.
public struct StructureNode: Codable, Sendable, Equatable {
    /// The box type (`moov`), the element's name (`Cluster`, or `0x1F43B675` when unknown), the
    /// table's (`PAT`, `PID 0x0100`). Sanitised: a box type is four bytes of the file.
    public var name: String
    /// Where the node starts in the file (its header).
    public var offset: Int64
    /// Bytes of header (box size and type, EBML ID and size, TS packet header).
    public var headerSize: Int64
    /// The whole node, header included; nil when the file does not say (an EBML element of
    /// unknown size, a box whose size runs to the end of the file is given its real extent).
    public var size: Int64?
    /// One line shown beside the name (`1,234 samples`, `42 blocks`, `h264 1920×1080`).
    public var summary: String?
    /// Decoded fields, in the file's order.
    public var fields: [StructureField]
    /// What is wrong with this node, and where (`size 2^64 runs past the end of the file at
    /// offset 1,234`). The rest of the tree is still shown.
    public var damage: String?
    /// The node holds other nodes (they are read by ``StructureParser/children(of:)``).
    public var isContainer: Bool
    /// Children left out by the budget (shown as `… N more`); set on the parent by `children(of:)`.
    public var omittedChildren: Int
    /// How deep the node is (top level 0); the parser refuses to go past ``StructureBudget/maxDepth``.
    public var depth: Int
    /// Parser-private: what the parser needs to read this node's children again (an EBML ID, a
    /// box type's family, a TS PID). Not shown.
    public var tag: UInt64
    /// The node is a run of the file's bytes (`offset`, `size`); false for what a disc's
    /// navigation describes (a title, a playlist, a clip), which has neither: no offset, size or
    /// bytes are shown for it.
    public var coversBytes: Bool

    public init(name: String, offset: Int64, headerSize: Int64, size: Int64?, summary: String? = nil,
                fields: [StructureField] = [], damage: String? = nil, isContainer: Bool = false,
                omittedChildren: Int = 0, depth: Int, tag: UInt64 = 0, coversBytes: Bool = true) {
        self.coversBytes = coversBytes
        self.name = TextSanitizer.clean(name)
        self.offset = offset
        self.headerSize = headerSize
        self.size = size
        self.summary = summary.map { TextSanitizer.clean($0) }
        self.fields = fields
        self.damage = damage.map { TextSanitizer.clean($0) }
        self.isContainer = isContainer
        self.omittedChildren = omittedChildren
        self.depth = depth
        self.tag = tag
    }

    /// The first byte after the header.
    public var payloadOffset: Int64 { offset &+ headerSize }
    /// Where the node ends (nil: unknown size).
    public var end: Int64? { size.map { offset &+ $0 } }
}

/// What bounds a parse. The defaults keep a hostile file to well under a second and a few MB.
public struct StructureBudget: Sendable, Equatable {
    /// Nodes deeper than this are not read (the parent gets `damage`).
    public var maxDepth = 48
    /// Children listed per node; the rest are counted in `omittedChildren` (when counting them
    /// stays within `maxScanSteps`) or left unknown.
    public var maxChildren = 4096
    /// Header reads one `children(of:)` call may make (a box loop, 10⁶ tiny siblings).
    public var maxScanSteps = 200_000
    /// Bytes one node's field decoding may read (a 2 GB `stsz` is summarised from its first
    /// entries).
    public var maxFieldBytes = 1 << 20
    /// Table entries written out as fields (sample sizes, chunk offsets); the rest are counted.
    public var maxListedEntries = 32
    /// MPEG-TS: bytes scanned for PIDs, PCRs and continuity (a 2 GB stream reports what the
    /// first 64 MiB hold, and says so).
    public var maxScanBytes: Int64 = 64 << 20

    public init() {}
}

/// A container format's structure reader. Used from one thread.
public protocol StructureParser: AnyObject {
    var format: ContainerFormat { get }
    /// The top-level nodes (depth 0), within the budget; `omitted` counts the ones left out.
    func top() -> (nodes: [StructureNode], omitted: Int)
    /// The children of a container node (depth + 1), read now; `omitted` as for `top()`.
    /// A node that is not a container, or is at the depth limit, has none.
    func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int)
    /// The node again with what reading its children taught (a Matroska Cluster's block counts
    /// per track, known once its blocks have been read): the caller shows this one instead.
    func refined(_ node: StructureNode) -> StructureNode
}

/// A structure read whole when it was opened (a manifest, a disc's IFO tables): its top nodes,
/// and each container's children by its tag.
public protocol BuiltStructure: StructureParser {
    var nodes: [StructureNode] { get }
    var childrenByTag: [UInt64: [StructureNode]] { get }
}

extension BuiltStructure {
    public func top() -> (nodes: [StructureNode], omitted: Int) { (nodes, 0) }

    public func children(of node: StructureNode) -> (nodes: [StructureNode], omitted: Int) {
        guard node.isContainer else { return ([], 0) }
        return (childrenByTag[node.tag] ?? [], 0)
    }
}

extension StructureParser {
    /// Most nodes are complete when first read.
    public func refined(_ node: StructureNode) -> StructureNode { node }
}

/// The structure of one file: its parser and the nodes read so far, addressed by paths.
public final class StructureDocument {
    public let source: any ByteSource
    public let parser: any StructureParser
    public let budget: StructureBudget

    public init(source: any ByteSource, parser: any StructureParser, budget: StructureBudget) {
        self.source = source
        self.parser = parser
        self.budget = budget
    }

    /// Which parser reads `source`, from its first bytes: an EBML header (`1A 45 DF A3`), TS sync
    /// bytes every 188 (or 192, M2TS) bytes, or a plausible first box (a known type with a size of
    /// 0, 1 or ≥ 8). Anything else is `.other`.
    public static func detect(_ source: any ByteSource) -> ContainerFormat {
        let head = source.read(at: 0, count: 4096)
        if head.count >= 4, head[0] == 0x1A, head[1] == 0x45, head[2] == 0xDF, head[3] == 0xA3 { return .matroska }
        for stride in [188, 192] {
            let first = stride == 192 ? 4 : 0
            let probe = source.read(at: 0, count: stride * 5 + first)
            if probe.count >= stride * 3 + first + 1,
               (0..<min(5, (probe.count - first - 1) / stride + 1)).allSatisfy({ probe[first + $0 * stride] == 0x47 }) {
                return .mpegts
            }
        }
        if head.count >= 8 {
            let size = UInt32(head[0]) << 24 | UInt32(head[1]) << 16 | UInt32(head[2]) << 8 | UInt32(head[3])
            let type = String(decoding: head[4..<8], as: UTF8.self)
            let known: Set<String> = ["ftyp", "styp", "moov", "moof", "mdat", "free", "skip", "wide", "sidx", "pnot", "uuid", "emsg", "pdin", "meta"]
            if known.contains(type), size == 0 || size == 1 || size >= 8 { return .isobmff }
        }
        return .other
    }
}

extension StructureDocument {
    /// Opens `path` with the parser its first bytes call for. A URL or a file our parsers do not
    /// read gets libavformat's view (``LavfStructureParser``).
    /// `network`: how a URL is fetched (through the transport); `interrupt`: the fetches' and the
    /// opens' deadlines on its clock, and their cancellation.
    public static func open(path: String, network: NetworkSettings, budget: StructureBudget = StructureBudget(),
                            interrupt: InterruptToken) throws(InspectionError) -> StructureDocument {
        if StreamVariants.isDASH(path) {
            let parser = try ManifestStructureParser(path: path, network: network, interrupt: interrupt)
            return StructureDocument(source: MemoryByteSource([]), parser: parser, budget: budget)
        }
        if !path.contains("://"), let parser = DiscStructureParser(path: path) {
            return StructureDocument(source: MemoryByteSource([]), parser: parser, budget: budget)
        }
        if path.contains("://") {
            let parser = try LavfStructureParser(url: path, network: network, interrupt: interrupt)
            return StructureDocument(source: MemoryByteSource([]), parser: parser, budget: budget)
        }
        let source: FileByteSource
        do throws(FileBytes.ReadError) { source = try FileByteSource(path: path) } catch {
            throw InspectionError(error == .notARegularFile ? "'\(path)' is not a regular file" : "cannot open '\(path)': \(error.reason)")
        }
        let parser: any StructureParser
        switch detect(source) {
        case .isobmff: parser = ISOBMFFParser(source: source, budget: budget)
        case .matroska: parser = MatroskaParser(source: source, budget: budget)
        case .mpegts: parser = TransportStreamParser(source: source, budget: budget)
        case .dash, .dvd, .bluray, .other: parser = try LavfStructureParser(url: path, network: network, interrupt: interrupt)
        }
        return StructureDocument(source: source, parser: parser, budget: budget)
    }

    /// The chain of nodes a path names, from the top: `moov/trak[2]/mdia`, each step a node's
    /// name with an optional 1-based index among the siblings of that name (`trak` is `trak[1]`).
    /// Names compare case-sensitively, as box types do. Refused: an empty step, an index that is
    /// not a number from 1, a step that names nothing (the message says which step).
    public func resolve(_ path: String) throws(InspectionError) -> [StructureNode] {
        let steps = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !steps.isEmpty else { throw InspectionError("the node path '\(path)' is empty") }
        guard steps.count <= budget.maxDepth else { throw InspectionError("the node path has more than \(budget.maxDepth) steps") }
        var chain: [StructureNode] = []
        var level = parser.top().nodes
        for (i, step) in steps.enumerated() {
            var name = step
            var index = 1
            if step.hasSuffix("]"), let open = step.lastIndex(of: "[") {
                name = String(step[..<open])
                let digits = step[step.index(after: open)..<step.index(before: step.endIndex)]
                guard let k = try? OutsideValue.integer(String(digits), in: 1...1_000_000, name: "node index") else {
                    throw InspectionError("'\(step)': the index must be a whole number from 1")
                }
                index = k
            }
            let matches = level.filter { $0.name == name }
            guard matches.count >= index else {
                let shown = chain.map(\.name).joined(separator: "/")
                throw InspectionError("no '\(step)' under \(shown.isEmpty ? "the top level" : "'\(shown)'") (\(matches.count) named '\(name)')")
            }
            let node = matches[index - 1]
            chain.append(node)
            if i < steps.count - 1 { level = node.isContainer ? parser.children(of: node).nodes : [] }
        }
        return chain
    }

    /// A node and what is under it, read within `maxNodes` in all (for `inspect --json`).
    public func subtree(_ node: StructureNode, maxNodes: Int = 200_000) -> StructureTree {
        var remaining = maxNodes
        return expand(node, remaining: &remaining)
    }

    /// Every top-level node with what is under it, within `maxNodes`.
    public func wholeTree(maxNodes: Int = 200_000) -> [StructureTree] {
        var remaining = maxNodes
        let top = parser.top()
        remaining -= top.nodes.count
        return top.nodes.map { expand($0, remaining: &remaining) }
    }

    private func expand(_ node: StructureNode, remaining: inout Int) -> StructureTree {
        guard node.isContainer else { return StructureTree(node: node, children: [], truncated: false) }
        guard remaining > 0 else { return StructureTree(node: node, children: [], truncated: true) }
        var (nodes, omitted) = parser.children(of: node)
        var withCount = parser.refined(node)
        withCount.omittedChildren = omitted
        if nodes.count > remaining { nodes = Array(nodes.prefix(remaining)) }
        remaining -= nodes.count
        var children: [StructureTree] = []
        for child in nodes { children.append(expand(child, remaining: &remaining)) }
        return StructureTree(node: withCount, children: children, truncated: remaining <= 0)
    }
}

/// A node with its children read (`inspect --json`).
public struct StructureTree: Encodable, Sendable {
    public let node: StructureNode
    public let children: [StructureTree]
    /// The node budget ran out under this node: it has more than is listed.
    public let truncated: Bool

    enum CodingKeys: String, CodingKey { case name, offset, headerSize, size, summary, fields, damage, omittedChildren, truncated, children }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(node.name, forKey: .name)
        if node.coversBytes {
            try c.encode(node.offset, forKey: .offset)
            try c.encode(node.headerSize, forKey: .headerSize)
            try c.encodeIfPresent(node.size, forKey: .size)
        }
        try c.encodeIfPresent(node.summary, forKey: .summary)
        if !node.fields.isEmpty {
            // Fields as an ordered list: names repeat (entries of a table). Each is its own
            // `{"name", "value"}` (a number where it is one: ``StructureField``).
            try c.encode(node.fields, forKey: .fields)
        }
        try c.encodeIfPresent(node.damage, forKey: .damage)
        if node.omittedChildren > 0 { try c.encode(node.omittedChildren, forKey: .omittedChildren) }
        if truncated { try c.encode(true, forKey: .truncated) }
        if node.isContainer { try c.encode(children, forKey: .children) }
    }
}
