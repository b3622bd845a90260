import AetherEngine

/// A structure parser over untrusted bytes: `top()`, then every container expanded breadth-first
/// up to a work cap, checking what the parsers promise (a violated promise traps, which the
/// fuzzer reports as a crash): children lie inside their parent unless they carry damage or an
/// unknown size, depths step by one and stay within the budget, counts stay within the budget,
/// and nothing from the file reaches a name, summary, field or damage text unsanitised or
/// unclipped.
enum StructureTreeCheck {
    /// Containers expanded per input at most.
    static let maxExpansions = 2000

    static func run(_ parser: any StructureParser, length: Int64, budget: StructureBudget) {
        let (top, _) = parser.top()
        precondition(top.count <= budget.maxChildren + 1, "top level past the children budget")
        var queue: [StructureNode] = []
        for node in top {
            check(node, parent: nil, length: length, budget: budget)
            if node.isContainer { queue.append(node) }
        }
        var expanded = 0
        var next = 0
        while next < queue.count, expanded < maxExpansions {
            let parent = queue[next]
            next += 1
            expanded += 1
            let (children, omitted) = parser.children(of: parent)
            precondition(omitted >= 0 && children.count <= budget.maxChildren + 1, "children past the budget")
            for child in children {
                check(child, parent: parent, length: length, budget: budget)
                if child.isContainer { queue.append(child) }
            }
            let again = parser.refined(parent)
            precondition(again.offset == parent.offset && again.size == parent.size && again.depth == parent.depth)
            check(again, parent: nil, length: length, budget: budget)
        }
    }

    static func check(_ node: StructureNode, parent: StructureNode?, length: Int64, budget: StructureBudget) {
        precondition(node.offset >= 0 && node.offset <= length, "a node outside the file: \(node.offset)")
        precondition(node.headerSize >= 0 && node.omittedChildren >= 0)
        precondition(node.depth >= 0 && node.depth <= budget.maxDepth, "depth \(node.depth) past the budget")
        if let size = node.size {
            precondition(size >= 0 && node.headerSize <= size, "a header larger than its node")
            precondition(node.offset + size <= length || node.damage != nil, "a node past the end of the file")
        }
        if let parent {
            precondition(node.depth == parent.depth + 1, "depth does not step by one")
            if node.damage == nil, node.size != nil {
                precondition(node.offset >= parent.payloadOffset, "a child before its parent's payload")
                if let end = parent.end, let childEnd = node.end { precondition(childEnd <= end, "a child past its parent") }
            }
        }
        for text in [node.name, node.summary ?? "", node.damage ?? ""] + node.fields.flatMap({ [$0.name, $0.value] }) {
            precondition(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) },
                         "a control character from the file")
            precondition(text.count <= 2048, "an unclipped text")
        }
    }
}
