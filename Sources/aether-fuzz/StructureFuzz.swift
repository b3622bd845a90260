import AetherEngine

/// The container tab's box and packet parsers over bytes in memory (`bmff`: ``ISOBMFFParser``,
/// `mpegts`: ``TransportStreamParser``): `top()`, then every container expanded breadth-first up
/// to a work cap, as a user opening every node would. Checks what the parsers promise (a broken
/// promise traps, which libFuzzer reports as a crash):
/// - a node lies inside its parent (and the file) unless it carries damage saying why not;
/// - sizes and header sizes are not negative, a header fits in its node, depth is the parent's + 1;
/// - listed children and fields stay within the budget (one extra child may say the scan
///   budget ran out);
/// - nothing from the file reaches text unsanitised (no control characters).
enum StructureFuzz {
    /// Nodes expanded per input: enough to open every node of a 64 KiB input's tree.
    static let maxExpanded = 4000

    static func run(_ target: FuzzTarget, _ bytes: [UInt8]) {
        var budget = StructureBudget()
        budget.maxChildren = 512
        budget.maxScanSteps = 20_000
        let source = MemoryByteSource(bytes)
        let parser: any StructureParser = target == .mpegts ? TransportStreamParser(source: source, budget: budget)
                                                            : ISOBMFFParser(source: source, budget: budget)
        let length = source.length
        let top = parser.top()
        check(top, parentStart: 0, parentEnd: length, depth: 0, budget: budget)
        var queue = top.nodes.filter(\.isContainer)
        var expanded = 0
        while !queue.isEmpty, expanded < maxExpanded {
            let node = queue.removeFirst()
            expanded += 1
            let children = parser.children(of: node)
            check(children, parentStart: node.offset, parentEnd: node.end ?? length, depth: node.depth + 1, budget: budget)
            precondition(node.depth < budget.maxDepth || children.nodes.isEmpty, "children past the depth limit")
            queue += children.nodes.filter(\.isContainer)
        }
    }

    static func check(_ level: (nodes: [StructureNode], omitted: Int), parentStart: Int64, parentEnd: Int64, depth: Int, budget: StructureBudget) {
        precondition(level.nodes.count <= budget.maxChildren + 1, "\(level.nodes.count) children listed")
        precondition(level.omitted >= 0)
        for node in level.nodes {
            precondition(node.depth == depth, "depth \(node.depth) under a parent at \(depth - 1)")
            precondition(node.offset >= 0 && node.headerSize >= 0, "negative offset or header")
            if let size = node.size {
                precondition(size >= 0 && node.headerSize <= size, "header \(node.headerSize) > size \(size)")
                if node.damage == nil {
                    let (end, overflow) = node.offset.addingReportingOverflow(size)
                    precondition(!overflow && node.offset >= parentStart && end <= parentEnd,
                                 "\(node.name) [\(node.offset), +\(size)) outside its parent [\(parentStart), \(parentEnd))")
                }
            }
            precondition(node.fields.count <= budget.maxListedEntries + 64, "\(node.fields.count) fields")
            for text in [node.name, node.summary ?? "", node.damage ?? ""] + node.fields.flatMap({ [$0.name, $0.value] }) {
                precondition(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "unsanitised text")
                precondition(text.utf8.count < 8192, "a text of \(text.utf8.count) bytes")
            }
        }
    }
}
