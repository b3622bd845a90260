import AetherBase
import AetherDisc

/// A Blu-ray's structure for the inspector (``DiscStructureParser``): its titles (the main one
/// marked), every playlist with its play items and chapters (those that are no title say why),
/// and every clip with its entry points, as our readers (``BlurayInfo``, ``BlurayClip``) read them.
enum BlurayStructure {
    static func nodes(_ disc: BlurayDisc) -> ([StructureNode], [UInt64: [StructureNode]]) {
        let info = disc.info
        func seconds(_ s: Double) -> String { String(cFormat: "%.3f s", s) }
        func node(_ name: String, _ tag: UInt64, summary: String, fields: [StructureField] = [], depth: Int = 0) -> StructureNode {
            StructureNode(name: name, offset: 0, headerSize: 0, size: nil, summary: summary, fields: fields,
                          isContainer: tag != 0, depth: depth, tag: tag)
        }
        var top: [StructureNode] = []
        var children: [UInt64: [StructureNode]] = [:]
        var nextTag: UInt64 = 1
        func newTag() -> UInt64 { defer { nextTag += 1 }; return nextTag }
        let main = info.mainTitle?.number
        let titlesTag = newTag()
        top.append(node("Titles", titlesTag, summary: "\(info.titles.count) title\(info.titles.count == 1 ? "" : "s"), the main title \(main.map(String.init) ?? "-")",
                        fields: [StructureField("disc", TextSanitizer.clean(disc.files.label))]))
        children[titlesTag] = info.titles.map { t in
            node("Title \(t.number)", 0, summary: "\(seconds(t.duration)), \(t.chapters.count) chapters, playlist \(t.name)\(t.number == main ? " (main)" : "")",
                 fields: [StructureField("length", seconds(t.duration)), StructureField("playlist", t.name),
                          StructureField("chapters", t.chapters.map(seconds).joined(separator: ", ")),
                          StructureField("languages", t.languages.keys.sorted().map { String(cFormat: "0x%04X ", $0) + (t.languages[$0] ?? "") }.joined(separator: ", "))],
                 depth: 1)
        }
        let listsTag = newTag()
        top.append(node("Playlists", listsTag, summary: "\(info.playlists.count) playlist\(info.playlists.count == 1 ? "" : "s")"))
        children[listsTag] = info.playlists.map { p in
            let tag = newTag()
            children[tag] = p.items.enumerated().map { k, item in
                node("Play item \(k + 1)", 0, summary: "clip \(item.clip), \(seconds(item.duration))",
                     fields: [StructureField("clip", item.clip), StructureField("in", seconds(Double(item.inTime) / 45_000)),
                              StructureField("out", seconds(Double(item.outTime) / 45_000))], depth: 2)
            }
            let title = info.titles.first { $0.name == p.name }
            let why = title.map { "title \($0.number)" }
                ?? (p.duration < BlurayInfo.minTitleSeconds ? "no title: shorter than \(Int(BlurayInfo.minTitleSeconds)) s" : "no title: plays what an earlier one does")
            return node(p.name, tag, summary: "\(seconds(p.duration)), \(p.items.count) play item\(p.items.count == 1 ? "" : "s"), \(why)",
                        fields: [StructureField("length", seconds(p.duration)), StructureField("angles", String(p.angles)),
                                 StructureField("chapters", p.chapters.map(seconds).joined(separator: ", "))], depth: 1)
        }
        let clipsTag = newTag()
        let names = Set(info.playlists.flatMap { $0.items.map(\.clip) }).sorted()
        top.append(node("Clips", clipsTag, summary: "\(names.count) clip\(names.count == 1 ? "" : "s") the playlists play"))
        children[clipsTag] = names.map { name in
            let bytes = disc.files.files["STREAM/" + name + ".M2TS"]?.reduce(0) { $0 + $1.length }
            let points = disc.clip(name)?.entryPoints.count
            return node(name, 0, summary: "\(bytes.map { "\($0) bytes" } ?? "no stream file"), \(points.map { "\($0) entry points" } ?? "no clip information")",
                        fields: [StructureField("stream bytes", bytes.map(String.init) ?? "-"), StructureField("entry points", points.map(String.init) ?? "-")],
                        depth: 1)
        }
        if info.leftOut > 0 {
            top.append(node("Left out", 0, summary: "\(info.leftOut) playlists, items or marks our reader refused"))
        }
        return (top, children)
    }
}
