import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// File names for stills, mpv-like: `aether-tui-<name>-<time>.png`, where `<name>` is the
/// source's file name without its extension (sanitised: no control characters, no path
/// separators) and `<time>` the media time as `HH-MM-SS.mmm` (colons trouble some file systems).
public enum StillFileName {
    public static func make(source: String, seconds: Double, extension ext: String = "png") -> String {
        let last = URL(string: source)?.scheme.map { _ in URL(string: source)?.lastPathComponent ?? source }
            ?? Paths.lastComponent(source)
        var name = TextSanitizer.clean(Paths.deletingPathExtension(last))
            .replacingAll("/", with: "_")
            .replacingAll(" ", with: "_")
        if name.isEmpty || name == "." || name == ".." { name = "still" }
        return "aether-tui-\(String(name.prefix(120)))-\(time(seconds)).\(ext)"
    }

    static func time(_ seconds: Double) -> String {
        let ms = Int(saturating: ((seconds.isFinite ? max(0, seconds) : 0) * 1000).rounded())
        return String(cFormat: "%02d-%02d-%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
