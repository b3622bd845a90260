import AetherBase
import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A title of a disc as a player offers it: its number (what `--edition` picks), its length,
/// its chapters (seconds from its start), the languages of its streams by the demuxer's stream
/// id (a DVD's program stream ids, a Blu-ray's PIDs), and the file that describes it (a
/// Blu-ray's playlist).
public struct DiscTitle: Sendable, Equatable {
    public let number: Int
    public let duration: Double
    public let chapters: [Double]
    public let languages: [Int: String]
    public let playlist: String?
}

/// A disc at a path, its files opened once (``DiscFiles/open(_:)``): a DVD or a Blu-ray.
public enum Disc {
    case dvd(DVDDisc)
    case bluray(BlurayDisc)

    /// The disc at `path` (an image or a folder); nil when it holds none with a title. A path
    /// that holds both kinds is the DVD when its titles can be read.
    public static func open(_ path: String) -> Disc? { (try? examine(path)) ?? nil }

    /// The disc at `path`, as ``open(_:)``; nil when it holds no disc, and throws when it holds a
    /// disc's directory with no title that plays (a cut image, its directories or title
    /// information not all there), rather than leave the file to libavformat's "End of file".
    public static func examine(_ path: String) throws(DiscError) -> Disc? {
        let found = DiscFiles.open(path)
        for files in found {
            if let disc = DVDDisc.open(files) { return .dvd(disc) }
            if let disc = BlurayDisc.open(files) { return .bluray(disc) }
        }
        guard let files = found.first else { return nil }
        let damage = files.leftOut > 0 ? " (\(files.leftOut) of its directory records cannot be read: a cut or damaged image?)" : ""
        throw DiscError("the \(files.kind == .dvd ? "DVD" : "Blu-ray") has no title that plays\(damage)")
    }
}

/// A title a disc numbers (1-based): a DVD's title, a Blu-ray playlist that is one.
public protocol NumberedTitle {
    var number: Int { get }
}

extension DVDTitle: NumberedTitle {}
extension BlurayPlaylist: NumberedTitle {}

/// A disc whose titles play (``DVDDisc``, ``BlurayDisc``): its files, its titles in the disc's
/// order and the main one, each title as a player offers it and its bytes.
public protocol PlayableDisc: AnyObject {
    associatedtype Title: NumberedTitle
    var files: DiscFiles { get }
    var titles: [Title] { get }
    var mainTitle: Title? { get }
    func discTitle(_ title: Title) -> DiscTitle
    func plan(of title: Title) -> DiscBytesPlan
}

extension PlayableDisc {
    /// Title `number` (1-based), or the main title for nil.
    public func title(_ number: Int?) -> Title? {
        guard let number else { return mainTitle }
        return titles.first { $0.number == number }
    }
}

/// A title's bytes in order: pieces (a DVD's cells, a Blu-ray play item's part of its clip),
/// each a file's bytes in one or more extents of the disc, with the 90 kHz ticks its timestamps
/// are moved by; and how they are packed (``ProgramStreamRetimer``'s 2048-byte packs or
/// ``TransportStreamRetimer``'s 192-byte source packets, counted from each piece's start, so an
/// extent of an image may end inside one).
public struct DiscBytesPlan: Sendable, Equatable {
    public enum Packing: Sendable, Equatable { case programStream, transportStream }
    public struct Piece: Sendable, Equatable {
        public let extents: [DiscExtent]
        public let shift: Int64
        /// Its bytes (``extents``' lengths, summed once: each read walks the pieces).
        public let length: Int64
        /// What it is on the disc, for a message ("clip 00002", "cell 3").
        public let name: String

        public init(extents: [DiscExtent], shift: Int64, name: String) {
            self.extents = extents
            self.shift = shift
            self.name = name
            length = extents.byteCount
        }
    }
    public let pieces: [Piece]
    public let packing: Packing
    public var extents: [DiscExtent] { pieces.flatMap(\.extents) }
    var unit: Int { packing == .programStream ? ProgramStreamRetimer.packBytes : TransportStreamRetimer.packetBytes }
}

/// A disc title as one seekable byte stream for the demuxer: an AVIOContext over the title's
/// extents in order (a DVD's cells, ``DVDDisc``; a Blu-ray playlist's clips, ``BlurayDisc``),
/// their timestamps moved onto the title's timeline, and what the disc says of it that the
/// stream does not (its length, its chapters, its streams' languages), applied to the demuxer
/// once it has read the stream (``apply(to:)``). Owns its AVIOContext (and buffer) and frees it
/// once, after the demuxer that reads it.
///
/// Used from one thread at a time (the demuxer's).
public final class DiscInput {
    public let context: UnsafeMutablePointer<AVIOContext>
    public let title: DiscTitle
    /// Every title of the disc (`probe` lists them).
    public let titles: [DiscTitle]
    private let files: DiscFiles
    private let plan: DiscBytesPlan
    private let length: Int64
    private var position: Int64 = 0
    /// Per transport-stream piece, what its PIDs' continuity counters get (``counters(_:)``).
    private var renumbering: [Int: [Int: UInt8]] = [:]
    /// Why the title's bytes ended before its length (a cut image, a file shorter than the disc
    /// says), from the first read that came back short; said once in the log.
    public private(set) var failure: String?

