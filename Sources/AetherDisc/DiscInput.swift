import AetherBase
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A disc title as one seekable byte stream for the demuxer: an AVIOContext over the title's
/// extents (``DVDDisc/extents(of:)``) in order, and what the disc says of it that the stream
/// does not (its length, its chapters, its streams' languages), applied to the demuxer once it
/// has read the stream (``apply(to:)``). Owns its AVIOContext (and buffer) and frees it once,
/// after the demuxer that reads it.
///
/// Used from one thread at a time (the demuxer's).
public final class DiscInput {
    public let context: UnsafeMutablePointer<AVIOContext>
    public let title: DVDTitle
    /// Every title of the disc (`probe` lists them).
    public let titles: [DVDTitle]
    private let disc: DVDDisc
    private let extents: [DiscExtent]
    /// 90 kHz ticks added to each extent's timestamps (``ProgramStreamRetimer``).
    private let shifts: [Int64]
    private let length: Int64
    private var position: Int64 = 0

    /// The title `number` (nil: the main title) of the DVD at `path`; nil when `path` is not a
    /// DVD, throws when it is one without that title.
    public static func dvd(at path: String, title number: Int?) throws(DiscError) -> DiscInput? {
        guard let disc = DVDDisc.open(path) else { return nil }
        guard let title = disc.title(number) else {
            throw DiscError("the disc has no title \(number ?? 0) (titles 1–\(disc.info.titles.count))")
        }
        let cells = disc.cellExtents(of: title)
        guard cells.contains(where: { !$0.isEmpty }) else { throw DiscError("title \(title.number) of the disc has no bytes") }
        return try DiscInput(disc: disc, title: title, cells: cells)
    }

