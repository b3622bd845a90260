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
        var children: [UInt64: [StructureNode]] = [:]
        let tags = DiscNode.Tags()
        let newTag = tags.take
        let main = info.mainTitle?.number
        let titlesTag = newTag()
        var top = [DiscNode.titles(tag: titlesTag, count: info.titles.count, main: main, label: disc.files.label)]
        children[titlesTag] = info.titles.map { t in
            DiscNode.make("Title \(t.number)", 0, summary: "\(DiscNode.seconds(t.duration)), \(t.chapters.count) chapters, title set \(t.titleSet)\(t.number == main ? " (main)" : "")",
                 fields: [StructureField("length", DiscNode.seconds(t.duration)), StructureField("title set", String(t.titleSet)),
                          StructureField("angles", String(t.angles)), StructureField("chapters", t.chapters.map(DiscNode.seconds).joined(separator: ", ")),
                          StructureField("cells", String(t.cells.count)),
                          StructureField("audio", t.audioLanguages.map { $0 ?? "-" }.joined(separator: ", ")),
                          StructureField("subtitles", t.subtitleLanguages.map { $0 ?? "-" }.joined(separator: ", "))],
                 depth: 1)
        }
        for set in info.titleSets {
            let setTag = newTag()
            top.append(DiscNode.make("Title set \(set.number)", setTag, summary: "\(set.chains.count) program chain\(set.chains.count == 1 ? "" : "s"), \(set.parts.count) title\(set.parts.count == 1 ? "" : "s")"))
            children[setTag] = set.chains.enumerated().map { k, chain in
                let chainTag = newTag()
                children[chainTag] = chain.cells.enumerated().map { c, cell in
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
            top.append(DiscNode.make("Left out", 0, summary: "\(info.leftOut) titles, chains or cells our reader refused"))
        }
        nodes = top
        childrenByTag = children
    }
}

/// What the disc views share: a node that covers no bytes of a file, a length, the titles' node.
enum DiscNode {
    static func seconds(_ s: Double) -> String { String(cFormat: "%.3f s", s) }

    static func make(_ name: String, _ tag: UInt64, summary: String, fields: [StructureField] = [], depth: Int = 0) -> StructureNode {
        StructureNode(name: name, offset: 0, headerSize: 0, size: nil, summary: summary, fields: fields,
                      isContainer: tag != 0, depth: depth, tag: tag)
    }

    /// "Titles": how many, which is the main one, and what the disc is.
    static func titles(tag: UInt64, count: Int, main: Int?, label: String) -> StructureNode {
        make("Titles", tag, summary: "\(count) title\(count == 1 ? "" : "s"), the main title \(main.map(String.init) ?? "-")",
             fields: [StructureField("disc", TextSanitizer.clean(label))])
    }

    /// The tags of a view's container nodes, from 1.
    final class Tags {
        private var next: UInt64 = 1
        func take() -> UInt64 { defer { next += 1 }; return next }
    }
}
