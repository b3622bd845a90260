import AetherBase
import AetherDisc

/// The disc readers' fuzz targets (aether-fuzz).
/// - `iso9660`: the bytes as an image (``ISO9660Image``): the root and `VIDEO_TS` listed; every
///   extent lies inside the image, no name holds a separator or a control character, no
///   directory more than its budget.
/// - `ifo`: the first two bytes split the rest into a `VIDEO_TS.IFO` and a title set's IFO,
///   read as every title set (``DVDInfo``): every title's length and chapters finite, in order
///   and within it, every cell's sectors in order, its languages two letters.
/// - `udf`: the bytes as a UDF image (``UDFImage``): the root, `BDMV` and `BDMV/STREAM` listed,
///   with `iso9660`'s rules and UDF's budgets.
/// - `mpls`: the bytes as a Blu-ray playlist (``BlurayInfo``): lengths finite, chapters in
///   order inside the playlist, languages three letters, counts within their budgets.
/// - `clpi`: the bytes as clip information (``BlurayClip``): entry points within their budget,
///   every byte range inside the clip; then as 192-byte source packets moved in time and, the
///   second half, renumbered to follow on from the first (``TransportStreamRetimer``): nothing
///   read or written outside a packet.
enum DiscCheck {
    static func udf(_ bytes: [UInt8]) {
        guard let image = UDFImage(source: MemoryByteSource(bytes), path: "fuzz.iso") else { return }
        for path in [[], ["BDMV"], ["BDMV", "STREAM"], ["VIDEO_TS"]] {
            guard let entries = image.directory(path) else { continue }
            precondition(entries.count <= UDFImage.maxEntries, "\(entries.count) entries")
            for entry in entries {
                precondition(!entry.name.isEmpty && !entry.name.contains("/") && entry.name != ".." && entry.name != ".", "a name '\(entry.name)'")
                precondition(!entry.name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "a control in a name")
                precondition(entry.extents.count <= UDFImage.maxExtents, "\(entry.extents.count) extents")
                for e in entry.extents {
                    precondition(e.offset >= 0 && e.length >= 0 && e.offset + e.length <= Int64(bytes.count), "an extent outside the image")
                }
            }
        }
    }

    static func mpls(_ bytes: [UInt8]) {
        let info = BlurayInfo.parse(playlists: [(name: "00001.MPLS", bytes: bytes), (name: "00002.MPLS", bytes: Array(bytes.reversed()))])
        for p in info.playlists {
            precondition(p.items.count <= BlurayInfo.maxItems && p.chapters.count <= BlurayInfo.maxMarks, "\(p.items.count) items, \(p.chapters.count) marks")
            precondition(p.duration.isFinite && p.duration > 0, "a length \(p.duration)")
            precondition(zip(p.chapters, p.chapters.dropFirst()).allSatisfy { $0 < $1 }, "chapters out of order")
            precondition(p.chapters.allSatisfy { $0 >= 0 && $0 <= p.duration }, "a chapter outside the playlist")
            precondition(p.languages.values.allSatisfy { $0.count == 3 && $0.allSatisfy { ("a"..."z").contains($0) } }, "a language")
            precondition(p.items.allSatisfy { $0.clip.count == 5 && $0.outTime > $0.inTime }, "an item")
        }
        precondition(info.titles.allSatisfy { $0.duration >= BlurayInfo.minTitleSeconds && $0.number > 0 })
        _ = info.mainTitle
    }

    static func clpi(_ bytes: [UInt8]) {
        if let clip = BlurayClip.parse(bytes) {
            precondition(clip.entryPoints.count <= BlurayInfo.maxEntryPoints, "\(clip.entryPoints.count) entry points")
            let length = Int64(bytes.count) * 97
            for (a, b) in [(Int64(0), Int64(1)), (0, Int64(UInt32.max)), (Int64(UInt32.max), 1), (90_000, 180_000)] {
                let r = clip.byteRange(inTime: a, outTime: b, length: length)
                precondition(r.lowerBound >= 0 && r.upperBound <= length, "a range \(r) outside \(length)")
            }
        }
        // The halves as two pieces joined: the second's counters carried on from the first's.
        let half = bytes.count / 2 / TransportStreamRetimer.packetBytes * TransportStreamRetimer.packetBytes
        let deltas = TransportStreamRetimer.deltas(last: TransportStreamRetimer.continuity(Array(bytes[..<half])).last, before: [:],
                                                   first: TransportStreamRetimer.continuity(Array(bytes[half...])).first)
        precondition(deltas.values.allSatisfy { $0 > 0 && $0 < 16 }, "a delta \(deltas)")
        var packets = bytes
        for at in stride(from: 0, to: packets.count, by: TransportStreamRetimer.packetBytes) {
            TransportStreamRetimer.shift(&packets, from: at, by: -270_000)
            if at >= half { TransportStreamRetimer.renumber(&packets, from: at, by: deltas) }
        }
        precondition(packets.count == bytes.count, "a packet changed its size")
    }

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
