import AetherBase
import AetherDisc

/// A disc's structure as the inspector shows it (`aether-tui inspect film.iso`). A DVD: its
/// titles (the one that plays first marked), then each title set's program chains with their
/// programs and cells, as our IFO reader (``DVDInfo``) reads them. A Blu-ray: its titles, every
/// playlist with its play items, and the clips (``BlurayStructure``). Nodes carry no byte
/// offsets of the file (the cells' sectors are fields).
public final class DiscStructureParser: BuiltStructure {
    public let format: ContainerFormat
    public let nodes: [StructureNode]
    public let childrenByTag: [UInt64: [StructureNode]]

    /// Nil when `path` is not a disc (an image or a folder with `VIDEO_TS` or `BDMV`).
    public init?(path: String) {
        let disc: DVDDisc
        switch Disc.open(path) {
        case .bluray(let bluray):
            format = .bluray
            (nodes, childrenByTag) = BlurayStructure.nodes(bluray)
            return
        case .dvd(let dvd): disc = dvd
        case nil: return nil
        }
        format = .dvd
        let info = disc.info
        let tree = DiscNode.Tree(titles: info.titles, main: info.mainTitle, label: disc.files.label) { t in
            ("\(DiscNode.seconds(t.duration)), \(t.chapters.count) chapters, title set \(t.titleSet)",
             [StructureField("length", DiscNode.seconds(t.duration)), StructureField("title set", String(t.titleSet)),
              StructureField("angles", String(t.angles)), StructureField("chapters", t.chapters.map(DiscNode.seconds).joined(separator: ", ")),
              StructureField("cells", String(t.cells.count)),
              StructureField("audio", t.audioLanguages.map { $0 ?? "-" }.joined(separator: ", ")),
              StructureField("subtitles", t.subtitleLanguages.map { $0 ?? "-" }.joined(separator: ", "))])
        }
        for set in info.titleSets {
            let setTag = tree.tag()
            tree.top.append(DiscNode.make("Title set \(set.number)", setTag, summary: "\(set.chains.count) program chain\(set.chains.count == 1 ? "" : "s"), \(set.parts.count) title\(set.parts.count == 1 ? "" : "s")"))
            tree.children[setTag] = set.chains.enumerated().map { k, chain in
                let chainTag = tree.tag()
                tree.children[chainTag] = chain.cells.enumerated().map { c, cell in
                    DiscNode.make("Cell \(c + 1)", 0, summary: "\(DiscNode.seconds(cell.duration)), sectors \(cell.first)–\(cell.last)",
                         fields: [StructureField("length", DiscNode.seconds(cell.duration)), StructureField("first sector", String(cell.first)),
                                  StructureField("last sector", String(cell.last)), StructureField("program", String((chain.programs.lastIndex { $0 <= c + 1 } ?? 0) + 1))],
                         depth: 2)
                }
                return DiscNode.make("Program chain \(k + 1)", chainTag, summary: "\(DiscNode.seconds(chain.duration)), \(chain.programs.count) programs, \(chain.cells.count) cells",
                            fields: [StructureField("length", DiscNode.seconds(chain.duration)),
                                     StructureField("programs' entry cells", chain.programs.map(String.init).joined(separator: ", "))],
                            depth: 1)
            }
        }
        if info.leftOut > 0 {
            tree.top.append(DiscNode.make("Left out", 0, summary: "\(info.leftOut) titles, chains or cells our reader refused"))
        }
        nodes = tree.top
        childrenByTag = tree.children
    }
}

/// What the disc views share: a node that covers no bytes of a file, a length, the tree they build.
enum DiscNode {
    static func seconds(_ s: Double) -> String { String(cFormat: "%.3f s", s) }

    static func make(_ name: String, _ tag: UInt64, summary: String, fields: [StructureField] = [], depth: Int = 0) -> StructureNode {
        StructureNode(name: name, offset: 0, headerSize: 0, size: nil, summary: summary, fields: fields,
                      isContainer: tag != 0, depth: depth, tag: tag, coversBytes: false)
    }

    /// A view's tree as it is built: its top nodes and their children by tag, "Titles" first
    /// (how many, which is the main one, and what the disc is) with a node a title under it.
    final class Tree {
        var top: [StructureNode] = []
        var children: [UInt64: [StructureNode]] = [:]
        private var next: UInt64 = 1

        /// `describe` gives a title's summary (" (main)" is added to the main one's) and fields.
        init<T: NumberedTitle>(titles: [T], main: T?, label: String, _ describe: (T) -> (String, [StructureField])) {
            let tag = tag()
            top = [make("Titles", tag, summary: "\(titles.count) title\(titles.count == 1 ? "" : "s"), the main title \(main.map { String($0.number) } ?? "-")",
                        fields: [StructureField("disc", TextSanitizer.clean(label))])]
            children[tag] = titles.map { t in
                let (summary, fields) = describe(t)
                return make("Title \(t.number)", 0, summary: summary + (t.number == main?.number ? " (main)" : ""), fields: fields, depth: 1)
            }
        }

        /// The next container node's tag (from 1).
        func tag() -> UInt64 {
            defer { next += 1 }
            return next
        }
    }
}
