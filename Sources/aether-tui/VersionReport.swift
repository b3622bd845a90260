import AetherBase
import AetherControl
import AetherEngine

/// `--version` (and `--version --json`), as `mpv --version` tells it: the player and the version
/// the build says (its first line is IPC's `mpv-version`; package.sh reads the package's version
/// from the JSON), the git commit it was built from, the Swift it was built with, and each
/// FFmpeg library built against and running, with a note where they differ.
enum VersionReport {

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
        var lines = [PlayerIdentity.versionLine, "git commit \(PlayerIdentity.commit)", "built with Swift \(swift)",
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
            ("name", .string(PlayerIdentity.name)), ("version", .string(PlayerIdentity.buildVersion)),
            ("commit", .string(PlayerIdentity.commit)), ("swift", .string(swift)), ("ffmpeg", .string(FFmpegVersions.release)),
            ("libraries", .array(FFmpegVersions.libraries.map { l in
                .object([("name", .string(l.name)), ("built", .string(l.builtText)), ("running", .string(l.runningText))])
            })),
        ]).serialized + "\n"
    }
}
