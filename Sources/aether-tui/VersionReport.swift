import AetherBase
import AetherControl
import AetherEngine

/// `--version` (and `--version --json`), as `mpv --version` tells it: the player and its
/// version, the git commit it was built from (``BuildCommit``, written at build time), the Swift
/// it was built with, and each FFmpeg library built against and running, with a note where they
/// differ.
enum VersionReport {
    /// The release (``PlayerIdentity/version``, its one home) and, for a build of a commit that
    /// is not its tag, the snapshot's suffix (`0.1.0+git20261127.6f7bfa9`): what the package's
    /// version and its changelog are made of (package.sh reads it from `--version --json`).
    static var version: String { PlayerIdentity.version + BuildCommit.versionSuffix }

    /// The Swift compiler that built the player (to the minor version: that is what a compiler
    /// check can tell).
    static var swift: String {
        #if compiler(>=6.4)
        return "6.4 or later"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }

    static var text: String {
        var lines = ["\(PlayerIdentity.name) \(version)", "git commit \(BuildCommit.id)", "built with Swift \(swift)",
                     "FFmpeg \(TextSanitizer.clean(FFmpegVersions.release))"]
        for library in FFmpegVersions.libraries {
            var line = "  \(library.name) \(library.runningText)"
            if library.built != library.running { line += " (built against \(library.builtText))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static var json: String {
        JSONValue.object([
            ("name", .string(PlayerIdentity.name)), ("version", .string(version)),
            ("commit", .string(BuildCommit.id)), ("swift", .string(swift)), ("ffmpeg", .string(FFmpegVersions.release)),
            ("libraries", .array(FFmpegVersions.libraries.map { l in
                .object([("name", .string(l.name)), ("built", .string(l.builtText)), ("running", .string(l.runningText))])
            })),
        ]).serialized + "\n"
    }
}
