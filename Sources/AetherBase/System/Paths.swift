#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// File paths as strings, the way NSString's path methods treat them (the subset the program
/// uses), without Foundation: `/`-separated, repeated slashes read as one, trailing ones ignored.
public enum Paths {
    /// `~/…` under `$HOME` (mpv's rule for paths in options and config); any other path as it is.
    public static func expandingTilde(_ path: String, environment: [String: String]) -> String {
        guard path.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty else { return path }
        return home + path.dropFirst()
    }

    /// `base` + `/` + `component` (one slash between; `component` alone when `base` is empty).
    public static func join(_ base: String, _ component: String) -> String {
        guard !base.isEmpty else { return collapsed(component) }
        guard !component.isEmpty else { return collapsed(base) }
        let joined = collapsed(base + "/" + component)
        return joined == "/" ? joined : trimmingTrailingSlashes(joined)
    }

    /// The last component (`/a/b.mkv` → `b.mkv`; `/a/b/` → `b`; `/` → `/`).
    public static func lastComponent(_ path: String) -> String {
        let bytes = path.utf8, slash = UInt8(ascii: "/")
        guard let end = bytes.lastIndex(where: { $0 != slash }) else { return path.isEmpty ? "" : "/" }
        let start = bytes[..<end].lastIndex(of: slash).map { bytes.index(after: $0) } ?? bytes.startIndex
        // (Cut at ASCII slashes: whole scalars.)
        return String(decoding: bytes[start...end], as: UTF8.self)
    }

    /// The path without its last component (`/a/b.mkv` → `/a`; `b.mkv` → ``; `/a` → `/`).
    public static func deletingLastComponent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return path.hasPrefix("/") ? "/" : "" }
        let head = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return head.isEmpty ? "/" : head
    }

    /// The extension of the last component without the dot (`b.tar.gz` → `gz`; `.profile` → ``).
    public static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The path without the last component's extension (`/a/b.mkv` → `/a/b`).
    public static func deletingPathExtension(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard !trimmed.isEmpty else { return path.isEmpty ? "" : "/" }
        let ext = pathExtension(path)
        return ext.isEmpty ? trimmed : String(trimmed.dropLast(ext.count + 1))
    }

    /// `HOME`, else the user's entry in the password database, else `/`.
    public static func home(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// `$XDG_CACHE_HOME` (an absolute path only, as the XDG rule says), else `~/.cache`.
    public static func cacheHome(environment: [String: String]) -> String {
        environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? join(home(environment: environment), ".cache")
    }

    /// The directory for temporary files, with a trailing slash: `TMPDIR`, else `/tmp/`.
    public static func temporaryDirectory(environment: [String: String]) -> String {
        let dir = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return dir.hasSuffix("/") ? dir : dir + "/"
    }

    /// `path` with `.` components and empty ones gone and `..` taken back lexically (no
    /// symbolic links followed), as NSString's `standardizingPath` does for an absolute path.
    public static func standardize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if let last = parts.last, last != ".." { parts.removeLast() } else if !absolute { parts.append(part) }
            default: parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// Runs of slashes as one (`http://h/x` → `http:/h/x`, as NSString's path methods made it).
    /// Runs of slashes made one (the bytes the kernel reads: a slash is the byte 0x2F).
    static func collapsed(_ path: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        var slash = false
        for b in path.utf8 {
            if b == UInt8(ascii: "/") {
                if slash { continue }
                slash = true
            } else {
                slash = false
            }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var p = Array(collapsed(path).utf8)
        while p.count > 1, p.last == UInt8(ascii: "/") { p.removeLast() }
        return p == [UInt8(ascii: "/")] ? "" : String(decoding: p, as: UTF8.self)
    }
}
