import AetherBase
import AetherDisc

/// The disc readers' fuzz targets (aether-fuzz).
/// - `iso9660`: the bytes as an image (``ISO9660Image``): the root and `VIDEO_TS` listed; every
///   extent lies inside the image, no name holds a separator or a control character, no
///   directory more than its budget.
/// - `ifo`: the first two bytes split the rest into a `VIDEO_TS.IFO` and a title set's IFO,
///   read as every title set (``DVDInfo``): every title's length and chapters finite, in order
///   and within it, every cell's sectors in order, its languages two letters.
enum DiscCheck {
    static func iso9660(_ bytes: [UInt8]) {
        guard let image = ISO9660Image(source: MemoryByteSource(bytes), path: "fuzz.iso") else { return }
        for path in [[], ["VIDEO_TS"], ["BDMV"]] {
            guard let entries = image.directory(path) else { continue }
            precondition(entries.count <= ISO9660Image.maxEntries, "\(entries.count) entries")
            for entry in entries {
                precondition(!entry.name.isEmpty && !entry.name.contains("/") && entry.name != "..", "a name '\(entry.name)'")
                precondition(!entry.name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "a control in a name")
                precondition(entry.extents.count <= ISO9660Image.maxExtents, "\(entry.extents.count) extents")
                for e in entry.extents {
                    precondition(e.offset >= 0 && e.length >= 0 && e.offset + e.length <= Int64(bytes.count), "an extent outside the image")
                }
            }
        }
    }

    static func ifo(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let cut = min(bytes.count, 2 + (Int(bytes[0]) << 8 | Int(bytes[1])) * 16)
        let vmg = Array(bytes[2..<cut]), vts = Array(bytes[cut...])
        let info = DVDInfo.parse(vmg: vmg) { _ in vts }
        precondition(info.titles.count <= DVDInfo.maxTitles)
        for title in info.titles {
            precondition(title.duration.isFinite && title.duration >= 0 && title.duration < 99 * 100 * 3600, "a length \(title.duration)")
            precondition(title.chapters.count <= DVDInfo.maxChapters, "\(title.chapters.count) chapters")
            precondition(zip(title.chapters, title.chapters.dropFirst()).allSatisfy { $0 < $1 }, "chapters out of order")
            precondition(title.chapters.allSatisfy { $0 >= 0 && $0 <= title.duration + 99 * 3600 }, "a chapter outside the title")
            precondition(title.cells.allSatisfy { $0.first <= $0.last }, "a cell that ends before it starts")
            for language in title.audioLanguages + title.subtitleLanguages {
                precondition(language.map { $0.count == 2 && $0.allSatisfy { ("a"..."z").contains($0) } } ?? true, "a language '\(language ?? "")'")
            }
        }
        _ = info.mainTitle
        // The same bytes as program-stream packs moved in time (a title's cells whose clock starts
        // again): nothing read or written outside a pack, nothing but stamps changed.
        var packs = bytes
        for at in stride(from: 0, to: packs.count, by: ProgramStreamRetimer.packBytes) {
            _ = ProgramStreamRetimer.vobuStart(packs[at...])
            ProgramStreamRetimer.shift(&packs, from: at, by: 270_000)
        }
        precondition(packs.count == bytes.count, "a pack changed its size")
    }
}