    private init(disc: DVDDisc, title: DVDTitle, cells: [[DiscExtent]]) throws(DiscError) {
        self.disc = disc
        self.title = title
        titles = disc.info.titles
        extents = cells.flatMap { $0 }
        shifts = Self.shifts(disc: disc, title: title, cells: cells)
        length = extents.reduce(0) { $0 + $1.length }
        let size: Int32 = 64 << 10
        guard let buffer = av_malloc(Int(size)) else { throw DiscError("out of memory") }
        guard let made = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), size, 0, nil,
            { opaque, out, wanted in
                Unmanaged<DiscInput>.fromOpaque(opaque!).takeUnretainedValue().read(into: out, wanted: Int(wanted))
            }, nil,
            { opaque, offset, whence in
                Unmanaged<DiscInput>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence)
            })
        else {
            av_free(buffer)
            throw DiscError("out of memory")
        }
        context = made
        made.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        made.pointee.seekable = AVIO_SEEKABLE_NORMAL
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVIOContext>? = context
        av_freep(&ctx!.pointee.buffer)
        avio_context_free(&ctx)
    }

    private func read(into out: UnsafeMutablePointer<UInt8>?, wanted: Int) -> Int32 {
        guard let out, wanted > 0 else { return 0 }
        guard position < length else { return aether_AVERROR_EOF() }
        var start = position
        for (k, extent) in extents.enumerated() {
            if start >= extent.length {
                start -= extent.length
                continue
            }
            var bytes: [UInt8]
            if shifts[k] == 0 {
                bytes = disc.files.read(extent, at: start, count: min(wanted, 1 << 20))
            } else {
                // Whole packs, each moved, then the part asked for.
                let pack = Int64(ProgramStreamRetimer.packBytes), from = start / pack * pack, skip = Int(start - from)
                bytes = disc.files.read(extent, at: from, count: (min(wanted, 1 << 20) + skip + Int(pack) - 1) / Int(pack) * Int(pack))
                for at in stride(from: 0, to: bytes.count, by: Int(pack)) { ProgramStreamRetimer.shift(&bytes, from: at, by: shifts[k]) }
                bytes = bytes.count > skip ? Array(bytes[skip..<min(bytes.count, skip + wanted)]) : []
            }
            guard !bytes.isEmpty else { return aether_AVERROR(EIO) }
            bytes.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: bytes.count) }
            position += Int64(bytes.count)
            return Int32(bytes.count)
        }
        return aether_AVERROR_EOF()
    }

    /// Each extent's shift: a cell whose first VOBU starts more than half a second away from
    /// where the IFO's cell times put it on the title's timeline (a clock that started again)
    /// is moved there; the first cell's clock is the timeline's.
    static func shifts(disc: DVDDisc, title: DVDTitle, cells: [[DiscExtent]]) -> [Int64] {
        var out: [Int64] = []
        var base: Int64?
        var start = 0.0
        for (k, extents) in cells.enumerated() {
            var shift: Int64 = 0
            if let first = extents.first, let vobu = ProgramStreamRetimer.vobuStart(disc.files.read(first, at: 0, count: 2048)[...]) {
                let origin = base ?? vobu
                base = origin
                let wanted = origin + Int64((start * 90_000).rounded())
                if abs(wanted - vobu) > 45_000 { shift = wanted - vobu }
            }
            if shift != 0 { AppLog.write("disc", "title \(title.number), cell \(k + 1): its clock starts again; moved \(String(cFormat: "%+.3f", Double(shift) / 90_000)) s") }
            out += Array(repeating: shift, count: extents.count)
            start += title.cells.indices.contains(k) ? title.cells[k].duration : 0
        }
        return out
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return length }
        let base: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = length
        default: return -1
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0, target <= length else { return -1 }
        position = target
        return target
    }

    /// What the disc says that the stream does not, on the demuxer that read it: the title's
    /// length (the IFO's playback time), its chapters, and the languages of its audio
    /// (`0x80…`, `0x88…`, `0xA0…`, `0xC0…` private and MPEG stream ids, by stream number)
    /// and subpicture streams (`0x20…`).
    public func apply(to ctx: UnsafeMutablePointer<AVFormatContext>) {
        if title.duration > 0 { ctx.pointee.duration = Int64(title.duration * Double(AV_TIME_BASE)) }
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let stream = ctx.pointee.streams[i] else { continue }
            let id = Int(stream.pointee.id)
            let language: String?? = switch id {
            case 0x80...0x87: title.audioLanguages[safe: id - 0x80]
            case 0x88...0x8F: title.audioLanguages[safe: id - 0x88]
            case 0xA0...0xA7: title.audioLanguages[safe: id - 0xA0]
            case 0x1C0...0x1C7, 0xC0...0xC7: title.audioLanguages[safe: (id & 0xFF) - 0xC0]
            case 0x20...0x3F: title.subtitleLanguages[safe: id - 0x20]
            default: nil
            }
            if let language = language ?? nil { av_dict_set(&stream.pointee.metadata, "language", language, 0) }
        }
        guard ctx.pointee.nb_chapters == 0, title.chapters.count > 1,
              let list = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride * title.chapters.count)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else { return }
        // libavformat frees each chapter, its metadata and the array with the context. The
        // chapters are on the stream's clock: from its start.
        let origin = ctx.pointee.start_time == aether_AV_NOPTS_VALUE() ? 0 : ctx.pointee.start_time / 1000
        var made = 0
        for (n, start) in title.chapters.enumerated() {
            guard let chapter = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else { break }
            let end = n + 1 < title.chapters.count ? title.chapters[n + 1] : title.duration
            chapter.pointee.id = Int64(n + 1)
            chapter.pointee.time_base = AVRational(num: 1, den: 1000)
            chapter.pointee.start = origin + Int64((start * 1000).rounded())
            chapter.pointee.end = origin + Int64((max(start, end) * 1000).rounded())
            av_dict_set(&chapter.pointee.metadata, "title", "Chapter \(n + 1)", 0)
            list[made] = chapter
            made += 1
        }
        ctx.pointee.chapters = list
        ctx.pointee.nb_chapters = UInt32(made)
    }
}

/// Why a disc title cannot be played (one line).
public struct DiscError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
