import AetherBase
import AetherDisc

/// A Blu-ray's structure for the inspector (``DiscStructureParser``): its titles (the main one
/// marked), every playlist with its play items and chapters (those that are no title say why),
/// and every clip with its entry points, as our readers (``BlurayInfo``, ``BlurayClip``) read them.
enum BlurayStructure {
    static func nodes(_ disc: BlurayDisc) -> ([StructureNode], [UInt64: [StructureNode]]) {
        let info = disc.info
        let tree = DiscNode.Tree(titles: info.titles, main: info.mainTitle, label: disc.files.label) { t in
            ("\(DiscNode.seconds(t.duration)), \(t.chapters.count) chapters, playlist \(t.name)",
             [StructureField("length", DiscNode.seconds(t.duration)), StructureField("playlist", t.name),
              StructureField("chapters", t.chapters.map(DiscNode.seconds).joined(separator: ", ")),
              StructureField("languages", t.languages.keys.sorted().map { String(cFormat: "0x%04X ", $0) + (t.languages[$0] ?? "") }.joined(separator: ", "))])
        }
        let listsTag = tree.tag()
        tree.top.append(DiscNode.make("Playlists", listsTag, summary: "\(info.playlists.count) playlist\(info.playlists.count == 1 ? "" : "s")"))
        tree.children[listsTag] = info.playlists.map { p in
            let tag = tree.tag()
            tree.children[tag] = p.items.enumerated().map { k, item in
                DiscNode.make("Play item \(k + 1)", 0, summary: "clip \(item.clip), \(DiscNode.seconds(item.duration))",
                     fields: [StructureField("clip", item.clip), StructureField("in", DiscNode.seconds(Double(item.inTime) / 45_000)),
                              StructureField("out", DiscNode.seconds(Double(item.outTime) / 45_000))], depth: 2)
            }
            let title = info.titles.first { $0.name == p.name }
            let why = title.map { "title \($0.number)" }
                ?? (p.duration < BlurayInfo.minTitleSeconds ? "no title: shorter than \(Int(BlurayInfo.minTitleSeconds)) s" : "no title: plays what an earlier one does")
            return DiscNode.make(p.name, tag, summary: "\(DiscNode.seconds(p.duration)), \(p.items.count) play item\(p.items.count == 1 ? "" : "s"), \(why)",
                        fields: [StructureField("length", DiscNode.seconds(p.duration)), StructureField("angles", String(p.angles)),
                                 StructureField("chapters", p.chapters.map(DiscNode.seconds).joined(separator: ", "))], depth: 1)
        }
        let clipsTag = tree.tag()
        let names = Set(info.playlists.flatMap { $0.items.map(\.clip) }).sorted()
        tree.top.append(DiscNode.make("Clips", clipsTag, summary: "\(names.count) clip\(names.count == 1 ? "" : "s") the playlists play"))
        tree.children[clipsTag] = names.map { name in
            let bytes = disc.files.files["STREAM/" + name + ".M2TS"]?.byteCount
            let points = disc.clip(name)?.entryPoints.count
            return DiscNode.make(name, 0, summary: "\(bytes.map { "\($0) bytes" } ?? "no stream file"), \(points.map { "\($0) entry points" } ?? "no clip information")",
                        fields: [StructureField("stream bytes", bytes.map(String.init) ?? "-"), StructureField("entry points", points.map(String.init) ?? "-")],
                        depth: 1)
        }
        if info.leftOut > 0 {
            tree.top.append(DiscNode.make("Left out", 0, summary: "\(info.leftOut) playlists, items or marks our reader refused"))
        }
        return (tree.top, tree.children)
    }
}
