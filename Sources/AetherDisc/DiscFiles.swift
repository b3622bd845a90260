import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// What kind of disc a folder or image holds: the directory that marks it, the file in it
/// that must be there, and the directories under it a player reads.
public enum DiscKind: Sendable, CaseIterable {
    /// `VIDEO_TS` holding `VIDEO_TS.IFO`.
    case dvd
    /// `BDMV` holding `index.bdmv`, with `PLAYLIST`, `CLIPINF` and `STREAM`.
    case bluray

    var top: String { self == .dvd ? "VIDEO_TS" : "BDMV" }
    var marker: String { self == .dvd ? "VIDEO_TS.IFO" : "INDEX.BDMV" }
    var subdirectories: [String] { self == .dvd ? [] : ["PLAYLIST", "CLIPINF", "STREAM"] }
}

/// A file system of a disc image (``ISO9660Image``, ``UDFImage``): directories by path.
public protocol DiscFileSystem: AnyObject {
    var volumeName: String { get }
    /// Records left out so far (outside the image, malformed, over a budget).
    var leftOut: Int { get }
    /// The entries of the directory at `path` (names matched without case); nil: none.
    func directory(_ path: [String]) -> [DiscEntry]?
}

/// A disc's files as a player reads them: the `VIDEO_TS` or `BDMV` directory (``DiscKind``) of
/// an image (UDF or ISO 9660) or of a folder on disk (the folder that holds it, or it itself).
/// Names are matched without case; a file of a directory under it is named `DIR/NAME`
/// (`STREAM/00001.M2TS`). A folder's files are read only if they are regular files in those
/// directories (a symbolic link, a device, anything named with a `/` is left out), so what a
/// disc names is read inside the disc. Reads go through one ``FileByteSource`` per file,
/// opened when first read.
///
/// Used from one thread at a time.
public final class DiscFiles {
    /// Which kind of disc the files are.
    public let kind: DiscKind
    /// The files (upper-case name: bytes).
    public let files: [String: [DiscExtent]]
    /// What the disc is, for a line: the image's volume name or the folder's path.
    public let label: String
    /// Directory records the image's file system left out (0 for a folder): a cut or damaged image.
    public let leftOut: Int
    private var sources: [String: FileByteSource] = [:]
    private let image: FileByteSource?

    private init(kind: DiscKind, files: [String: [DiscExtent]], label: String, image: FileByteSource?, leftOut: Int = 0) {
        self.kind = kind
        self.files = files
        self.label = label
        self.image = image
        self.leftOut = leftOut
        if let image, let first = files.values.first?.first { sources[first.file] = image }
    }

    /// Every kind of disc `path` holds (an image or a folder), a DVD's first; empty when none.
    /// An image is opened once and each of its file systems read at most once.
    public static func open(_ path: String) -> [DiscFiles] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        if info.st_mode & S_IFMT == S_IFDIR { return DiscKind.allCases.compactMap { folder(path, kind: $0) } }
        guard info.st_mode & S_IFMT == S_IFREG, let source = try? FileByteSource(path: path) else { return [] }
        lazy var udf: DiscFileSystem? = UDFImage(source: source, path: path)
        lazy var iso: DiscFileSystem? = ISO9660Image(source: source, path: path)
        var found: [DiscFiles] = []
        for kind in DiscKind.allCases {
            // A DVD's image carries both file systems, a Blu-ray's UDF alone (or ISO 9660 as written here).
            for isUDF in kind == .dvd ? [false, true] : [true, false] {
                guard let image = isUDF ? udf : iso, let dir = image.directory([kind.top]) else { continue }
                var files: [String: [DiscExtent]] = [:]
                for entry in dir where !entry.isDirectory { files[entry.name.uppercased()] = entry.extents }
                guard files[kind.marker] != nil else { continue }
                for sub in kind.subdirectories {
                    for entry in image.directory([kind.top, sub]) ?? [] where !entry.isDirectory { files[sub + "/" + entry.name.uppercased()] = entry.extents }
                }
                if image.leftOut > 0 { AppLog.write("disc", "\(TextSanitizer.clean(path)): \(image.leftOut) directory records left out") }
                found.append(DiscFiles(kind: kind, files: files, label: image.volumeName.isEmpty ? path : image.volumeName, image: source,
                                       leftOut: image.leftOut))
                break
            }
        }
        return found
    }

    /// Whether directory `path` is a disc (holds `VIDEO_TS` or `BDMV`, or is one): a playlist
    /// plays it as one item, not as its files. A few stat(2)s.
    public static func isDiscFolder(_ path: String) -> Bool {
        DiscKind.allCases.contains { kind in
            candidates(path, kind).contains { dir in
                var info = stat()
                return [kind.marker, kind.marker.lowercased()].contains { stat(dir + "/" + $0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG }
            }
        }
    }

    private static func candidates(_ path: String, _ kind: DiscKind) -> [String] {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        return [trimmed, trimmed + "/" + kind.top, trimmed + "/" + kind.top.lowercased()]
    }

    /// A folder holding the kind's directory, or that directory itself.
    private static func folder(_ path: String, kind: DiscKind) -> DiscFiles? {
        let all = candidates(path, kind)
        for candidate in all {
            var listed = list(candidate)
            guard listed[kind.marker] != nil else { continue }
            for sub in kind.subdirectories {
                var info = stat()
                // lstat: a directory that is a link is not followed out of the disc.
                guard let name = [sub, sub.lowercased()].first(where: { lstat(candidate + "/" + $0, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR }) else { continue }
                for (file, extents) in list(candidate + "/" + name) { listed[sub + "/" + file] = extents }
            }
            return DiscFiles(kind: kind, files: listed, label: all[0], image: nil)
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
        guard let extents = files[name], extents.byteCount <= Int64(limit) else { return nil }
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
