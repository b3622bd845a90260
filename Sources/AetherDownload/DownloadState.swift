import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The journal of a download in progress (`PATH.part/state`): which segments are on disk, with
/// their size and SHA-256, for the plan it was written for. Text, one record a line, appended
/// as each segment lands (a run killed mid-write leaves at most a torn last line, ignored):
///
///     aether-tui download state 1
///     plan <sha-256 of the plan, hex>
///     done <track> <segment> <bytes> <sha-256 hex>      (segment -1: the init section)
///
/// It lives on disk between runs, so it is outside input: ``parse(_:plan:)`` refuses a journal
/// whose header, plan or any line is not exactly this shape, names a track or segment the plan
/// lacks, repeats one, or is larger than ``maxBytes``; the downloader then starts over. Each
/// entry is checked against its file again before it is trusted (``PartDirectory``).
public struct DownloadState: Sendable, Equatable {
    public struct Entry: Sendable, Equatable, Hashable {
        public var track: Int
        public var segment: Int
        public var bytes: Int
        public var sha256: String
    }

    public static let header = "aether-tui download state 1"
    /// Largest journal read (a 100 000-segment plan's is about 9 MiB).
    public static let maxBytes = 32 << 20
    /// Largest segment accepted (held in memory to decrypt and checksum).
    public static let maxSegmentBytes = 1 << 30

    /// Entries by (track, segment).
    public var done: [Key: Entry] = [:]

    public struct Key: Hashable, Sendable {
        public var track: Int
        public var segment: Int
    }

    public init() {}

    /// Reads a journal for `plan` (its ``DownloadPlan/fingerprint(format:)`` is `fingerprint`).
    public static func parse(_ bytes: [UInt8], plan: DownloadPlan, fingerprint: String) throws(DownloadError) -> DownloadState {
        guard bytes.count <= maxBytes else { throw DownloadError("the state journal is larger than \(maxBytes >> 20) MiB") }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The last line without its newline is a write cut short: not trusted, not an error.
        lines.removeLast()
        guard lines.count >= 2, String(decoding: lines[0], as: UTF8.self) == header else {
            throw DownloadError("the state journal has no valid header")
        }
        guard String(decoding: lines[1], as: UTF8.self) == "plan \(fingerprint)" else {
            throw DownloadError("the state journal was written for another download")
        }
        var state = DownloadState()
        for raw in lines.dropFirst(2) {
            let fields = raw.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 5, fields[0] == "done",
                  let track = strictInt(fields[1]), plan.tracks.indices.contains(track),
                  let segment = strictInt(fields[2]), (-1..<plan.tracks[track].segments.count).contains(segment),
                  segment >= 0 || plan.tracks[track].initSection != nil,
                  let size = strictInt(fields[3]), (0...maxSegmentBytes).contains(size),
                  isDigest(fields[4])
            else { throw DownloadError("the state journal has a malformed line") }
            let key = Key(track: track, segment: segment)
            guard state.done[key] == nil else { throw DownloadError("the state journal lists a segment twice") }
            state.done[key] = Entry(track: track, segment: segment, bytes: size, sha256: fields[4])
        }
        return state
    }

    /// A decimal without sign, leading zeros (but `0`) or anything else; `-1` alone too.
    static func strictInt(_ text: String) -> Int? {
        if text == "-1" { return -1 }
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              text == "0" || text.first != "0" else { return nil }
        return Int(text)
    }

    package static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static func line(_ e: Entry) -> String { "done \(e.track) \(e.segment) \(e.bytes) \(e.sha256)\n" }
}

/// The directory beside the output that holds a download's segments and journal
/// (`PATH.part/`). Every name in it is made here from numbers (`t0-17.seg`, `t2-init.seg`,
/// `state`): nothing from a playlist becomes a path. Files are created with `O_EXCL|O_NOFOLLOW`
/// under a temporary name and renamed into place, and read with `O_NOFOLLOW`: a symbolic link
/// planted in the directory is never followed. The directory itself must be a real directory
/// (not a link) owned by us.
final class PartDirectory {
    let path: String
    private var journal: Int32 = -1
    /// The directory, open and locked (`flock`) while this download uses it.
    private var lock: Int32 = -1

    init(output: String) {
        path = output + ".part"
    }

    deinit {
        if journal >= 0 { close(journal) }
        if lock >= 0 { close(lock) }
    }

    var journalPath: String { path + "/state" }

    func segmentPath(track: Int, segment: Int) -> String {
        path + "/t\(track)-\(segment < 0 ? "init" : String(segment)).seg"
    }

