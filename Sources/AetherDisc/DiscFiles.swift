import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// A disc's files as a player reads them: the `VIDEO_TS` directory of an ISO 9660 image, or of a
/// folder on disk (the folder that holds `VIDEO_TS`, or `VIDEO_TS` itself). Names are matched
/// without case. A folder's files are read only if they are regular files in that directory
/// (a symbolic link, a device, anything named with a `/` is left out), so what a disc names is
/// read inside the disc. Reads go through one ``FileByteSource`` per file, opened when first read.
///
/// Used from one thread at a time.
public final class DiscFiles {
    /// The directory's files (upper-case name: bytes).
    public let files: [String: [DiscExtent]]
    /// What the disc is, for a line: the image's volume name or the folder's path.
    public let label: String
    private var sources: [String: FileByteSource] = [:]
    private let image: FileByteSource?

    private init(files: [String: [DiscExtent]], label: String, image: FileByteSource?) {
        self.files = files
        self.label = label
        self.image = image
        if let image, let first = files.values.first?.first { sources[first.file] = image }
    }

    /// The disc at `path` (an image or a folder), nil when it holds no `VIDEO_TS` directory.
    public static func dvd(at path: String) -> DiscFiles? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFDIR { return folder(path) }
        guard info.st_mode & S_IFMT == S_IFREG, let source = try? FileByteSource(path: path),
              let iso = ISO9660Image(source: source, path: path), let dir = iso.directory(["VIDEO_TS"]) else { return nil }
        var files: [String: [DiscExtent]] = [:]
        for entry in dir where !entry.isDirectory { files[entry.name.uppercased()] = entry.extents }
        guard files["VIDEO_TS.IFO"] != nil else { return nil }
        if iso.leftOut > 0 { AppLog.write("disc", "\(TextSanitizer.clean(path)): \(iso.leftOut) directory records left out") }
        return DiscFiles(files: files, label: iso.volumeName.isEmpty ? path : iso.volumeName, image: source)
    }

    /// Whether directory `path` is a DVD (holds `VIDEO_TS`, or is it): a playlist plays it as
    /// one item, not as its files. A few stat(2)s.
    public static func isDVDFolder(_ path: String) -> Bool {
        candidates(path).contains { dir in
            var info = stat()
            return ["VIDEO_TS.IFO", "video_ts.ifo"].contains { stat(dir + "/" + $0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG }
        }
    }

    private static func candidates(_ path: String) -> [String] {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        return [trimmed, trimmed + "/VIDEO_TS", trimmed + "/video_ts"]
    }

    /// A folder holding `VIDEO_TS`, or `VIDEO_TS` itself (it holds `VIDEO_TS.IFO`).
    private static func folder(_ path: String) -> DiscFiles? {
        let all = candidates(path)
        for candidate in all {
            let listed = list(candidate)
            guard listed["VIDEO_TS.IFO"] != nil else { continue }
            return DiscFiles(files: listed, label: all[0], image: nil)
        }
        return nil
    }

    /// The regular files of directory `dir` (at most ``ISO9660Image/maxEntries``), by upper-case name.
    private static func list(_ dir: String) -> [String: [DiscExtent]] {
        guard let handle = opendir(dir) else { return [:] }
        defer { closedir(handle) }
        var out: [String: [DiscExtent]] = [:]
        var seen = 0
        while let entry = readdir(handle), seen < ISO9660Image.maxEntries {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != "..", !name.contains("/"), TextSanitizer.clean(name) == name else { continue }
            var info = stat()
            let full = dir + "/" + name
            // lstat: a symbolic link is not followed out of the disc.
            guard lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            out[name.uppercased()] = [DiscExtent(file: full, offset: 0, length: Int64(info.st_size))]
        }
        return out
    }

    /// The whole file `name` (upper case), nil when it is missing, longer than `limit` or
    /// cannot be read whole.
    public func read(_ name: String, limit: Int) -> [UInt8]? {
        guard let extents = files[name], extents.reduce(0, { $0 + $1.length }) <= Int64(limit) else { return nil }
        var out: [UInt8] = []
        for extent in extents {
            let bytes = read(extent, at: 0, count: Int(extent.length))
            guard bytes.count == Int(extent.length) else { return nil }
            out += bytes
        }
        return out
    }

    /// Up to `count` bytes at `offset` of `extent` (fewer at its end or on a read error).
    public func read(_ extent: DiscExtent, at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < extent.length, count > 0, let source = source(extent.file) else { return [] }
        return source.read(at: extent.offset + offset, count: Int(min(Int64(count), extent.length - offset)))
    }

    private func source(_ file: String) -> FileByteSource? {
        if let open = sources[file] { return open }
        // A folder's file: not through a link (listed by lstat; this open checks it again).
        guard let made = try? FileByteSource(path: file, followLinks: image != nil) else { return nil }
        sources[file] = made
        return made
    }
}
