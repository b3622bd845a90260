import AetherBase
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A copy of the terminal's terminfo entry without the capabilities that let ncurses change
/// cells it did not draw text into: erases (clear to end of line, to start of line, to end of
/// screen, erase characters), scrolling (scroll regions, index, reverse index, insert and
/// delete line) and insert/delete character.
///
/// Pictures (sixel, kitty, half-block covers and previews) live in cells ncurses believes
/// blank; with those capabilities its optimiser cleared them (`CSI 1 K` next to a spectrum
/// bar) and scrolled them (`CSI 8;27 r` + reverse index when the music view's lines moved).
/// ncurses keeps its copy of the capabilities privately, so the entry is rewritten before
/// `newterm` reads it: `infocmp` prints it, the lines are filtered, `tic` compiles it into a
/// private directory that `TERMINFO` points at while `newterm` runs. The screen model owns
/// every picture cell; ncurses only rasterizes text. Clearing the whole screen stays (it is
/// always followed by a full repaint of the pictures).
package enum TextOnlyTerminfo {
    /// Capabilities removed from the entry.
    package static let removed: Set<String> = [
        "el", "el1", "ed", "ech", "csr", "ind", "indn", "ri", "rin", "il", "il1", "dl", "dl1",
        "ich", "ich1", "dch", "dch1", "smir", "rmir", "wind",
    ]

    /// The terminal type as a name tic and the file system accept, or nil.
    package static func safeName(_ term: String) -> String? {
        guard !term.isEmpty, term.utf8.count <= 64,
              term.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) || "._+-".unicodeScalars.contains($0) }),
              !term.hasPrefix("-"), !term.hasPrefix(".")
        else { return nil }
        return term
    }

    /// `source` (infocmp -1 -x output) without the removed capabilities; nil when it does not
    /// look like one entry.
    package static func filter(_ source: String) -> String? {
        var lines: [Substring] = []
        var sawName = false
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("#") || trimmed.isEmpty { continue }
            if line.first != " " && line.first != "\t" {
                // The name line (`screen-256color|GNU Screen with 256 colors,`): exactly one.
                guard !sawName else { return nil }
                sawName = true
                lines.append(line)
                continue
            }
            let name = trimmed.prefix { $0 != "=" && $0 != "#" && $0 != "," && $0 != "@" }
            if removed.contains(String(name)) { continue }
            lines.append(line)
        }
        return sawName ? lines.joined(separator: "\n") + "\n" : nil
    }

    /// Compiles the filtered entry for `term` into a new directory under `parent`; returns the
    /// directory (the caller removes it after `newterm`), or nil with the reason logged.
    package static func prepare(term: String, parent: String = Paths.temporaryDirectory(environment: ProcessInfo.processInfo.environment)) -> String? {
        guard let name = safeName(term) else {
            AppLog.write("tui", "terminfo: TERM unusable as a name, ncurses keeps its own entry")
            return nil
        }
        guard let source = run("/usr/bin/infocmp", ["-1", "-x", name], input: nil), let filtered = filter(source) else {
            AppLog.write("tui", "terminfo: no entry for the terminal from infocmp; ncurses may erase picture cells")
            return nil
        }
        var template = Array((parent.hasSuffix("/") ? parent : parent + "/").utf8CString.dropLast()) + Array("aether-terminfo-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        let directory = String(cString: made)
        guard run("/usr/bin/tic", ["-x", "-o", directory, "-"], input: filtered) != nil else {
            remove(directory)
            AppLog.write("tui", "terminfo: tic failed; ncurses may erase picture cells")
            return nil
        }
        return directory
    }

    package static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a tool with at most 1 MiB of output and 2 s; its stdout, or nil.
    private static func run(_ path: String, _ arguments: [String], input: String?) -> String? {
        guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
        guard let run = try? ChildProcess.run(path, arguments, input: input.map { Array($0.utf8) }, outputLimit: 1 << 20, timeout: 2),
              run.exitCode == 0 else { return nil }
        return String(decoding: run.output, as: UTF8.self)
    }
}