    /// Makes sure the directory exists and is ours: a real directory, not a symbolic link.
    /// An existing directory without a journal must be empty (it is not ours otherwise). Locks
    /// it: a second download into the same output at the same time is refused.
    func prepare() throws(DownloadError) {
        var st = stat()
        if lstat(path, &st) != 0 {
            guard mkdir(path, 0o700) == 0 else { throw DownloadError("cannot create '\(TextSanitizer.clean(path))': \(String(cString: strerror(errno)))") }
            try takeLock()
            return
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw DownloadError("'\(TextSanitizer.clean(path))' exists and is not a directory (a link or a file): remove it or choose another -o")
        }
        guard st.st_uid == getuid() else { throw DownloadError("'\(TextSanitizer.clean(path))' belongs to another user") }
        var journalStat = stat()
        if lstat(journalPath, &journalStat) != 0 {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard entries.isEmpty else {
                throw DownloadError("'\(TextSanitizer.clean(path))' exists and holds no download state: remove it or choose another -o")
            }
        }
        try takeLock()
    }

    private func takeLock() throws(DownloadError) {
        lock = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard lock >= 0 else { throw DownloadError("cannot open '\(TextSanitizer.clean(path))': \(String(cString: strerror(errno)))") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            throw DownloadError("another download is writing '\(TextSanitizer.clean(path))'")
        }
    }

    /// The journal's bytes, nil when there is none (or it is not a regular file).
    func readJournal() -> [UInt8]? { readFile(journalPath, limit: DownloadState.maxBytes) }

    /// Empties the directory (a journal refused or for another plan): removes every entry.
    func reset() throws(DownloadError) {
        if journal >= 0 { close(journal); journal = -1 }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in entries {
            // unlink removes a symbolic link itself, never what it points at; a directory goes whole.
            let target = path + "/" + name
            if unlink(target) == 0 || errno == ENOENT { continue }
            let why = String(cString: strerror(errno))
            if errno == EISDIR, (try? FileManager.default.removeItem(atPath: target)) != nil { continue }
            throw DownloadError("cannot clear '\(TextSanitizer.clean(path))': \(why)")
        }
    }

    /// Starts a new journal for `fingerprint` holding `entries` (those checked good).
    func startJournal(fingerprint: String, entries: [DownloadState.Entry]) throws(DownloadError) {
        var text = DownloadState.header + "\nplan \(fingerprint)\n"
        for e in entries.sorted(by: { ($0.track, $0.segment) < ($1.track, $1.segment) }) { text += DownloadState.line(e) }
        try writeAtomically(journalPath, Array(text.utf8))
        if journal >= 0 { close(journal) }
        journal = open(journalPath, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard journal >= 0 else { throw DownloadError("cannot open the state journal: \(String(cString: strerror(errno)))") }
    }

    /// Appends one finished segment to the journal (after its file is in place).
    func record(_ entry: DownloadState.Entry) throws(DownloadError) {
        let bytes = Array(DownloadState.line(entry).utf8)
        let written = bytes.withUnsafeBytes { write(journal, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw DownloadError("cannot write the state journal: \(String(cString: strerror(errno)))") }
    }

    /// Whether the file for `entry` is a regular file of its size and checksum.
    func verify(_ entry: DownloadState.Entry) -> Bool {
        guard let data = readFile(segmentPath(track: entry.track, segment: entry.segment), limit: DownloadState.maxSegmentBytes),
              data.count == entry.bytes else { return false }
        return HexText.string(SHA256.digest(data)) == entry.sha256
    }

    /// Writes a segment's file; returns its journal entry.
    func store(track: Int, segment: Int, _ data: [UInt8]) throws(DownloadError) -> DownloadState.Entry {
        try writeAtomically(segmentPath(track: track, segment: segment), data)
        return DownloadState.Entry(track: track, segment: segment, bytes: data.count, sha256: HexText.string(SHA256.digest(data)))
    }

    /// Removes the directory after the output is in place.
    func remove() {
        if journal >= 0 { close(journal); journal = -1 }
        try? FileManager.default.removeItem(atPath: path)
        if lock >= 0 { close(lock); lock = -1 }
    }

    /// `name` written as `name.tmp` (created fresh, never through a link) then renamed over it.
    func writeAtomically(_ name: String, _ data: [UInt8]) throws(DownloadError) {
        let tmp = name + ".tmp"
        unlink(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DownloadError("cannot write '\(TextSanitizer.clean(tmp))': \(String(cString: strerror(errno)))") }
        guard FileBytes.writeAll(data, to: fd) else {
            let why = String(cString: strerror(errno))
            close(fd)
            unlink(tmp)
            throw DownloadError("cannot write '\(TextSanitizer.clean(tmp))': \(why)")
        }
        close(fd)
        guard rename(tmp, name) == 0 else { throw DownloadError("cannot rename '\(TextSanitizer.clean(tmp))': \(String(cString: strerror(errno)))") }
    }

    /// A regular file's bytes (never through a link), nil when it is missing, not a regular file
    /// or larger than `limit`.
    func readFile(_ name: String, limit: Int) -> [UInt8]? {
        try? FileBytes.read(path: name, limit: limit, followLinks: false, regularOnly: true).get()
    }
}
