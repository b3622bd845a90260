import AetherMedia
import AetherStructure
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The container tab's tree: which nodes are open, which row is chosen, and the rows that are
/// visible. The document is read on a thread of its own (``DocumentReader``) and arrives
/// (``opened(_:)``); children are read from the parser the first time a node opens (bounded by
/// its budget) and kept. UI thread only.
final class ContainerBrowser {
    /// A visible row: a node, or the `… N more` line under a node whose children the budget cut.
    struct Row: Equatable {
        /// Indices from the top level down to this node.
        var path: [Int]
        var node: StructureNode?
        var depth: Int
        var isOpen: Bool
        /// `… N more` rows: how many were left out.
        var omitted: Int = 0
    }

    private(set) var document: StructureDocument?
    /// Why the file's structure cannot be shown (a URL, a file that cannot be read).
    private(set) var failure: String?
    /// The document is being read: the tab says so, and its keys wait for it.
    private(set) var reading = false
    private var top: [StructureNode] = []
    private var topOmitted = 0
    private var children: [[Int]: (nodes: [StructureNode], omitted: Int)] = [:]
    private var open: Set<[Int]> = []
    private(set) var rows: [Row] = []
    var selection = 0
    var scroll = 0
    /// First byte the hex view shows, relative to the chosen node's start.
    var hexOffset: Int64 = 0

    init(document: StructureDocument?, failure: String?) {
        self.document = document
        self.failure = failure
        if let document {
            let t = document.parser.top()
            top = t.nodes
            topOmitted = t.omitted
        }
        rebuild()
    }

    /// A browser whose document is being read.
    static func reading() -> ContainerBrowser {
        let browser = ContainerBrowser(document: nil, failure: nil)
        browser.reading = true
        return browser
    }

    /// The document read, or why it could not be.
    func opened(_ result: Result<StructureDocument, InspectionError>) {
        reading = false
        switch result {
        case .success(let document):
            self.document = document
            let t = document.parser.top()
            (top, topOmitted) = (t.nodes, t.omitted)
        case .failure(let error): failure = error.message
        }
        rebuild()
    }

    var selected: Row? { rows[safe: selection] }

    /// The node at `path`.
    func node(at path: [Int]) -> StructureNode? {
        guard let first = path.first, var node = top[safe: first] else { return nil }
        for (depth, index) in path.dropFirst().enumerated() {
            let prefix = Array(path.prefix(depth + 1))
            guard let next = children[prefix]?.nodes[safe: index] else { return nil }
            node = next
        }
        return node
    }

    private func setNode(at path: [Int], _ node: StructureNode) {
        guard let last = path.last else { return }
        if path.count == 1 {
            if top.indices.contains(last) { top[last] = node }
            return
        }
        let parent = Array(path.dropLast())
        if var kids = children[parent], kids.nodes.indices.contains(last) {
            kids.nodes[last] = node
            children[parent] = kids
        }
    }

    private func rebuild() {
        var out: [Row] = []
        func add(_ nodes: [StructureNode], omitted: Int, prefix: [Int], depth: Int) {
            for (i, node) in nodes.enumerated() {
                let path = prefix + [i]
                let isOpen = open.contains(path)
                out.append(Row(path: path, node: node, depth: depth, isOpen: isOpen))
                if isOpen, let kids = children[path] { add(kids.nodes, omitted: kids.omitted, prefix: path, depth: depth + 1) }
            }
            if omitted > 0 { out.append(Row(path: prefix + [-1], node: nil, depth: depth, isOpen: false, omitted: omitted)) }
        }
        add(top, omitted: topOmitted, prefix: [], depth: 0)
        rows = out
        selection = min(selection, max(0, rows.count - 1))
    }

    /// Opens the chosen node (reading its children the first time); on an open node, moves to
    /// its first child.
    func expand() {
        guard let row = selected, let node = row.node, node.isContainer, let document else { return }
        if row.isOpen {
            if rows[safe: selection + 1]?.depth == row.depth + 1 { move(1) }
            return
        }
        if children[row.path] == nil {
            children[row.path] = document.parser.children(of: node)
            // What only reading the children tells (a cluster's block counts) joins the node.
            setNode(at: row.path, document.parser.refined(node))
        }
        open.insert(row.path)
        rebuild()
    }

    /// Closes the chosen node; on a closed one, moves to its parent.
    func collapse() {
        guard let row = selected else { return }
        if row.isOpen {
            open.remove(row.path)
            rebuild()
            return
        }
        let parent = Array(row.path.dropLast())
        if !parent.isEmpty, let index = rows.firstIndex(where: { $0.path == parent }) { select(index) }
    }

    /// Opens every node on `names` (a node path's steps, already resolved to nodes) and chooses
    /// the last: `inspect FILE moov/trak/mdia` starts there.
    func reveal(_ chain: [StructureNode]) {
        var prefix: [Int] = []
        var level = top
        for (depth, wanted) in chain.enumerated() {
            guard let i = level.firstIndex(where: { $0.offset == wanted.offset && $0.name == wanted.name }) else { break }
            prefix.append(i)
            if depth < chain.count - 1 {
                if children[prefix] == nil, let document { children[prefix] = document.parser.children(of: level[i]) }
                open.insert(prefix)
                level = children[prefix]?.nodes ?? []
            }
        }
        rebuild()
        if let index = rows.firstIndex(where: { $0.path == prefix }) { select(index) }
    }

    func move(_ delta: Int) { select(selection + delta) }

    func select(_ index: Int) {
        let clamped = min(max(0, index), max(0, rows.count - 1))
        if clamped != selection { hexOffset = 0 }
        selection = clamped
    }

    /// Keeps the chosen row inside a window of `height` rows.
    func scrollIntoView(height: Int) {
        guard height > 0 else { return }
        if selection < scroll { scroll = selection }
        if selection >= scroll + height { scroll = selection - height + 1 }
        scroll = max(0, min(scroll, max(0, rows.count - height)))
    }

    /// Moves the hex view by `delta` bytes, within the chosen node.
    func scrollHex(by delta: Int64) {
        guard let node = selected?.node else { return }
        let length = node.size ?? ((document?.source.length ?? 0) - node.offset)
        hexOffset = min(max(0, hexOffset + delta), max(0, (length - 1) / 16 * 16))
    }

    /// The chosen node's bytes for the hex view: `count` bytes from `hexOffset`.
    func hexBytes(count: Int) -> (offset: Int64, bytes: [UInt8]) {
        guard let node = selected?.node, node.coversBytes, let document else { return (0, []) }
        let start = node.offset + hexOffset
        let length = node.size.map { max(0, $0 - hexOffset) } ?? Int64(count)
        let bytes = document.source.read(at: start, count: Int(min(Int64(count), length)))
        return (start, bytes)
    }
}