    /// The title `number` (nil: the main title) of the disc at `path`, a DVD or a Blu-ray (an
    /// image or a folder); nil when `path` is neither, throws when it is one without that title.
    public static func open(_ path: String, title number: Int?) throws(DiscError) -> DiscInput? {
        switch try Disc.examine(path) {
        case .dvd(let disc): try DiscInput(disc, title: number)
        case .bluray(let disc): try DiscInput(disc, title: number)
        case nil: nil
        }
    }

    private convenience init<D: PlayableDisc>(_ disc: D, title number: Int?) throws(DiscError) {
        guard let title = disc.title(number) else {
            throw DiscError("the disc has no title \(number ?? 0) (titles 1–\(disc.titles.count))")
        }
        try self.init(files: disc.files, title: disc.discTitle(title), titles: disc.titles.map(disc.discTitle), plan: disc.plan(of: title))
    }

    private init(files: DiscFiles, title: DiscTitle, titles: [DiscTitle], plan: DiscBytesPlan) throws(DiscError) {
        guard plan.extents.contains(where: { $0.length > 0 }) else { throw DiscError("title \(title.number) of the disc has no bytes") }
        self.files = files
        self.title = title
        self.titles = titles
        self.plan = plan
        length = plan.pieces.reduce(0) { $0 + $1.length }
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
        for (k, piece) in plan.pieces.enumerated() {
            let size = piece.length
            if start >= size {
                start -= size
                continue
            }
            var bytes: [UInt8]
            let counters = counters(k)
            // A program stream is read a pack at a time: its navigation packets are hidden.
            if piece.shift == 0, counters.isEmpty, plan.packing != .programStream {
                bytes = read(piece, at: start, count: min(wanted, 1 << 20), wholeOnly: false)
            } else {
                // Whole packs or packets from the piece's start, each moved (and a pack's navigation
                // hidden), then the part asked for.
                let unit = plan.unit, from = start / Int64(unit) * Int64(unit), skip = Int(start - from)
                bytes = read(piece, at: from, count: (min(wanted, 1 << 20) + skip + unit - 1) / unit * unit, wholeOnly: true)
                for at in stride(from: 0, to: bytes.count, by: unit) {
                    if plan.packing == .programStream {
                        ProgramStreamRetimer.shift(&bytes, from: at, by: piece.shift)
                        ProgramStreamRetimer.hideNavigation(&bytes, from: at)
                    } else {
                        TransportStreamRetimer.shift(&bytes, from: at, by: piece.shift)
                        TransportStreamRetimer.renumber(&bytes, from: at, by: counters)
                    }
                }
                bytes = bytes.count > skip ? Array(bytes[skip..<min(bytes.count, skip + wanted)]) : []
            }
            guard !bytes.isEmpty else {
                if failure == nil {
                    let why = "the disc ends inside \(TextSanitizer.clean(piece.name)) of title \(title.number): \(ByteSize.describe(start)) of its \(ByteSize.describe(size)) could be read"
                    failure = why
                    AppLog.write("disc", why)
                }
                return aether_AVERROR(EIO)
            }
            bytes.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: bytes.count) }
            position += Int64(bytes.count)
            return Int32(bytes.count)
        }
        return aether_AVERROR_EOF()
    }

    /// What piece `k` of a transport stream adds to its PIDs' continuity counters so that they
    /// follow on from the piece before (its last 64 KiB against this one's first), worked out
    /// once, the pieces before it first.
    private func counters(_ k: Int) -> [Int: UInt8] {
        guard plan.packing == .transportStream, k > 0, plan.pieces.indices.contains(k) else { return [:] }
        if let known = renumbering[k] { return known }
        let before = counters(k - 1)
        let unit = Int64(TransportStreamRetimer.packetBytes), window = Int64(64 << 10) / unit * unit
        let previous = plan.pieces[k - 1]
        let from = max(0, previous.length - window) / unit * unit
        let tail = TransportStreamRetimer.continuity(read(previous, at: from, count: Int(previous.length - from), wholeOnly: true)).last
        let head = TransportStreamRetimer.continuity(read(plan.pieces[k], at: 0, count: Int(window), wholeOnly: true)).first
        let made = TransportStreamRetimer.deltas(last: tail, before: before, first: head)
        renumbering[k] = made
        return made
    }

    /// Up to `count` bytes at `offset` of `piece`: from its extent there to that extent's end,
    /// or (`wholeOnly`) across its extents, so that a pack or packet an extent cuts is whole.
    private func read(_ piece: DiscBytesPlan.Piece, at offset: Int64, count: Int, wholeOnly: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var at = offset
        for extent in piece.extents where out.count < count {
            if at >= extent.length {
                at -= extent.length
                continue
            }
            let want = Int(min(Int64(count - out.count), extent.length - at))
            let got = files.read(extent, at: at, count: want)
            out += got
            // A short read (an error), or no need to go on into the next extent.
            guard wholeOnly, got.count == want else { break }
            at = 0
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
    /// length, its chapters and its streams' languages (by stream id).
    public func apply(to ctx: UnsafeMutablePointer<AVFormatContext>) {
        if title.duration > 0 { ctx.pointee.duration = Int64(title.duration * Double(AV_TIME_BASE)) }
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let stream = ctx.pointee.streams[i], let language = title.languages[Int(stream.pointee.id)] else { continue }
            av_dict_set(&stream.pointee.metadata, "language", language, 0)
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
